"""The ``filesystem`` connector: Flink's option names, a line source and a part-file sink.

Source: the lines of ``path`` (a file, or every non-hidden file below a folder, in
path order) are read by the ``sqlengine_files`` Python data source (reader.py) and
decoded by the format (connectors/formats) with native Spark expressions. The
source is bounded: in streaming mode it ends with the ``__eoi`` protocol of
connectors/base.py; continuous directory monitoring is not supported.

A malformed line fails the job with an error naming the file and line number,
unless ``<format>.ignore-parse-errors`` is true: then the line is skipped and
counted. The decoded projection is followed by an ``observe`` (CollectMetrics)
node counting lines and skipped lines (see ``observation``) and, as Spark never pushes
filters through it, keeps the JSON/CSV parsing to one evaluation per line; its
``skipped`` aggregate also anchors the error check, which column pruning would
otherwise drop when a query reads none of the decoded columns.

Sink: append-only; each row is encoded natively into one line and written with a
two-phase commit (writer.py).
"""
from __future__ import annotations

import itertools
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any, Optional

from pyspark.sql import Column, Observation
from pyspark.sql import functions as F

from connectors.base import (EOI, OP, ConnectorFactory, EndOfInput, Options, ScanContext, ScanResult, Sink,
                             SinkContext, TransactionalSink, progress_offset, register)
from connectors.filesystem import datasource, files, writer
from connectors.filesystem.partitions import DEFAULT_NAME, CommitOptions, TimeExtractor
from connectors.filesystem.reader import DATA, EOI_PLANNED
from connectors.formats import format_module
from sqlengine.config import duration_ms, max_rows_per_epoch
from sqlengine.errors import ConnectorError

IDENTIFIER = "filesystem"
BAD = "__bad"
# Rolling-policy options: accepted and checked; a part file rolls at every epoch (Flink's
# row formats roll at every checkpoint too), so size and time limits never apply later.
ROLLING_DURATIONS = ("sink.rolling-policy.rollover-interval", "sink.rolling-policy.check-interval",
                     "sink.rolling-policy.inactivity-interval")
_MEMORY = re.compile(r"\s*\d+\s*([kmgt]i?b?|bytes?|b)?\s*", re.IGNORECASE)
# Session settings (not table options) for tests and tuning.
CONF_MAX_LINES = "sqlengine.filesystem.max-lines-per-batch"
CONF_MIN_SPLIT = "sqlengine.filesystem.min-split-bytes"
_scan_ids = itertools.count(1)
END_WATERMARK = 1 << 62  # a sink's input watermark once its input has ended (runtime/watermarks.py)


@dataclass(frozen=True)
class TableOptions:
    path: str
    format: str
    module: Any  # connectors.formats.json or .csv
    format_options: Any  # JsonOptions / CsvOptions
    partition_keys: tuple[str, ...] = ()
    default_name: str = DEFAULT_NAME
    shuffle: bool = False  # sink.shuffle-by-partition.enable
    commit: Optional[CommitOptions] = None  # a partitioned streaming sink's partition commit
    success_file: Optional[str] = None  # the success-file policy's file name, if configured


def parse_table_options(options: Options, source: bool, partition_keys: tuple[str, ...] = ()) -> TableOptions:
    """Pop the connector's and the format's options, then fail on any leftover key."""
    path = files.absolute(options.require("path"))
    fmt = options.require("format")
    module = format_module(fmt, IDENTIFIER)
    monitor = options.pop("source.monitor-interval")
    if monitor is not None and source:
        raise ConnectorError(
            f"Option 'source.monitor-interval' = '{monitor}' of connector 'filesystem': continuous "
            "directory monitoring is not supported yet; the filesystem source reads the files present "
            "when the job starts (remove the option to read them as a bounded source).")
    default_name = options.pop("partition.default-name", DEFAULT_NAME) or DEFAULT_NAME
    shuffle = options.pop_bool("sink.shuffle-by-partition.enable")
    _pop_rolling(options)
    commit = _pop_commit(options, source)
    fmt_options = module.parse_options(options, fmt + ".")
    options.finish()
    return TableOptions(path, fmt, module, fmt_options, tuple(partition_keys), default_name, shuffle,
                        commit if partition_keys else None, commit.success_file if commit else None)


