"""connectors/kafka/native.py's producer against confluent-kafka's: the same records from the
same Arrow batch (NULL and empty values, NULL keys, the murmur2 partitioner on keys, a fixed
partition), and transactions (an aborted one hidden from ``read_committed`` readers, the
epoch marker committed with the records)."""
from __future__ import annotations

import json
from collections import Counter

import pyarrow as pa
import pytest
from confluent_kafka import Consumer, TopicPartition

from connectors.kafka import native
from connectors.kafka.writer import _native, _produce_all, _producer, producer_config
from tests.connectors.kafka.kafka_util import new_topic, read_all

VALUES = [b"v0", None, b"", b"\x00\xff" * 100, *[f"r{i}".encode() for i in range(96)]]
KEYS = [None, b"k1", b"k2", b"", *[(f"key{i % 7}".encode() if i % 3 else None) for i in range(96)]]


def _batch() -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array(VALUES, pa.binary()), pa.array(KEYS, pa.binary())],
                                      names=["__value", "__key"])


def _write(bootstrap: str, topic: str, native_path: bool, options: dict, batches: list) -> None:
    conf = producer_config({"client_secret_config": json.dumps({"bootstrap.servers": bootstrap}), **options})
    conf["enable.idempotence"] = "true"
    producer, errors = _producer(conf, native_path)
    assert isinstance(producer, native.Producer) == native_path
    assert _produce_all(producer, topic, iter(batches), 5, options) == sum(b.num_rows for b in batches)
    assert producer.flush(30) == 0 and not errors
    if native_path:
        producer.close()


@pytest.mark.parametrize("options", [{}, {"partitioner": "fixed", "topic_partitions": "3"}])
def test_both_producers_write_the_same_records(kafka_bootstrap, options):
    a, b = new_topic(kafka_bootstrap, 3), new_topic(kafka_bootstrap, 3)
    batch = _batch()
    sliced = batch.slice(40)  # an Arrow slice: offsets that do not start at 0
    assert _native({}, {"bootstrap.servers": "x", "logger": object()}, batch)
    assert not _native({}, {"bootstrap.servers": "x"}, pa.RecordBatch.from_arrays(
        [pa.array([b"x"]), pa.array([1], pa.int64())], names=["__value", "__timestamp"]))
    _write(kafka_bootstrap, a, True, options, [batch, sliced])
    _write(kafka_bootstrap, b, False, options, [batch, sliced])
    got_a, got_b = read_all(kafka_bootstrap, a), read_all(kafka_bootstrap, b)
    expected = Counter((k, v) for k, v in zip(KEYS + KEYS[40:], VALUES + VALUES[40:]))
    assert Counter((r[2], r[3]) for r in got_a) == expected
    assert Counter((r[2], r[3]) for r in got_b) == expected
    keyed = lambda rows: Counter((r[0], r[2], r[3]) for r in rows if r[2] is not None)  # noqa: E731
    assert keyed(got_a) == keyed(got_b)  # murmur2 on the key, or the fixed partition: the same
    if options:
        assert {r[0] for r in got_a} == {5 % 3}
    else:
        assert len({r[0] for r in got_a}) == 3


def test_native_transactions(kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 1)
    conf = producer_config({"client_secret_config": json.dumps({"bootstrap.servers": kafka_bootstrap})})
    conf.update({"transactional.id": f"tx-{topic}", "transaction.timeout.ms": "60000"})
    group = f"marker-{topic}"
    values = pa.array([b"one", b"two"], pa.binary())
    for commit in (False, True):
        p = native.Producer(conf)
        p.init_transactions(30)
        p.begin_transaction()
        p.produce(topic, values if commit else pa.array([b"aborted"], pa.binary()))
        assert p.flush(30) == 0
        if commit:
            p.send_offsets_to_transaction([(topic, 0, 8)], group, 30)
            p.commit_transaction(30)
        else:
            p.abort_transaction(30)
        p.close()
    assert [r[3] for r in read_all(kafka_bootstrap, topic)] == [b"one", b"two"]
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group})
    try:
        assert c.committed([TopicPartition(topic, 0)], timeout=30)[0].offset == 8
    finally:
        c.close()
    p = native.Producer(conf)
    with pytest.raises(native.NativeError, match="Kafka transaction could not begin"):
        p.begin_transaction()  # before init_transactions: librdkafka's state error, by name
    p.close()


def test_clients_connect_to_every_broker_at_once_unless_the_table_says_otherwise():
    """librdkafka's sparse connections cost every epoch's short-lived clients a wait per
    connection (and a transactional producer's init 500 ms in a fifth of starts:
    connectors/kafka/options.py, ``CLIENT_DEFAULTS``): the producer, its marker consumer and
    the readers' consumers are made with ``enable.sparse.connections`` off; a table's
    ``properties.enable.sparse.connections`` wins."""
    from connectors.base import Options
    from connectors.kafka.options import parse
    from connectors.kafka.reader import client
    from connectors.kafka.writer import marker_config
    from sqlengine.types import INT

    base = {"connector": "kafka", "topic": "t", "properties.bootstrap.servers": "localhost:9092", "format": "json"}
    for props, want in (({}, "false"), ({"properties.enable.sparse.connections": "true"}, "true")):
        k = parse(Options("kafka", {**base, **props}), [("a", INT())])
        options = {"client_secret_config": json.dumps(k.client)}
        producer = producer_config(options)
        assert producer["enable.sparse.connections"] == want
        assert marker_config(producer, "g")["enable.sparse.connections"] == want
        assert client(options)["enable.sparse.connections"] == want
