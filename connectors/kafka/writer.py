"""Writing records to Kafka from Spark tasks, with Flink's delivery guarantees.

Input rows: ``__value`` (bytes; null = tombstone), ``__key`` (bytes or null), and, when
the table writes them, ``__timestamp`` (epoch ms) and ``__headers``.

A task's producer is connectors/kafka/native.py's (a batch's values handed to librdkafka
from Arrow's buffers) unless records carry timestamps or headers, which confluent-kafka's
``Producer`` writes; tests/connectors/kafka/test_native_writer.py compares the two.

``none`` / ``at-least-once``: one idempotent producer per task; the task flushes before
it ends and fails on any delivery error (at-least-once), so a retried task or replayed
epoch may write records again.

``exactly-once`` (DESIGN.md, "Exactly once"): librdkafka cannot resume a transaction
that another process opened, so the commit happens in the task, tied to the epoch:
writer task ``i`` of a sink owns the transactional id ``<prefix>-<sink>-<i>``.
``init_transactions`` fences any earlier incarnation (a task attempt or a job killed
mid-write) and aborts what it left open; then, if the epoch's marker for ``i`` is
already committed, the epoch was written and the task writes nothing (a replay after a
crash between the Kafka commit and Spark's commit log). Otherwise the records and the
marker (offset ``epoch + 1`` of consumer group ``<prefix>-<sink>-<query>-<i>``, sent
with ``send_offsets_to_transaction``) commit in one transaction. The runtime hashes the
epoch's rows into a fixed number of writer tasks (the job's key groups), so a replayed
epoch gives task ``i`` the same rows; consumers reading with ``read_committed`` see
each record once. An epoch becomes visible task by task, not all at once.
"""
from __future__ import annotations

import collections
import itertools
import json
import logging
import operator
from dataclasses import dataclass
from typing import Iterator, Optional

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from sqlengine.faults import reached

log = logging.getLogger("sqlengine.kafka")
TXN_TIMEOUT_MS = "900000"  # the broker's default transaction.max.timeout.ms (15 min)


@dataclass
class Written(WriterCommitMessage):
    partition: int
    records: int
    skipped: bool = False  # exactly-once: the epoch had been committed by an earlier run


class KafkaWriteError(RuntimeError):
    pass


def producer_config(options: dict) -> dict:
    conf = json.loads(options["client_secret_config"])
    for k in ("group.id", "auto.offset.reset", "isolation.level", "enable.auto.commit"):
        conf.pop(k, None)
    conf.setdefault("partitioner", "murmur2_random")  # the Java client's (and Flink's) key hashing
    conf.setdefault("linger.ms", "20")
    conf.setdefault("batch.num.messages", "100000")
    conf.setdefault("queue.buffering.max.messages", "500000")
    conf["logger"] = log
    return conf


def marker_config(conf: dict, group: str) -> dict:
    """The consumer that reads an exactly-once task's marker (its group's committed offset)."""
    out = {k: v for k, v in conf.items()
           if k.startswith(("bootstrap.", "security.", "sasl.", "ssl.", "client.", "enable.sparse."))}
    out.update({"group.id": group, "enable.auto.commit": False, "isolation.level": "read_committed", "logger": log})
    return out


def transactional_id(prefix: str, sink_id: str, task: int) -> str:
    return f"{prefix}-{sink_id[:12]}-{task}"


def marker_group(prefix: str, sink_id: str, query_id: str, task: int) -> str:
    return f"{prefix}-{sink_id[:12]}-{query_id}-{task}"


