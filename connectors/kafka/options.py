"""Flink's ``kafka`` and ``upsert-kafka`` table options, parsed once for source and sink.

Key and value: ``format`` (or ``value.format``) decodes the record value into the value
fields; ``key.format`` + ``key.fields`` decode the record key into the listed physical
columns. ``value.fields-include`` = ``ALL`` (default) puts every physical column in the
value, ``EXCEPT_KEY`` only the columns that are not key fields; ``key.fields-prefix``
names key columns whose format field names lack the prefix (needs ``EXCEPT_KEY``).
``upsert-kafka`` takes the key fields from the PRIMARY KEY instead (its value too holds every
column by default, as Flink's).

``properties.*`` become the librdkafka client configuration (the Java client's key names
are the same for the common settings). Secrets among them never print (``redact``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from connectors.base import Options
from connectors.formats import BYTE_FORMATS, format_module
from sqlengine.config import duration_ms
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

STARTUP_MODES = ("earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets")
BOUNDED_MODES = ("unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets")
GUARANTEES = ("none", "at-least-once", "exactly-once")
PARTITIONERS = ("default", "fixed", "round-robin")
DEFAULT_DISCOVERY_MS = 5 * 60 * 1000  # Flink's default partition discovery interval
# Readable metadata of the kafka source (Flink's KafkaDynamicSource.ReadableMetadata):
# key -> (Flink type, Arrow field the reader yields).
READABLE = {
    "topic": ("STRING NOT NULL", "__topic"),
    "partition": ("INT NOT NULL", "__partition"),
    "headers": ("MAP<STRING, BYTES> NOT NULL", "__headers"),
    "leader-epoch": ("INT", "__leader_epoch"),
    "offset": ("BIGINT NOT NULL", "__offset"),
    "timestamp": ("TIMESTAMP_LTZ(3) NOT NULL", "__timestamp"),
    "timestamp-type": ("STRING NOT NULL", "__timestamp_type"),
}
WRITABLE = ("headers", "timestamp")


@dataclass(frozen=True)
class FormatSpec:
    name: str
    module: Any
    options: Any
    columns: tuple[tuple[str, DataType], ...]  # the format's field names and types
    table_names: tuple[str, ...]  # the table columns they fill (prefix kept)


@dataclass(frozen=True)
class Position:
    """Where reading starts (``scan.startup.*``) or stops (``scan.bounded.*``)."""

    mode: str
    offsets: dict[int, int] = field(default_factory=dict)  # specific-offsets: partition -> offset
    ts: Optional[int] = None  # timestamp: epoch milliseconds

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "offsets": self.offsets, "ts": self.ts}


@dataclass(frozen=True)
class KafkaOptions:
    connector: str
    topics: tuple[str, ...]
    pattern: Optional[str]
    client: dict[str, str]  # librdkafka configuration from properties.*
    value: Optional[FormatSpec]  # None: no value columns (all in the key)
    key: Optional[FormatSpec]
    startup: "Position" = field(default_factory=lambda: Position("group-offsets"))
    bounded: "Position" = field(default_factory=lambda: Position("unbounded"))
    discovery_ms: int = DEFAULT_DISCOVERY_MS
    guarantee: str = "at-least-once"
    txn_prefix: Optional[str] = None
    partitioner: str = "default"
    sink_parallelism: Optional[int] = None
    upsert: bool = False

    @property
    def group_id(self) -> Optional[str]:
        return self.client.get("group.id")

    def topic_label(self) -> str:
        return self.pattern if self.pattern is not None else ";".join(self.topics)


def _specific_offsets(raw: str, key: str, connector: str) -> dict[int, int]:
    """``partition:0,offset:42;partition:1,offset:300``."""
    out: dict[int, int] = {}
    for part in [p for p in raw.split(";") if p.strip()]:
        m = re.fullmatch(r"\s*partition\s*:\s*(\d+)\s*,\s*offset\s*:\s*(\d+)\s*", part)
        if not m:
            raise ConnectorError(
                f"Invalid properties '{key}' should follow the format 'partition:0,offset:42;partition:1,offset:300', "
                f"but is '{raw}' (connector '{connector}').")
        out[int(m.group(1))] = int(m.group(2))
    return out


def _position(options: Options, which: str, modes: tuple[str, ...], default: str) -> Position:
    """``scan.<which>.mode`` with its ``specific-offsets`` / ``timestamp-millis`` option."""
    mode = options.pop_choice(f"scan.{which}.mode", modes, default)
    raw = options.pop(f"scan.{which}.specific-offsets")
    millis = options.pop(f"scan.{which}.timestamp-millis")
    if mode == "specific-offsets":
        if raw is None:
            raise ConnectorError(f"'scan.{which}.specific-offsets' is required in 'specific-offsets' {which} "
                                 f"mode but missing (connector '{options.connector}').")
        return Position(mode, _specific_offsets(raw, f"scan.{which}.specific-offsets", options.connector))
    if mode == "timestamp":
        if millis is None:
            raise ConnectorError(f"'scan.{which}.timestamp-millis' is required in 'timestamp' mode but missing "
                                 f"(connector '{options.connector}').")
        try:
            return Position(mode, ts=int(millis.strip()))
        except ValueError:
            raise ConnectorError(f"Invalid value for option 'scan.{which}.timestamp-millis' of connector "
                                 f"'{options.connector}': '{millis}' is not an integer.") from None
    return Position(mode)


def _format(options: Options, prefix_key: str, fmt: str, columns: list[tuple[str, DataType]],
            strip: str = "") -> FormatSpec:
    module = format_module(fmt, options.connector, allow=BYTE_FORMATS)
    opts = module.parse_options(options, fmt + ".")
    fcols = tuple((n[len(strip):] if strip and n.startswith(strip) else n, t) for n, t in columns)
    if hasattr(module, "check_columns"):
        module.check_columns(fcols, prefix_key)
    return FormatSpec(fmt, module, opts, fcols, tuple(n for n, _ in columns))


def parse(options: Options, columns: list[tuple[str, DataType]], primary_key: tuple[str, ...] = (),
          upsert: bool = False, source: bool = True) -> KafkaOptions:
    """Pop every kafka / upsert-kafka option (and its formats'), then ``finish``."""
    c = options.connector
    topic = options.pop("topic")
    pattern = options.pop("topic-pattern")
    if topic is not None and pattern is not None:
        raise ConnectorError(f"Option 'topic' and 'topic-pattern' shouldn't be set together (connector '{c}').")
    if topic is None and (pattern is None or not source or upsert):
        raise ConnectorError(f"Missing required option 'topic' for connector '{c}'." if not source or upsert
                             else f"Either 'topic' or 'topic-pattern' must be set for connector '{c}'.")
    topics = tuple(t.strip() for t in (topic or "").split(";") if t.strip())
    if not source and len(topics) > 1:
        raise ConnectorError(f"Connector '{c}' can write only one topic, but 'topic' lists {len(topics)}.")
    props = {k[len("properties."):]: v for k, v in options.pop_prefix("properties.").items()}
    if "bootstrap.servers" not in props:
        raise ConnectorError(f"Missing required option 'properties.bootstrap.servers' for connector '{c}'.")
    client = _client_config(props)
    names = [n for n, _ in columns]
    types = dict(columns)
    key_fmt = options.pop("key.format")
    key_fields_raw = options.pop("key.fields")
    prefix = options.pop("key.fields-prefix") or ""
    # ALL for both connectors, as Flink's KafkaConnectorOptions.VALUE_FIELDS_INCLUDE: an upsert-kafka value holds
    # the key columns too unless the table says EXCEPT_KEY
    include = options.pop_choice("value.fields-include", ("ALL", "EXCEPT_KEY"), "ALL")
    if upsert:
        if not primary_key:
            raise ConnectorError(
                "'upsert-kafka' tables require to define a PRIMARY KEY constraint. The PRIMARY KEY specifies "
                "which columns should be read from or write to the Kafka message key.")
        if key_fields_raw is not None:
            raise ConnectorError("Option 'key.fields' is not supported by 'upsert-kafka': the PRIMARY KEY is the key.")
        key_fields = list(primary_key)
        if key_fmt is None:
            raise ConnectorError("Missing required option 'key.format' for connector 'upsert-kafka'.")
    else:
        key_fields = [k.strip() for k in (key_fields_raw or "").split(";") if k.strip()]
        if key_fields and key_fmt is None:
            raise ConnectorError(f"'key.fields' requires 'key.format' (connector '{c}').")
        if key_fmt is not None and not key_fields:
            raise ConnectorError(
                f"A key format 'key.format' requires the declaration of one or more of key fields using "
                f"'key.fields' (connector '{c}').")
    for k in key_fields:
        if k not in types:
            raise ConnectorError(
                f"Could not find the field '{k}' in the table schema for usage in the key format. A key field "
                f"must be a regular, physical column. The following columns can be selected in the "
                f"'key.fields' option: [{', '.join(names)}]")
    if prefix and include != "EXCEPT_KEY":
        raise ConnectorError(
            "A key prefix is not allowed when option 'value.fields-include' is set to 'ALL'. Set it to "
            "'EXCEPT_KEY' instead to avoid field overlaps.")
    for k in key_fields:
        if prefix and not k.startswith(prefix):
            raise ConnectorError(f"All fields in 'key.fields' must be prefixed with '{prefix}' when option "
                                 f"'key.fields-prefix' is set but field '{k}' is not prefixed.")
    key = _format(options, "key.format", key_fmt, [(k, types[k]) for k in key_fields], prefix) \
        if key_fmt else None
    fmt = options.pop("value.format")
    fmt2 = options.pop("format")
    if fmt is not None and fmt2 is not None:
        raise ConnectorError(f"Option 'format' and 'value.format' shouldn't be set together (connector '{c}').")
    fmt = fmt or fmt2
    if fmt is None:
        raise ConnectorError(f"Could not find required scan format 'value.format' (connector '{c}').")
    value_cols = [(n, types[n]) for n in names if include == "ALL" or n not in key_fields]
    value = _format(options, "value.format", fmt, value_cols) if value_cols else None
    if value is not None and getattr(value.module, "CHANGELOG", False) and upsert:
        raise ConnectorError(f"'upsert-kafka' connector doesn't support '{fmt}' as value format: the "
                             f"records are upserts by key already.")
    out: dict[str, Any] = {}
    if not upsert:
        out["startup"] = _position(options, "startup", STARTUP_MODES, "group-offsets")
        out["bounded"] = _position(options, "bounded", BOUNDED_MODES, "unbounded")
        if out["startup"].mode == "group-offsets" and "group.id" not in client and source:
            # Flink requires a group id for committed offsets; without one start at the earliest
            # offset, as Flink's KafkaSource does when no offsets were ever committed and reset=earliest.
            out["startup"] = Position("earliest-offset")
        if out["bounded"].mode == "group-offsets" and "group.id" not in client:
            raise ConnectorError(f"'properties.group.id' is required in 'group-offsets' bounded mode "
                                 f"(connector '{c}').")
    else:
        out["startup"] = Position("earliest-offset")  # upsert-kafka reads the whole topic, as Flink
        out["bounded"] = _position(options, "bounded", BOUNDED_MODES, "unbounded")  # FLINK-31740
    raw = options.pop("scan.topic-partition-discovery.interval")
    if raw is not None:
        ms = duration_ms(raw)
        if ms is None:
            raise ConnectorError(f"Invalid value for option 'scan.topic-partition-discovery.interval': '{raw}'.")
        out["discovery_ms"] = ms
    options.pop("scan.parallelism")
    # Flink's watermark options for sources with watermark push-down (FLIP-296): the idle
    # timeout is applied by the runtime's per-split watermarks (physical/operators/
    # watermark_assigner.py); both emit strategies give the same results here, where a
    # watermark advances once per epoch.
    raw = options.pop("scan.watermark.idle-timeout")
    if raw is not None and duration_ms(raw.strip()) is None:
        raise ConnectorError(f"Invalid value for option 'scan.watermark.idle-timeout': '{raw}' is not a duration "
                             f"(for example '30 s').")
    options.pop_choice("scan.watermark.emit.strategy", ("on-event", "on-periodic"), "on-periodic")
    out["guarantee"] = options.pop_choice("sink.delivery-guarantee", GUARANTEES, "at-least-once")
    semantic = options.pop("sink.semantic")
    if semantic is not None:
        out["guarantee"] = semantic.replace("_", "-").lower()
    out["txn_prefix"] = options.pop("sink.transactional-id-prefix")
    if out["guarantee"] == "exactly-once" and not out["txn_prefix"] and not source:
        raise ConnectorError(
            "sink.transactional-id-prefix must be specified when using DeliveryGuarantee.EXACTLY_ONCE "
            f"(connector '{c}').")
    part = options.pop("sink.partitioner")
    if part is not None and part not in PARTITIONERS:
        raise ConnectorError(f"Could not find and instantiate partitioner class '{part}' (connector '{c}'); "
                             f"valid values: {', '.join(PARTITIONERS)}.")
    out["partitioner"] = part or "default"
    out["sink_parallelism"] = options.pop_int("sink.parallelism")
    for k in ("sink.buffer-flush.max-rows", "sink.buffer-flush.interval"):
        options.pop(k)
    options.finish()
    return KafkaOptions(c, topics, pattern, client, value, key, upsert=upsert, **out)


# librdkafka has no JAAS: the Java client's PLAIN/SCRAM login module line is turned into
# sasl.username / sasl.password.
_JAAS = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')
_JAVA_ONLY = ("key.deserializer", "value.deserializer", "key.serializer", "value.serializer",
              "partition.discovery.interval.ms", "client.id.prefix", "commit.offsets.on.checkpoint",
              "register.consumer.metrics")


# librdkafka's defaults that this engine changes (a user's ``properties.*`` still win).
# ``enable.sparse.connections``: by default a client connects to a broker only once a request
# needs it, one connection after another; the clients here live for one task (an epoch's
# transactional producer and its marker consumer, a read task's consumer), so that wait is
# paid every epoch: on a one-broker cluster a producer's init + one transaction took a median
# of 62-74 ms and 500 ms more in 20-30% of starts (librdkafka's PID timer, when the
# coordinator's connection came up late), a consumer's ``committed`` 56-59 ms; connecting to
# every broker at once, 9-14 ms with no 500 ms stall in 200, and 4-5 ms (benchmarks/README.md,
# "Kafka clients that connect at once").
CLIENT_DEFAULTS = {"enable.sparse.connections": "false"}


def _client_config(props: dict[str, str]) -> dict[str, str]:
    out = dict(CLIENT_DEFAULTS)
    for k, v in props.items():
        if k in _JAVA_ONLY:
            continue
        if k == "sasl.jaas.config":
            found = dict(_JAAS.findall(v))
            if "username" in found:
                out["sasl.username"] = found["username"]
            if "password" in found:
                out["sasl.password"] = found["password"]
            continue
        out[k] = v
    return out
