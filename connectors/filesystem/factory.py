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
import uuid
from dataclasses import dataclass
from typing import Any, Optional

from pyspark.sql import Column, Observation
from pyspark.sql import functions as F

from connectors.base import (EOI, OP, ConnectorFactory, EndOfInput, Options, ScanContext, ScanResult, Sink,
                             SinkContext, TransactionalSink, progress_offset, register)
from connectors.filesystem import datasource, files, writer
from connectors.filesystem.reader import DATA, EOI_PLANNED
from connectors.formats import format_module
from sqlengine.config import max_rows_per_epoch
from sqlengine.errors import ConnectorError

IDENTIFIER = "filesystem"
BAD = "__bad"
# Flink options accepted and ignored (rolling files and partition commits do not apply).
IGNORED = ("sink.rolling-policy.file-size", "sink.rolling-policy.rollover-interval",
           "sink.rolling-policy.check-interval", "partition.default-name")
IGNORED_PREFIXES = ("sink.partition-commit.",)
# Session settings (not table options) for tests and tuning.
CONF_MAX_LINES = "sqlengine.filesystem.max-lines-per-batch"
CONF_MIN_SPLIT = "sqlengine.filesystem.min-split-bytes"
_scan_ids = itertools.count(1)


@dataclass(frozen=True)
class TableOptions:
    path: str
    format: str
    module: Any  # connectors.formats.json or .csv
    format_options: Any  # JsonOptions / CsvOptions


def parse_table_options(options: Options, source: bool) -> TableOptions:
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
    for key in IGNORED:
        options.pop(key)
    for prefix in IGNORED_PREFIXES:
        options.pop_prefix(prefix)
    fmt_options = module.parse_options(options, fmt + ".")
    options.finish()
    return TableOptions(path, fmt, module, fmt_options)


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
        t = parse_table_options(ctx.options, source=True)
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
        t = parse_table_options(ctx.options, source=False)
        if ctx.updating and not getattr(t.module, "CHANGELOG", False):
            raise ConnectorError(
                f"Table sink '{ctx.table_name}' doesn't support consuming update and delete changes: "
                f"format '{t.format}' is append-only (use 'debezium-json' to write a changelog).")
        return FilesystemSink(ctx, t)

    def validate_sink_options(self, options: dict[str, str]) -> None:
        parse_table_options(Options(IDENTIFIER, options), source=False)

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
    decoded = t.module.decode_detailed(text, ctx.columns, t.format_options)
    bad, reason = decoded.bad, decoded.reason
    if changelog:
        err = F.col("__change.err")
        bad = F.when(F.col(EOI), F.lit(False)).when(err.isNotNull(), F.lit(True)).otherwise(bad)
        reason = F.coalesce(err, reason)
    ignore = t.format_options.ignore_parse_errors
    flag = bad if ignore else F.when(bad, F.raise_error(_failure(t.format, reason))).otherwise(bad)
    df = raw.select("*", *decoded.prelude).select(*decoded.columns, *kind, flag.alias(BAD), F.col(EOI))
    df = df.observe(handle, F.count(F.lit(1)).alias("lines"),
                    F.coalesce(F.sum(F.col(BAD).cast("int")), F.lit(0)).alias("skipped"))
    if ignore or decoded.may_skip:
        df = df.where(~F.col(BAD))  # NULL (blank, comment) and, when ignoring, bad lines
    return df.select(*[F.col(f"`{n}`") for n, _ in ctx.columns], *[F.col(OP) for _ in kind], F.col(EOI))


def _failure(fmt: str, reason: Column) -> Column:
    """Flink's ``Failed to deserialize JSON '<line>'.`` plus where the line is and why."""
    return F.concat(F.lit(f"Failed to deserialize {fmt.upper()} '"), F.col("__text"),
                    F.lit("' in file "), F.col("__file"), F.lit(" line "), F.col("__line").cast("string"),
                    F.lit(": "), reason)


class FilesystemSink(TransactionalSink):
    """Encodes each row into one line and writes part files under ``path``; always
    exactly-once (files become visible when their epoch commits)."""

    def __init__(self, ctx: SinkContext, t: TableOptions):
        self.ctx = ctx
        self.t = t
        self.explain = f"FileSystemTableSink(path={t.path}, format={t.format})"

    def rows(self, df):
        cols = [(F.col(f"`{n}`"), dt, n) for n, dt in self.ctx.columns]
        if getattr(self.t.module, "CHANGELOG", False):
            op = F.col(OP) if OP in df.columns else None
            return df.select(self.t.module.encode_with(cols, self.t.format_options, op).alias("line"))
        return df.select(self.t.module.encode_with(cols, self.t.format_options).alias("line"))

    def writer(self, options: dict[str, str]):
        from connectors.filesystem.writer import LinesBatchWriter
        return LinesBatchWriter(options)

    def writer_options(self, epoch: Optional[int], query_id: str) -> dict[str, str]:
        """Streaming: the epoch and the sink's uuid name the files, so a replay is a no-op."""
        out = {"path": self.t.path}
        if epoch is not None:
            out.update(epoch=str(epoch), part_uuid=str(writer.part_uuid(query_id, self.ctx.sink_id)))
        return out

    def recover(self, query_id: str) -> None:
        writer.recover(self.t.path, str(writer.part_uuid(query_id, self.ctx.sink_id)))


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
