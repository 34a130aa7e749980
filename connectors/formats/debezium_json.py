"""``debezium-json``: a changelog as Debezium change events (Flink's
``debezium-json`` format).

Write side, as Flink's ``DebeziumJsonSerializationSchema``: ``+I``/``+U`` rows become
``{"before":null,"after":{...},"op":"c"}``, ``-U``/``-D`` rows
``{"before":{...},"after":null,"op":"d"}``. A sink with this format accepts updating
results (Flink's changelog mode of the format: I, UB, UA, D).

Read side, as Flink's ``DebeziumJsonDeserializationSchema``: an event is exploded into
its row images before they are decoded as JSON objects (``changes``): ``c`` and ``r``
(a snapshot read) are ``+I`` of ``after``, ``u`` is ``-U`` of ``before`` then ``+U`` of
``after``, ``d`` is ``-D`` of ``before``; a null message (a Kafka tombstone) is skipped.
``'debezium-json.schema-include' = 'true'``: the event is the ``payload`` of a
``{"schema":..., "payload":...}`` envelope. An event that is not such an object, has
another ``op``, or lacks the ``before`` image of an update or delete (a PostgreSQL table
without ``REPLICA IDENTITY FULL``) is malformed: the job fails, or it is skipped and
counted with ``'debezium-json.ignore-parse-errors' = 'true'``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats import json as J
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

CHANGELOG = True
PREFIX = "debezium-json."
ENVELOPE = "before STRING, after STRING, op STRING"
REPLICA_IDENTITY = ('The "before" field of {} message is null, if you are using Debezium Postgres Connector, '
                    'please check the Postgres table has been set REPLICA IDENTITY to FULL level.')


@dataclass(frozen=True)
class DebeziumOptions(J.JsonOptions):
    schema_include: bool = False


def parse_options(options: Options, prefix: str = PREFIX) -> DebeziumOptions:
    return DebeziumOptions(
        ignore_parse_errors=options.pop_bool(prefix + "ignore-parse-errors", False),
        iso=options.pop_choice(prefix + "timestamp-format.standard", ("SQL", "ISO-8601"), "SQL") == "ISO-8601",
        map_null_key_mode=options.pop_choice(prefix + "map-null-key.mode", ("FAIL", "DROP", "LITERAL"), "FAIL"),
        map_null_key_literal=options.pop(prefix + "map-null-key.literal", "null"),
        decimal_plain=options.pop_bool(prefix + "encode.decimal-as-plain-number", False),
        schema_include=options.pop_bool(prefix + "schema-include", False),
    )


def changes(text: Column, o: DebeziumOptions) -> Column:
    """The row images of the event in ``text``: an array of ``struct<image STRING, op
    STRING, err STRING>`` (``image`` the row's JSON object; ``err`` why the event is
    malformed, in an element of its own), NULL for a NULL message. Explode it, then
    decode ``image`` with ``decode_detailed``."""
    schema = f"schema STRING, payload STRUCT<{ENVELOPE}>" if o.schema_include else ENVELOPE
    opts = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": J.CORRUPT}
    parsed = F.from_json(text, f"{schema}, {J.CORRUPT} STRING", opts)
    event = parsed.getField("payload") if o.schema_include else parsed
    before, after, op = event.getField("before"), event.getField("after"), event.getField("op")

    def one(image: Optional[Column], kind: Optional[str], err: Optional[Column] = None) -> Column:
        return F.struct((image if image is not None else F.lit(None).cast("string")).alias("image"),
                        F.lit(kind).cast("string").alias("op"),
                        (err if err is not None else F.lit(None).cast("string")).alias("err"))

    def missing(kind: str) -> Column:
        return F.array(one(None, None, F.lit(REPLICA_IDENTITY.format(kind))))

    corrupt = parsed.getField(J.CORRUPT).isNotNull() | event.isNull()
    return (F.when(text.isNull(), F.lit(None))
            .when(corrupt, F.array(one(None, None, F.lit("not a Debezium JSON event."))))
            .when(op.isin("c", "r"), F.array(one(after, "+I")))
            .when((op == "u") & before.isNull(), missing("UPDATE"))
            .when(op == "u", F.array(one(before, "-U"), one(after, "+U")))
            .when((op == "d") & before.isNull(), missing("DELETE"))
            .when(op == "d", F.array(one(before, "-D")))
            .otherwise(F.array(one(None, None, F.concat(F.lit('Unknown "op" value "'),
                                                          F.coalesce(op, F.lit("null")), F.lit('".'))))))


def decode_detailed(text: Column, columns: list[tuple[str, DataType]], o: DebeziumOptions,
                    tag: str = "__json", inline: bool = False):
    """A row image (``changes(...).image``) decoded as a JSON object."""
    return J.decode_detailed(text, columns, o, tag=tag, inline=inline)


def decode(*_args, **_kwargs):
    raise ConnectorError("Format 'debezium-json' is read with its changes exploded first (see `changes`).")


def encode_with(cols: list[tuple[Column, DataType, str]], o: J.JsonOptions, op: Optional[Column] = None) -> Column:
    """One change event per row; ``op`` is the row kind column (``+I``, ``-U``, ``+U``, ``-D``)."""
    if getattr(o, "schema_include", False):
        raise ConnectorError(f"Debezium JSON serialization doesn't support '{PREFIX}schema-include' "
                             f"option been set to true.")
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
