"""The ``kafka`` and ``upsert-kafka`` connectors (Flink's option names and behaviour).

Source (``kafka``): the records of ``topic`` / ``topic-pattern`` read by the
``sqlengine_kafka`` Python data source (reader.py) in exact offset ranges, decoded by the
key and value formats with native Spark expressions. Bounded by ``scan.bounded.mode``
(then it ends with the ``__eoi`` protocol of connectors/base.py), else unbounded. A
malformed record fails the job naming topic, partition and offset, unless the format's
``ignore-parse-errors`` is true (then it is skipped and counted).

Sink (``kafka``, ``upsert-kafka``): rows are encoded natively into key and value bytes
and produced by writer.py with ``sink.delivery-guarantee``. ``upsert-kafka`` writes the
primary key as the record key, inserts and updates as values and deletes as tombstones
(the ``-U`` half of an update is dropped, as Flink does); the changes of one epoch are
folded to the last one per key before writing.
"""
from __future__ import annotations

import itertools
import json
import uuid
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from pyspark.sql import Column, Observation
from pyspark.sql import functions as F

from connectors.base import (EOI, OP, SEQ, SPLIT, ConnectorFactory, EndOfInput, Options, ScanContext, ScanResult, Sink,
                             SinkContext, TransactionalSink, fold_upserts, is_deletion, progress_offset, register)
from connectors.kafka import options as KO
from connectors.kafka.reader import DATA, EOI_PLANNED, FAST, GroupOffsets, KafkaLag, register as register_source
from connectors import pace
from sqlengine.config import checkpoint_interval_ms, max_rows_per_epoch
from sqlengine.errors import ConnectorError

BAD = "__bad"
CONF_MAX_ROWS = "sqlengine.kafka.max-rows-per-epoch"
# A source that drops rows where it reads (a filter pushed into its reader) reads more records
# an epoch so that about max-rows-per-epoch rows still enter it (reader.py, ``admit``); at most
# this many records (default: RECORDS_PER_ROW x the rows' cap).
CONF_MAX_RECORDS = "sqlengine.kafka.max-records-per-epoch"
RECORDS_PER_ROW = 8
CONF_TIMEOUT = "sqlengine.kafka.timeout"
# Whether the reader decodes JSON values with Arrow where it can (connectors/formats/json_arrow.py).
CONF_ARROW_JSON = "sqlengine.kafka.arrow-json"
_scan_ids = itertools.count(1)


def _timeout_s(conf: dict[str, str]) -> str:
    from sqlengine.config import duration_ms
    raw = conf.get(CONF_TIMEOUT)
    ms = duration_ms(raw) if raw else None
    return str((ms or 60_000) / 1000)


def _max_records(conf: dict[str, str], rows: int) -> int:
    if (conf.get(CONF_MAX_RECORDS) or "").strip():
        return max_rows_per_epoch(conf, CONF_MAX_RECORDS)
    return rows * RECORDS_PER_ROW


def _source_options(ctx: ScanContext, k: KO.KafkaOptions, fields: list[str], token: str) -> dict[str, str]:
    rows = max_rows_per_epoch(ctx.conf, CONF_MAX_ROWS)
    return {"client_secret_config": json.dumps(k.client), "topics": json.dumps(list(k.topics)),
            "pattern": k.pattern or "", "startup": json.dumps(k.startup.as_dict()), "bounded": json.dumps(k.bounded.as_dict()),
            "fields": ",".join(fields), "source_id": token, "num_partitions": str(max(1, ctx.parallelism)),
            "max_rows": str(rows), "max_records": str(_max_records(ctx.conf, rows)), "discovery_ms": str(k.discovery_ms),
            pace.OPTION: str(checkpoint_interval_ms(ctx.conf)),
            "timeout_s": _timeout_s(ctx.conf)}