class KafkaBatchWriter(DataSourceArrowWriter):
    def __init__(self, options: dict):
        self.options = options
        self.topic = options["topic"]
        self.guarantee = options.get("guarantee", "at-least-once")
        self.epoch = options.get("epoch")
        self.timeout = float(options.get("timeout_s", "60"))

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Written:
        tc = TaskContext.get()
        task = tc.partitionId()
        conf = producer_config(self.options)
        first = next(iterator, None)
        iterator = itertools.chain([first] if first is not None else [], iterator)
        native = _native(self.options, conf, first)
        if self.guarantee == "exactly-once":
            return self._write_transaction(iterator, conf, task, native)
        if self.guarantee == "at-least-once":
            conf.setdefault("enable.idempotence", "true")
        producer, errors = _producer(conf, native)
        try:
            n = _produce_all(producer, self.topic, iterator, task, self.options)
            left = producer.flush(self.timeout)
        finally:
            _close(producer)
        if self.guarantee == "at-least-once":
            if left:
                raise KafkaWriteError(f"{left} record(s) to topic {self.topic} were not delivered within "
                                      f"{self.timeout:g} s (is the broker reachable?).")
            if errors:
                raise KafkaWriteError(f"Writing to Kafka topic {self.topic} failed: {errors[0]}")
        return Written(task, n)

    def _write_transaction(self, iterator, conf: dict, task: int, native: bool) -> Written:
        conf["transactional.id"] = transactional_id(self.options["txn_prefix"], self.options["sink_id"], task)
        conf.setdefault("transaction.timeout.ms", TXN_TIMEOUT_MS)
        producer, errors = _producer(conf, native)
        try:
            return self._transaction(producer, errors, iterator, conf, task, native)
        finally:
            _close(producer)

    def _transaction(self, producer, errors: list, iterator, conf: dict, task: int, native: bool) -> Written:
        from confluent_kafka import Consumer, TopicPartition
        prefix, sink, query = self.options["txn_prefix"], self.options["sink_id"], self.options["query_id"]
        producer.init_transactions(self.timeout)
        marker_conf = marker_config(conf, marker_group(prefix, sink, query, task))
        consumer = Consumer(marker_conf)
        try:
            mark = TopicPartition(self.topic, 0)
            done = consumer.committed([mark], timeout=self.timeout)[0].offset
            epoch = int(self.epoch)
            if done >= epoch + 1:
                return Written(task, 0, skipped=True)
            producer.begin_transaction()
            reached("kafka-txn-begun")
            n = _produce_all(producer, self.topic, iterator, task, self.options)
            left = producer.flush(self.timeout)
            if left or errors:
                producer.abort_transaction(self.timeout)
                raise KafkaWriteError(f"Writing to Kafka topic {self.topic} failed: "
                                      f"{errors[0] if errors else f'{left} record(s) not delivered'}")
            reached("kafka-produced")
            if native:
                producer.send_offsets_to_transaction([(self.topic, 0, epoch + 1)], marker_conf["group.id"],
                                                     self.timeout)
            else:
                producer.send_offsets_to_transaction([TopicPartition(self.topic, 0, epoch + 1)],
                                                     consumer.consumer_group_metadata(), self.timeout)
            producer.commit_transaction(self.timeout)
            reached("kafka-committed")
            return Written(task, n)
        finally:
            consumer.close()

    def commit(self, messages: list[Optional[Written]]) -> None:
        """Each task committed its own transaction (see the module docstring)."""

    def abort(self, messages: list[Optional[Written]]) -> None:
        """Open transactions of failed tasks are aborted by the next ``init_transactions``
        with their id (a retry, a replay, or the job's recovery at start)."""


def _native(options: dict, conf: dict, first: Optional[pa.RecordBatch]) -> bool:
    """Whether to write with connectors/kafka/native.py (a batch's values handed to
    librdkafka from Arrow's buffers, no Python object per record): unless ``native`` is
    ``false`` (tests compare the two), librdkafka cannot be loaded, a client property is
    a Python callback, or records carry timestamps or headers (confluent-kafka's path)."""
    if options.get("native", "true") == "false":
        return False
    if first is not None and {"__timestamp", "__headers"} & set(first.schema.names):
        return False
    from connectors.kafka import native
    if not native.plain(conf):
        return False
    try:
        return native._lib() is not None
    except OSError:
        return False


def _close(producer) -> None:
    from connectors.kafka import native
    if isinstance(producer, native.Producer):
        producer.close()