def _duration(options: Options, key: str, default: int) -> int:
    raw = options.pop(key)
    if raw is None:
        return default
    ms = duration_ms(raw)
    if ms is None:
        raise ConnectorError(f"Could not parse value '{raw}' for key '{key}' of connector 'filesystem': "
                             f"expected a duration such as '1 min', '30 s' or '500 ms'.")
    return ms


def _pop_rolling(options: Options) -> None:
    for key in ROLLING_DURATIONS:
        _duration(options, key, 0)
    size = options.pop("sink.rolling-policy.file-size")
    if size is not None and not _MEMORY.fullmatch(size):
        raise ConnectorError(f"Could not parse value '{size}' for key 'sink.rolling-policy.file-size' of "
                             f"connector 'filesystem': expected a memory size such as '128MB' or '1 gb'.")


def _pop_commit(options: Options, source: bool) -> CommitOptions:
    """``sink.partition-commit.*`` and ``partition.time-extractor.*`` (Flink's names and defaults)."""
    trigger = options.pop_choice("sink.partition-commit.trigger", ("process-time", "partition-time"),
                                 "process-time")
    delay = _duration(options, "sink.partition-commit.delay", 0)
    zone = options.pop("sink.partition-commit.watermark-time-zone", "UTC") or "UTC"
    kind = options.pop_choice("partition.time-extractor.kind", ("default", "custom"), "default")
    extractor_class = options.pop("partition.time-extractor.class")
    extractor = TimeExtractor(options.pop("partition.time-extractor.timestamp-pattern"),
                              options.pop("partition.time-extractor.timestamp-formatter"))
    policies = [p.strip().lower() for p in (options.pop("sink.partition-commit.policy.kind") or "").split(",")
                if p.strip()]
    policy_class = options.pop("sink.partition-commit.policy.class")
    options.pop("sink.partition-commit.policy.class.parameters")
    success_name = options.pop("sink.partition-commit.success-file.name", "_SUCCESS") or "_SUCCESS"
    if not source:
        _check_commit(trigger, zone, kind, extractor_class, extractor, policies, policy_class)
    return CommitOptions(trigger, delay, zone, extractor, success_name if "success-file" in policies else None)


def _check_commit(trigger, zone, kind, extractor_class, extractor, policies, policy_class) -> None:
    for policy in policies:
        if policy == "metastore":  # Flink's PartitionCommitPolicy.validatePolicyChain
            raise ConnectorError("Can not configure a 'metastore' partition commit policy for a file system "
                                 "table. You can only configure 'metastore' partition commit policy for a hive table.")
        if policy == "custom":
            raise ConnectorError(
                f"Partition commit policy 'custom' of connector 'filesystem' is not supported: it loads a Java "
                f"class ('sink.partition-commit.policy.class' = '{policy_class or ''}'), which sqlengine cannot run "
                f"(use 'success-file').")
        if policy != "success-file":
            raise ConnectorError(f"Unsupported policy: {policy} (option 'sink.partition-commit.policy.kind' of "
                                 f"connector 'filesystem'; valid: success-file, metastore, custom).")
    if kind == "custom":
        raise ConnectorError(
            f"Partition time extractor 'custom' of connector 'filesystem' is not supported: it loads a Java class "
            f"('partition.time-extractor.class' = '{extractor_class or ''}'), which sqlengine cannot run (use "
            f"'partition.time-extractor.timestamp-pattern' and '.timestamp-formatter').")
    try:
        from zoneinfo import ZoneInfo
        ZoneInfo(zone)
    except Exception:  # noqa: BLE001 - any unknown or malformed zone id
        raise ConnectorError(f"Invalid value for option 'sink.partition-commit.watermark-time-zone' of connector "
                             f"'filesystem': '{zone}' is not a time zone id (e.g. 'UTC', 'Asia/Shanghai').") from None
    if extractor.formatter is not None:
        from connectors.filesystem.partitions import java_to_strptime
        try:
            java_to_strptime(extractor.formatter)
        except ValueError as exc:
            raise ConnectorError(f"Invalid value for option 'partition.time-extractor.timestamp-formatter' of "
                                 f"connector 'filesystem': '{extractor.formatter}': {exc}.") from None


