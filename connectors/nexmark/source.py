"""The ``nexmark`` source connector: Nexmark's Person / Auction / Bid events
(connectors/nexmark/generator.py) with the table options of Flink's
``NexmarkTableSourceFactory`` and the schema of its ``ddl_gen.sql``.

As in Flink, the source has one generator per unit of parallelism (``parallelism.default``),
each on its own timeline (``GeneratorConfig.split``), and it is unbounded to the planner:
``events.num`` > 0 ends each generator after its share, and the job ends when every
generator has (in batch mode the table is refused, as Flink refuses it). Each generator
is a split with its own watermark (Flink's per-split watermarks).

Streaming offsets are JSON dicts ``{"src", "pos", "base", "start", "phase"}``: ``pos`` the
events each generator has made so far, ``base`` the event time of the first event (the
job's first start, as Flink's ``System.currentTimeMillis()`` when the job is planned,
unless the table's ``base-time`` fixes it) and ``start`` the wall-clock time the job
first started (for ``max-emit-speed`` = false, which paces events to their event times);
``phase`` as in the Kafka reader. An epoch admits at most ``sqlengine.nexmark.max-rows-per-epoch``
events (else ``sqlengine.max-rows-per-epoch``), shared evenly among the generators.
Events are a pure function of their number, so a replayed epoch makes the same events.
"""
from __future__ import annotations

import itertools
import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np
import pyarrow as pa
from pyspark.sql import functions as F
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

from connectors.base import (EOI, SPLIT, ConnectorFactory, EndOfInput, Options, ScanContext, ScanResult,
                             progress_offset)
from connectors import pace
from connectors.nexmark.generator import SCHEMA, Config
from sqlengine.config import checkpoint_interval_ms, duration_ms, max_rows_per_epoch
from sqlengine.errors import ConnectorError

SOURCE_NAME = "sqlengine_nexmark"
CONF_MAX_ROWS = "sqlengine.nexmark.max-rows-per-epoch"
DATA, EOI_PLANNED, DONE = 0, 1, 2
BATCH_ROWS = 65_536  # events per Arrow batch a task yields
GEN = "__gen"  # the generator (split) a row comes from
_scan_ids = itertools.count(1)

