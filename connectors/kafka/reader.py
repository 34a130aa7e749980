"""Reading Kafka as a Spark source: exact ``[start, end)`` offset ranges per partition.

Why a Python reader on confluent-kafka and not Spark's ``spark-sql-kafka-0-10``:
measured in ``benchmarks/README.md`` ("Choosing the Kafka source"): it reads faster on
the same machine, needs no JVM package that must match PySpark's version, and gives
exact ranges and admission control through ``ReadLimit``.

Streaming offsets are JSON dicts ``{"src", "pos", "stop", "phase"}``: ``pos`` maps
``"topic:partition"`` to the next offset to read; ``stop`` (bounded modes only) the
offset where each partition ends, fixed when the job first starts and carried in every
offset so that a restored job ends at the same place; ``phase`` as in the filesystem
reader (0 data, 1 the micro-batch holding the ``__eoi`` row was planned, 2 one more
empty micro-batch was planned). ``src`` tags one scan's offsets.

A task reads its ranges with its own consumer (``assign`` at the start offset) until
its position reaches the end offset: the position moves over transaction markers and,
with ``read_committed``, over aborted records, so a range may yield fewer records than
offsets. The driver's end offsets are the partitions' high watermarks, which are the
last stable offsets for ``read_committed`` clients (what such a task can reach).

Rows: the record fields the table needs (``__value``, ``__key`` and metadata such as
``__offset``), ``__topic``/``__partition``/``__offset`` whenever decoding may fail (the
error names them), and ``__eoi``.
"""
from __future__ import annotations

import json
import logging
import re
import time
from typing import Iterator, Optional

import pyarrow as pa
from pyspark.sql.datasource import (DataSource, DataSourceReader, DataSourceStreamReader, InputPartition)
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

from sqlengine.runtime.faults import reached

SOURCE_NAME = "sqlengine_kafka"
DATA, EOI_PLANNED, DONE = 0, 1, 2
# Arrow type of each record field the reader can yield.
FIELDS = {
    "__key": pa.binary(), "__value": pa.binary(), "__topic": pa.string(), "__partition": pa.int32(),
    "__offset": pa.int64(), "__timestamp": pa.int64(), "__timestamp_type": pa.string(),
    "__headers": pa.map_(pa.string(), pa.binary()), "__leader_epoch": pa.int32(),
}
SPARK_TYPES = {"__key": "binary", "__value": "binary", "__topic": "string", "__partition": "int",
               "__offset": "bigint", "__timestamp": "bigint", "__timestamp_type": "string",
               "__headers": "map<string,binary>", "__leader_epoch": "int"}
CONSUME_BATCH = 50_000
FETCH = {"fetch.max.bytes": "52428800", "max.partition.fetch.bytes": "10485760"}  # benchmarks/README.md
TIMESTAMP_TYPES = {0: "NoTimestampType", 1: "CreateTime", 2: "LogAppendTime"}
SPLIT_MIN = 200_000  # a partition's range is split across tasks only above this many offsets
log = logging.getLogger("sqlengine.kafka")


class KafkaReadError(RuntimeError):
    pass


def client(options: dict) -> dict:
    conf = json.loads(options["client_secret_config"])
    conf.setdefault("group.id", options.get("source_id") or "sqlengine")
    conf["logger"] = log
    return conf


def tp_key(topic: str, partition: int) -> str:
    return f"{topic}:{partition}"


def split_key(key: str) -> tuple[str, int]:
    topic, _, p = key.rpartition(":")
    return topic, int(p)


