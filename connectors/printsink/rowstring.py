"""Flink's ``Row.toString()`` as Spark expressions: ``+I[1, Bob, null]``.

Flink's print sink converts each RowData to its external ``Row`` and prints
``toString()``: the row kind, then the fields as Java prints their external
classes: numbers as ``Integer/Long/Double.toString`` (Spark's casts to STRING
print the same), ``BigDecimal.toString`` (``0E-8`` included), ``LocalDate``
``2020-04-15``, ``LocalTime`` ``08:00`` / ``08:00:01`` / ``08:00:01.500``,
``LocalDateTime`` ``2020-04-15T08:00`` (seconds and fraction only when non-zero),
``Instant`` for TIMESTAMP_LTZ ``2020-04-15T08:00:00Z`` (always UTC), ``byte[]``
``[1, -2]``, arrays ``[1, 2]``, nested rows ``+I[a, b]``, maps ``{a=1, b=2}`` in
``java.util.HashMap`` order, NULL as ``null``, intervals as ``Duration``/``Period``.

Everything is one Spark expression per row (no Python per row).
"""
from __future__ import annotations

from typing import Callable, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.printsink.javahash import hashmap_bucket, hashmap_capacity, java_hash
from sqlengine.errors import UnsupportedError
from sqlengine.types import DataType

NULL_TEXT = "null"


def row_text(columns: list[tuple[Column, DataType]], kind: Column) -> Column:
    """``<kind>[f0, f1, ...]`` for the given (column, type) pairs."""
    fields = [value_text(c, t) for c, t in columns]
    return F.concat(kind, F.lit("["), F.concat_ws(", ", *fields) if fields else F.lit(""), F.lit("]"))


def value_text(c: Column, t: DataType) -> Column:
    """The Java ``toString`` of one value; ``null`` for NULL."""
    render = _RENDERERS.get(t.root)
    if render is None:
        raise UnsupportedError(f"The print connector cannot print values of type {t}.")
    return F.when(c.isNull(), F.lit(NULL_TEXT)).otherwise(render(c, t))


def _lpad(c: Column, width: int) -> Column:
    return F.lpad(c.cast("string"), width, "0")


def _plain(c: Column, t: DataType) -> Column:
    return c.cast("string")


def _time_of_day(millis: Column) -> Column:
    """``LocalTime.toString`` of a millisecond of the day (TIME's representation)."""
    h, m = (millis / 3_600_000).cast("int"), (F.pmod(millis, F.lit(3_600_000)) / 60_000).cast("int")
    s, ms = (F.pmod(millis, F.lit(60_000)) / 1000).cast("int"), F.pmod(millis, F.lit(1000))
    head = F.concat(_lpad(h, 2), F.lit(":"), _lpad(m, 2))
    return (F.when((s == 0) & (ms == 0), head)
            .when(ms == 0, F.concat(head, F.lit(":"), _lpad(s, 2)))
            .otherwise(F.concat(head, F.lit(":"), _lpad(s, 2), F.lit("."), _lpad(ms, 3))))


def _time(c: Column, t: DataType) -> Column:
    return _time_of_day(c)


def _fraction(micros: Column) -> Column:
    """Java's nano fraction: 3 digits if whole millis, else 6 (micros are Spark's unit)."""
    return (F.when(micros % 1000 == 0, F.concat(F.lit("."), _lpad((micros / 1000).cast("int"), 3)))
            .otherwise(F.concat(F.lit("."), _lpad(micros, 6))))


def _micros_of_second(c: Column) -> Column:
    return F.pmod(F.unix_micros(c), F.lit(1_000_000))


def _timestamp(c: Column, t: DataType) -> Column:
    """``LocalDateTime.toString`` (the session time zone is UTC: wall clock = UTC)."""
    head = F.date_format(c, "yyyy-MM-dd'T'HH:mm")
    secs, micros = F.second(c), _micros_of_second(c)
    return (F.when((secs == 0) & (micros == 0), head)
            .when(micros == 0, F.concat(head, F.lit(":"), _lpad(secs, 2)))
            .otherwise(F.concat(head, F.lit(":"), _lpad(secs, 2), _fraction(micros))))


def _instant(c: Column, t: DataType) -> Column:
    """``Instant.toString``: always seconds, fraction in groups of 3, always ``Z``."""
    micros = _micros_of_second(c)
    fraction = F.when(micros == 0, F.lit("")).otherwise(_fraction(micros))
    return F.concat(F.date_format(c, "yyyy-MM-dd'T'HH:mm:ss"), fraction, F.lit("Z"))


