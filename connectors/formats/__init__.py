"""Flink's row formats (``json``, ``csv``, ``avro``, ...) as native Spark Column expressions.

Every format module offers the same two entry points, so a connector (filesystem,
kafka, ...) stays format-agnostic:

* ``decode_detailed(text, columns, options, tag) -> Decoded``: the same plus a reason
  and ``prelude`` columns (named after ``tag``, unique per decoded input) to add in a
  projection of their own first: ``df.select("*", *d.prelude).select(*d.columns, ...)``.
* ``decode(text, columns, options, prefix) -> (list[Column], bad)``: one Column per
  table column parsed from the line ``text``, plus ``bad``: true for a malformed
  line, false for a good one and NULL for a line to skip silently (a CSV comment,
  a blank line). Keep rows with ``df.where(~bad)``; fail or count where ``bad``.
* ``encode(cols, options, prefix, local_time_zone) -> Column``: the line exactly as
  Flink's serialization schema writes it.

Both pop the format's prefixed options (``json.*``, ``csv.*``) from the ``Options``;
the connector then calls ``options.finish()``. No Python runs per row: everything
is ``from_json``/regex/cast expressions evaluated in the JVM.
"""
from __future__ import annotations

from types import ModuleType

from sqlengine.errors import ConnectorError

SUPPORTED = ("csv", "debezium-json", "json")
# Formats whose records are bytes, not lines: only connectors with byte records (kafka) take them.
BYTE_FORMATS = ("avro", "raw")


def format_module(name: str, connector: str = "filesystem", allow: tuple[str, ...] = ()) -> ModuleType:
    """The module implementing format ``name``; ``allow``: formats only some connectors
    take (``raw`` and ``avro``, whose values are bytes, not lines)."""
    if name == "raw" and "raw" in allow:
        from connectors.formats import raw as module
        return module
    if name == "avro" and "avro" in allow:
        from connectors.formats import avro as module
        return module
    if name == "json":
        from connectors.formats import json as module
        return module
    if name == "csv":
        from connectors.formats import csv as module
        return module
    if name == "debezium-json":
        from connectors.formats import debezium_json as module
        return module
    hint = ""
    if name == "avro":  # Flink's filesystem 'avro' is Avro container files; ours reads and writes lines
        hint = f" ('avro' of connector '{connector}' is not supported yet; connector 'kafka' takes it)"
    raise ConnectorError(
        f"Could not find any format factory for identifier '{name}' (connector '{connector}'). "
        f"Available format identifiers are: {', '.join(sorted(SUPPORTED + allow))}{hint}")