# -- the driver side: partitions, start and stop offsets ---------------------------------------------
class Offsets:
    """Metadata queries for one scan (a consumer that never subscribes)."""

    def __init__(self, options: dict):
        from confluent_kafka import Consumer
        self.options = options
        self.topics = json.loads(options["topics"])
        self.pattern = options.get("pattern") or None
        self.timeout = float(options.get("timeout_s", "60"))
        self.conf = {**client(options), "enable.auto.commit": False}
        self.consumer = Consumer(self.conf)

    def close(self) -> None:
        self.consumer.close()

    def partitions(self) -> list[tuple[str, int]]:
        from confluent_kafka import KafkaException
        try:
            md = self.consumer.list_topics(timeout=self.timeout)
        except KafkaException as exc:
            raise KafkaReadError(f"Could not reach the Kafka brokers {self._servers()} within "
                                 f"{self.timeout:g} s: {exc.args[0].str() if exc.args else exc}") from None
        if self.pattern is not None:
            rx = re.compile(self.pattern)
            names = sorted(t for t in md.topics if rx.fullmatch(t) and not t.startswith("__"))
        else:
            names = list(self.topics)
            missing = [t for t in names if t not in md.topics or md.topics[t].error is not None]
            if missing:
                raise KafkaReadError(f"Topic {', '.join(missing)} does not exist on the Kafka brokers "
                                     f"{self._servers()}.")
        return [(t, p) for t in names for p in sorted(md.topics[t].partitions)]

    def _servers(self) -> str:
        return self.conf.get("bootstrap.servers", "?")

    def bounds(self, tps: list[tuple[str, int]]) -> dict[str, tuple[int, int]]:
        from confluent_kafka import TopicPartition
        out = {}
        for t, p in tps:
            out[tp_key(t, p)] = self.consumer.get_watermark_offsets(TopicPartition(t, p), timeout=self.timeout,
                                                                    cached=False)
        return out

    def at_time(self, tps: list[tuple[str, int]], ms: int, bounds: dict) -> dict[str, int]:
        """The first offset whose timestamp is >= ``ms`` (the end if none)."""
        from confluent_kafka import TopicPartition
        found = self.consumer.offsets_for_times([TopicPartition(t, p, ms) for t, p in tps], timeout=self.timeout)
        return {tp_key(x.topic, x.partition): (x.offset if x.offset >= 0 else bounds[tp_key(x.topic, x.partition)][1])
                for x in found}

    def committed(self, tps: list[tuple[str, int]]) -> dict[str, int]:
        from confluent_kafka import TopicPartition
        got = self.consumer.committed([TopicPartition(t, p) for t, p in tps], timeout=self.timeout)
        return {tp_key(x.topic, x.partition): x.offset for x in got if x.offset >= 0}

    def resolve(self, which: str, tps: list[tuple[str, int]]) -> dict[str, int]:
        """Start (``startup``) or stop (``bounded``) offsets of the partitions."""
        spec = json.loads(self.options[which])
        mode = spec["mode"]
        bounds = self.bounds(tps)
        if mode == "earliest-offset":
            return {k: lo for k, (lo, _) in bounds.items()}
        if mode == "latest-offset":
            return {k: hi for k, (_, hi) in bounds.items()}
        if mode == "timestamp":
            return self.at_time(tps, int(spec["ts"]), bounds)
        if mode == "specific-offsets":
            given = {int(p): o for p, o in spec["offsets"].items()}
            out = {}
            for k, (lo, hi) in bounds.items():
                p = split_key(k)[1]
                out[k] = min(max(given[p], lo), hi) if p in given else (lo if which == "startup" else hi)
            return out
        if mode == "group-offsets":
            done = self.committed(tps)
            reset = self.conf.get("auto.offset.reset", "none")
            out = {}
            for k, (lo, hi) in bounds.items():
                if k in done:
                    out[k] = done[k]
                elif reset in ("earliest", "smallest", "beginning"):
                    out[k] = lo
                elif reset in ("latest", "largest", "end"):
                    out[k] = hi
                else:
                    raise KafkaReadError(
                        f"Undefined offset with no reset policy for partitions: [{k.replace(':', '-')}] (consumer "
                        f"group '{self.conf.get('group.id', '')}' has no committed offset; set "
                        f"'properties.auto.offset.reset' or another 'scan.startup.mode').")
            return out
        raise KafkaReadError(f"Unknown offsets mode {mode}")


# -- the executor side: reading ranges ------------------------------------------------------------
class Range(InputPartition):
    """Offsets ``[start, end)`` of some partitions (one task)."""

    def __init__(self, ranges: list[tuple[str, int, int, int]]):
        super().__init__(None)
        self.ranges = ranges


class EoiPartition(InputPartition):
    def __init__(self) -> None:
        super().__init__(None)


