"""JSON encoding of catalog objects, for the persistent catalog.

The encoding is our own, explicit and versioned, so that a definition written today
reads back identically (``from_json(to_json(x)) == x``) in another process or release.
Types are stored structurally (root, nullability, precision, scale, children), never as
SQL text: that would need the parser to read a catalog, and parsing text back is where
round trips go wrong. ``time_attr`` is not stored: a time attribute is derived from
the table's watermark (or PROCTIME()) each time the table is used, as in Flink.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from sqlengine.errors import CatalogError
from sqlengine.types import KNOWN_ROOTS, DataType, RowField

from catalog.objects import (
    CatalogDatabase,
    CatalogFunction,
    CatalogTable,
    CatalogView,
    Column,
    TableSchema,
    WatermarkSpec,
)

FORMAT_VERSION = 1
Json = dict[str, Any]
# types.KNOWN_ROOTS is taken before the interval types are registered; add them.
STORABLE_ROOTS = frozenset(KNOWN_ROOTS) | {"INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH"}


# -- DataType ---------------------------------------------------------------------
def datatype_to_json(t: DataType) -> Json:
    """A DataType as a JSON object; only non-default attributes are written."""
    out: Json = {"root": t.root, "nullable": t.nullable}
    if t.precision is not None:
        out["precision"] = t.precision
    if t.scale is not None:
        out["scale"] = t.scale
    if t.fields or t.root == "ROW":
        out["fields"] = [_field_to_json(f) for f in t.fields]
    for attr in ("element", "key", "value"):
        child = getattr(t, attr)
        if child is not None:
            out[attr] = datatype_to_json(child)
    return out


def _field_to_json(f: RowField) -> Json:
    out: Json = {"name": f.name, "type": datatype_to_json(f.type)}
    if f.description is not None:
        out["description"] = f.description
    return out


def datatype_from_json(data: Json) -> DataType:
    """Inverse of :func:`datatype_to_json`; rejects unknown roots and keys loudly."""
    _expect_keys(data, "type", {"root", "nullable"},
                 {"precision", "scale", "fields", "element", "key", "value"})
    root = data["root"]
    if root not in STORABLE_ROOTS:
        raise CatalogError(f"Unknown type root '{root}' in stored definition; "
                           f"known roots: {', '.join(sorted(STORABLE_ROOTS))}")
    return DataType(
        root,
        bool(data["nullable"]),
        precision=data.get("precision"),
        scale=data.get("scale"),
        fields=tuple(_field_from_json(f) for f in data.get("fields", ())),
        element=_opt(data.get("element"), datatype_from_json),
        key=_opt(data.get("key"), datatype_from_json),
        value=_opt(data.get("value"), datatype_from_json),
    )


def _field_from_json(data: Json) -> RowField:
    _expect_keys(data, "row field", {"name", "type"}, {"description"})
    return RowField(data["name"], datatype_from_json(data["type"]), data.get("description"))


# -- schema -----------------------------------------------------------------------
def column_to_json(c: Column) -> Json:
    out: Json = {"name": c.name, "type": datatype_to_json(c.type), "kind": c.kind}
    for attr in ("expr_sql", "metadata_key", "comment"):
        if getattr(c, attr) is not None:
            out[attr] = getattr(c, attr)
    if c.virtual:
        out["virtual"] = True
    return out


def column_from_json(data: Json) -> Column:
    _expect_keys(data, "column", {"name", "type", "kind"},
                 {"expr_sql", "metadata_key", "comment", "virtual"})
    return Column(data["name"], datatype_from_json(data["type"]), data["kind"],
                  expr_sql=data.get("expr_sql"), metadata_key=data.get("metadata_key"),
                  virtual=bool(data.get("virtual", False)), comment=data.get("comment"))


def schema_to_json(s: TableSchema) -> Json:
    out: Json = {
        "columns": [column_to_json(c) for c in s.columns],
        "watermarks": [{"column": w.column, "expr_sql": w.expr_sql} for w in s.watermarks],
    }
    if s.primary_key is not None:
        out["primary_key"] = list(s.primary_key)
    if s.primary_key_name is not None:
        out["primary_key_name"] = s.primary_key_name
    return out


def schema_from_json(data: Json) -> TableSchema:
    _expect_keys(data, "schema", {"columns", "watermarks"}, {"primary_key", "primary_key_name"})
    key = data.get("primary_key")
    return TableSchema(
        tuple(column_from_json(c) for c in data["columns"]),
        tuple(WatermarkSpec(w["column"], w["expr_sql"]) for w in data["watermarks"]),
        tuple(key) if key is not None else None,
        data.get("primary_key_name"),
    )


# -- top-level objects ----------------------------------------------------------------
def object_to_json(obj: object) -> Json:
    """Any catalog object as a versioned JSON document with a ``kind`` tag."""
    encoder = _ENCODERS.get(type(obj))
    if encoder is None:
        raise CatalogError(f"Cannot store a {type(obj).__name__} in a catalog")
    kind, body = encoder(obj)
    return {"version": FORMAT_VERSION, "kind": kind, **body}


def object_from_json(data: Json) -> object:
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise CatalogError(f"Unsupported catalog format version {version!r}; "
                           f"this build reads version {FORMAT_VERSION}")
    kind = data.get("kind")
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise CatalogError(f"Unknown catalog object kind {kind!r}; "
                           f"known kinds: {', '.join(sorted(_DECODERS))}")
    body = {k: v for k, v in data.items() if k not in ("version", "kind")}
    return decoder(body)


def _table_to_json(t: CatalogTable) -> tuple[str, Json]:
    return "TABLE", {"schema": schema_to_json(t.schema),
                     "options": [[k, v] for k, v in t.options],
                     "partition_keys": list(t.partition_keys),
                     "comment": t.comment, **({"distribution": t.distribution} if t.distribution else {})}


def _table_from_json(d: Json) -> CatalogTable:
    _expect_keys(d, "table", {"schema", "options", "partition_keys", "comment"}, {"distribution"})
    return CatalogTable(schema_from_json(d["schema"]),
                        tuple((k, v) for k, v in d["options"]),
                        tuple(d["partition_keys"]), d["comment"], d.get("distribution"))


def _view_to_json(v: CatalogView) -> tuple[str, Json]:
    d = {"query_sql": v.query_sql, "schema": schema_to_json(v.schema), "comment": v.comment}
    if v.expanded_sql is not None:
        d["expanded_sql"] = v.expanded_sql
    return "VIEW", d


def _view_from_json(d: Json) -> CatalogView:
    _expect_keys(d, "view", {"query_sql", "schema", "comment"}, {"expanded_sql"})
    return CatalogView(d["query_sql"], schema_from_json(d["schema"]), d["comment"], d.get("expanded_sql"))


def _function_to_json(f: CatalogFunction) -> tuple[str, Json]:
    return "FUNCTION", {"class_name": f.class_name, "language": f.language,
                        "is_temporary": f.is_temporary}


def _function_from_json(d: Json) -> CatalogFunction:
    _expect_keys(d, "function", {"class_name", "language", "is_temporary"}, set())
    return CatalogFunction(d["class_name"], d["language"], bool(d["is_temporary"]))


def _database_to_json(db: CatalogDatabase) -> tuple[str, Json]:
    return "DATABASE", {"comment": db.comment, "properties": [[k, v] for k, v in db.properties]}


def _database_from_json(d: Json) -> CatalogDatabase:
    _expect_keys(d, "database", {"comment", "properties"}, set())
    return CatalogDatabase(d["comment"], tuple((k, v) for k, v in d["properties"]))


_ENCODERS: dict[type, Callable[[Any], tuple[str, Json]]] = {
    CatalogTable: _table_to_json,
    CatalogView: _view_to_json,
    CatalogFunction: _function_to_json,
    CatalogDatabase: _database_to_json,
}
_DECODERS: dict[str, Callable[[Json], object]] = {
    "TABLE": _table_from_json,
    "VIEW": _view_from_json,
    "FUNCTION": _function_from_json,
    "DATABASE": _database_from_json,
}


# -- helpers ----------------------------------------------------------------------
def _opt(value: Optional[Json], decode: Callable[[Json], DataType]) -> Optional[DataType]:
    return None if value is None else decode(value)


def _expect_keys(data: Json, what: str, required: set[str], optional: set[str]) -> None:
    """A stored document with missing or unknown keys is corrupt or from another
    version; say so instead of silently dropping information."""
    if not isinstance(data, dict):
        raise CatalogError(f"Stored {what} is not a JSON object: {data!r}")
    missing = required - data.keys()
    unknown = data.keys() - required - optional
    if missing or unknown:
        raise CatalogError(
            f"Malformed stored {what}: missing keys {sorted(missing)}, "
            f"unknown keys {sorted(unknown)}")
