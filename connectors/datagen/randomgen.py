"""Random generators (``'fields.#.kind' = 'random'``, the default), as Spark expressions.

Semantics follow Flink's ``RandomGeneratorVisitor``: numbers uniform in
``[min, max]`` (type range by default; DECIMAL clipped to what its precision
holds, FLOAT/DOUBLE/DECIMAL default to ``[MIN_VALUE, MAX_VALUE]``, i.e. positive),
strings of lowercase hex digits (``length``, default 100, at most a VARCHAR(n)'s n,
exactly n for CHAR(n)), bytes likewise, timestamps ``now - random(0..max-past)``,
DATE/TIME the current date/time, collections of ``length`` (default 3) random
elements whose options live under ``<field>.element`` / ``.key`` / ``.value``,
ROW fields under ``<row>.<field>``. ``null-rate`` makes that fraction NULL.
"""
from __future__ import annotations

from typing import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.datagen.fields import Field
from connectors.datagen.options import LENGTH, MAX, MAX_PAST, MIN, NULL_RATE, VAR_LEN
from sqlengine.errors import ConnectorError
from sqlengine.types import MAX_VARCHAR, DataType

STRING_LENGTH_DEFAULT = 100
BYTES_LENGTH_DEFAULT = 100
COLLECTION_LENGTH_DEFAULT = 3
MULTISET_MAX_COUNT = 10

INT_RANGES = {
    "TINYINT": (-2 ** 7, 2 ** 7 - 1),
    "SMALLINT": (-2 ** 15, 2 ** 15 - 1),
    "INT": (-2 ** 31, 2 ** 31 - 1),
    "BIGINT": (-2 ** 63, 2 ** 63 - 1),
    "INTERVAL_DAY_TIME": (-2 ** 63, 2 ** 63 - 1),
    "INTERVAL_YEAR_MONTH": (0, 120000),
}
_FLOAT_MIN, _FLOAT_MAX = 1.401298464324817e-45, 3.4028234663852886e38
_DOUBLE_MIN, _DOUBLE_MAX = 5e-324, 1.7976931348623157e308
MILLIS_PER_DAY = 86_400_000


def random_column(f: Field) -> Column:
    """The generator expression for one field; raises for unsupported types."""
    build = _BUILDERS.get(f.type.root)
    if build is None:
        raise ConnectorError(f"Unsupported type: {f.type} (field '{f.path}' of a datagen table).")
    return build(f)


# -- helpers ------------------------------------------------------------------
def _with_null_rate(f: Field, value: Column) -> Column:
    rate = f.opts.get(NULL_RATE, float, 0.0)
    if not rate:
        return value
    return F.when(f.draw.unit("null") > F.lit(rate), value)


def _check_bounds(f: Field, lo, hi) -> None:
    if lo > hi:
        raise ConnectorError(
            f"Invalid bounds for field '{f.path}': '{f.opts.key(MIN)}' ({lo}) must not be greater "
            f"than '{f.opts.key(MAX)}' ({hi}).")


def uniform_int(f: Field, lo: int, hi: int, purpose: str = "value") -> Column:
    """A long uniform in [lo, hi] (inclusive, as Flink's RandomDataGenerator.nextLong)."""
    span = hi - lo + 1
    if span == 2 ** 64:
        return f.draw.bits(purpose)
    if span <= 2 ** 62:
        return F.lit(lo) + f.draw.below(span, purpose)
    unsigned = f.draw.bits(purpose).cast("decimal(20,0)") + F.lit(str(2 ** 63)).cast("decimal(20,0)")
    offset = F.pmod(unsigned, F.lit(str(span)).cast("decimal(20,0)"))
    return (offset + F.lit(str(lo)).cast("decimal(20,0)")).cast("bigint")


def uniform_double(f: Field, lo: float, hi: float) -> Column:
    u = f.draw.unit()
    # lo*(1-u) + hi*u cannot overflow, unlike lo + u*(hi-lo) over [-MAX, MAX].
    return F.lit(lo) * (F.lit(1.0) - u) + F.lit(hi) * u


