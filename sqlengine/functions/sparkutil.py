"""Small Spark expression helpers shared by the function modules.

Time values are Spark ``TIMESTAMP``s with the session time zone pinned to UTC: a
Flink ``TIMESTAMP`` wall-clock value is stored as that UTC instant, and a
``TIMESTAMP_LTZ`` is the real instant, shown in ``table.local-time-zone``. The helpers
here convert between the two views and apply Flink's fractional-second precision.
"""
from __future__ import annotations

import functools
from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.types import DataType

MILLIS_PER_DAY = 86_400_000
INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1
LONG_MIN = -(2 ** 63)


def null_of(t: DataType) -> Column:
    """A typed NULL literal."""
    return F.lit(None).cast(t.to_spark())


def is_utc(tz: str) -> bool:
    return tz.upper() in ("UTC", "Z", "GMT", "UTC+0", "GMT+0", "+00:00", "ETC/UTC")


def to_wall_clock(col: Column, t: DataType, tz: str) -> Column:
    """The wall-clock view (UTC-pinned Spark timestamp) of a TIMESTAMP/LTZ value."""
    if t.root == "TIMESTAMP_LTZ" and not is_utc(tz):
        return F.from_utc_timestamp(col, tz)
    return col


def from_wall_clock(col: Column, tz: str) -> Column:
    """The instant whose wall clock in ``tz`` is ``col`` (for TIMESTAMP_LTZ results)."""
    return col if is_utc(tz) else F.to_utc_timestamp(col, tz)


def truncate_precision(col: Column, precision: int) -> Column:
    """Drop fractional digits beyond ``precision`` (Spark keeps microseconds)."""
    if precision >= 6:
        return col
    if precision == 3:
        return F.timestamp_millis(F.unix_millis(col))
    if precision == 0:
        return F.timestamp_seconds(F.unix_seconds(col))
    micros = F.unix_micros(col)
    return F.timestamp_micros(micros - F.pmod(micros, F.lit(10 ** (6 - precision))))


def add_millis(col: Column, millis: Column) -> Column:
    """Instant arithmetic: ``col`` plus a BIGINT number of milliseconds."""
    return F.timestamp_micros(F.unix_micros(col) + millis.cast("long") * F.lit(1000))


def millis_of_day(ts: Column) -> Column:
    return F.pmod(F.unix_millis(ts), F.lit(MILLIS_PER_DAY)).cast("int")


def time_to_timestamp(ms: Column) -> Column:
    """TIME (milliseconds of the day) as a timestamp on 1970-01-01."""
    return F.timestamp_millis(ms.cast("long"))


def idiv(a: Column, b: Column) -> Column:
    """Java integral division (truncates toward zero); NULL when b = 0."""
    return F.call_function("div", a, b)


def lit_of(value: Any, t: DataType) -> Column:
    return F.lit(value).cast(t.to_spark())


def any_null(cols: list[Column]) -> Column:
    cond = cols[0].isNull()
    for c in cols[1:]:
        cond = cond | c.isNull()
    return cond


def java_string_literal(s: str) -> str:
    """Escape a Python string for use inside a Java regex replacement (literal text)."""
    return s.replace("\\", "\\\\").replace("$", "\\$")


def driver_jvm():
    """The driver JVM's Py4J view, or None before a SparkContext runs (planning-time
    questions only Java can answer: is this a valid regex, a valid format)."""
    from pyspark import SparkContext
    sc = SparkContext._active_spark_context
    return None if sc is None else sc._jvm


@functools.lru_cache(maxsize=1024)
def java_regex_groups(pattern: str) -> Optional[int]:
    """The capturing groups of ``pattern`` as Java's regex (which Spark runs) compiles it;
    None when it does not compile. Asked of the driver's JVM at planning time."""
    jvm = driver_jvm()
    if jvm is None:
        import re
        try:
            return re.compile(pattern).groups
        except re.error:
            return None
    try:
        return jvm.java.util.regex.Pattern.compile(pattern).matcher("").groupCount()
    except Exception:  # noqa: BLE001 - Py4JJavaError: PatternSyntaxException
        return None