@dataclass(frozen=True)
class EndOfData:
    token: str

    def __call__(self, source_progress: dict) -> bool:
        return progress_offset(source_progress, self.token).get("phase", DATA) >= EOI_PLANNED


@dataclass(frozen=True)
class KafkaEpochInfo:
    def __call__(self, start: Optional[dict], end: dict) -> tuple[bool, bool]:
        ended = end.get("phase", DATA) >= EOI_PLANNED
        if start is None:
            return True, ended
        rows = start.get("phase", DATA) == DATA and start.get("pos") != end.get("pos")
        return rows, ended


def kafka_splits(end: dict) -> dict[str, bool]:
    """``ScanResult.splits``: the epoch's partitions (``topic:partition``, sorted: a row's
    ``__split`` is its partition's position, ``reader.plan``) and whether each has been read
    to its bounded end."""
    stop = end.get("stop")
    return {k: stop is not None and v >= stop.get(k, v) for k, v in sorted((end.get("pos") or {}).items())}


def _text(data: str) -> str:
    return data + "_text"


def _fast_fields(k: KO.KafkaOptions, conf: dict[str, str]) -> Optional[list]:
    """The value's fields when the reader decodes it (``__value_fast``), else None."""
    spec = k.value
    if spec is None or spec.name != "json" or spec.options.fail_on_missing_field:
        return None
    if str(conf.get(CONF_ARROW_JSON, "true")).strip().lower() == "false":
        return None
    from connectors.formats.json_arrow import wire_fields
    return wire_fields(spec.columns)


def _fast_options(spec: KO.FormatSpec, fast: list, unread, used: Optional[list] = None,
                  tops: Sequence[list] = ()) -> dict[str, str]:
    """The reader's options for decoding the value (json_arrow.Decoder): its fields, the
    paths of its TIMESTAMPs when a covered batch needs no bytes, the paths into its JSON
    objects of the values no operator reads (``unread``: table column names, then ROW
    members; a column the value does not hold is not the reader's), and the condition
    the rows the job uses meet (``used``, sqlengine/plan/predicates.py; its parts on the value's
    columns), by which a covered batch drops the others but the ones holding each split's
    largest ``tops`` (all on the value's columns, or no row is dropped)."""
    from connectors.formats.json_arrow import raw_free
    from connectors.predicate import paths as read_paths, restrict
    out = {"value_fast": json.dumps(fast)}
    free = raw_free(fast, spec.options.iso)
    if free is not None:
        out["value_raw_free"] = json.dumps(free)
    names = dict(zip(spec.table_names, (n for n, _ in spec.columns)))
    paths = [[names[p[0]], *p[1:]] for p in unread if p[0] in names]
    if paths:
        out["value_unread"] = json.dumps(paths)
    cond = restrict(used, lambda path: path[0] in names)
    whole = all(p[0] in names for top in tops for p in read_paths(top))
    if cond is not None and whole and free is not None:  # only covered batches drop rows (typed values)
        out["value_filter"] = json.dumps(_renamed(cond, names))
        if tops:
            out["value_tops"] = json.dumps([_renamed(top, names) for top in tops])
    return out


def _renamed(pred: list, names: dict) -> list:
    """``pred`` (a condition or a value) on the table's column names, on the value's JSON names."""
    if pred[0] in ("and", "or", "not", "case"):
        return [pred[0], *(_renamed(q, names) for q in pred[1:])]
    at = 2 if pred[0] == "cmp" else 1
    path = pred[at]
    return pred[:at] + [[names[path[0]], *path[1:]]] + pred[at + 1:]