def _length(f: Field, default: int, type_limit: int | None, fixed: int | None) -> int:
    length = f.opts.get(LENGTH, int)
    if fixed is not None:
        if length is not None:
            raise ConnectorError(
                f"Custom length for fixed-length type (CHAR/BINARY) field '{f.path}' is not supported.")
        return fixed
    if length is None:
        return default if type_limit is None else min(default, type_limit)
    if type_limit is not None and length > type_limit:
        raise ConnectorError(
            f"Custom length '{length}' for variable-length type (VARCHAR/STRING/VARBINARY/BYTES) "
            f"field '{f.path}' should be shorter than '{type_limit}' defined in the schema.")
    if length < 0:
        raise ConnectorError(f"Invalid value for '{f.opts.key(LENGTH)}': {length} is negative.")
    return length


def _var_len(f: Field, variable: bool) -> bool:
    var_len = f.opts.get(VAR_LEN, bool, False)
    if var_len and not variable:
        raise ConnectorError(
            f"Only supports specifying '{f.opts.key(VAR_LEN)}' option for variable-length types "
            f"(VARCHAR/STRING/VARBINARY/BYTES). The type of field '{f.path}' is not within this range.")
    return bool(var_len)


def _random_prefix(f: Field, data: Column, length: int, var_len: bool) -> Column:
    """``data`` itself, or with var-len a random prefix of 1..length characters/bytes."""
    if not var_len:
        return data
    return F.substring(data, F.lit(1), (F.lit(1) + f.draw.below(length, "length")).cast("int"))


# -- scalar builders ----------------------------------------------------------
def _boolean(f: Field) -> Column:
    return _with_null_rate(f, f.draw.bits().bitwiseAND(F.lit(1)) == F.lit(1))


def _integer(f: Field) -> Column:
    type_lo, type_hi = INT_RANGES[f.type.root]
    lo, hi = f.opts.get(MIN, int, type_lo), f.opts.get(MAX, int, type_hi)
    for name, value in ((MIN, lo), (MAX, hi)):
        if not type_lo <= value <= type_hi:
            raise ConnectorError(
                f"Invalid value for '{f.opts.key(name)}': {value} is out of range for {f.type.sql(False)}.")
    _check_bounds(f, lo, hi)
    return _with_null_rate(f, uniform_int(f, lo, hi).cast(f.type.to_spark()))


def _floating(f: Field) -> Column:
    lo_default, hi_default = (_FLOAT_MIN, _FLOAT_MAX) if f.type.root == "FLOAT" else (_DOUBLE_MIN, _DOUBLE_MAX)
    lo, hi = f.opts.get(MIN, float, lo_default), f.opts.get(MAX, float, hi_default)
    _check_bounds(f, lo, hi)
    return _with_null_rate(f, uniform_double(f, lo, hi).cast(f.type.to_spark()))


def _decimal(f: Field) -> Column:
    p, s = f.type.precision or 10, f.type.scale or 0
    largest = 10.0 ** (p - s) - 10.0 ** -s
    lo, hi = f.opts.get(MIN, float, _DOUBLE_MIN), f.opts.get(MAX, float, _DOUBLE_MAX)
    _check_bounds(f, lo, hi)
    lo, hi = max(-largest, lo), min(largest, hi)
    return _with_null_rate(f, uniform_double(f, lo, hi).cast(f.type.to_spark()))


def _string(f: Field) -> Column:
    t = f.type
    fixed = t.precision or 1 if t.root == "CHAR" else None
    limit = None if t.root == "CHAR" or t.precision in (None, MAX_VARCHAR) else t.precision
    var_len = _var_len(f, t.root == "VARCHAR")
    length = _length(f, STRING_LENGTH_DEFAULT, limit, fixed)
    if length == 0:
        return _with_null_rate(f, F.lit(""))
    return _with_null_rate(f, _random_prefix(f, f.draw.hex_chars(length), length, var_len))


def _bytes(f: Field) -> Column:
    t = f.type
    fixed = t.precision or 1 if t.root == "BINARY" else None
    limit = None if t.root == "BINARY" or t.precision in (None, MAX_VARCHAR) else t.precision
    var_len = _var_len(f, t.root == "VARBINARY")
    length = _length(f, BYTES_LENGTH_DEFAULT, limit, fixed)
    if length == 0:
        return _with_null_rate(f, F.lit(b""))
    return _with_null_rate(f, _random_prefix(f, f.draw.random_bytes(length), length, var_len))


