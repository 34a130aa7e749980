"""CAST and TRY_CAST with Flink's semantics, lowered to native Spark expressions.

Spark's non-ANSI ``cast`` already behaves like Flink's TRY_CAST for most pairs
(strings are trimmed, '2.5' -> INT 2, overflow -> NULL, DOUBLE -> DECIMAL rounds
HALF_UP, DOUBLE -> STRING prints like Java). Where Flink differs the rules below
take over: BOOLEAN prints as TRUE/FALSE, TIMESTAMP(p) prints exactly p fractional
digits, TIMESTAMP <-> TIMESTAMP_LTZ go through ``table.local-time-zone``, TIME is
milliseconds of the day, and VARCHAR(n)/CHAR(n) targets truncate/pad.

A failing (unsafe) CAST fails the job in Flink. We do the same natively: when the
input is not NULL but the conversion produced NULL, ``raise_error`` throws.
"""
from __future__ import annotations

from typing import Callable, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.types import MAX_VARCHAR, DataType

from .base import LowerContext
from .sparkutil import (MILLIS_PER_DAY, from_wall_clock, millis_of_day, null_of,
                        time_to_timestamp, to_wall_clock, truncate_precision)

_STRINGS = ("CHAR", "VARCHAR")
_BINARIES = ("BINARY", "VARBINARY")
_INTS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_NUMERIC = _INTS + ("DECIMAL", "FLOAT", "DOUBLE")
_TIMESTAMPS = ("TIMESTAMP", "TIMESTAMP_LTZ")
_DATETIME = _TIMESTAMPS + ("DATE", "TIME")
_INTERVALS = ("INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH")
_PREDEFINED = _STRINGS + _BINARIES + _NUMERIC + _DATETIME + _INTERVALS + ("BOOLEAN",)
_CONSTRUCTED = ("ROW", "ARRAY", "MAP", "MULTISET")

# Flink's LogicalTypeCasts: target root -> source roots allowed by an explicit CAST.
_EXPLICIT: dict[str, tuple[str, ...]] = {
    "CHAR": _PREDEFINED,
    "VARCHAR": _PREDEFINED,
    "BOOLEAN": ("BOOLEAN",) + _STRINGS + _NUMERIC,
    "BINARY": _STRINGS + _BINARIES,
    "VARBINARY": _STRINGS + _BINARIES,
    "DECIMAL": _NUMERIC + _STRINGS + _INTERVALS + ("BOOLEAN",) + _TIMESTAMPS,
    "TINYINT": _NUMERIC + _STRINGS + _INTERVALS + ("BOOLEAN",) + _TIMESTAMPS,
    "SMALLINT": _NUMERIC + _STRINGS + _INTERVALS + ("BOOLEAN",) + _TIMESTAMPS,
    "INT": _NUMERIC + _STRINGS + _INTERVALS + ("BOOLEAN",) + _TIMESTAMPS,
    "BIGINT": _NUMERIC + _STRINGS + _INTERVALS + ("BOOLEAN",) + _TIMESTAMPS,
    "FLOAT": _NUMERIC + _STRINGS + ("BOOLEAN",) + _TIMESTAMPS,
    "DOUBLE": _NUMERIC + _STRINGS + ("BOOLEAN",) + _TIMESTAMPS,
    "DATE": ("DATE",) + _TIMESTAMPS + _STRINGS + _BINARIES,
    "TIME": ("TIME",) + _TIMESTAMPS + _STRINGS + _BINARIES,
    "TIMESTAMP": _DATETIME + _STRINGS + _BINARIES,
    "TIMESTAMP_LTZ": _DATETIME + _STRINGS + _BINARIES,
    "INTERVAL_YEAR_MONTH": ("INTERVAL_YEAR_MONTH",) + _INTS + ("DECIMAL",) + _STRINGS,
    "INTERVAL_DAY_TIME": ("INTERVAL_DAY_TIME",) + _INTS + ("DECIMAL",) + _STRINGS,
}


def cast_error(src: DataType, dst: DataType) -> Optional[str]:
    """Flink's planning-time message for an illegal explicit CAST, or None if legal."""
    if src.root == "NULL" or src.sql(False) == dst.sql(False):
        return None
    if src.root in _NUMERIC and dst.root == "TIMESTAMP":
        return ("The cast conversion from NUMERIC type to TIMESTAMP type is not allowed, it's "
                "recommended to use TO_TIMESTAMP(FROM_UNIXTIME(numeric_col)) instead, note the "
                "numeric is in seconds.")
    if src.root in _NUMERIC and dst.root == "TIMESTAMP_LTZ":
        return ("The cast conversion from NUMERIC type to TIMESTAMP_LTZ type is not allowed, "
                "it's recommended to use TO_TIMESTAMP_LTZ(numeric_col, precision) instead.")
    if _legal(src, dst):
        return None
    return f"Cast function cannot convert value of type {src.sql(False)} to type {dst.sql(False)}"


def cast_allowed(src: DataType, dst: DataType) -> bool:
    """Whether ``CAST(src AS dst)`` passes Flink's planner (explicit cast rules)."""
    return cast_error(src, dst) is None