def _decode(spec: KO.FormatSpec, data: str, fast: str = "", sent: Optional[list] = None):
    """The format's columns (named as the table's) from the record field ``data`` (bytes, or
    its text in ``<data>_text`` for text formats; ``fast``: also the reader's decoding,
    ``"wire"`` or ``"typed"``: json.decode_detailed; ``sent``: the members the reader's
    typed values have, json_arrow.sent_fields)."""
    raw = F.col(data) if getattr(spec.module, "BINARY", False) else F.col(_text(data))
    extra = {"fast": F.col(FAST), "typed": fast == "typed", "sent": sent} if fast else {}
    decoded = spec.module.decode_detailed(raw, list(spec.columns), spec.options, tag=data + "_parsed", **extra)
    cols = [c.alias(name) for c, name in zip(decoded.columns, spec.table_names)]
    return decoded, cols


def _metadata_column(key: str, name: str, t) -> Column:
    field = KO.READABLE[key][1]
    c = F.col(field)
    if key == "timestamp":
        c = F.timestamp_millis(c)
    return c.cast(t.to_spark()).alias(name)


class KafkaFactory(ConnectorFactory):
    identifier = "kafka"
    accepts_updates = False
    readable_metadata = tuple(KO.READABLE)
    writable_metadata = KO.WRITABLE
    upsert = False

    def _parse(self, options: Options, columns, primary_key=(), source: bool = True) -> KO.KafkaOptions:
        return KO.parse(options, columns, primary_key, upsert=self.upsert, source=source)

    def scan(self, ctx: ScanContext) -> ScanResult:
        k = self._parse(ctx.options, ctx.columns, ctx.primary_key)
        if not ctx.streaming and k.bounded.mode == "unbounded":
            raise ConnectorError(
                f"Querying an unbounded table '{ctx.table_name}' in batch mode is not allowed. The table source "
                f"is unbounded (set 'scan.bounded.mode', e.g. to 'latest-offset').")
        ignore = any(s is not None and getattr(s.options, "ignore_parse_errors", False) for s in (k.key, k.value))
        fields = []
        if k.key is not None:
            fields.append("__key")
        fast = _fast_fields(k, ctx.conf)
        if k.value is not None:
            fields.append("__value")
            if fast is not None:
                fields.append(FAST)
        for name, key, _ in ctx.metadata:
            f = KO.READABLE[key][1]
            if f not in fields:
                fields.append(f)
        for f in ("__topic", "__partition", "__offset"):  # named by parse errors
            if f not in fields:
                fields.append(f)
        if ctx.streaming:
            fields.append("__split")
        token = f"{ctx.table_name}#{next(_scan_ids)}-{uuid.uuid4().hex[:8]}"
        name = register_source(ctx.spark)
        reader = ctx.spark.readStream if ctx.streaming else ctx.spark.read
        source_options = _source_options(ctx, k, fields, token)
        if fast is not None:
            # No row is dropped where a key is read: its decoding (in Spark) could fail.
            source_options.update(_fast_options(k.value, fast, ctx.unread, ctx.filter if k.key is None else None,
                                                 ctx.tops))
        raw = reader.format(name).options(**source_options).load()
        observed = f"kafka[{ctx.table_name}]#{token.rsplit('#', 1)[1]}"
        handle = observed if ctx.streaming else Observation(observed)
        mode = "" if fast is None else "typed" if "value_raw_free" in source_options else "wire"
        sent = None
        if mode == "typed":
            from connectors.formats.json_arrow import sent_fields
            sent = sent_fields(fast, True, json.loads(source_options.get("value_unread") or "[]"))
        df = self._decoded(raw, ctx, k, ignore, handle, mode, sent)
        bounded = k.bounded.mode != "unbounded"
        result = ScanResult(df, f"KafkaSource(topic={k.topic_label()}, format={k.value.name if k.value else '-'})",
                            EndOfInput(token) if ctx.streaming and bounded else None,
                            data_end_check=EndOfData(token) if ctx.streaming and bounded else None,
                            epoch_info=KafkaEpochInfo() if ctx.streaming else None,
                            epoch_done=GroupOffsets(source_options) if ctx.streaming and k.group_id else None,
                            splits=kafka_splits if ctx.streaming else None,
                            lag=KafkaLag(source_options, token) if ctx.streaming else None)
        result.metric_messages["skipped"] = "Skipped {n} malformed record(s) in table " + ctx.table_name + \
            f" (topic {k.topic_label()})."
        result.observation = handle if ignore else None
        return result

    def _decoded(self, raw, ctx: ScanContext, k: KO.KafkaOptions, ignore: bool, handle, fast: str = "",
                 sent: Optional[list] = None):
        cols: dict[str, Column] = {}
        bads, reasons = [], []
        # The bytes as text once (a text decoder reads its input several times), then the
        # decoders' preludes (parsed objects, see connectors/formats), each in a projection.
        texts = [F.col(d).cast("string").alias(_text(d)) for s, d in ((k.key, "__key"), (k.value, "__value"))
                 if s is not None and not getattr(s.module, "BINARY", False)]
        changelog = k.value is not None and getattr(k.value.module, "CHANGELOG", False)
        if changelog:  # one row per row image of a change event (see formats/debezium_json)
            event = k.value.module.changes(F.col("__value").cast("string"), k.value.options)
            raw = raw.select("*", F.explode_outer(event).alias("__change"))
            texts = [(F.col("__change.image") if d == "__value" else F.col(d).cast("string")).alias(_text(d))
                     for s, d in ((k.key, "__key"), (k.value, "__value"))
                     if s is not None and not getattr(s.module, "BINARY", False)]
        preludes = []
        for spec, data in ((k.key, "__key"), (k.value, "__value")):
            if spec is None:
                continue
            decoded, named = _decode(spec, data, fast if data == "__value" else "", sent)
            preludes += decoded.prelude
            for c, n in zip(named, spec.table_names):
                # A column in key and value (value.fields-include ALL): the value's, as Flink,
                # but the key's in upsert-kafka's tombstone (Flink's delete carries the key).
                both = k.upsert and data == "__value" and n in cols
                cols[n] = F.when(F.col(data).isNull(), cols[n]).otherwise(c).alias(n) if both else c
            bads.append(F.when(F.col(data).isNull(), F.lit(False)).otherwise(decoded.bad))
            reasons.append(decoded.reason)
        if changelog:
            bads.append(F.col("__change.err").isNotNull())
            reasons.append(F.coalesce(F.col("__change.err"), reasons.pop()))
        bad = F.lit(False)
        for b in bads:
            bad = bad | F.coalesce(b, F.lit(False))
        reason = reasons[-1] if reasons else F.lit("")
        # Without ignore-parse-errors only the raise matters (every other row is kept): ELSE false,
        # not ELSE bad, which evaluated the checks (timestamp parsing) twice per record.
        flag = bad if ignore else F.when(bad, F.raise_error(_failure(k, reason))).otherwise(F.lit(False))
        physical = [cols[n] if n in cols else F.lit(None).cast(t.to_spark()).alias(n) for n, t in ctx.columns]
        meta = [_metadata_column(key, n, t) for n, key, t in ctx.metadata]
        # A null value: a tombstone, skipped; for upsert-kafka the key's deletion.
        keep = F.col(EOI) | F.col("__value").isNotNull() if k.value is not None and not k.upsert else F.lit(True)
        raw = raw.where(keep).select("*", *texts).select("*", *preludes)
        kind = []
        if changelog:
            kind = [F.col("__change.op").alias(OP)]
            if str(ctx.conf.get("table.exec.source.cdc-events-duplicate", "")).lower() == "true":
                kind.append(F.col("__offset").alias(SEQ))  # the order of a key's events, normalized
        elif k.upsert:
            value_null = F.col("__value").isNull() if k.value is not None else F.lit(False)
            kind = [F.when(value_null, F.lit("-D")).otherwise(F.lit("+U")).alias(OP),
                    F.col("__offset").alias(SEQ)]
        split = [F.col("__split").alias(SPLIT)] if ctx.streaming else []
        df = raw.select(*physical, *meta, *kind, flag.alias(BAD), *split, F.col(EOI))
        if ignore:
            # Counted only when bad records can be skipped (otherwise one fails the job): the
            # observation is an interpreted aggregation per record that also splits the
            # scan's whole-stage codegen in two.
            df = df.observe(handle, F.coalesce(F.sum(F.col(BAD).cast("int")), F.lit(0)).alias("skipped"))
            df = df.where(~F.col(BAD))
        else:  # a filter that keeps every row but needs the flag, so its raise_error is evaluated
            df = df.where(F.coalesce(~F.col(BAD), F.lit(True)))
        names = [n for n, _ in ctx.columns] + [n for n, _, _ in ctx.metadata]
        return df.select(*[F.col(f"`{n}`") for n in names], *[F.col(c) for c in (OP, SEQ) if c in df.columns],
                         *split, F.col(EOI))

    def sink(self, ctx: SinkContext) -> Sink:
        meta = {n for n, _ in ctx.metadata}
        physical = [(n, t) for n, t in ctx.columns if n not in meta]
        k = self._parse(ctx.options, physical, ctx.primary_key, source=False)
        if ctx.updating and not self.upsert and not (k.value and getattr(k.value.module, "CHANGELOG", False)):
            raise ConnectorError(f"Table sink '{ctx.table_name}' doesn't support consuming update and delete "
                                 f"changes (use 'upsert-kafka', or the 'debezium-json' format).")
        return KafkaSink(ctx, k)

    def source_changelog(self, options: dict[str, str]) -> str:
        if self.upsert:
            return "upsert"
        fmt = options.get("value.format") or options.get("format") or "json"
        from connectors.formats import BYTE_FORMATS, format_module
        try:
            return "all" if getattr(format_module(fmt, self.identifier, allow=BYTE_FORMATS), "CHANGELOG", False) else ""
        except ConnectorError:
            return ""

    def sink_accepts_updates(self, options: dict[str, str]) -> bool:
        if self.upsert:
            return True
        fmt = options.get("value.format") or options.get("format") or "json"
        from connectors.formats import BYTE_FORMATS, format_module
        try:
            return getattr(format_module(fmt, self.identifier, allow=BYTE_FORMATS), "CHANGELOG", False)
        except ConnectorError:
            return False