def now_millis() -> Column:
    """Milliseconds since the epoch of the query's (micro-batch's) current timestamp.

    In streaming, Spark fixes ``current_timestamp()`` per micro-batch and records it
    in the offset log, so a replayed batch sees the same "now".
    """
    return F.unix_millis(F.current_timestamp())


def _timestamp(f: Field) -> Column:
    max_past = f.opts.duration_ms(MAX_PAST, 0)
    past = uniform_int(f, 0, max_past) if max_past > 0 else F.lit(0)
    value = F.timestamp_millis(now_millis() - past)
    if (f.type.precision if f.type.precision is not None else 6) < 3:
        value = F.date_trunc("second", value)
    return _with_null_rate(f, value)


def _local_now(f: Field) -> Column:
    return F.from_utc_timestamp(F.current_timestamp(), f.zone)


def _date(f: Field) -> Column:
    return F.to_date(_local_now(f))


def _time(f: Field) -> Column:
    millis = F.pmod(F.unix_millis(_local_now(f)), F.lit(MILLIS_PER_DAY))
    if not f.type.precision:
        millis = millis - F.pmod(millis, F.lit(1000))
    return millis.cast("int")


# -- nested builders ----------------------------------------------------------
def _indexes(length: int, body: Callable[[Column], Column]) -> Column:
    return F.transform(F.sequence(F.lit(0), F.lit(length - 1)), body)


def _array(f: Field) -> Column:
    length = f.opts.get(LENGTH, int, COLLECTION_LENGTH_DEFAULT)
    element = f.type.element
    if length <= 0:
        value = F.array().cast(f.type.to_spark())
    else:
        value = _indexes(length, lambda i: random_column(f.child("element", element, i)))
    return _with_null_rate(f, value)


def _entries_map(entries: Column) -> Column:
    """A map from (key, value) structs: NULL keys dropped (Spark maps cannot hold them),
    the first of duplicate keys kept (Flink's HashMap also collapses duplicates)."""
    keys = F.transform(entries, lambda e: e["key"])
    kept = F.filter(entries, lambda e, i: e["key"].isNotNull()
                    & (F.array_position(keys, e["key"]) == i + F.lit(1)))
    return F.map_from_entries(kept)


def _map_of(f: Field, key_type: DataType, value_of: Callable[[Column], Column]) -> Column:
    length = f.opts.get(LENGTH, int, COLLECTION_LENGTH_DEFAULT)
    key_path = "element" if f.type.root == "MULTISET" else "key"
    if length <= 0:
        return F.create_map().cast(f.type.to_spark())
    entries = _indexes(length, lambda i: F.struct(
        random_column(f.child(key_path, key_type, i)).alias("key"), value_of(i).alias("value")))
    return _entries_map(entries)


def _map(f: Field) -> Column:
    value_type = f.type.value
    value = _map_of(f, f.type.key, lambda i: random_column(f.child("value", value_type, i)))
    return _with_null_rate(f, value)


def _multiset(f: Field) -> Column:
    def count(i: Column) -> Column:
        return uniform_int(f.child("count", f.type, i), 0, MULTISET_MAX_COUNT).cast("int")
    return _with_null_rate(f, _map_of(f, f.type.element, count))


def _row(f: Field) -> Column:
    fields = [random_column(f.child(rf.name, rf.type)).alias(rf.name) for rf in f.type.fields]
    return _with_null_rate(f, F.struct(*fields))


_BUILDERS: dict[str, Callable[[Field], Column]] = {
    "BOOLEAN": _boolean,
    **{root: _integer for root in INT_RANGES},
    "FLOAT": _floating,
    "DOUBLE": _floating,
    "DECIMAL": _decimal,
    "CHAR": _string,
    "VARCHAR": _string,
    "BINARY": _bytes,
    "VARBINARY": _bytes,
    "TIMESTAMP": _timestamp,
    "TIMESTAMP_LTZ": _timestamp,
    "DATE": _date,
    "TIME": _time,
    "ARRAY": _array,
    "MAP": _map,
    "MULTISET": _multiset,
    "ROW": _row,
}