def _legal(src: DataType, dst: DataType) -> bool:
    if src.root == "NULL" or src.root == dst.root and src.root not in _CONSTRUCTED:
        return True
    if src.root in _CONSTRUCTED or dst.root in _CONSTRUCTED:
        if dst.root in _STRINGS:
            return True
        return src.root == dst.root and _children_legal(src, dst)
    return src.root in _EXPLICIT.get(dst.root, ())


def _children_legal(src: DataType, dst: DataType) -> bool:
    if src.root == "ROW":
        return len(src.fields) == len(dst.fields) and all(
            _legal(a.type, b.type) for a, b in zip(src.fields, dst.fields))
    if src.root in ("ARRAY", "MULTISET"):
        return _legal(src.element, dst.element)
    return _legal(src.key, dst.key) and _legal(src.value, dst.value)


# -- lowering -------------------------------------------------------------------
def lower_cast(col: Column, src: DataType, dst: DataType, safe: bool,
               ctx: LowerContext) -> Column:
    """CAST (``safe=False``: a failed conversion raises at runtime) or TRY_CAST."""
    if src.root == "NULL":
        return null_of(dst)
    out = _convert(col, src, dst, ctx)
    if not safe and _may_fail(src, dst):
        message = F.concat(F.lit(f"Cast function cannot convert value '"),
                           col.cast("string"), F.lit(f"' of type {src.sql(False)} to type "
                                                     f"{dst.sql(False)}."))
        out = F.when(col.isNotNull() & out.isNull(),
                     F.raise_error(message).cast(dst.to_spark())).otherwise(out)
    return out