# Flink's options (NexmarkSourceOptions): key -> (Config field, kind, default).
OPTIONS = {
    "first-event.rate": ("first_rate", "int", 10000),
    "next-event.rate": ("next_rate", "int", 10000),
    "person.avg-size": ("person_avg_size", "memory", 200),
    "auction.avg-size": ("auction_avg_size", "memory", 500),
    "bid.avg-size": ("bid_avg_size", "memory", 100),
    "person.proportion": ("person_proportion", "int", 1),
    "auction.proportion": ("auction_proportion", "int", 3),
    "bid.proportion": ("bid_proportion", "int", 46),
    "bid.hot-ratio.auctions": ("hot_auction_ratio", "int", 2),
    "bid.hot-ratio.bidders": ("hot_bidders_ratio", "int", 4),
    "auction.hot-ratio.sellers": ("hot_sellers_ratio", "int", 4),
    "events.num": ("events", "long", 0),
    "stop-at": ("stop_at", "long", -1),
}
_MEMORY = re.compile(r"^\s*(\d+)\s*([a-z]*)\s*$", re.IGNORECASE)
_MEMORY_UNITS = {"": 1, "b": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10, "m": 1 << 20,
                 "mb": 1 << 20, "mebibytes": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
                 "t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40}


def _invalid(key: str, raw: str, what: str) -> ConnectorError:
    return ConnectorError(f"Invalid value for option '{key}' of connector 'nexmark': '{raw}' is not {what}.")


def _parse(kind: str, key: str, raw: str) -> int:
    if kind == "memory":
        m = _MEMORY.match(raw)
        if not m or m.group(2).lower() not in _MEMORY_UNITS:
            raise _invalid(key, raw, "a memory size (e.g. '200b', '1kb')")
        return int(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()]
    try:
        value = int(raw.strip())
    except ValueError:
        raise _invalid(key, raw, "an integer") from None
    if kind == "int" and not -(1 << 31) <= value < (1 << 31):
        raise _invalid(key, raw, "an INT")
    return value


@dataclass(frozen=True)
class NexmarkOptions:
    config: Config
    keep_alive: bool
    max_emit_speed: bool
    base_time: Optional[int]  # fixed by the table's 'base-time', else the job's start


def parse_options(options: Options, generators: int) -> NexmarkOptions:
    values = {}
    for key, (attr, kind, default) in OPTIONS.items():
        raw = options.pop(key)
        values[attr] = default if raw is None else _parse(kind, key, raw)
    shape = options.pop("rate.shape")
    if shape is not None and shape.strip().upper() not in ("SQUARE", "SINE"):
        raise ConnectorError(f"Invalid value for option 'rate.shape' of connector 'nexmark': '{shape}'. "
                             f"Valid values: SQUARE, SINE.")
    period = options.pop("rate.period")
    if period is not None and duration_ms(period) is None:
        raise _invalid("rate.period", period, "a duration (e.g. '10 min')")
    options.pop_bool("rate.limited")
    keep_alive = options.pop_bool("keep-alive")
    max_emit_speed = options.pop_bool("max-emit-speed", True)
    base = options.pop("base-time")
    base_time = None if base is None else _base_time(base)
    options.finish()
    for attr in ("first_rate", "person_proportion", "auction_proportion", "bid_proportion", "hot_auction_ratio",
                 "hot_bidders_ratio", "hot_sellers_ratio"):
        if values[attr] <= 0:
            key = next(k for k, v in OPTIONS.items() if v[0] == attr)
            raise ConnectorError(f"Invalid value for option '{key}' of connector 'nexmark': {values[attr]} "
                                 f"must be positive.")
    if values["events"] < 0:
        raise ConnectorError(f"Invalid value for option 'events.num' of connector 'nexmark': {values['events']} "
                             f"must be 0 (unbounded) or positive.")
    config = Config(generators=max(1, generators), base_time=base_time or 0, **values)
    return NexmarkOptions(config, keep_alive, max_emit_speed, base_time)


def _base_time(raw: str) -> int:
    """'base-time' (sqlengine's): epoch milliseconds, or a UTC timestamp 'yyyy-MM-dd HH:mm:ss[.SSS]'."""
    text = raw.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    from datetime import datetime, timezone
    try:
        when = datetime.fromisoformat(text.replace(" ", "T"))
    except ValueError:
        raise _invalid("base-time", raw, "epoch milliseconds or a timestamp 'yyyy-MM-dd HH:mm:ss'") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000)


def _config(options: dict, base: int) -> Config:
    fields = json.loads(options["config"])
    return Config(**{**fields, "base_time": base})


# -- the Spark data source ----------------------------------------------------------------


class Task(InputPartition):
    """Events ``[start, stop)`` of some generators: (split index, start, stop) each."""

    def __init__(self, ranges: list[tuple[int, int, int]], base: int, eoi: bool = False):
        super().__init__(None)
        self.ranges, self.base, self.eoi = ranges, base, eoi


def _eoi_batch() -> pa.RecordBatch:
    arrays = [pa.nulls(1, f.type) for f in SCHEMA] + [pa.array([-1], pa.int32()), pa.array([True])]
    return pa.RecordBatch.from_arrays(arrays, names=SCHEMA.names + [GEN, EOI])


def _read(options: dict, task: Task) -> Iterator[pa.RecordBatch]:
    if task.eoi:
        yield _eoi_batch()
        return
    splits = _config(options, task.base).splits()
    for index, start, stop in task.ranges:
        split = splits[index]
        for lo in range(start, stop, BATCH_ROWS):
            hi = min(stop, lo + BATCH_ROWS)
            batch = split.batch(lo, hi)
            n = batch.num_rows
            yield pa.RecordBatch.from_arrays(
                batch.columns + [pa.array(np.full(n, index, np.int32)), pa.array(np.zeros(n, np.bool_))],
                names=SCHEMA.names + [GEN, EOI])


