"""``avro.encoding`` = ``json``: Avro's JSON encoding of Flink's schema, as string expressions.

Spark's ``to_avro``/``from_avro`` only speak Avro's binary encoding, so the text is built the
way Avro's ``JsonEncoder`` (Jackson underneath) writes it: a nullable value is ``null`` or
``{"<branch>":<value>}`` with the branch's type name (``int``, ``long``, ``bytes``, ... or a
nested record's full name ``org.apache.flink.avro.generated.record_<field>``); bytes (and a
DECIMAL's unscaled two's-complement bytes) are a string of ISO-8859-1 characters; map entries
come in the iteration order of the ``HashMap`` Flink's converter builds (``hashmap_order``).
Reading parses the same shape with ``from_json``.
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as st

from connectors.formats import avro_schema as A
from connectors.formats import json as J
from connectors.formats.decoded import Decoded
from sqlengine.types import DataType

CORRUPT = "__sqlengine_corrupt_record"
_INT = ("TINYINT", "SMALLINT", "INT", "DATE", "TIME")
_BRANCH = {"BOOLEAN": "boolean", "BIGINT": "long", "TIMESTAMP": "long", "TIMESTAMP_LTZ": "long", "FLOAT": "float",
           "DOUBLE": "double", "CHAR": "string", "VARCHAR": "string", "BINARY": "bytes", "VARBINARY": "bytes",
           "DECIMAL": "bytes", "ARRAY": "array", "MAP": "map", "MULTISET": "map"}


def _branch(t: DataType, name: str) -> str:
    return "int" if t.root in _INT else name if t.root == "ROW" else _BRANCH[t.root]


# -- encode ------------------------------------------------------------------------------
def encode(cols: list[tuple[Column, DataType, str]], o: A.AvroOptions) -> Column:
    return _record([(name, c, t) for c, t, name in cols], A.RECORD, o.legacy_timestamps).cast("binary")


def _record(members, name: str, legacy: bool) -> Column:
    parts = [F.concat(F.lit(J.quote(n) + ":"), _value(c, t, f"{name}_{n}", legacy)) for n, c, t in members]
    body = [F.lit("{")]
    for i, p in enumerate(parts):
        body += ([F.lit(",")] if i else []) + [p]
    return F.concat(*body, F.lit("}"))


def _value(c: Column, t: DataType, name: str, legacy: bool) -> Column:
    inner = _plain(c, t, name, legacy)
    if not t.nullable:
        return inner
    wrapped = F.concat(F.lit('{"' + _branch(t, name) + '":'), inner, F.lit("}"))
    return F.when(c.isNull(), F.lit("null")).otherwise(wrapped)


def _plain(c: Column, t: DataType, name: str, legacy: bool) -> Column:
    r = t.root
    if r == "DATE":
        return F.unix_date(c).cast("string")
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _epoch(c, t).cast("string")
    if r in _INT or r in ("BIGINT", "BOOLEAN"):
        return c.cast("string")
    if r in ("FLOAT", "DOUBLE"):
        return J.value_text(c, t, J.JsonOptions())
    if r in ("CHAR", "VARCHAR"):
        return J.string_text(c)
    if r in ("BINARY", "VARBINARY"):
        return J.string_text(F.decode(c, "ISO-8859-1"))
    if r == "DECIMAL":
        return J.string_text(F.decode(_unscaled_bytes(c, t), "ISO-8859-1"))
    if r == "ROW":
        return _record([(f.name, c.getField(f.name), f.type) for f in t.fields], name, legacy)
    if r == "ARRAY":
        items = F.transform(c, lambda x: _value(x, t.element, name, True))
        return F.concat(F.lit("["), F.array_join(items, ","), F.lit("]"))
    return _map(c, t, name)


def _epoch(c: Column, t: DataType) -> Column:
    p = 6 if t.precision is None else t.precision
    return F.unix_millis(c) if p <= 3 else F.unix_micros(c) if p <= 6 else F.unix_micros(c) * 1000


def _unscaled_bytes(c: Column, t: DataType) -> Column:
    """The two's-complement bytes of a DECIMAL's unscaled value: Avro's binary ``bytes`` minus
    its length prefix (one varint byte: at most 17 bytes for 38 digits)."""
    from pyspark.sql.avro.functions import to_avro
    datum = to_avro(c, _json(A._plain(t, "", True)))
    return datum.substr(F.lit(2), F.length(datum))


def _map(c: Column, t: DataType, name: str) -> Column:
    value_type = t.value if t.root == "MAP" else DataType("INT", False)
    entries = F.transform(hashmap_order(c), lambda e: F.concat(
        J.string_text(e.getField("key")), F.lit(":"), _value(e.getField("value"), value_type, name, True)))
    return F.concat(F.lit("{"), F.array_join(entries, ","), F.lit("}"))


def hashmap_order(m: Column) -> Column:
    """The entries of map ``m`` in the iteration order of the ``java.util.HashMap`` Flink's
    converter fills (``CollectionUtil.newHashMapWithExpectedSize``, keys as ``String``): by
    bucket ``(h ^ h >>> 16) & (capacity - 1)`` of ``String.hashCode``, then insertion order.
    (Eight or more keys in one bucket of a table of 64+ would make Java build a tree there;
    not reproduced.)"""
    n = F.size(m)
    needed = F.when(n <= 2, n + 1).otherwise(F.ceil(n.cast("float") / F.lit(0.75)))
    smeared = needed.cast("long") - 1
    for shift in (1, 2, 4, 8, 16):
        smeared = smeared.bitwiseOR(F.shiftright(smeared, shift))
    mask = F.greatest(smeared, F.lit(0))  # capacity - 1

    def keyed(e: Column, i: Column) -> Column:
        h = _string_hash(e.getField("key"))
        bucket = h.bitwiseXOR(F.shiftright(h, 16)).bitwiseAND(mask)
        return F.struct(bucket.alias("b"), i.alias("i"), e.alias("e"))
    return F.transform(F.array_sort(F.transform(F.map_entries(m), keyed)), lambda x: x.getField("e"))


def _string_hash(s: Column) -> Column:
    """Java's ``String.hashCode`` (over UTF-16 units) as an unsigned 32-bit value in a long."""
    hx = F.hex(F.encode(s, "UTF-16BE"))
    count = (F.length(hx) / 4).cast("int")
    units = F.transform(F.sequence(F.lit(0), F.greatest(count - 1, F.lit(0))),
                        lambda i: F.conv(hx.substr(i * 4 + 1, F.lit(4)), 16, 10).cast("long"))
    h = F.aggregate(units, F.lit(0).cast("long"), lambda acc, u: (acc * 31 + u).bitwiseAND(F.lit(0xFFFFFFFF)))
    return F.when(count == 0, F.lit(0).cast("long")).otherwise(h)