def coerce(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    """Implicit conversion of a value of ``src`` to ``dst`` (no-op when equal in Spark)."""
    if src.root == "NULL":
        return null_of(dst)
    if src.sql(False) == dst.sql(False):
        return col
    if src.root == dst.root and src.root in _TIMESTAMPS:
        narrower = (dst.precision if dst.precision is not None else 6) < (src.precision or 0)
        return truncate_precision(col, dst.precision) if narrower else col
    if src.root == dst.root and src.root not in ("DECIMAL",) + _CONSTRUCTED:
        return col
    if src.is_string and dst.is_string:
        return col
    if src.to_spark() == dst.to_spark() and {src.root, dst.root} != set(_TIMESTAMPS) \
            and not (src.root == "TIME" or dst.root == "TIME") and src.root not in _CONSTRUCTED:
        return col
    return _convert(col, src, dst, ctx)


def _may_fail(src: DataType, dst: DataType) -> bool:
    if src.root in _STRINGS + _BINARIES:
        return dst.root not in _STRINGS + _BINARIES
    return False


def _convert(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    if dst.root in _STRINGS:
        return _fit_length(to_string(col, src, ctx), dst)
    rule = _TO.get(dst.root)
    if rule is None:
        return col.cast(dst.to_spark())
    return rule(col, src, dst, ctx)


def _fit_length(col: Column, dst: DataType) -> Column:
    n = dst.precision or (1 if dst.root == "CHAR" else MAX_VARCHAR)
    if n >= MAX_VARCHAR:
        return col
    if dst.root == "CHAR":
        return F.rpad(col, n, " ")
    return F.substring(col, 1, n)


# -- to STRING ------------------------------------------------------------------
def timestamp_pattern(precision: int) -> str:
    return "yyyy-MM-dd HH:mm:ss" + ("." + "S" * precision if precision > 0 else "")


def to_string(col: Column, src: DataType, ctx: LowerContext) -> Column:
    """Flink's string form of a value (CAST(x AS STRING))."""
    r = src.root
    if r in _STRINGS:
        return col
    if r == "BOOLEAN":
        return F.upper(col.cast("string"))
    if r in _TIMESTAMPS:
        wall = to_wall_clock(col, src, ctx.local_time_zone)
        precision = src.precision if src.precision is not None else 6
        return F.date_format(wall, timestamp_pattern(precision))
    if r == "TIME":
        return time_string(col, src.precision or 0)
    if r == "INTERVAL_DAY_TIME":
        return _interval_ms_string(col)
    if r == "INTERVAL_YEAR_MONTH":
        return _interval_months_string(col)
    if r == "ARRAY":
        inner = F.transform(
            col, lambda e: F.coalesce(to_string(e, src.element, ctx), F.lit("NULL")))
        return F.when(col.isNull(), F.lit(None)).otherwise(
            F.concat(F.lit("["), F.array_join(inner, ", "), F.lit("]")))
    if r in ("MAP", "MULTISET"):  # a MULTISET is a map of element -> count: {a=2, b=1}
        key, value = (src.key, src.value) if r == "MAP" else (src.element, DataType("INT", False))
        entries = F.transform(F.map_entries(col), lambda e: F.concat(
            F.coalesce(to_string(e["key"], key, ctx), F.lit("NULL")), F.lit("="),
            F.coalesce(to_string(e["value"], value, ctx), F.lit("NULL"))))
        return F.when(col.isNull(), F.lit(None)).otherwise(
            F.concat(F.lit("{"), F.array_join(entries, ", "), F.lit("}")))
    if r == "ROW":
        parts = [F.coalesce(to_string(col.getField(f.name), f.type, ctx), F.lit("NULL"))
                 for f in src.fields]
        body = F.concat_ws(", ", *parts) if parts else F.lit("")
        return F.when(col.isNull(), F.lit(None)).otherwise(F.concat(F.lit("("), body, F.lit(")")))
    return col.cast("string")


def time_string(ms: Column, precision: int) -> Column:
    """TIME as Flink prints it: HH:mm:ss plus up to ``precision`` digits (zeros dropped)."""
    ts = time_to_timestamp(ms)
    base = F.date_format(ts, "HH:mm:ss")
    if precision <= 0:
        return base
    frac = F.regexp_replace(F.date_format(ts, "SSS").substr(1, min(precision, 3)), "0+$", "")
    frac = F.when(frac == "", F.lit("0")).otherwise(frac)
    return F.when(ms.isNull(), F.lit(None)).otherwise(F.concat(base, F.lit("."), frac))


def _interval_ms_string(v: Column) -> Column:
    a = F.abs(v.cast("long"))
    sign = F.when(v < 0, F.lit("-")).otherwise(F.lit("+"))
    two = lambda c: F.lpad(c.cast("string"), 2, "0")  # noqa: E731
    return F.concat(sign, F.floor(a / MILLIS_PER_DAY).cast("string"), F.lit(" "),
                    two(F.floor(a / 3_600_000) % 24), F.lit(":"), two(F.floor(a / 60_000) % 60),
                    F.lit(":"), two(F.floor(a / 1000) % 60), F.lit("."),
                    F.lpad((a % 1000).cast("string"), 3, "0"))


def _interval_months_string(v: Column) -> Column:
    a = F.abs(v.cast("int"))
    sign = F.when(v < 0, F.lit("-")).otherwise(F.lit("+"))
    return F.concat(sign, F.floor(a / 12).cast("string"), F.lit("-"),
                    F.lpad((a % 12).cast("string"), 2, "0"))


# -- to other types ---------------------------------------------------------------
def _to_timestamp(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    p = dst.precision if dst.precision is not None else 6
    tz = ctx.local_time_zone
    if src.root in _STRINGS:
        wall = F.trim(col).cast("timestamp")
    elif src.root == "TIME":
        wall = time_to_timestamp(col)
    elif src.root in _NUMERIC:
        wall = F.timestamp_seconds(col)
    else:
        wall = to_wall_clock(col, src, tz).cast("timestamp")
    if dst.root == "TIMESTAMP_LTZ":
        wall = wall if src.root == "TIMESTAMP_LTZ" else from_wall_clock(wall, tz)
    return truncate_precision(wall, p)


def _to_date(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    if src.root in _STRINGS:
        return F.trim(col).cast("date")
    return F.to_date(to_wall_clock(col, src, ctx.local_time_zone))


def _to_time(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    if src.root in _STRINGS:
        ms = millis_of_day(F.concat(F.lit("1970-01-01 "), F.trim(col)).cast("timestamp"))
    elif src.root == "TIME":
        ms = col
    else:
        ms = millis_of_day(to_wall_clock(col, src, ctx.local_time_zone))
    p = dst.precision or 0
    if p >= 3:
        return ms.cast("int")
    unit = 10 ** (3 - p)
    return (ms - F.pmod(ms, F.lit(unit))).cast("int")


def _to_numeric(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    if src.root in _STRINGS:
        return F.trim(col).cast(dst.to_spark())
    if src.root in _TIMESTAMPS:
        return col.cast(dst.to_spark())
    return col.cast(dst.to_spark())


def _to_boolean(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    return col.cast("boolean")


def _to_row(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    fields = [coerce_field(col.getField(a.name), a.type, b.type, ctx).alias(b.name)
              for a, b in zip(src.fields, dst.fields)]
    return F.when(col.isNull(), null_of(dst)).otherwise(F.struct(*fields))


def coerce_field(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    if src.sql(False) == dst.sql(False):
        return col
    return _convert(col, src, dst, ctx)


def _to_array(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    return F.transform(col, lambda e: coerce_field(e, src.element, dst.element, ctx))


def _to_map(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    keyed = F.transform_keys(col, lambda k, v: coerce_field(k, src.key, dst.key, ctx))
    return F.transform_values(keyed, lambda k, v: coerce_field(v, src.value, dst.value, ctx))


def _to_binary(col: Column, src: DataType, dst: DataType, ctx: LowerContext) -> Column:
    return col.cast("binary")


Rule = Callable[[Column, DataType, DataType, LowerContext], Column]
_TO: dict[str, Rule] = {
    "TIMESTAMP": _to_timestamp,
    "TIMESTAMP_LTZ": _to_timestamp,
    "DATE": _to_date,
    "TIME": _to_time,
    "BOOLEAN": _to_boolean,
    "ROW": _to_row,
    "ARRAY": _to_array,
    "MAP": _to_map,
    "BINARY": _to_binary,
    "VARBINARY": _to_binary,
    **{root: _to_numeric for root in _NUMERIC + _INTERVALS},
}
