"""Flink's ``avro`` format: one Avro datum per record, with the schema Flink derives from
the table (``AvroSchemaConverter.convertToSchema``), so that records written by Flink
decode here and records written here are byte for byte what Flink writes.

Route: Spark's own ``from_avro``/``to_avro`` (JVM expressions; no Python per row). Their
classes come from the ``spark-avro`` module, which PySpark does not ship: it is loaded on
first use (connectors/formats/spark_avro.py: ``spark-avro_2.13:4.2.0`` from Maven Central,
the newest there, works with PySpark 4.3.0). A vectorized Python route (pyarrow + fastavro
per Arrow batch) was the fallback; it was not needed.

Schema (Flink 2.3): a record named ``org.apache.flink.avro.generated.record``; a nullable
type is the union ``["null", T]``; a nested ROW is a record named
``<parent>_<field>``; TINYINT/SMALLINT/INT are ``int``, DECIMAL is ``bytes`` with logical
type ``decimal``, DATE ``int`` ``date``, TIME ``int`` ``time-millis``, TIMESTAMP(p<=3)
``long`` ``timestamp-millis``; MAP/MULTISET need string keys. With
``avro.timestamp_mapping.legacy`` = false (default true) TIMESTAMP is ``local-timestamp-*``
and TIMESTAMP_LTZ ``timestamp-*`` (millis/micros/nanos by precision); with the legacy
mapping TIMESTAMP_LTZ is an error, as in Flink.

Bytes: Spark's Avro writer builds a ``java.util.HashMap`` for a map as Flink's converter
does, with the same final capacity and insertion order, so map entries come out in the
same order. ``avro.encoding`` = ``json`` (Avro's JSON encoding, e.g. ``{"i":{"int":1}}``)
is built with string expressions like the ``json`` format (Spark has no Avro JSON encoder);
Flink's encoder writes a newline before every record but the first of a writer task (Jackson's
root value separator: the encoder is reused), which depends on the task's history and is not
reproduced: records here never start with one (decoders skip the whitespace).

Errors: the format has no ``ignore-parse-errors`` (as Flink); a record that does not
decode fails the job (the kafka connector names topic, partition and offset).
"""
from __future__ import annotations

from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats.avro_schema import RECORD, AvroOptions, _plain, avro_schema, schema_json  # noqa: F401
from connectors.formats.decoded import Decoded
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

BINARY = True  # decode takes the record's bytes, encode returns bytes
ENCODINGS = ("binary", "json")


def parse_options(options: Options, prefix: str = "avro.") -> AvroOptions:
    """Pop the ``avro.*`` options of Flink's ``AvroFormatFactory``."""
    raw = options.pop(prefix + "encoding")
    encoding = (raw or "binary").strip().lower()
    if encoding not in ENCODINGS:
        raise ConnectorError(f"Could not parse value '{raw}' for key '{prefix}encoding'. "
                             f"Expected one of: [{', '.join(ENCODINGS)}].")
    legacy = options.pop_bool(prefix + "timestamp_mapping.legacy", True)
    options.pop_bool(prefix + "open.fastread", False)  # a reader optimisation; nothing to apply
    return AvroOptions(encoding, legacy)


def check_columns(columns, key: str) -> None:
    """Schema derivation errors at DDL time (``avro_schema`` raises Flink's message)."""
    avro_schema(columns, True)


# -- decode ------------------------------------------------------------------------------
def decode_detailed(data: Column, columns: list[tuple[str, DataType]], o: AvroOptions, tag: str = "") -> Decoded:
    """The table columns from one Avro datum in ``data`` (bytes); ``bad`` for bytes that do not
    decode (Flink: ``Failed to deserialize Avro record.``)."""
    from connectors.formats.spark_avro import ensure_loaded
    ensure_loaded()
    if o.encoding == "json":
        from connectors.formats import avro_json
        return avro_json.decode(data, columns, o, tag)
    from pyspark.sql.avro.functions import from_avro
    parsed = from_avro(data, schema_json(columns, o.legacy_timestamps), {"mode": "PERMISSIVE"})
    name = f"{tag or '__avro'}_datum"
    record = F.col(name)
    values = [_from_wire(record.getField(n), t).alias(n) for n, t in columns]
    bad = data.isNotNull() & _undecodable(data, record, columns)
    reason = F.when(bad, F.lit("Failed to deserialize Avro record."))
    return Decoded(values, bad, F.coalesce(reason, F.lit("")), prelude=[parsed.alias(name)])


def _undecodable(data: Column, record: Column, columns) -> Column:
    """Whether Spark's PERMISSIVE ``from_avro`` failed on ``data``: it then yields a record of
    NULLs. A real record of NULLs has a NULL in every field, so only when all fields are
    nullable, and it starts with one zero byte (union branch 0, ``null``) per field; after
    them Flink's reader, like Spark's, ignores trailing bytes."""
    every = reduce(lambda a, b: a & b, [record.getField(n).isNull() for n, _ in columns])
    if not all(t.nullable for _, t in columns):
        return record.isNull() | every
    zeros = F.lit(bytes(len(columns)))
    return record.isNull() | (every & (F.substring(data, 1, len(columns)) != zeros))


def _from_wire(c: Column, t: DataType) -> Column:
    """Spark's reading of Flink's schema -> the table's Spark type. Every difference is a
    plain cast: int -> TINYINT/SMALLINT (wrapping, as Flink's ``byteValue``), TIMESTAMP_NTZ
    (local-timestamp) -> TIMESTAMP on the UTC session clock, nested alike."""
    return c.cast(t.to_spark())


# -- encode ------------------------------------------------------------------------------
def encode_with(cols: list[tuple[Column, DataType, str]], o: AvroOptions) -> Column:
    """One Avro datum per row (bytes), Flink's schema, every column in order."""
    from connectors.formats.spark_avro import ensure_loaded
    ensure_loaded()
    columns = [(name, t) for _, t, name in cols]
    if o.encoding == "json":
        from connectors.formats import avro_json
        return avro_json.encode(cols, o)
    from pyspark.sql.avro.functions import to_avro
    record = F.struct(*[to_wire(c, t, o.legacy_timestamps).alias(name) for c, t, name in cols])
    return to_avro(record, schema_json(columns, o.legacy_timestamps))


def to_wire(c: Column, t: DataType, legacy: bool) -> Column:
    """The Spark type Spark's Avro writer takes for Flink's Avro type of ``t``."""
    return c.cast(wire_type(t, legacy))


def wire_type(t: DataType, legacy: bool):
    from pyspark.sql import types as st
    r = t.root
    if r in ("TINYINT", "SMALLINT"):
        return st.IntegerType()
    if r == "TIMESTAMP" and not legacy:
        return st.TimestampNTZType()  # local-timestamp-*: the wall clock (session time zone UTC)
    if r == "ROW":
        return st.StructType([st.StructField(f.name, wire_type(f.type, legacy), True) for f in t.fields])
    if r == "ARRAY":
        return st.ArrayType(wire_type(t.element, True), True)
    if r == "MAP":
        return st.MapType(st.StringType(), wire_type(t.value, True), True)
    if r == "MULTISET":
        return st.MapType(st.StringType(), st.IntegerType(), True)
    return t.to_spark()
