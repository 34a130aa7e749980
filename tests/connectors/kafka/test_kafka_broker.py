"""The test broker is a real Kafka: a ``read_committed`` reader sees committed
transactions only (the exactly-once sinks of issue 7 rely on it; the ``tansu`` fallback
fails this probe)."""
from __future__ import annotations

import time
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def _read_all(bootstrap: str, topic: str, partitions: int, isolation: str, expect: int) -> list[str]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"probe-{uuid.uuid4()}",
                         "isolation.level": isolation, "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    values: list[str] = []
    deadline = time.monotonic() + 30
    while len(values) < expect and time.monotonic() < deadline:  # polling a real broker
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            values.append(msg.value().decode())
    consumer.close()
    return values


def test_read_committed_hides_aborted_transactions(kafka_bootstrap):
    topic = f"probe-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})  # alive until its futures resolve
    for f in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        f.result()
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "transactional.id": f"tx-{topic}"})
    producer.init_transactions(30)
    for batch, commit in (("a", True), ("b", False), ("c", True)):
        producer.begin_transaction()
        for i in range(10):
            producer.produce(topic, value=f"{batch}{i}".encode(), partition=i % 2)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.flush(30)
            producer.abort_transaction(30)
    committed = _read_all(kafka_bootstrap, topic, 2, "read_committed", 20)
    assert sorted(committed) == sorted([f"a{i}" for i in range(10)] + [f"c{i}" for i in range(10)])
    everything = _read_all(kafka_bootstrap, topic, 2, "read_uncommitted", 30)
    assert len(everything) == 30 and sum(v.startswith("b") for v in everything) == 10
