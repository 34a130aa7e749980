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

A task reads its ranges with its own consumer (``assign`` at the start offset): the
loops of connectors/kafka/native.py over librdkafka's records (no Python object per
record), or confluent-kafka's ``Consumer`` when headers are read or llvmlite is missing; the
two yield the same batches (tests/connectors/kafka/test_native_reader.py). It reads until
its position reaches the end offset: the position moves over transaction markers and,
with ``read_committed``, over aborted records, so a range may yield fewer records than
offsets. The driver's end offsets are the partitions' high watermarks, which are the
last stable offsets for ``read_committed`` clients (what such a task can reach). A range
whose records the broker no longer has (deleted by retention or ``DeleteRecords`` after
the epoch was planned) fails the task: resetting to the log start, as a consumer would,
drops the epoch's records without a word (Spark's Kafka source fails too, by default).

Rows: the record fields the table needs (``__value``, ``__key`` and metadata such as
``__offset``), ``__topic``/``__partition``/``__offset`` whenever decoding may fail (the
error names them), ``__value_fast`` when the value is JSON that the reader decodes
(option ``value_fast``, connectors/formats/json_arrow.py; with ``value_raw_free`` a batch
it decoded has empty ``__value`` bytes where Spark cannot need them), ``__split`` in
streaming (the record's partition's position among the epoch's, for per-split
watermarks: an integer the watermark's observation compares, not a string per row), and
``__eoi``.
"""
from __future__ import annotations

import itertools
import json
import logging
import operator
import re
import time
from typing import Iterator, Optional

import numpy as np
import pyarrow as pa
from pyspark.sql.datasource import (DataSource, DataSourceReader, DataSourceStreamReader, InputPartition)
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

from connectors import pace
from sqlengine.faults import reached

SOURCE_NAME = "sqlengine_kafka"
DATA, EOI_PLANNED, DONE = 0, 1, 2
# Arrow type of each record field the reader can yield.
FIELDS = {
    "__key": pa.binary(), "__value": pa.binary(), "__topic": pa.string(), "__partition": pa.int32(),
    "__offset": pa.int64(), "__timestamp": pa.int64(), "__timestamp_type": pa.string(),
    "__headers": pa.map_(pa.string(), pa.binary()), "__leader_epoch": pa.int32(), "__split": pa.int32(),
}
SPARK_TYPES = {"__key": "binary", "__value": "binary", "__topic": "string", "__partition": "int",
               "__offset": "bigint", "__timestamp": "bigint", "__timestamp_type": "string",
               "__headers": "map<string,binary>", "__leader_epoch": "int",
               "__split": "int"}
# Records per consume call, and so per batch decoded and sent to Spark; librdkafka's
# fetches and its local queue per partition kept to a few MB. A reader of four partitions
# held ~120 MB in librdkafka and peaked at 510 MB RSS with 50,000-record batches and 50 MB
# fetches; with these, 333 MB and no more CPU (Nexmark q0 at 10M: 300 MB less over the
# process tree; benchmarks/README.md, "Readers' memory").
CONSUME_BATCH = 10_000
# librdkafka postpones a partition's next fetch by fetch.queue.backoff.ms (1 s by default)
# once its local queue is over its thresholds: a task that drains the queue faster then
# waits. 10 ms: 1.2M events read in 0.7 s instead of 1.6 s (CPU 1.0 s against 0.9).
FETCH = {"fetch.max.bytes": "8388608", "max.partition.fetch.bytes": "2097152", "fetch.queue.backoff.ms": "10",
         "queued.max.messages.kbytes": "8192"}
TIMESTAMP_TYPES = {0: "NoTimestampType", 1: "CreateTime", 2: "LogAppendTime"}
BINARY_LIMIT = (1 << 31) - 1  # bytes in one Arrow binary column (32-bit offsets)
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
                if k in done:  # one below the log start reads from it, as a reset to earliest did
                    out[k] = min(max(done[k], lo), hi)
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
    """Offsets ``[start, end)`` of some partitions (one task); ``ids``: each partition's
    split id (``__split``: its position among the epoch's partitions, ``kafka_splits``'s order)."""

    def __init__(self, ranges: list[tuple[str, int, int, int]], ids: Optional[dict] = None):
        super().__init__(None)
        self.ranges = ranges
        self.ids = ids or {}


class EoiPartition(InputPartition):
    def __init__(self) -> None:
        super().__init__(None)


FAST = "__value_fast"


def _decoder(options: dict):
    from connectors.formats.json_arrow import Decoder
    return Decoder(options["value_fast"], options.get("value_raw_free"), options.get("value_unread"),
                   options.get("value_filter"), options.get("value_tops")) if options.get("value_fast") else None


def eoi_batch(fields: list[str], options: dict) -> pa.RecordBatch:
    fast = _decoder(options)
    arrays = [fast.sent_nulls(1) if f == FAST else pa.nulls(1, FIELDS[f]) for f in fields]
    arrays.append(_bools(np.ones(1, np.bool_)))
    return pa.RecordBatch.from_arrays(arrays, names=fields + ["__eoi"])


def _native(options: dict, fields: list[str]) -> bool:
    """Whether to read with connectors/kafka/native.py (records without a Python object
    each): unless ``native`` is ``false`` (tests compare the two paths), llvmlite or
    librdkafka is missing, or headers are read (a rare field: confluent-kafka's path)."""
    if options.get("native", "true") == "false" or "__headers" in fields:
        return False
    from connectors.kafka import native
    return native.plain(json.loads(options["client_secret_config"])) and native.available()


def read_ranges(options: dict, fields: list[str], part: Range,
                fetch: Optional[dict] = None) -> Iterator[pa.RecordBatch]:
    """``part``'s records as Arrow batches; ``fetch``: librdkafka settings over ``FETCH``."""
    timeout = float(options.get("timeout_s", "60"))
    conf = {**FETCH, **(fetch or {}), **client(options), "enable.auto.commit": False, "enable.partition.eof": True,
            "auto.offset.reset": "error"}  # records gone from the broker: an error, not a skip
    todo = {(t, p): (s, e) for t, p, s, e in part.ranges if e > s}
    fast = _decoder(options)
    if _native(options, fields):
        from connectors.kafka import native
        consumer = native.Consumer(conf)
        records = _native_records
    else:
        consumer = _Confluent(conf)
        records = _message_records
    try:
        consumer.assign([(t, p, s) for (t, p), (s, _) in todo.items()])
        idle_since = time.monotonic()
        left = sum(e - s for s, e in todo.values())  # offsets still to read (an upper bound on records)
        while todo:
            # Ask for no more than can come: consume() returns as soon as it has that many
            # messages (records or end-of-partition events), instead of waiting out its timeout.
            got = consumer.take(max(1, min(CONSUME_BATCH, left)), 0.5)
            if got is None:
                if time.monotonic() - idle_since > timeout:
                    left = ", ".join(f"{t}-{p} [{s}, {e})" for (t, p), (s, e) in todo.items())
                    raise KafkaReadError(f"Timed out after {timeout:g} s reading Kafka partition(s) {left}: "
                                         f"the broker did not return the records (is it reachable?).")
                continue
            idle_since = time.monotonic()
            out, finished = records(got, fields, todo, fast, part.ids)
            if out:
                yield from out
                reached("kafka-read")
            left = 0
            for tp, at in consumer.positions(list(todo)).items():
                s, e = todo[tp]
                if at >= e:
                    finished.add(tp)
                elif tp not in finished:
                    left += e - max(s, at)
            if finished:
                gone = [tp for tp in finished if tp in todo]
                for tp in finished:
                    todo.pop(tp, None)
                if gone and todo:
                    consumer.drop(gone)
    finally:
        consumer.close()


class _Confluent:
    """confluent-kafka's consumer behind the interface of connectors/kafka/native.py's."""

    def __init__(self, conf: dict):
        from confluent_kafka import Consumer
        self.consumer = Consumer(conf)

    def assign(self, tps: list[tuple[str, int, int]]) -> None:
        from confluent_kafka import TopicPartition
        self.consumer.assign([TopicPartition(t, p, s) for t, p, s in tps])

    def take(self, n: int, timeout_s: float) -> Optional[list]:
        return self.consumer.consume(n, timeout_s) or None

    def positions(self, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        from confluent_kafka import TopicPartition
        return {(x.topic, x.partition): x.offset for x in self.consumer.position([TopicPartition(t, p) for t, p in tps])}

    def drop(self, tps: list[tuple[str, int]]) -> None:
        from confluent_kafka import TopicPartition
        self.consumer.incremental_unassign([TopicPartition(t, p) for t, p in tps])

    def close(self) -> None:
        self.consumer.close()


def _message_records(msgs: list, fields: list[str], todo: dict, fast, ids: Optional[dict] = None) -> tuple[list, set]:
    data, finished = _split(msgs, todo)
    return (list(_batches(data, fields, todo, fast, ids)) if data else []), finished


def _native_records(batch, fields: list[str], todo: dict, fast, ids: Optional[dict] = None) -> tuple[list, set]:
    """``_message_records`` of a connectors/kafka/native.py batch (which it releases)."""
    from connectors.kafka import native
    try:
        finished: set = set()
        for i in np.flatnonzero(batch.err != 0):  # end-of-partition events and errors: few
            code, p, at = int(batch.err[i]), int(batch.partition[i]), int(batch.offset[i])
            t = batch.consumer.topic(int(batch.rkt[i])) if batch.rkt[i] else "?"
            if code == native.AUTO_OFFSET_RESET:
                raise KafkaReadError(f"Kafka partition {t}-{p} no longer holds offset {at} (deleted by retention or "
                                     f"DeleteRecords after the epoch was planned): {batch.error_text(i)}")
            if code != native.PARTITION_EOF:
                raise KafkaReadError(f"Reading Kafka partition {t}-{p} failed: {batch.error_text(i)}")
            if (t, p) in todo and at >= todo[(t, p)][1]:
                finished.add((t, p))
        rows = np.flatnonzero(batch.err == 0)
        if not len(rows):
            return [], finished
        names, tindex = batch.topics(rows)
        parts, offsets = batch.partition[rows], batch.offset[rows]
        keep = _in_range(names, tindex, parts, offsets, todo)
        if not keep.all():
            rows, tindex, parts, offsets = rows[keep], tindex[keep], parts[keep], offsets[keep]
        if not len(rows):
            return [], finished
        return list(_NativeColumns(batch, rows, names, tindex, parts, offsets, fast, ids).batches(fields)), finished
    finally:
        batch.release()


def _split(msgs: list, todo: dict) -> tuple[list, set]:
    """The records among ``msgs`` (errors raised, end-of-partition events taken out) and
    the partitions an end-of-partition event showed finished. Per-message work runs in
    C (``map`` over the Message methods): no Python bytecode per record."""
    from confluent_kafka import KafkaError, Message
    errs = list(map(Message.error, msgs))
    # By identity: a KafkaError compared with None by == raises (list.count would).
    ok = list(map(operator.is_, errs, itertools.repeat(None)))
    finished: set = set()
    if all(ok):
        return msgs, finished
    for m, err in zip(msgs, errs):
        if err is None:
            continue
        tp = (m.topic(), m.partition())
        if err.code() == KafkaError._AUTO_OFFSET_RESET:
            raise KafkaReadError(f"Kafka partition {tp[0]}-{tp[1]} no longer holds offset {m.offset()} (deleted by "
                                 f"retention or DeleteRecords after the epoch was planned): {err.str()}")
        if err.code() != KafkaError._PARTITION_EOF:
            raise KafkaReadError(f"Reading Kafka partition {tp[0]}-{tp[1]} failed: {err.str()}")
        if tp in todo and m.offset() >= todo[tp][1]:
            finished.add(tp)
    return list(itertools.compress(msgs, ok)), finished


def _in_range(names: list[str], tindex, parts, offsets, todo: dict) -> np.ndarray:
    """Which records lie inside their partition's range (not past its end, of a partition still read)."""
    return offsets < _per_partition(names, tindex, parts, {tp: e for tp, (_, e) in todo.items()}, np.int64)


def _per_partition(names: list[str], tindex, parts, values: dict, dtype) -> np.ndarray:
    """Each record's ``values[(topic, partition)]`` (-1 where absent: for an end offset,
    one every offset is past), by a lookup table."""
    width = int(parts.max()) + 1 if len(parts) else 1
    table = np.full(len(names) * width, -1, dtype)
    for (t, p), v in values.items():
        if t in names and p < width:
            table[names.index(t) * width + p] = v
    return table[tindex * width + parts]


def _batches(msgs: list, fields: list[str], todo: dict, fast=None, ids: Optional[dict] = None) -> Iterator[pa.RecordBatch]:
    """Arrow batches of the records inside their partition's range (a record past the
    range's end, or of a partition no longer read, is dropped), each batch's binary
    columns under 2 GiB (Arrow's 32-bit offsets)."""
    from confluent_kafka import Message
    topics = list(map(Message.topic, msgs))
    parts = np.fromiter(map(Message.partition, msgs), np.int32, len(msgs))
    offsets = np.fromiter(map(Message.offset, msgs), np.int64, len(msgs))
    names = sorted(set(topics))
    tindex = (np.zeros(len(msgs), np.int32) if len(names) == 1
              else np.fromiter(map({t: i for i, t in enumerate(names)}.__getitem__, topics), np.int32, len(msgs)))
    keep = _in_range(names, tindex, parts, offsets, todo)
    if not keep.all():
        msgs = list(itertools.compress(msgs, keep))
        tindex, parts, offsets = tindex[keep], parts[keep], offsets[keep]
    yield from _MessageColumns(msgs, names, tindex, parts, offsets, fast, ids).batches(fields)


class _Columns:
    """The record fields of some records as Arrow arrays, built from buffers (``pa.array``
    would import pandas in every Python worker: ~0.3-0.8 s each). Subclasses give the
    records' payloads, timestamps and the rest; this class the columns and the batches."""

    def __init__(self, topics: list[str], tindex, parts, offsets, fast=None, ids: Optional[dict] = None):
        self.topics, self.tindex, self.parts, self.offsets, self.fast = topics, tindex, parts, offsets, fast
        self.ids = ids or {}

    def __len__(self) -> int:
        return len(self.offsets)

    # -- per source of records
    def value_bytes(self) -> int:
        raise NotImplementedError

    def part(self, lo: int, hi: int) -> "_Columns":
        raise NotImplementedError

    def binary(self, key: bool) -> pa.Array:
        raise NotImplementedError

    def empty_values(self) -> pa.Array:
        """Empty bytes where a value is, None where there is none (no copy of the bytes)."""
        raise NotImplementedError

    def decoded(self) -> pa.Array:
        raise NotImplementedError

    def stamps(self) -> tuple[np.ndarray, np.ndarray]:
        """Each record's timestamp and its type (librdkafka's numbers)."""
        raise NotImplementedError

    def epochs(self) -> pa.Array:
        raise NotImplementedError

    def headers(self) -> pa.Array:
        raise NotImplementedError

    # -- the columns
    def batches(self, fields: list[str]) -> Iterator[pa.RecordBatch]:
        n = len(self)
        size = self.value_bytes() if "__value" in fields else 0
        if size >= BINARY_LIMIT and n > 1:  # halve until each part's values fit in 32-bit offsets
            half = n // 2
            for lo, hi in ((0, half), (half, n)):
                yield from self.part(lo, hi).batches(fields)
            return
        done, covered = {}, False
        if FAST in fields:
            done[FAST] = self.column(FAST)
            covered = self.fast.covers(done[FAST])  # json_arrow: Spark needs none of the bytes
            if "__value" in fields and covered:
                done["__value"] = self.empty_values()
            done[FAST] = self.fast.finish(done[FAST], covered)
        arrays = [done[f] if f in done else self.column(f) for f in fields] + [_bools(np.zeros(n, np.bool_))]
        used = None
        if covered:  # the rows the job uses (each split's watermark kept: ``__split``)
            splits = arrays[fields.index("__split")].to_numpy(zero_copy_only=False) if "__split" in fields else None
            used = self.fast.used_rows(done[FAST], splits)
        batch = pa.RecordBatch.from_arrays(arrays, names=fields + ["__eoi"])
        if used is not None and used.true_count < n:
            batch = batch.filter(used)
        if used is None or batch.num_rows:
            yield batch

    def column(self, field: str) -> pa.Array:
        if field in ("__value", "__key"):
            return self.binary(field == "__key")
        if field == FAST:
            return self.decoded()
        if field == "__topic":
            dictionary = pa.Array.from_buffers(pa.string(), len(self.topics), _offsets_and_data(
                [t.encode() for t in self.topics]))
            return dictionary.take(_numbers(self.tindex, pa.int32()))
        if field == "__partition":
            return _numbers(self.parts, pa.int32())
        if field == "__split":
            return _numbers(_per_partition(self.topics, self.tindex, self.parts, self.ids, np.int32), pa.int32())
        if field == "__offset":
            return _numbers(self.offsets, pa.int64())
        if field == "__timestamp":
            return _numbers(self.stamps()[0], pa.int64())
        if field == "__timestamp_type":
            kinds = self.stamps()[1]
            names = pa.array([TIMESTAMP_TYPES[k] for k in range(len(TIMESTAMP_TYPES))], pa.string())
            return names.take(_numbers(np.where((kinds >= 0) & (kinds < len(TIMESTAMP_TYPES)), kinds, 0)
                                       .astype(np.int32), pa.int32()))
        if field == "__headers":
            return self.headers()
        if field == "__leader_epoch":
            return self.epochs()
        raise KafkaReadError(f"Unknown Kafka record field {field}")


class _MessageColumns(_Columns):
    """Records as confluent-kafka ``Message`` objects."""

    def __init__(self, msgs: list, topics: list[str], tindex, parts, offsets, fast=None, ids: Optional[dict] = None):
        super().__init__(topics, tindex, parts, offsets, fast, ids)
        self.msgs = msgs
        self._values: Optional[list] = None
        self._stamps = None

    def values(self) -> list:
        from confluent_kafka import Message
        if self._values is None:
            self._values = list(map(Message.value, self.msgs))
        return self._values

    def value_bytes(self) -> int:
        return sum(map(len, filter(None, self.values())))

    def part(self, lo: int, hi: int) -> _Columns:
        out = _MessageColumns(self.msgs[lo:hi], self.topics, self.tindex[lo:hi], self.parts[lo:hi],
                              self.offsets[lo:hi], self.fast, self.ids)
        out._values = self._values[lo:hi] if self._values is not None else None
        return out

    def binary(self, key: bool) -> pa.Array:
        from confluent_kafka import Message
        return _binary(list(map(Message.key, self.msgs)) if key else self.values())

    def empty_values(self) -> pa.Array:
        return _empty_binary(self.values())

    def decoded(self) -> pa.Array:
        return self.fast.decode(self.values())

    def stamps(self) -> tuple[np.ndarray, np.ndarray]:
        from confluent_kafka import Message
        if self._stamps is None:
            pairs = list(map(Message.timestamp, self.msgs))
            self._stamps = (np.fromiter(map(operator.itemgetter(1), pairs), np.int64, len(pairs)),
                            np.fromiter(map(operator.itemgetter(0), pairs), np.int32, len(pairs)))
        return self._stamps

    def epochs(self) -> pa.Array:
        from confluent_kafka import Message
        return pa.array(list(map(Message.leader_epoch, self.msgs)), pa.int32())

    def headers(self) -> pa.Array:
        return pa.array([list(m.headers() or []) for m in self.msgs], FIELDS["__headers"])


class _NativeColumns(_Columns):
    """Records of a connectors/kafka/native.py batch (rows ``rows`` of it)."""

    def __init__(self, batch, rows: np.ndarray, topics: list[str], tindex, parts, offsets, fast=None,
                 ids: Optional[dict] = None):
        super().__init__(topics, tindex, parts, offsets, fast, ids)
        self.batch, self.rows = batch, rows
        self._stamps = None

    def value_bytes(self) -> int:
        lens = self.batch.value_len[self.rows]
        return int(lens[lens > 0].sum())

    def part(self, lo: int, hi: int) -> _Columns:
        return _NativeColumns(self.batch, self.rows[lo:hi], self.topics, self.tindex[lo:hi], self.parts[lo:hi],
                              self.offsets[lo:hi], self.fast, self.ids)

    def binary(self, key: bool) -> pa.Array:
        data, sizes, present = self.batch.payloads(self.rows, key)
        return _from_sizes(data, sizes, present)

    def empty_values(self) -> pa.Array:
        present = self.batch.value_len[self.rows] >= 0
        return _from_sizes(b"", np.zeros(len(present), np.int64), present)

    def decoded(self) -> pa.Array:
        data, sizes, _ = self.batch.payloads(self.rows, False, sep=True, null_as=b"{}")
        return self.fast.decode_joined(data, sizes)

    def stamps(self) -> tuple[np.ndarray, np.ndarray]:
        if self._stamps is None:
            self._stamps = self.batch.timestamps(self.rows)
        return self._stamps

    def epochs(self) -> pa.Array:
        epochs = self.batch.leader_epochs(self.rows)
        present = epochs >= 0
        if present.all():
            return _numbers(epochs, pa.int32())
        return pa.Array.from_buffers(pa.int32(), len(epochs), [_validity(present), pa.py_buffer(epochs)],
                                     null_count=int((~present).sum()))


def _validity(present: np.ndarray) -> pa.Buffer:
    return pa.py_buffer(np.packbits(present, bitorder="little"))


def _from_sizes(data, sizes: np.ndarray, present: np.ndarray) -> pa.Array:
    """A binary array of the values laid end to end in ``data``, of ``sizes`` (NULL where not ``present``)."""
    offsets = np.zeros(len(sizes) + 1, np.int32)
    np.cumsum(sizes, out=offsets[1:])
    nulls = int(len(present) - np.count_nonzero(present))
    bufs = [_validity(present) if nulls else None, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.binary(), len(sizes), bufs, null_count=nulls)


def _offsets_and_data(values: list) -> list:
    lengths = np.fromiter(map(len, values), np.int32, len(values))
    offsets = np.zeros(len(values) + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(values))]


def _binary(values: list) -> pa.Array:
    """A binary array of ``values`` (bytes or None) from one join and one cumulative sum."""
    nulls = values.count(None)
    if not nulls:
        return pa.Array.from_buffers(pa.binary(), len(values), _offsets_and_data(values))
    present = np.fromiter(map(operator.is_not, values, itertools.repeat(None)), np.bool_, len(values))
    bufs = _offsets_and_data([v if v is not None else b"" for v in values])
    bufs[0] = pa.py_buffer(np.packbits(present, bitorder="little"))
    return pa.Array.from_buffers(pa.binary(), len(values), bufs, null_count=nulls)


def _empty_binary(values: list) -> pa.Array:
    """Empty bytes where ``values`` has bytes, None where it has None (no copy of the bytes)."""
    bufs = [None, pa.py_buffer(np.zeros(len(values) + 1, np.int32)), pa.py_buffer(b"")]
    nulls = values.count(None)
    if nulls:
        present = np.fromiter(map(operator.is_not, values, itertools.repeat(None)), np.bool_, len(values))
        bufs[0] = pa.py_buffer(np.packbits(present, bitorder="little"))
    return pa.Array.from_buffers(pa.binary(), len(values), bufs, null_count=nulls)


def _numbers(values, t: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(t, len(values), [None, pa.py_buffer(np.ascontiguousarray(values))])


def _bools(values) -> pa.Array:
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(np.packbits(values, bitorder="little"))])


def split_ids(end: dict[str, int]) -> dict[tuple[str, int], int]:
    """Each partition's split id: its position in ``sorted(end)`` (``kafka_splits``'s order)."""
    return {split_key(k): i for i, k in enumerate(sorted(end))}


def plan(pos: dict[str, int], end: dict[str, int], tasks: int) -> list[Range]:
    """Ranges between two positions, cut into about ``tasks`` tasks (large ranges split); a
    partition's split id is its position in ``sorted(end)`` (``kafka_splits``'s order)."""
    ids = split_ids(end)
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
    return [Range(g, {(t, p): ids[(t, p)] for t, p, _, _ in g}) for g in groups if g]


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


# A reader that drops rows where it reads (``value_filter``: a filter pushed into it) admits
# more records an epoch, so that about the rows' cap still enter it: it measures the share of
# records it keeps in the span the epoch could take (up to ``max_records``), reading and
# filtering SAMPLE_RECORDS offsets at SAMPLE_PLACES evenly spread places of each partition's
# part of that span exactly as the epoch's tasks will, before the span is fixed in the offsets
# log. Kept records in runs shorter than the places' spacing can fall between them and make
# an epoch hold more rows than the cap: one such run per partition at most a spacing each
# (with 8 places and ``max_records`` 8 x the cap, one cap in all); an epoch never reads more
# than ``max_records``. A sample costs ~0.1 s a place (a consumer's first
# fetch, decoding); where it found most records kept (HIGH_SHARE) an epoch would barely
# grow, so the next RESAMPLE_AFTER epochs take the rows' cap without one.
SAMPLE_RECORDS = 500
SAMPLE_PLACES = 8
SAMPLE_TIMEOUT_S = "10"
HIGH_SHARE = 0.5
RESAMPLE_AFTER = 16
# The sample is read where Spark plans the epoch (the query's streaming source process, for
# the job's life), so it reads as little as it can: fetches of a few samples' worth and no
# local queue beyond them, and through confluent-kafka's path, which needs no compiled
# loops (connectors/kafka/native_kernels.py maps LLVM, ~60 MB). That process held 272 MB
# after its first sample with the readers' settings, 155 MB with these (q0, 4M events).
SAMPLE_FETCH = {"max.partition.fetch.bytes": "262144", "queued.max.messages.kbytes": "256"}


def sample_pieces(pos: dict[str, int], span: dict[str, int]) -> list[list[tuple[str, int, int, int]]]:
    """The sample's ranges, one list per place (a partition at most once in each): a
    partition's whole part of the span where it is short, else SAMPLE_RECORDS offsets at
    each of SAMPLE_PLACES evenly spread places."""
    places: list[list] = [[] for _ in range(SAMPLE_PLACES)]
    for k in sorted(span):
        s0, e0 = pos.get(k, 0), span[k]
        if e0 <= s0:
            continue
        t, p = split_key(k)
        if e0 - s0 <= SAMPLE_PLACES * SAMPLE_RECORDS:
            places[0].append((t, p, s0, e0))
            continue
        for i in range(SAMPLE_PLACES):
            s = s0 + (e0 - s0) * i // SAMPLE_PLACES
            places[i].append((t, p, s, s + SAMPLE_RECORDS))
    return [pl for pl in places if pl]


def kept_share(options: dict, fields: list[str], pos: dict[str, int], span: dict[str, int]) -> Optional[float]:
    """The share of the offsets between ``pos`` and ``span`` whose rows the reader sends on
    (see SAMPLE_RECORDS); None if there is nothing to read."""
    ids = split_ids(span)
    opts = {**options, "timeout_s": SAMPLE_TIMEOUT_S, "native": "false"}
    offsets = rows = 0
    for pieces in sample_pieces(pos, span):
        rows += sum(b.num_rows for b in read_ranges(opts, fields, Range(pieces, ids), SAMPLE_FETCH))
        offsets += sum(e - s for _, _, s, e in pieces)
    return rows / offsets if offsets else None


def admit(options: dict, fields: list[str], pos: dict[str, int], end: dict[str, int], rows: int,
          max_records: int) -> tuple[int, Optional[float]]:
    """How many offsets an epoch of a reader that drops rows takes so that about ``rows``
    rows enter it (see SAMPLE_RECORDS), and the share measured: ``rows`` / the kept share,
    between ``rows`` and ``max_records``; ``rows`` (and no share) when all would fit anyway
    or the sample fails."""
    if rows <= 0 or max_records <= rows:
        return rows, None
    if sum(max(0, e - pos.get(k, 0)) for k, e in end.items()) <= rows:
        return rows, None
    span = cap(pos, end, max_records)
    try:
        share = kept_share(options, fields, pos, span)
    except Exception as exc:  # noqa: BLE001 - the epoch's own read reports a real failure
        log.warning("Could not sample Kafka records to size an epoch (%s); reading at most %d.", exc, rows)
        return rows, None
    if share is None:
        return rows, None
    return max(rows, min(max_records, int(rows / share) if share > 0 else max_records)), share


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
        # Records an epoch may read where the reader drops rows (``admit``); else the rows' cap.
        self.max_records = int(options.get("max_records", "0")) if options.get("value_filter") else 0
        self._share: Optional[float] = None  # the last sample's kept share
        self._unsampled = 0  # epochs admitted since that sample
        self.tasks = int(options.get("num_partitions", "1"))
        self.discovery_ms = int(options.get("discovery_ms", "0"))
        self._off: Optional[Offsets] = None
        self._tps: Optional[list[tuple[str, int]]] = None
        self._listed = 0.0
        self.pace = pace.Pace(options)

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

    def _unchanged(self, start: dict) -> dict:
        """``start`` again (nothing new), tagged with this run's source id."""
        return start if start.get("src") == self.token else {**start, "src": self.token}

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        phase = start.get("phase", DATA)
        if phase >= DONE:
            return self._unchanged(start)
        if phase == EOI_PLANNED:
            return {**start, "src": self.token, "phase": DONE}
        if not self.pace.due():  # (before any broker request: Spark asks again and again)
            return self._unchanged(start)
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
        if self.max_records:
            n = self._admit(pos, end, n)
        admitted = cap(pos, end, n)
        out = {"src": self.token, "pos": admitted, "stop": stop, "phase": DATA}
        if stop is not None and all(admitted[k] >= stop[k] for k in stop):
            out["phase"] = EOI_PLANNED  # the micro-batch reading the last records also ends the input
        if out["phase"] == DATA and admitted == start["pos"]:
            return self._unchanged(start)
        self.pace.admitted(capped=admitted != end)
        reached("kafka-plan")
        return out

    def _admit(self, pos: dict[str, int], end: dict[str, int], rows: int) -> int:
        """``admit``, or the rows' cap without a sample while the last one kept most records."""
        if self._share is not None and self._share >= HIGH_SHARE and self._unsampled < RESAMPLE_AFTER:
            self._unsampled += 1
            return rows
        n, share = admit(self.options, self.fields, pos, end, rows, self.max_records)
        if share is not None:
            self._share, self._unsampled = share, 0
        return n

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        if start.get("phase", DATA) != DATA:
            return []
        ranges: list[InputPartition] = plan(start["pos"], end["pos"], self.tasks)
        if end.get("phase", DATA) == EOI_PLANNED:
            ranges.append(EoiPartition())
        return ranges

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if isinstance(partition, EoiPartition):
            yield eoi_batch(self.fields, self.options)
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
        from connectors.formats.json_arrow import spark_type

        def typed(f: str) -> str:
            return spark_type(json.loads(self.options["value_fast"]), bool(self.options.get("value_raw_free")),
                              json.loads(self.options.get("value_unread") or "[]")) if f == FAST else SPARK_TYPES[f]
        return ", ".join(f"{f} {typed(f)}" for f in self._fields()) + ", __eoi boolean"

    def reader(self, schema) -> DataSourceReader:
        return KafkaBatchReader(dict(self.options), self._fields())

    def streamReader(self, schema) -> DataSourceStreamReader:
        return KafkaStreamReader(dict(self.options), self._fields())


def register(spark) -> str:
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(KafkaDataSource)
    return SOURCE_NAME


class KafkaLag:
    """``ScanResult.lag``: per partition, the records between the job's position and the
    partition's high watermark (``KafkaSourceReader.topic.<t>.partition.<p>.pendingRecords``)."""

    def __init__(self, options: dict, token: str):
        self.options, self.token = options, token
        self._offsets: Optional[Offsets] = None

    def __call__(self, source_progress: dict) -> dict[str, int]:
        from connectors.base import progress_offset
        pos = progress_offset(source_progress, self.token).get("pos") or {}
        if not pos:
            return {}
        if self._offsets is None:
            self._offsets = Offsets(self.options)
        highs = self._offsets.bounds([split_key(k) for k in pos])
        out = {}
        for k, at in pos.items():
            topic, partition = split_key(k)
            out[f"KafkaSourceReader.topic.{topic}.partition.{partition}"] = max(highs[k][1] - int(at or 0), 0)
        return out