def eoi_batch(fields: list[str]) -> pa.RecordBatch:
    arrays = [pa.nulls(1, FIELDS[f]) for f in fields] + [pa.array([True])]
    return pa.RecordBatch.from_arrays(arrays, names=fields + ["__eoi"])


def read_ranges(options: dict, fields: list[str], part: Range) -> Iterator[pa.RecordBatch]:
    from confluent_kafka import Consumer, KafkaError, TopicPartition
    timeout = float(options.get("timeout_s", "60"))
    conf = {**FETCH, **client(options), "enable.auto.commit": False, "enable.partition.eof": True,
            "auto.offset.reset": "earliest"}
    consumer = Consumer(conf)
    todo = {(t, p): (s, e) for t, p, s, e in part.ranges if e > s}
    try:
        consumer.assign([TopicPartition(t, p, s) for (t, p), (s, _) in todo.items()])
        idle_since = time.monotonic()
        left = sum(e - s for s, e in todo.values())  # offsets still to read (an upper bound on records)
        while todo:
            # Ask for no more than can come: consume() returns as soon as it has that many
            # messages (records or end-of-partition events), instead of waiting out its timeout.
            msgs = consumer.consume(max(1, min(CONSUME_BATCH, left)), 0.5)
            if not msgs:
                if time.monotonic() - idle_since > timeout:
                    left = ", ".join(f"{t}-{p} [{s}, {e})" for (t, p), (s, e) in todo.items())
                    raise KafkaReadError(f"Timed out after {timeout:g} s reading Kafka partition(s) {left}: "
                                         f"the broker did not return the records (is it reachable?).")
                continue
            idle_since = time.monotonic()
            keep = []
            finished = set()
            for m in msgs:
                err = m.error()
                tp = (m.topic(), m.partition())
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        if tp in todo and m.offset() >= todo[tp][1]:
                            finished.add(tp)
                        continue
                    raise KafkaReadError(f"Reading Kafka partition {tp[0]}-{tp[1]} failed: {err.str()}")
                rng = todo.get(tp)
                if rng is None:
                    continue
                if m.offset() >= rng[1]:
                    finished.add(tp)
                    continue
                keep.append(m)
            if keep:
                yield _batch(keep, fields)
                reached("kafka-read")
            positions = consumer.position([TopicPartition(t, p) for t, p in todo])
            left = 0
            for x in positions:
                s, e = todo[(x.topic, x.partition)]
                if x.offset >= e:
                    finished.add((x.topic, x.partition))
                elif (x.topic, x.partition) not in finished:
                    left += e - max(s, x.offset)
            if finished:
                gone = [TopicPartition(t, p) for t, p in finished if (t, p) in todo]
                for tp in finished:
                    todo.pop(tp, None)
                if gone and todo:
                    consumer.incremental_unassign(gone)
    finally:
        consumer.close()


def _batch(msgs: list, fields: list[str]) -> pa.RecordBatch:
    """One Arrow batch of the fields the scan needs (one pass per field over the records)."""
    arrays = []
    for f in fields:
        if f == "__value":
            arrays.append(pa.array([m.value() for m in msgs], pa.binary()))
        elif f == "__key":
            arrays.append(pa.array([m.key() for m in msgs], pa.binary()))
        elif f == "__topic":
            arrays.append(pa.array([m.topic() for m in msgs], pa.string()))
        elif f == "__partition":
            arrays.append(pa.array([m.partition() for m in msgs], pa.int32()))
        elif f == "__offset":
            arrays.append(pa.array([m.offset() for m in msgs], pa.int64()))
        elif f == "__timestamp":
            arrays.append(pa.array([m.timestamp()[1] for m in msgs], pa.int64()))
        elif f == "__timestamp_type":
            arrays.append(pa.array([TIMESTAMP_TYPES.get(m.timestamp()[0], "NoTimestampType") for m in msgs]))
        elif f == "__headers":
            arrays.append(pa.array([list(m.headers() or []) for m in msgs], FIELDS["__headers"]))
        elif f == "__leader_epoch":
            arrays.append(pa.array([m.leader_epoch() for m in msgs], pa.int32()))
    arrays.append(pa.array([False] * len(msgs)))
    return pa.RecordBatch.from_arrays(arrays, names=fields + ["__eoi"])


