"""connectors/kafka/native.py against confluent-kafka's path: the same Arrow batches from the
same offset ranges of a real broker (keys, tombstones, timestamps, two topics, transaction
markers and an aborted transaction under ``read_committed``, ranges that start and end
inside a partition, JSON values the reader decodes)."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest
from confluent_kafka import Producer

from connectors.kafka import native
from connectors.kafka.reader import FAST, FIELDS, Range, _native, read_ranges
from tests.connectors.kafka.kafka_util import new_topic, produce

FAST_SPEC = [["id", "BIGINT"], ["s", "VARCHAR"], ["r", ["ROW", [["at", "TIMESTAMP"]]]]]


def _options(bootstrap: str, path: str) -> dict:
    return {"client_secret_config": json.dumps({"bootstrap.servers": bootstrap, "isolation.level": "read_committed"}),
            "timeout_s": "30", "value_fast": json.dumps(FAST_SPEC), "native": path}


def _read(bootstrap: str, path: str, fields: list[str], ranges: list) -> pa.Table:
    batches = list(read_ranges(_options(bootstrap, path), fields, Range(ranges)))
    table = pa.Table.from_batches(batches)
    return table.sort_by([("__topic", "ascending"), ("__partition", "ascending"), ("__offset", "ascending")])


def _value(i: int):
    if i % 7 == 3:
        return None  # a tombstone
    return json.dumps({"id": i, "s": f"v{i}", "r": {"at": f"2023-01-01 10:00:{i % 60:02d}"}})


def test_both_paths_give_the_same_batches(kafka_bootstrap):
    assert native.available(), "llvmlite and librdkafka are dependencies: the native path must load"
    a, b = new_topic(kafka_bootstrap, 2), new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, a, ({"value": _value(i), "key": (None if i % 5 == 0 else f"k{i}"), "partition": i % 2,
                                  "timestamp": 1_672_567_200_000 + i} for i in range(60)))
    tx = Producer({"bootstrap.servers": kafka_bootstrap, "transactional.id": f"tx-{a}"})
    tx.init_transactions(30)
    for batch, commit in (("aborted", False), ("committed", True)):
        tx.begin_transaction()
        for i in range(6):
            tx.produce(a, value=json.dumps({"id": 1000 + i, "s": batch}).encode(), partition=i % 2)
        if commit:
            tx.commit_transaction(30)
        else:
            tx.flush(30)
            tx.abort_transaction(30)
    produce(kafka_bootstrap, a, ({"value": _value(i), "partition": i % 2} for i in range(60, 70)))
    produce(kafka_bootstrap, b, ({"value": _value(i), "key": b"\x00\xff"} for i in range(30)))
    # Topic a's offsets: 30 records, 3 aborted, a marker, 3 committed, a marker, 5 records per partition.
    ranges = [(a, 0, 0, 43), (a, 1, 2, 43), (b, 0, 4, 29)]
    fields = [f for f in FIELDS if f != "__headers"] + [FAST]
    assert _native(_options(kafka_bootstrap, "true"), fields)
    fast, slow = _read(kafka_bootstrap, "true", fields, ranges), _read(kafka_bootstrap, "false", fields, ranges)
    assert fast.num_rows == 30 + 3 + 5 + 28 + 3 + 5 + 25
    assert fast.equals(slow), [c for c in fields if not fast.column(c).equals(slow.column(c))]
    rows = fast.to_pylist()
    values = [r["__value"] for r in rows]
    assert not any(v and b"aborted" in v for v in values)
    assert sum(v is not None and b"committed" in v for v in values) == 6
    read = [*range(0, 70, 2), *range(5, 70, 2), *range(4, 29)]  # a's partition 1 from its offset 2: i = 5
    assert sum(v is None for v in values) == sum(_value(i) is None for i in read) > 0
    first = next(r for r in rows if r["__topic"] == b and r["__offset"] == 4)
    assert first["__key"] == b"\x00\xff" and first[FAST]["id"] == 4 and first[FAST]["r"]["at"] == "2023-01-01 10:00:04"
    stamped = next(r for r in rows if r["__topic"] == a and r["__offset"] == 1 and r["__partition"] == 0)
    assert (stamped["__timestamp"], stamped["__timestamp_type"], stamped["__key"]) == (1_672_567_200_002, "CreateTime", b"k2")
    assert all(r["__leader_epoch"] == 0 for r in rows)
    assert not any(r["__eoi"] for r in rows)


def test_a_batch_with_a_value_the_decoder_leaves_to_spark_is_all_null_in_both_paths(kafka_bootstrap):
    t = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, t, [{"value": json.dumps({"id": 1})}, {"value": "not json"}, {"value": json.dumps({"id": 3})}])
    for path in ("true", "false"):
        got = _read(kafka_bootstrap, path, ["__topic", "__partition", "__offset", "__value", FAST], [(t, 0, 0, 3)])
        assert got.column(FAST).null_count == 3
        assert got.column("__value").to_pylist() == [b'{"id": 1}', b"not json", b'{"id": 3}']


def test_headers_are_read_through_confluent_kafka(kafka_bootstrap):
    t = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, t, [{"value": "x", "headers": [("h", b"1")]}])
    assert not _native(_options(kafka_bootstrap, "true"), ["__value", "__headers"])
    got = pa.Table.from_batches(list(read_ranges(_options(kafka_bootstrap, "true"), ["__value", "__headers"],
                                                 Range([(t, 0, 0, 1)]))))
    assert got.column("__headers").to_pylist() == [[("h", b"1")]]


@pytest.mark.parametrize("path", ["true", "false"])
def test_an_unknown_client_property_fails_the_read_by_name(kafka_bootstrap, path):
    opts = _options(kafka_bootstrap, path)
    opts["client_secret_config"] = json.dumps({"bootstrap.servers": kafka_bootstrap, "no.such.property": "1"})
    with pytest.raises(Exception, match="no.such.property"):
        list(read_ranges(opts, ["__value"], Range([("x", 0, 0, 1)])))


def test_a_records_split_id_is_its_partitions_position_among_the_epochs_splits(kafka_bootstrap):
    """``__split`` (per-split watermarks compare it per row): the position of the record's
    partition in ``kafka_splits(end)``, the watermark assigner's order, in both paths; with
    12 partitions the order is the names' ("t:10" before "t:2"), and splitting a large
    range across tasks keeps its id."""
    from connectors.kafka.factory import kafka_splits
    from connectors.kafka.reader import SPLIT_MIN, plan
    a, b = new_topic(kafka_bootstrap, 12), new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, a, ({"value": _value(i), "partition": (2, 10, 11)[i % 3]} for i in range(30)))
    produce(kafka_bootstrap, b, ({"value": _value(i)} for i in range(5)))
    end = {f"{a}:{p}": (10 if p in (2, 10, 11) else 0) for p in range(12)} | {f"{b}:0": 5}
    order = list(kafka_splits({"pos": end}))
    assert order.index(f"{a}:10") < order.index(f"{a}:2")
    pos = {f"{a}:10": 4}
    for path in ("true", "false"):
        rows = [r for part in plan(pos, end, 2)
                for r in pa.Table.from_batches(list(read_ranges(_options(kafka_bootstrap, path),
                                                                ["__topic", "__partition", "__split"], part))).to_pylist()]
        assert len(rows) == 10 + 6 + 10 + 5
        assert {(r["__topic"], r["__partition"], r["__split"]) for r in rows} == \
            {(t, p, order.index(f"{t}:{p}")) for t, p in ((a, 2), (a, 10), (a, 11), (b, 0))}
    big = {f"{a}:2": SPLIT_MIN * 3}
    pieces = [r for part in plan({}, big, 4) for r in part.ranges]
    assert len(pieces) > 1 and {i for part in plan({}, big, 4) for i in part.ids.values()} == {0}
