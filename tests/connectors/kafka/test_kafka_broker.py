"""The test broker is a real Kafka: a ``read_committed`` reader sees committed
transactions only (the exactly-once sinks of issue 7 rely on it; the ``tansu`` fallback
fails this probe)."""
from __future__ import annotations

import os
import time
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from tests.connectors.kafka.kafka_util import new_topic, produce


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


def _config(admin: AdminClient, kind: ConfigResource.Type, name: str, key: str) -> str:
    resource = ConfigResource(kind, name)
    return admin.describe_configs([resource])[resource].result(30)[key].value


def test_topics_keep_records_with_old_timestamps(kafka_bootstrap):
    """The tests produce records stamped in 2023: with Kafka's default 7-day time retention
    the broker deleted them at its first retention check (30 s after start), and a read
    planned before it found nothing (an intermittent ``0 == 300``)."""
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, [{"value": "x", "timestamp": 1_700_000_000_000}])  # the broker knows it now
    assert _config(admin, ConfigResource.Type.TOPIC, topic, "retention.ms") == "-1"
    if not os.environ.get("KAFKA_BOOTSTRAP_SERVERS"):  # the broker of our own: any topic
        (broker,) = admin.list_topics(timeout=30).brokers
        assert _config(admin, ConfigResource.Type.BROKER, str(broker), "log.retention.ms") == "-1"
