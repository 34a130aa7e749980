"""Flink's Avro schema of a row type (``AvroSchemaConverter.convertToSchema``) and the
avro format's options: what both encodings (binary, ``avro.py``; JSON, ``avro_json.py``)
share."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

RECORD = "org.apache.flink.avro.generated.record"


@dataclass(frozen=True)
class AvroOptions:
    encoding: str = "binary"
    legacy_timestamps: bool = True
    ignore_parse_errors: bool = False  # Flink's avro format has no such option


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