@dataclass(frozen=True)
class FileEpochInfo:
    """``epoch_info``: an epoch reads lines iff its start and end positions differ; the
    epoch whose end is past the last line carries the end of input."""

    def __call__(self, start: Optional[dict], end: dict) -> tuple[bool, bool]:
        ended = end.get("phase", DATA) >= EOI_PLANNED
        if start is None:
            return True, ended
        rows = start.get("phase", DATA) == DATA and start.get("file") is not None and \
            (start.get("file"), start.get("pos")) != (end.get("file"), end.get("pos"))
        return rows, ended


@dataclass(frozen=True)
class EndOfData:
    """``data_end_check``: true once the micro-batch with the last data line completed."""

    token: str

    def __call__(self, source_progress: dict) -> bool:
        offset = progress_offset(source_progress, self.token)
        return bool(offset) and offset.get("file") is None


class FilesystemFactory(ConnectorFactory):
    identifier = IDENTIFIER
    accepts_updates = False

    def scan(self, ctx: ScanContext) -> ScanResult:
        """The decoded lines of ``path`` (+ ``__eoi``); see the module docstring."""
        t = parse_table_options(ctx.options, source=True, partition_keys=ctx.partition_keys)
        fs, root = files.resolve(t.path)
        if not files.exists(fs, root):  # Flink: FileNotFoundException when the job starts
            raise ConnectorError(f"File or directory '{t.path}' of table {ctx.table_name} does not exist "
                                 f"(option 'path' of connector 'filesystem').")
        token = f"{ctx.table_name}#{next(_scan_ids)}-{uuid.uuid4().hex[:8]}"
        observed = f"filesystem[{ctx.table_name}]#{token.rsplit('#', 1)[1]}"
        handle = observed if ctx.streaming else Observation(observed)
        df = _decoded(_raw_lines(ctx, t.path, token), ctx, t, handle)
        result = ScanResult(df, f"FileSystemTableSource(path={t.path}, format={t.format})",
                            EndOfInput(token) if ctx.streaming else None,
                            data_end_check=EndOfData(token) if ctx.streaming else None,
                            epoch_info=FileEpochInfo() if ctx.streaming else None)
        result.metric_messages["skipped"] = (
            "Skipped {n} malformed line(s) in table " + ctx.table_name + f" (path {t.path}).")
        result.observation = handle  # type: ignore[attr-defined]  # see observation()
        return result

    def sink(self, ctx: SinkContext) -> Sink:
        t = parse_table_options(ctx.options, source=False, partition_keys=ctx.partition_keys)
        if ctx.updating and not getattr(t.module, "CHANGELOG", False):
            raise ConnectorError(
                f"Table sink '{ctx.table_name}' doesn't support consuming update and delete changes: "
                f"format '{t.format}' is append-only (use 'debezium-json' to write a changelog).")
        return FilesystemSink(ctx, t)

    def validate_sink_options(self, options: dict[str, str]) -> None:
        parse_table_options(Options(IDENTIFIER, options), source=False)

    def sink_reads_watermark(self, options: dict[str, str], partition_keys: tuple[str, ...]) -> bool:
        """A partitioned sink committing its partitions on partition time."""
        try:
            t = parse_table_options(Options(IDENTIFIER, options), source=False, partition_keys=partition_keys)
        except ConnectorError:
            return False
        return t.commit is not None and t.success_file is not None and t.commit.on_watermark

    def sink_accepts_updates(self, options: dict[str, str]) -> bool:
        """With a changelog format (``debezium-json``) the files hold the changes."""
        return getattr(format_module(options.get("format", "json")), "CHANGELOG", False)

    def source_changelog(self, options: dict[str, str]) -> str:
        """A changelog format (``debezium-json``) reads the files' changes."""
        try:
            return "all" if self.sink_accepts_updates(options) else ""
        except ConnectorError:
            return ""


def _raw_lines(ctx: ScanContext, path: str, token: str):
    name = datasource.register(ctx.spark)
    reader = ctx.spark.readStream if ctx.streaming else ctx.spark.read
    opts = {"path": path, "source_id": token, "num_partitions": str(max(1, ctx.parallelism)),
            "max_lines_per_batch": str(max_rows_per_epoch(ctx.conf, CONF_MAX_LINES))}
    if CONF_MIN_SPLIT in ctx.conf:
        opts["min_split_bytes"] = ctx.conf[CONF_MIN_SPLIT]
    return reader.format(name).options(**opts).load()


