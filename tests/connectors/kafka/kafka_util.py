"""Small helpers for the Kafka tests: topics, producing, reading back what is committed."""
from __future__ import annotations

import itertools
import json
import uuid
from typing import Any, Iterable, Optional

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

_ids = itertools.count(1)


def new_topic(bootstrap: str, partitions: int = 1, name: Optional[str] = None) -> str:
    name = name or f"t{next(_ids)}-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    # Kept forever: the tests' records carry fixed timestamps (2023) that time-based
    # retention would delete (also on a broker given by KAFKA_BOOTSTRAP_SERVERS).
    topic = NewTopic(name, partitions, 1, config={"retention.ms": "-1"})
    for f in admin.create_topics([topic]).values():
        f.result()
    return name


def produce(bootstrap: str, topic: str, records: Iterable[dict[str, Any]]) -> None:
    """Records as dicts: value (str/bytes/dict/None), key, partition, timestamp, headers.

    Idempotent, so each partition holds its records in the order given: a plain producer
    retries a failed batch (common on a topic just created, before its leader is known)
    after later batches have landed, and the tests' event times then arrive out of order
    (a CI run lost a window's records as late that way). A record not delivered fails."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "enable.idempotence": True})
    failed: list = []

    def delivered(err, msg) -> None:
        if err is not None:
            failed.append(err)
    for r in records:
        value = r.get("value")
        if isinstance(value, dict):
            value = json.dumps(value)
        kw = {k: r[k] for k in ("partition", "timestamp", "headers") if r.get(k) is not None}
        p.produce(topic, value=value, key=r.get("key"), on_delivery=delivered, **kw)
    assert p.flush(30) == 0
    assert not failed, f"{len(failed)} record(s) not delivered to {topic}: {failed[0]}"


def read_all(bootstrap: str, topic: str, committed: bool = True) -> list[Any]:
    """Every record of ``topic`` up to its end: (partition, offset, key, value, headers)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex[:6]}",
                  "isolation.level": "read_committed" if committed else "read_uncommitted",
                  "enable.partition.eof": True, "enable.auto.commit": False})
    md = c.list_topics(topic, timeout=10)
    parts = sorted(md.topics[topic].partitions)
    c.assign([TopicPartition(topic, p, 0) for p in parts])
    out, eof = [], set()
    try:
        while len(eof) < len(parts):
            for m in c.consume(1000, 1.0):
                if m.error() is not None:
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        eof.add(m.partition())
                        continue
                    raise RuntimeError(m.error().str())
                out.append((m.partition(), m.offset(), m.key(), m.value(), m.headers()))
    finally:
        c.close()
    return out


def values(bootstrap: str, topic: str) -> list[Any]:
    return [json.loads(v) if v is not None else None for _, _, _, v, _ in read_all(bootstrap, topic)]


def upsert_table(bootstrap: str, topic: str, key_field: str) -> dict[Any, Any]:
    """An upsert-kafka topic's final table: per key (``key_field`` of the JSON key), the
    last value, a tombstone removing the key."""
    table: dict[Any, Any] = {}
    for _, _, key, value, _ in read_all(bootstrap, topic):
        k = json.loads(key)[key_field]
        if value is None:
            table.pop(k, None)
        else:
            table[k] = json.loads(value)
    return table