def _plan(pos: list[int], end: list[int], tasks: int, base: int) -> list[Task]:
    """One task per generator with events to make; a generator's range is cut into
    pieces when there are fewer generators than tasks."""
    ranges = [(i, s, e) for i, (s, e) in enumerate(zip(pos, end)) if e > s]
    if not ranges:
        return []
    total = sum(e - s for _, s, e in ranges)
    if len(ranges) < tasks and total > 4 * BATCH_ROWS:
        per = max(BATCH_ROWS, -(-total // tasks))
        pieces = []
        for i, s, e in ranges:
            while e - s > per:
                pieces.append((i, s, s + per))
                s += per
            pieces.append((i, s, e))
        ranges = pieces
    return [Task([r], base) for r in ranges]


def _cap(pos: list[int], end: list[int], limit: int) -> list[int]:
    """At most ``limit`` events in all, shared evenly (the Kafka reader's admission control)."""
    from connectors.kafka.reader import cap
    out = cap(dict(enumerate(pos)), dict(enumerate(end)), limit)
    return [out[i] for i in range(len(end))]


class NexmarkBatchReader(DataSourceReader):
    def __init__(self, options: dict):
        self.options = options

    def partitions(self) -> list[InputPartition]:
        base = int(self.options.get("base") or time.time() * 1000)
        splits = _config(self.options, base).splits()
        return _plan([0] * len(splits), [s.count for s in splits], int(self.options["tasks"]), base) or \
            [Task([], base)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.options, partition)


class NexmarkStreamReader(DataSourceStreamReader):
    def __init__(self, options: dict):
        self.options = options
        self.token = options["source_id"]
        self.max_rows = int(options.get("max_rows", "0"))
        self.tasks = int(options.get("tasks", "1"))
        self.max_speed = options.get("max_emit_speed", "true") == "true"
        self.pace = pace.Pace(options)

    def initialOffset(self) -> dict:
        now = int(time.time() * 1000)
        base = int(self.options["base"]) if self.options.get("base") else now
        splits = _config(self.options, base).splits()
        return {"src": self.token, "pos": [0] * len(splits), "base": base, "start": now, "phase": DATA}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.max_rows) if self.max_rows > 0 else ReadAllAvailable()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        phase = start.get("phase", DATA)
        if phase >= DONE:
            return {**start, "src": self.token}
        if phase == EOI_PLANNED:
            return {**start, "src": self.token, "phase": DONE}
        if not self.pace.due():
            return {**start, "src": self.token}
        config = _config(self.options, start["base"])
        splits = config.splits()
        counts = [s.count for s in splits]
        end = list(counts)
        if not self.max_speed:  # events come when the wall clock reaches their event time
            elapsed_us = (time.time() * 1000 - start["start"]) * 1000
            due = int(elapsed_us // config.inter_event_delay_us)
            end = [min(c, due) for c in counts]
        n = limit.max_rows if isinstance(limit, ReadMaxRows) else 0
        admitted = _cap(start["pos"], end, n)
        out = {**start, "src": self.token, "pos": admitted}
        if all(e >= c for e, c in zip(admitted, counts)) and self.options.get("keep_alive") != "true":
            out["phase"] = EOI_PLANNED  # the micro-batch making the last events also ends the input
        elif admitted == start["pos"]:
            return {**start, "src": self.token}
        self.pace.admitted(capped=admitted != end)
        return out

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        if start.get("phase", DATA) != DATA:
            return []
        tasks = _plan(start["pos"], end["pos"], self.tasks, start["base"])
        if end.get("phase", DATA) == EOI_PLANNED:
            tasks.append(Task([], start["base"], eoi=True))
        return tasks

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.options, partition)

    def commit(self, end: dict) -> None:
        pass


def _spark_schema():
    from pyspark.sql.pandas.types import from_arrow_schema
    return from_arrow_schema(pa.schema(list(SCHEMA) + [pa.field(GEN, pa.int32()), pa.field(EOI, pa.bool_())]))


class NexmarkDataSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self):
        return _spark_schema()

    def reader(self, schema) -> DataSourceReader:
        return NexmarkBatchReader(dict(self.options))

    def streamReader(self, schema) -> DataSourceStreamReader:
        return NexmarkStreamReader(dict(self.options))