def _decoded(raw, ctx: ScanContext, t: TableOptions, handle: Any):
    """Decode, check (fail or flag), observe, then drop skipped lines; see the module doc."""
    text, kind = F.col("__text"), []
    changelog = getattr(t.module, "CHANGELOG", False)
    if changelog:  # one row per row image of a change event (see formats/debezium_json)
        event = t.module.changes(F.col("__text"), t.format_options)
        raw = raw.select("*", F.explode_outer(event).alias("__change"))
        text, kind = F.col("__change.image"), [F.col("__change.op").alias(OP)]
    keys = set(t.partition_keys)
    decoded = t.module.decode_detailed(text, [(n, dt) for n, dt in ctx.columns if n not in keys], t.format_options)
    types = dict(ctx.columns)
    parts = [_partition_value(k, types[k], t.default_name).alias(k) for k in t.partition_keys]
    bad, reason = decoded.bad, decoded.reason
    if changelog:
        err = F.col("__change.err")
        bad = F.when(F.col(EOI), F.lit(False)).when(err.isNotNull(), F.lit(True)).otherwise(bad)
        reason = F.coalesce(err, reason)
    ignore = t.format_options.ignore_parse_errors
    flag = bad if ignore else F.when(bad, F.raise_error(_failure(t.format, reason))).otherwise(bad)
    df = raw.select("*", *decoded.prelude).select(*decoded.columns, *parts, *kind, flag.alias(BAD), F.col(EOI))
    df = df.observe(handle, F.count(F.lit(1)).alias("lines"),
                    F.coalesce(F.sum(F.col(BAD).cast("int")), F.lit(0)).alias("skipped"))
    if ignore or decoded.may_skip:
        df = df.where(~F.col(BAD))  # NULL (blank, comment) and, when ignoring, bad lines
    return df.select(*[F.col(f"`{n}`") for n, _ in ctx.columns], *[F.col(OP) for _ in kind], F.col(EOI))


def _partition_value(key: str, dtype: Any, default_name: str) -> Column:
    """A partition column read from the row's file path: the value of the last ``key=value``
    folder (unescaped; the default name and a missing folder are NULL), typed as the
    schema says (a DATE folder may hold Flink's day number, as Flink writes it)."""
    from connectors.filesystem.partitions import escape
    folder = F.regexp_extract(F.col("__file"), r"^.*/\Q" + escape(key) + r"=\E([^/]+)/", 1)
    text = F.try_url_decode(F.regexp_replace(folder, r"\+", "%2B"))  # Flink's escapes are %XX only
    text = F.when((folder == F.lit("")) | (text == F.lit(default_name)), F.lit(None)).otherwise(
        F.coalesce(text, folder))
    spark_type = dtype.to_spark()
    if dtype.root == "DATE":
        days = F.when(text.rlike(r"^-?\d+$"), F.date_add(F.lit("1970-01-01").cast("date"), text.cast("int")))
        return days.otherwise(text.cast(spark_type))
    return text.cast(spark_type)


def _failure(fmt: str, reason: Column) -> Column:
    """Flink's ``Failed to deserialize JSON '<line>'.`` plus where the line is and why."""
    return F.concat(F.lit(f"Failed to deserialize {fmt.upper()} '"), F.col("__text"),
                    F.lit("' in file "), F.col("__file"), F.lit(" line "), F.col("__line").cast("string"),
                    F.lit(": "), reason)


