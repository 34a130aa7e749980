"""Flink's ``avro`` format: one Avro datum per record, with the schema Flink derives from
the table (``AvroSchemaConverter.convertToSchema``), so that records written by Flink
decode here and records written here are byte for byte what Flink writes.

Route: Spark's own ``from_avro``/``to_avro`` (JVM expressions; no Python per row). Their
classes come from the ``spark-avro`` module, which PySpark does not ship: it is loaded on
first use (sqlengine/runtime/spark_avro.py: ``spark-avro_2.13:4.2.0`` from Maven Central,
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

import json
from dataclasses import dataclass
from functools import reduce
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats.decoded import Decoded
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

BINARY = True  # decode takes the record's bytes, encode returns bytes
RECORD = "org.apache.flink.avro.generated.record"
ENCODINGS = ("binary", "json")


@dataclass(frozen=True)
class AvroOptions:
    encoding: str = "binary"
    legacy_timestamps: bool = True
    ignore_parse_errors: bool = False  # Flink's avro format has no such option


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


# -- schema ------------------------------------------------------------------------------
def avro_schema(columns: list[tuple[str, DataType]], legacy: bool) -> dict[str, Any]:
    """Flink's ``convertToSchema`` of the (NOT NULL) row of ``columns``, as Avro schema JSON."""
    return _record(RECORD, columns, legacy)


def schema_json(columns, legacy: bool) -> str:
    return json.dumps(avro_schema(columns, legacy), separators=(",", ":"))


def _record(name: str, fields, legacy: bool) -> dict[str, Any]:
    out = []
    for fname, ft in fields:
        entry: dict[str, Any] = {"name": fname, "type": _schema(ft, f"{name}_{fname}", legacy)}
        if ft.nullable:
            entry["default"] = None
        out.append(entry)
    return {"type": "record", "name": name, "fields": out}


def _schema(t: DataType, name: str, legacy: bool) -> Any:
    s = _plain(t, name, legacy)
    return ["null", s] if t.nullable and t.root != "NULL" else s


def _plain(t: DataType, name: str, legacy: bool) -> Any:
    r = t.root
    simple = {"BOOLEAN": "boolean", "TINYINT": "int", "SMALLINT": "int", "INT": "int", "BIGINT": "long",
              "FLOAT": "float", "DOUBLE": "double", "CHAR": "string", "VARCHAR": "string",
              "BINARY": "bytes", "VARBINARY": "bytes", "NULL": "null"}
    if r in simple:
        return simple[r]
    if r == "DATE":
        return {"type": "int", "logicalType": "date"}
    if r == "TIME":
        if (t.precision or 0) > 3:
            raise ConnectorError(f"Avro does not support TIME type with precision: {t.precision}, "
                                 f"it only supports precision less than 3.")
        return {"type": "int", "logicalType": "time-millis"}
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return {"type": "long", "logicalType": _timestamp_logical(t, legacy)}
    if r == "DECIMAL":
        return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale or 0}
    if r == "ROW":
        return _record(name, [(f.name, f.type) for f in t.fields], legacy)
    # Flink converts collection elements with the legacy mapping whatever the option says.
    if r == "ARRAY":
        return {"type": "array", "items": _schema(t.element, name, True)}
    if r in ("MAP", "MULTISET"):
        key = t.key if r == "MAP" else t.element
        if key is None or not key.is_string:
            raise ConnectorError(f"Avro format doesn't support non-string as key type of map. "
                                 f"The key type is: {key.sql() if key else '?'}")
        value = t.value if r == "MAP" else DataType("INT", False)
        return {"type": "map", "values": _schema(value, name, True)}
    raise ConnectorError(f"Unsupported to derive Schema for type: {t.sql()}")


def _timestamp_logical(t: DataType, legacy: bool) -> str:
    p = 6 if t.precision is None else t.precision
    ltz = t.root == "TIMESTAMP_LTZ"
    if legacy and ltz:
        raise ConnectorError(f"Unsupported to derive Schema for type: {t.sql()} (set "
                             f"'avro.timestamp_mapping.legacy' = 'false' to map it to Avro's timestamp-millis)")
    if legacy and p > 3:
        raise ConnectorError(f"Avro does not support TIMESTAMP type with precision: {p}, "
                             f"it only supports precision less than 3.")
    if p > 9:
        raise ConnectorError(f"Avro does not support TIMESTAMP type with precision: {p}, "
                             f"it only supports precision less than 9.")
    unit = "millis" if p <= 3 else "micros" if p <= 6 else "nanos"
    return f"timestamp-{unit}" if ltz or legacy else f"local-timestamp-{unit}"


# -- decode ------------------------------------------------------------------------------
def decode_detailed(data: Column, columns: list[tuple[str, DataType]], o: AvroOptions, tag: str = "") -> Decoded:
    """The table columns from one Avro datum in ``data`` (bytes); ``bad`` for bytes that do not
    decode (Flink: ``Failed to deserialize Avro record.``)."""
    from sqlengine.runtime.spark_avro import ensure_loaded
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
    from sqlengine.runtime.spark_avro import ensure_loaded
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