def _json(schema) -> str:
    import json
    return json.dumps(schema, separators=(",", ":"))


# -- decode ------------------------------------------------------------------------------
def decode(data: Column, columns: list[tuple[str, DataType]], o: A.AvroOptions, tag: str = "") -> Decoded:
    schema = st.StructType([st.StructField(n, _wire(t, f"{A.RECORD}_{n}"), True) for n, t in columns]
                           + [st.StructField(CORRUPT, st.StringType(), True)])
    name = f"{tag or '__avro'}_json"
    parsed = F.from_json(F.decode(data, "UTF-8"), schema, {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT})
    record = F.col(name)
    values = [_convert(record.getField(n), t, f"{A.RECORD}_{n}").cast(t.to_spark()).alias(n) for n, t in columns]
    bad = data.isNotNull() & (record.isNull() | record.getField(CORRUPT).isNotNull())
    reason = F.coalesce(F.when(bad, F.lit("Failed to deserialize Avro record.")), F.lit(""))
    return Decoded(values, bad, reason, prelude=[parsed.alias(name)])


def _wire(t: DataType, name: str) -> st.DataType:
    plain = _wire_plain(t, name)
    return st.StructType([st.StructField(_branch(t, name), plain, True)]) if t.nullable else plain


def _wire_plain(t: DataType, name: str) -> st.DataType:
    r = t.root
    if r in _INT:
        return st.IntegerType()
    if r in ("BIGINT", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return st.LongType()
    if r in ("BINARY", "VARBINARY", "DECIMAL", "CHAR", "VARCHAR"):
        return st.StringType()
    if r == "ROW":
        return st.StructType([st.StructField(f.name, _wire(f.type, f"{name}_{f.name}"), True) for f in t.fields])
    if r == "ARRAY":
        return st.ArrayType(_wire(t.element, name), True)
    if r in ("MAP", "MULTISET"):
        return st.MapType(st.StringType(), _wire(t.value if r == "MAP" else DataType("INT", False), name), True)
    return t.to_spark()


def _convert(w: Column, t: DataType, name: str) -> Column:
    v = w.getField(_branch(t, name)) if t.nullable else w
    r = t.root
    if r == "DATE":
        return F.date_from_unix_date(v)
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        p = 6 if t.precision is None else t.precision
        return F.timestamp_millis(v) if p <= 3 else F.timestamp_micros(v if p <= 6 else F.floor(v / 1000))
    if r in ("BINARY", "VARBINARY"):
        return F.encode(v, "ISO-8859-1")
    if r == "DECIMAL":
        return _decimal(F.encode(v, "ISO-8859-1"), t)
    if r == "ROW":
        fields = [_convert(v.getField(f.name), f.type, f"{name}_{f.name}").cast(f.type.to_spark()).alias(f.name)
                  for f in t.fields]
        return F.when(v.isNotNull(), F.struct(*fields))
    if r == "ARRAY":
        return F.transform(v, lambda x: _convert(x, t.element, name))
    if r in ("MAP", "MULTISET"):
        vt = t.value if r == "MAP" else DataType("INT", False)
        return F.transform_values(v, lambda k, x: _convert(x, vt, name))
    return v


def _decimal(unscaled: Column, t: DataType) -> Column:
    """Bytes -> DECIMAL by reading them as Avro's binary ``bytes`` (a zig-zag length first)."""
    from pyspark.sql.avro.functions import from_avro
    length = F.unhex(F.lpad(F.hex(F.length(unscaled) * 2), 2, "0"))
    return from_avro(F.concat(length, unscaled), _json(A._plain(t, "", True)), {"mode": "PERMISSIVE"})