class FilesystemSink(TransactionalSink):
    """Encodes each row into one line and writes part files under ``path`` (in ``k=v``
    folders when the table is partitioned, the partition columns left out of the lines, as
    Flink writes csv and json); always exactly-once (files become visible when their epoch
    commits). A partitioned streaming sink with a success-file policy commits partitions
    after each epoch (``end_epoch``, partitions.py); in batch every partition written gets
    its success file when the job commits."""

    def __init__(self, ctx: SinkContext, t: TableOptions):
        self.ctx = ctx
        self.t = t
        self.keys = list(t.partition_keys)
        self.explain = f"FileSystemTableSink(path={t.path}, format={t.format}" + \
            (f", partitions=[{', '.join(self.keys)}])" if self.keys else ")")

    def rows(self, df):
        cols = [(F.col(f"`{n}`"), dt, n) for n, dt in self.ctx.columns if n not in self.keys]
        if getattr(self.t.module, "CHANGELOG", False):
            op = F.col(OP) if OP in df.columns else None
            line = self.t.module.encode_with(cols, self.t.format_options, op)
        else:
            line = self.t.module.encode_with(cols, self.t.format_options)
        types = dict(self.ctx.columns)
        parts = [_partition_text(F.col(f"`{k}`"), types[k], self.t.default_name).alias(f"__p{i}")
                 for i, k in enumerate(self.keys)]
        return df.select(line.alias("line"), *parts)

    def spread(self, rows):
        """``sink.shuffle-by-partition.enable``: a partition's rows onto one writer task."""
        if self.keys and self.t.shuffle:
            return rows.repartition(max(1, self.ctx.parallelism), *[f"__p{i}" for i in range(len(self.keys))])
        return rows

    def finish(self, rows):
        """A task's rows grouped by partition: each partition is one file per task and epoch."""
        if self.keys:
            return rows.sortWithinPartitions(*[f"__p{i}" for i in range(len(self.keys))])
        return rows

    def _tracks(self) -> bool:
        return self.ctx.streaming and self.t.commit is not None and self.t.success_file is not None

    def end_epoch(self, epoch_id: int, query_id: str, watermark) -> None:
        """Commit the partitions whose trigger fired (partitions.py): after the epoch's files."""
        if not self._tracks():
            return
        wm = watermark()
        writer.commit_partitions(self.t.path, str(writer.part_uuid(query_id, self.ctx.sink_id)), epoch_id,
                                 self.keys, self.t.commit, wm, wm >= END_WATERMARK)

    def writer(self, options: dict[str, str]):
        from connectors.filesystem.writer import LinesBatchWriter
        return LinesBatchWriter(options)

    def writer_options(self, epoch: Optional[int], query_id: str) -> dict[str, str]:
        """Streaming: the epoch and the sink's uuid name the files, so a replay is a no-op."""
        out = {"path": self.t.path}
        if self.keys:
            out["partition_keys"] = json.dumps(self.keys)
        if self._tracks():
            out["track_partitions"] = "true"
        if self.t.success_file and epoch is None:  # batch (streaming: end_epoch)
            out["success_file"] = self.t.success_file
        if epoch is not None:
            out.update(epoch=str(epoch), part_uuid=str(writer.part_uuid(query_id, self.ctx.sink_id)))
        return out

    def recover(self, query_id: str) -> None:
        writer.recover(self.t.path, str(writer.part_uuid(query_id, self.ctx.sink_id)))


def _partition_text(col: Column, dtype: Any, default_name: str) -> Column:
    """A partition value as Flink names its folder: the text of the internal value (a DATE
    its day number, a TIMESTAMP ``LocalDateTime.toString``); NULL or empty: the default name."""
    if dtype.root == "DATE":
        text = F.datediff(col, F.lit("1970-01-01").cast("date")).cast("string")
    elif dtype.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        text = F.date_format(col, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")
        text = F.regexp_replace(F.regexp_replace(text, r"\.000000$", ""), r"(\.\d{3})000$", "$1")
        text = F.regexp_replace(text, r"(T\d\d:\d\d):00$", "$1")
    else:
        text = col.cast("string")
    return F.when(text.isNull() | (text == F.lit("")), F.lit(default_name)).otherwise(text)


def observation(result: ScanResult) -> Any:
    """Where a filesystem scan's ``lines``/``skipped`` counts are observed.

    Streaming: the name of the entry in ``StreamingQueryProgress.observedMetrics``;
    batch: a ``pyspark.sql.Observation`` (``.get`` after the job succeeded). The
    runtime's ``ScanResult.metrics`` cannot count skipped lines, because it observes
    the scan's output, from which they are already gone; ``metric_messages["skipped"]``
    is the message to print.
    """
    return getattr(result, "observation", None)


FACTORY = register(FilesystemFactory())