def _bytes(c: Column, t: DataType) -> Column:
    """``Arrays.toString(byte[])``: signed decimal bytes."""
    hexed = F.hex(c)
    signed = F.transform(
        F.sequence(F.lit(0), F.length(c) - 1),
        lambda i: F.conv(F.substring(hexed, i * 2 + 1, F.lit(2)), 16, 10).cast("int"))
    signed = F.transform(signed, lambda b: F.when(b > 127, b - 256).otherwise(b).cast("string"))
    return F.when(F.length(c) == 0, F.lit("[]")).otherwise(
        F.concat(F.lit("["), F.array_join(signed, ", "), F.lit("]")))


def _trunc_div(c: Column, k: int) -> Column:
    """Java long division (truncating toward zero); Spark's ``%`` is Java's remainder."""
    return ((c - c % k) / k).cast("long")


def _duration(c: Column, t: DataType) -> Column:
    """``java.time.Duration.toString`` of milliseconds, e.g. ``PT8H6M12.345S``."""
    secs = _trunc_div(c, 1000)
    hours, minutes, rest = _trunc_div(secs, 3600), _trunc_div(secs % 3600, 60), secs % 60
    frac_ms = F.abs(c % 1000)
    frac = F.regexp_replace(_lpad(frac_ms, 3), "0+$", "")
    sec_text = F.when((c < 0) & (rest == 0) & (frac_ms > 0), F.lit("-0")).otherwise(rest.cast("string"))
    seconds = F.when((rest == 0) & (frac_ms == 0) & ((hours != 0) | (minutes != 0)), F.lit("")).otherwise(
        F.concat(sec_text, F.when(frac_ms > 0, F.concat(F.lit("."), frac)).otherwise(F.lit("")), F.lit("S")))
    return F.when(c == 0, F.lit("PT0S")).otherwise(F.concat(
        F.lit("PT"),
        F.when(hours != 0, F.concat(hours.cast("string"), F.lit("H"))).otherwise(F.lit("")),
        F.when(minutes != 0, F.concat(minutes.cast("string"), F.lit("M"))).otherwise(F.lit("")),
        seconds))


def _period(c: Column, t: DataType) -> Column:
    """``java.time.Period.toString`` of a number of months, e.g. ``P1Y2M``."""
    years, months = _trunc_div(c, 12), c % 12
    return F.when(c == 0, F.lit("P0D")).otherwise(F.concat(
        F.lit("P"),
        F.when(years != 0, F.concat(years.cast("string"), F.lit("Y"))).otherwise(F.lit("")),
        F.when(months != 0, F.concat(months.cast("string"), F.lit("M"))).otherwise(F.lit(""))))


def _row(c: Column, t: DataType) -> Column:
    return row_text([(c[f.name], f.type) for f in t.fields], F.lit("+I"))


def _array(c: Column, t: DataType) -> Column:
    items = F.transform(c, lambda x: value_text(x, t.element))
    return F.concat(F.lit("["), F.array_join(items, ", "), F.lit("]"))


def _entries_text(c: Column, key_type: DataType, value_type: DataType) -> Column:
    """``{k=v, ...}`` in HashMap iteration order when the key's Java hash is known."""
    entries = F.map_entries(c)
    text = F.transform(entries, lambda e: F.concat(
        value_text(e["key"], key_type), F.lit("="), value_text(e["value"], value_type)))
    hash_of: Optional[Callable[[Column], Column]] = java_hash(key_type)
    if hash_of is not None:
        capacity = hashmap_capacity(F.size(entries))
        keyed = F.transform(entries, lambda e, i: F.struct(
            hashmap_bucket(hash_of(e["key"]), capacity).alias("bucket"), i.alias("pos"),
            F.concat(value_text(e["key"], key_type), F.lit("="),
                     value_text(e["value"], value_type)).alias("text")))
        text = F.transform(F.array_sort(keyed), lambda s: s["text"])
    return F.concat(F.lit("{"), F.array_join(text, ", "), F.lit("}"))


def _map(c: Column, t: DataType) -> Column:
    return _entries_text(c, t.key, t.value)


def _multiset(c: Column, t: DataType) -> Column:
    return _entries_text(c, t.element, DataType("INT", False))


def _null(c: Column, t: DataType) -> Column:
    return F.lit(NULL_TEXT)


_RENDERERS: dict[str, Callable[[Column, DataType], Column]] = {
    **{root: _plain for root in ("BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT",
                                 "DOUBLE", "DECIMAL", "CHAR", "VARCHAR", "DATE")},
    "TIME": _time,
    "TIMESTAMP": _timestamp,
    "TIMESTAMP_LTZ": _instant,
    "BINARY": _bytes,
    "VARBINARY": _bytes,
    "INTERVAL_DAY_TIME": _duration,
    "INTERVAL_YEAR_MONTH": _period,
    "ROW": _row,
    "ARRAY": _array,
    "MAP": _map,
    "MULTISET": _multiset,
    "NULL": _null,
}
