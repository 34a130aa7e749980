"""``debezium-json`` (write side): a changelog as Debezium change events, as Flink's
``DebeziumJsonSerializationSchema`` writes them: ``+I``/``+U`` rows become
``{"before":null,"after":{...},"op":"c"}``, ``-U``/``-D`` rows
``{"before":{...},"after":null,"op":"d"}``. A sink with this format accepts updating
results (Flink's changelog mode of the format: I, UB, UA, D).

Reading Debezium events (a changelog source) is not supported yet.
"""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats import json as J
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

CHANGELOG = True
PREFIX = "debezium-json."


def parse_options(options: Options, prefix: str = PREFIX) -> J.JsonOptions:
    if options.pop_bool(prefix + "schema-include", False):
        raise ConnectorError(f"Debezium JSON serialization doesn't support '{prefix}schema-include' "
                             f"option been set to true.")
    return J.JsonOptions(
        ignore_parse_errors=options.pop_bool(prefix + "ignore-parse-errors", False),
        iso=options.pop_choice(prefix + "timestamp-format.standard", ("SQL", "ISO-8601"), "SQL") == "ISO-8601",
        map_null_key_mode=options.pop_choice(prefix + "map-null-key.mode", ("FAIL", "DROP", "LITERAL"), "FAIL"),
        map_null_key_literal=options.pop(prefix + "map-null-key.literal", "null"),
        decimal_plain=options.pop_bool(prefix + "encode.decimal-as-plain-number", False),
    )


def decode(*_args, **_kwargs):
    raise ConnectorError("Format 'debezium-json' can only be written yet (reading a changelog source "
                         "from files is not supported).")


decode_detailed = decode


def encode_with(cols: list[tuple[Column, DataType, str]], o: J.JsonOptions, op: Optional[Column] = None) -> Column:
    """One change event per row; ``op`` is the row kind column (``+I``, ``-U``, ``+U``, ``-D``)."""
    row = J.encode_with(cols, o)
    kind = op if op is not None else F.lit("+I")
    added = kind.isin("+I", "+U")
    before = F.when(added, F.lit("null")).otherwise(row)
    after = F.when(added, row).otherwise(F.lit("null"))
    return F.concat(F.lit('{"before":'), before, F.lit(',"after":'), after,
                    F.lit(',"op":'), F.when(added, F.lit('"c"')).otherwise(F.lit('"d"')), F.lit("}"))


def encode(cols: list[tuple[Column, DataType, str]], options: Options, prefix: str = PREFIX,
           local_time_zone: str = "UTC") -> Column:
    return encode_with(cols, parse_options(options, prefix))