class UpsertKafkaFactory(KafkaFactory):
    identifier = "upsert-kafka"
    accepts_updates = True
    upsert = True


def _failure(k: KO.KafkaOptions, reason: Column) -> Column:
    spec = k.value if k.value else k.key
    fmt = spec.name.upper()
    # cast here: evaluated for bad records only; a binary format's record as hex digits
    value = F.hex(F.col("__value")) if getattr(spec.module, "BINARY", False) else F.col("__value").cast("string")
    text = F.coalesce(value, F.lit("null"))
    return F.concat(F.lit(f"Failed to deserialize {fmt} '"), text, F.lit("' at topic "), F.col("__topic"),
                    F.lit(" partition "), F.col("__partition").cast("string"), F.lit(" offset "),
                    F.col("__offset").cast("string"), F.lit(": "), reason)


class KafkaSink(TransactionalSink):
    def __init__(self, ctx: SinkContext, k: KO.KafkaOptions):
        self.ctx, self.k = ctx, k
        self.explain = f"KafkaSink(topic={k.topics[0]}, guarantee={k.guarantee})"
        self.exactly_once = k.guarantee == "exactly-once"
        self._partitions: Optional[int] = None
        meta = dict(ctx.metadata)
        self.meta_cols = {key: name for name, key in meta.items()}
        self.physical = [(n, t) for n, t in ctx.columns if n not in meta]

    # -- rows -> records ---------------------------------------------------------------------
    def rows(self, df):
        """Rows to records: ``__value``, ``__key``, ``__timestamp``, ``__headers``."""
        k = self.k
        types = dict(self.ctx.columns)
        if self.k.upsert:
            df = self._fold(df)
        cols = []
        if k.key is not None:
            kc = [(F.col(f"`{n}`"), types[n], f) for n, (f, _) in zip(k.key.table_names, k.key.columns)]
            cols.append(_bytes(k.key.module.encode_with(kc, k.key.options), k.key.module).alias("__key"))
        if k.value is not None:
            vc = [(F.col(f"`{n}`"), types[n], f) for n, (f, _) in zip(k.value.table_names, k.value.columns)]
            if getattr(k.value.module, "CHANGELOG", False):
                op = F.col(OP) if OP in df.columns else None
                value = k.value.module.encode_with(vc, k.value.options, op)
            else:
                value = k.value.module.encode_with(vc, k.value.options)
            value = _bytes(value, k.value.module)
            if k.upsert:
                value = F.when(is_deletion(F.col(OP)), F.lit(None).cast("binary")).otherwise(value)
            cols.append(value.alias("__value"))
        else:
            cols.append(F.lit(None).cast("binary").alias("__value"))
        if "timestamp" in self.meta_cols:
            cols.append(F.unix_millis(F.col(f"`{self.meta_cols['timestamp']}`").cast("timestamp")).alias("__timestamp"))
        if "headers" in self.meta_cols:
            cols.append(F.col(f"`{self.meta_cols['headers']}`").cast("map<string,binary>").alias("__headers"))
        return df.select(*cols)

    def _fold(self, df):
        """upsert-kafka: per key, the epoch's last state (an upsert, or a delete)."""
        return fold_upserts(df, [n for n, _ in self.ctx.columns], list(self.ctx.primary_key))

    def writer(self, options: dict[str, str]):
        from connectors.kafka.writer import KafkaBatchWriter
        return KafkaBatchWriter(options)

    def writer_options(self, epoch: Optional[int], query_id: str) -> dict[str, str]:
        k = self.k
        out = {"client_secret_config": json.dumps(k.client), "topic": k.topics[0], "guarantee": k.guarantee,
               "sink_id": self.ctx.sink_id, "partitioner": k.partitioner, "timeout_s": _timeout_s(self.ctx.conf),
               "fields": ""}
        if k.partitioner == "fixed":
            out["topic_partitions"] = str(self._topic_partitions())
        if k.guarantee == "exactly-once":
            out.update({"txn_prefix": k.txn_prefix, "epoch": str(epoch if epoch is not None else 0),
                        "query_id": query_id})
        return out

    def _topic_partitions(self) -> int:
        if self._partitions is None:
            from confluent_kafka.admin import AdminClient
            conf = {kk: v for kk, v in self.k.client.items() if kk.startswith(("bootstrap.", "security.", "sasl.", "ssl."))}
            md = AdminClient(conf).list_topics(self.k.topics[0], timeout=float(_timeout_s(self.ctx.conf)))
            t = md.topics.get(self.k.topics[0])
            self._partitions = max(1, len(t.partitions) if t is not None and t.error is None else 1)
        return self._partitions

    def recover(self, query_id: str) -> None:
        from connectors.kafka.writer import recover
        recover(self.writer_options(None, query_id), self.ctx.writer_tasks)

    def distribution(self, rows):
        """Each writer task owns a transactional id and a marker: a replayed epoch must give
        it the same records."""
        return [F.col(c) for c in rows.columns if c != "__headers"]

    def spread(self, rows):
        """upsert-kafka: a key's records from one task, in order."""
        return rows.repartition(self.ctx.writer_tasks, F.col("__key")) if self.k.upsert else rows


def _bytes(c: Column, module: Any) -> Column:
    return c if getattr(module, "BINARY", False) else c.cast("binary")


KAFKA = register(KafkaFactory())
UPSERT_KAFKA = register(UpsertKafkaFactory())