def register_source(spark) -> str:
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(NexmarkDataSource)
    return SOURCE_NAME


# -- the factory ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EndOfData:
    token: str

    def __call__(self, source_progress: dict) -> bool:
        return progress_offset(source_progress, self.token).get("phase", DATA) >= EOI_PLANNED


@dataclass(frozen=True)
class NexmarkEpochInfo:
    def __call__(self, start: Optional[dict], end: dict) -> tuple[bool, bool]:
        ended = end.get("phase", DATA) >= EOI_PLANNED
        if start is None:
            return any(end.get("pos") or []), ended
        rows = start.get("phase", DATA) == DATA and start.get("pos") != end.get("pos")
        return rows, ended


@dataclass(frozen=True)
class NexmarkSplits:
    """``ScanResult.splits``: the generators (a row's ``__split`` is its generator's index,
    the position in this order), and whether each has made all its events."""
    counts: tuple

    def __call__(self, end: dict) -> dict[str, bool]:
        pos = end.get("pos") or []
        return {f"nexmark:{i}": p >= c for i, (p, c) in enumerate(zip(pos, self.counts))}


class NexmarkFactory(ConnectorFactory):
    identifier = "nexmark"

    def scan(self, ctx: ScanContext) -> ScanResult:
        opts = parse_options(ctx.options, ctx.parallelism)
        if not ctx.streaming:
            raise ConnectorError(
                f"Querying an unbounded table '{ctx.table_name}' in batch mode is not allowed. The table source "
                f"is unbounded.")
        names = {f.name: f for f in SCHEMA}
        for name, _ in ctx.columns:
            if name not in names:
                raise ConnectorError(
                    f"Table '{ctx.table_name}' of connector 'nexmark' has the column '{name}': the source makes "
                    f"only {', '.join(SCHEMA.names)} (Nexmark's ddl_gen.sql; computed columns may derive others).")
        token = f"{ctx.table_name}#{next(_scan_ids)}-{uuid.uuid4().hex[:8]}"
        config = {k: v for k, v in opts.config.__dict__.items() if k != "base_time"}
        source_options = {"config": json.dumps(config), "source_id": token, "tasks": str(max(1, ctx.parallelism)),
                          "max_rows": str(max_rows_per_epoch(ctx.conf, CONF_MAX_ROWS)),
                          pace.OPTION: str(checkpoint_interval_ms(ctx.conf)),
                          "max_emit_speed": str(opts.max_emit_speed).lower(),
                          "keep_alive": str(opts.keep_alive).lower(),
                          "base": "" if opts.base_time is None else str(opts.base_time)}
        name = register_source(ctx.spark)
        raw = ctx.spark.readStream.format(name).options(**source_options).load()
        df = raw.select(*[F.col(f"`{n}`").cast(t.to_spark()).alias(n) for n, t in ctx.columns],
                        F.col(GEN).alias(SPLIT), F.col(EOI))
        c = opts.config
        counts = tuple(s.count for s in c.splits())
        bounded = not opts.keep_alive and (c.events > 0 or c.stop_at >= 0)
        explain = f"NexmarkSource(events={c.events or 'unbounded'}, rate={c.first_rate}/s, generators={c.generators})"
        return ScanResult(df, explain,
                          EndOfInput(token) if bounded else None,
                          data_end_check=EndOfData(token) if bounded else None,
                          epoch_info=NexmarkEpochInfo(),
                          splits=NexmarkSplits(counts))