def plan(pos: dict[str, int], end: dict[str, int], tasks: int) -> list[Range]:
    """Ranges between two positions, cut into about ``tasks`` tasks (large ranges split)."""
    ranges = [(*split_key(k), pos.get(k, 0), e) for k, e in sorted(end.items()) if e > pos.get(k, 0)]
    total = sum(e - s for _, _, s, e in ranges)
    if not ranges:
        return []
    if len(ranges) < tasks and total > SPLIT_MIN:
        pieces = []
        per = max(SPLIT_MIN // 2, -(-total // tasks))
        for t, p, s, e in ranges:
            while e - s > per:
                pieces.append((t, p, s, s + per))
                s += per
            pieces.append((t, p, s, e))
        ranges = pieces
    groups: list[list] = [[] for _ in range(min(tasks, len(ranges)))]
    sizes = [0] * len(groups)
    for r in sorted(ranges, key=lambda r: r[3] - r[2], reverse=True):
        i = sizes.index(min(sizes))
        groups[i].append(r)
        sizes[i] += r[3] - r[2]
    return [Range(g) for g in groups if g]


def cap(pos: dict[str, int], end: dict[str, int], limit: int) -> dict[str, int]:
    """Admission control: advance the partitions by at most ``limit`` offsets in all,
    sharing it evenly (a partition with less lag gives its share to the others)."""
    lag = {k: max(0, e - pos.get(k, 0)) for k, e in end.items()}
    if limit <= 0 or sum(lag.values()) <= limit:
        return dict(end)
    take = {k: 0 for k in lag}
    left = limit
    open_ = [k for k in sorted(lag) if lag[k] > 0]
    while left > 0 and open_:
        share = max(1, left // len(open_))
        for k in list(open_):
            n = min(share, lag[k] - take[k], left)
            take[k] += n
            left -= n
            if take[k] >= lag[k]:
                open_.remove(k)
            if left <= 0:
                break
    return {k: pos.get(k, 0) + take[k] for k in end}


class GroupOffsets:
    """``ScanResult.epoch_done`` of a scan with ``properties.group.id``: commits the epoch's end
    offsets to the group, as Flink commits them on each completed checkpoint (for monitoring;
    a restore starts from the checkpoint, not from these)."""

    def __init__(self, options: dict):
        self.options = options
        self._consumer = None

    def __call__(self, end: dict) -> None:
        from confluent_kafka import Consumer, TopicPartition
        reached("group-offsets")
        if self._consumer is None:
            self._consumer = Consumer({**client(self.options), "enable.auto.commit": False})
        try:
            self._consumer.commit(offsets=[TopicPartition(*split_key(k), v) for k, v in end.get("pos", {}).items()],
                                  asynchronous=False)
        except Exception as exc:  # noqa: BLE001 - informational, as in Flink
            log.warning("Could not commit Kafka offsets of group %s: %s",
                        json.loads(self.options["client_secret_config"]).get("group.id"), exc)


class KafkaBatchReader(DataSourceReader):
    """Batch mode: from the startup offsets to the bounded mode's stop offsets."""

    def __init__(self, options: dict, fields: list[str]):
        self.options, self.fields = options, fields

    def partitions(self) -> list[InputPartition]:
        off = Offsets(self.options)
        try:
            tps = off.partitions()
            start = off.resolve("startup", tps)
            stop = off.resolve("bounded", tps)
        finally:
            off.close()
        return plan(start, stop, int(self.options.get("num_partitions", "1"))) or [Range([])]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return read_ranges(self.options, self.fields, partition)


class KafkaStreamReader(DataSourceStreamReader):
    """Streaming: see the module docstring."""

    def __init__(self, options: dict, fields: list[str]):
        self.options, self.fields = options, fields
        self.token = options.get("source_id", "")
        self.bounded = json.loads(options["bounded"])["mode"] != "unbounded"
        self.max_rows = int(options.get("max_rows", "0"))
        self.tasks = int(options.get("num_partitions", "1"))
        self.discovery_ms = int(options.get("discovery_ms", "0"))
        self._off: Optional[Offsets] = None
        self._tps: Optional[list[tuple[str, int]]] = None
        self._listed = 0.0

    def _offsets(self) -> Offsets:
        if self._off is None:
            self._off = Offsets(self.options)
        return self._off

    def _partitions(self) -> list[tuple[str, int]]:
        now = time.monotonic()
        if self._tps is None or (self.discovery_ms > 0 and (now - self._listed) * 1000 >= self.discovery_ms):
            self._tps = self._offsets().partitions()
            self._listed = now
        return self._tps

    def initialOffset(self) -> dict:
        off = self._offsets()
        tps = self._partitions()
        start = off.resolve("startup", tps)
        stop = off.resolve("bounded", tps) if self.bounded else None
        if stop is not None:
            start = {k: min(v, stop[k]) for k, v in start.items()}
        return {"src": self.token, "pos": start, "stop": stop, "phase": DATA}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.max_rows) if self.max_rows > 0 else ReadAllAvailable()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        phase = start.get("phase", DATA)
        if phase >= DONE:
            return start if start.get("src") == self.token else {**start, "src": self.token}
        if phase == EOI_PLANNED:
            return {**start, "src": self.token, "phase": DONE}
        pos = dict(start["pos"])
        stop = start.get("stop")
        if stop is not None:
            end = dict(stop)
        else:
            tps = self._partitions()
            for t, p in tps:  # partitions found later are read from their beginning (as Flink)
                pos.setdefault(tp_key(t, p), None)
            fresh = [split_key(k) for k, v in pos.items() if v is None]
            if fresh:
                lows = self._offsets().bounds(fresh)
                for k in list(pos):
                    if pos[k] is None:
                        pos[k] = lows[k][0]
            end = {k: hi for k, (_, hi) in self._offsets().bounds([split_key(k) for k in pos]).items()}
            end = {k: max(end[k], pos[k]) for k in pos}
        n = limit.max_rows if isinstance(limit, ReadMaxRows) else 0
        end = cap(pos, end, n)
        out = {"src": self.token, "pos": end, "stop": stop, "phase": DATA}
        if stop is not None and all(end[k] >= stop[k] for k in stop):
            out["phase"] = EOI_PLANNED  # the micro-batch reading the last records also ends the input
        if out["phase"] == DATA and end == start["pos"]:
            return start if start.get("src") == self.token else {**start, "src": self.token}
        reached("kafka-plan")
        return out

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        if start.get("phase", DATA) != DATA:
            return []
        ranges: list[InputPartition] = plan(start["pos"], end["pos"], self.tasks)
        if end.get("phase", DATA) == EOI_PLANNED:
            ranges.append(EoiPartition())
        return ranges

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if isinstance(partition, EoiPartition):
            yield eoi_batch(self.fields)
            return
        yield from read_ranges(self.options, self.fields, partition)

    def commit(self, end: dict) -> None:
        """Nothing to release: consumer-group offsets are committed by ``GroupOffsets``
        when the runtime has finished an epoch (Spark calls this one epoch late)."""
        reached("source-commit")

    def stop(self) -> None:
        if self._off is not None:
            self._off.close()
            self._off = None


class KafkaDataSource(DataSource):
    """``spark.read[Stream].format("sqlengine_kafka")``; options set by connectors/kafka/factory.py."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def _fields(self) -> list[str]:
        return [f for f in self.options["fields"].split(",") if f]

    def schema(self) -> str:
        return ", ".join(f"{f} {SPARK_TYPES[f]}" for f in self._fields()) + ", __eoi boolean"

    def reader(self, schema) -> DataSourceReader:
        return KafkaBatchReader(dict(self.options), self._fields())

    def streamReader(self, schema) -> DataSourceStreamReader:
        return KafkaStreamReader(dict(self.options), self._fields())

    def writer(self, schema, overwrite: bool):
        from connectors.kafka.writer import KafkaBatchWriter
        return KafkaBatchWriter(dict(self.options))


def register(spark) -> str:
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(KafkaDataSource)
    return SOURCE_NAME