def _producer(conf: dict, native: bool = False):
    """A producer and the list its failed deliveries go to (only failures are reported:
    a delivery callback per record would cost a Python call each)."""
    if native:
        from connectors.kafka.native import Producer as NativeProducer
        p = NativeProducer(conf)
        return p, p.errors
    from confluent_kafka import Producer
    errors: list = []

    def failed(err, msg) -> None:
        if err is not None and not errors:
            errors.append(err.str() if hasattr(err, "str") else str(err))

    return Producer({**conf, "on_delivery": failed, "delivery.report.only.error": True}), errors


def _produce_all(producer, topic: str, batches: Iterator[pa.RecordBatch], task: int, options: dict) -> int:
    from connectors.kafka import native
    fixed = options.get("partitioner") == "fixed"
    parts = int(options.get("topic_partitions", "1"))
    n = 0
    if isinstance(producer, native.Producer):
        for batch in batches:
            names = batch.schema.names
            keys = batch.column(names.index("__key")) if "__key" in names else None
            producer.produce(topic, batch.column(names.index("__value")), keys,
                             task % parts if fixed else native.PARTITION_UA)
            n += batch.num_rows
            producer.poll(0)
        return n
    for batch in batches:
        if batch.num_rows == 0:
            continue
        names = batch.schema.names
        columns = [batch.column(names.index("__value")).to_pylist()]
        if "__key" in names:
            columns.append(batch.column(names.index("__key")).to_pylist())
        if "__timestamp" in names or "__headers" in names:
            _produce_each(producer, topic, batch, columns, task % parts if fixed else None)
        else:
            if fixed:
                columns += [[None] * batch.num_rows] * (2 - len(columns)) + [itertools.repeat(task % parts)]
            _produce_mapped(producer, topic, columns)
        n += batch.num_rows
        producer.poll(0)
    return n


def _produce_mapped(producer, topic: str, columns: list) -> None:
    """``produce(topic, value[, key[, partition]])`` for each row, looped in C (``map``):
    the per-record cost is librdkafka's. A full local queue (``BufferError``) waits for
    deliveries and goes on from the record that did not fit."""
    its = [iter(c) for c in columns]
    while True:
        try:
            collections.deque(map(producer.produce, itertools.repeat(topic), *its), maxlen=0)
            return
        except BufferError:  # the record that failed was taken from the iterators: again
            left = operator.length_hint(its[0])
            done = len(columns[0]) - left - 1
            kw = {"partition": next(its[2])} if len(columns) > 2 else {}
            _produce_one(producer, topic, [c[done] for c in columns[:2]], kw)


def _produce_each(producer, topic: str, batch: pa.RecordBatch, columns: list, partition: Optional[int]) -> None:
    names = batch.schema.names
    values = columns[0]
    keys = columns[1] if len(columns) > 1 else [None] * len(values)
    stamps = batch.column(names.index("__timestamp")).to_pylist() if "__timestamp" in names else None
    heads = batch.column(names.index("__headers")).to_pylist() if "__headers" in names else None
    for i, (value, key) in enumerate(zip(values, keys)):
        kw: dict = {} if partition is None else {"partition": partition}
        if stamps is not None and stamps[i] is not None:
            kw["timestamp"] = stamps[i]
        if heads is not None and heads[i]:
            kw["headers"] = heads[i]
        _produce_one(producer, topic, [value, key], kw)


def _produce_one(producer, topic: str, args: list, kw: dict) -> None:
    while True:
        try:
            producer.produce(topic, *args, **kw)
            return
        except BufferError:  # the local queue is full: let deliveries drain, then again
            producer.poll(0.05)


def recover(options: dict, tasks: int) -> None:
    """At job start: abort what a killed run left open under this sink's transactional
    ids (``init_transactions`` does), so ``read_committed`` readers are not held back."""
    from concurrent.futures import ThreadPoolExecutor

    from confluent_kafka import Producer
    timeout = float(options.get("timeout_s", "60"))

    from sqlengine.faults import reached

    def one(task: int) -> None:
        conf = producer_config(options)
        conf["transactional.id"] = transactional_id(options["txn_prefix"], options["sink_id"], task)
        Producer(conf).init_transactions(timeout)
        reached("recovering")  # one transactional id fenced, maybe not all

    with ThreadPoolExecutor(max_workers=min(8, tasks)) as pool:
        list(pool.map(one, range(tasks)))
