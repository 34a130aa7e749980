"""The reader's Arrow batches from confluent-kafka messages, without a broker: records
past their range's end or of partitions no longer read are dropped, tombstones are
NULL values, several topics in one batch."""
from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, Message

from connectors.kafka.reader import KafkaReadError, _batches, _split


def msg(topic: str, partition: int, offset: int, value, key=None) -> Message:
    return Message(topic=topic, partition=partition, offset=offset, value=value, key=key)


def test_records_past_the_range_end_and_of_other_partitions_are_dropped():
    todo = {("a", 0): (0, 2), ("b", 3): (10, 12)}
    msgs = [msg("a", 0, 0, b"a0", b"k"), msg("b", 3, 10, None), msg("a", 0, 1, b"a1"),
            msg("a", 0, 2, b"a2"), msg("b", 3, 11, b"b11"), msg("a", 1, 0, b"other"), msg("b", 3, 12, b"b12")]
    fields = ["__key", "__value", "__topic", "__partition", "__offset"]
    batches = list(_batches(msgs, fields, todo))
    rows = [r for b in batches for r in b.to_pylist()]
    assert rows == [
        {"__key": b"k", "__value": b"a0", "__topic": "a", "__partition": 0, "__offset": 0, "__eoi": False},
        {"__key": None, "__value": None, "__topic": "b", "__partition": 3, "__offset": 10, "__eoi": False},
        {"__key": None, "__value": b"a1", "__topic": "a", "__partition": 0, "__offset": 1, "__eoi": False},
        {"__key": None, "__value": b"b11", "__topic": "b", "__partition": 3, "__offset": 11, "__eoi": False},
    ]
    assert [str(t) for t in batches[0].schema.types] == ["binary", "binary", "string", "int32", "int64", "bool"]


def test_a_batch_of_one_topic_without_nulls():
    todo = {("t", 1): (0, 100)}
    msgs = [msg("t", 1, i, b"v%d" % i) for i in range(100)]
    (batch,) = _batches(msgs, ["__value", "__offset"], todo)
    assert batch.column(0).to_pylist() == [b"v%d" % i for i in range(100)]
    assert batch.column(1).to_pylist() == list(range(100))
    assert batch.column(2).null_count == 0 and not any(batch.column(2).to_pylist())


def test_end_of_partition_events_among_records_are_taken_out():
    """A poll mixing records and end-of-partition events (a KafkaError compared with None
    by == raises, so the events are found by identity)."""
    eof = Message(topic="a", partition=0, offset=2, error=KafkaError(KafkaError._PARTITION_EOF))
    msgs = [msg("a", 0, 0, b"x"), eof, msg("a", 1, 0, b"y")]
    records, finished = _split(msgs, {("a", 0): (0, 2), ("a", 1): (0, 5)})
    assert [m.value() for m in records] == [b"x", b"y"] and finished == {("a", 0)}
    assert _split(msgs[:1], {}) == (msgs[:1], set())
    bad = Message(topic="a", partition=0, offset=0, error=KafkaError(KafkaError._ALL_BROKERS_DOWN))
    with pytest.raises(KafkaReadError, match="Reading Kafka partition a-0 failed"):
        _split([bad], {})


def test_the_scan_tells_the_reader_what_no_operator_reads():
    """ScanContext.unread (table column names, then ROW members) becomes the reader's
    ``value_unread`` (paths into the value's JSON objects; a key column is not the
    value's), and the reader built from those options leaves them out (the table has no
    temporal field: its values are sent typed, json_arrow.sent_fields)."""
    import json

    from connectors.base import Options
    from connectors.kafka import options as KO
    from connectors.kafka.factory import _fast_fields, _fast_options
    from connectors.kafka.reader import FAST, _decoder
    from sqlengine import types as T
    columns = [("k", T.STRING()), ("n", T.BIGINT()), ("r", T.ROW([("a", T.BIGINT()), ("b", T.STRING())]))]
    k = KO.parse(Options("kafka", {"topic": "t", "properties.bootstrap.servers": "localhost:9092",
                                   "key.format": "raw", "key.fields": "k", "value.format": "json",
                                   "value.fields-include": "EXCEPT_KEY"}), columns)
    fast = _fast_fields(k, {})
    options = _fast_options(k.value, fast, (("k",), ("r", "b")))
    assert json.loads(options["value_unread"]) == [["r", "b"]]
    assert "value_unread" not in _fast_options(k.value, fast, ())
    todo = {("t", 0): (0, 2)}
    msgs = [msg("t", 0, 0, b'{"n": 1, "r": {"a": 2, "b": "x"}}'), msg("t", 0, 1, b'{"n": 3, "r": null}')]
    (batch,) = _batches(msgs, ["__value", FAST], todo, _decoder(options))
    assert [(v["n"], v["r"]) for v in batch.column(1).to_pylist()] == [(1, {"a": 2}), (3, None)]


def test_a_covered_batch_drops_the_rows_the_job_does_not_use():
    """ScanContext.filter (on the table's columns) becomes the reader's ``value_filter``
    (on the value's JSON names; its parts on other columns left out), and a batch decoded
    and checked in full (``covers``) keeps only the rows it is TRUE for (not FALSE, not
    NULL). A batch Spark must still read (a time it could fail on) keeps every row: the
    job fails on it as Flink's would, whatever the filters."""
    import json

    from connectors.base import Options
    from connectors.kafka import options as KO
    from connectors.kafka.factory import _fast_fields, _fast_options
    from connectors.kafka.reader import FAST, _decoder
    from sqlengine import types as T
    columns = [("kind", T.INT()), ("r", T.ROW([("a", T.BIGINT()), ("b", T.STRING())])), ("t", T.TIMESTAMP(3))]
    k = KO.parse(Options("kafka", {"topic": "t", "properties.bootstrap.servers": "localhost:9092",
                                   "format": "json"}), columns)
    fast = _fast_fields(k, {})
    used = ["and", ["cmp", "=", ["kind"], 0], ["cmp", ">", ["r", "a"], 1], ["cmp", "=", ["off"], 3]]
    options = _fast_options(k.value, fast, (), used)
    assert json.loads(options["value_filter"]) == ["and", ["cmp", "=", ["kind"], 0], ["cmp", ">", ["r", "a"], 1]]
    assert "value_filter" not in _fast_options(k.value, fast, (), ["cmp", "=", ["off"], 3])
    values = [b'{"kind": 0, "r": {"a": 1, "b": "x"}, "t": "2024-01-01 10:00:00"}',
              b'{"kind": 0, "r": {"a": 2, "b": "y"}, "t": "2024-01-01 10:00:01"}',
              b'{"kind": 2, "r": {"a": 9, "b": "z"}, "t": "2024-01-01 10:00:02"}',
              b'{"kind": 0, "r": null, "t": "2024-01-01 10:00:03"}',
              b'{"kind": null, "r": {"a": 5, "b": "w"}, "t": "2024-01-01 10:00:04"}']
    todo = {("t", 0): (0, 10)}
    (batch,) = _batches([msg("t", 0, i, v) for i, v in enumerate(values)], ["__value", FAST, "__offset"], todo,
                        _decoder(options))
    assert batch.column(2).to_pylist() == [1]
    assert batch.column(1).to_pylist()[0]["r"] == {"a": 2, "b": "y"}
    # nothing dropped without the option
    (whole,) = _batches([msg("t", 0, i, v) for i, v in enumerate(values)], ["__value", FAST, "__offset"], todo,
                        _decoder(_fast_options(k.value, fast, ())))
    assert whole.column(2).to_pylist() == [0, 1, 2, 3, 4]
    # a month 13 in a row the filter would drop: Spark must read the batch, so all of it is sent
    bad = values + [b'{"kind": 2, "r": {"a": 9, "b": "z"}, "t": "2024-13-01 10:00:02"}']
    (kept,) = _batches([msg("t", 0, i, v) for i, v in enumerate(bad)], ["__value", FAST, "__offset"], todo,
                       _decoder(options))
    assert kept.column(2).to_pylist() == [0, 1, 2, 3, 4, 5] and kept.column(1).null_count == 6


def test_each_splits_latest_row_is_kept_for_its_watermark():
    """With ``tops`` (a computed rowtime's CASE), a covered batch keeps beside the rows the
    condition passes, per split (``__split``), the one with the largest event time."""
    from connectors.base import Options
    from connectors.kafka import options as KO
    from connectors.kafka.factory import _fast_fields, _fast_options
    from connectors.kafka.reader import FAST, _decoder
    from sqlengine import types as T
    columns = [("kind", T.INT()), ("p", T.ROW([("t", T.TIMESTAMP(3))])), ("b", T.ROW([("t", T.TIMESTAMP(3))]))]
    k = KO.parse(Options("kafka", {"topic": "t", "properties.bootstrap.servers": "localhost:9092",
                                   "format": "json"}), columns)
    rowtime = ["case", ["cmp", "=", ["kind"], 0], ["path", ["p", "t"]], ["path", ["b", "t"]]]
    options = _fast_options(k.value, _fast_fields(k, {}), (), ["cmp", "=", ["kind"], 0], [rowtime])
    assert "value_tops" in options
    # a top on a column the value does not hold: no row may be dropped at all
    assert "value_filter" not in _fast_options(k.value, _fast_fields(k, {}), (), ["cmp", "=", ["kind"], 0],
                                               [["path", ["off"]]])

    def person(s: int) -> bytes:
        return b'{"kind": 0, "p": {"t": "2024-01-01 10:00:%02d"}}' % s

    def bid(s: int) -> bytes:
        return b'{"kind": 2, "b": {"t": "2024-01-01 10:00:%02d"}}' % s
    msgs = [msg("t", 0, 0, person(5)), msg("t", 0, 1, bid(7)), msg("t", 0, 2, bid(9)), msg("t", 0, 3, bid(8)),
            msg("t", 1, 0, bid(3)), msg("t", 1, 1, person(4)), msg("t", 1, 2, bid(2)),
            msg("t", 2, 0, bid(1)), msg("t", 2, 1, bid(6))]
    todo = {("t", p): (0, 10) for p in range(3)}
    (batch,) = _batches(msgs, ["__value", FAST, "__partition", "__offset", "__split"], todo, _decoder(options),
                        {("t", 0): 0, ("t", 1): 1, ("t", 2): 2})
    kept = list(zip(batch.column(2).to_pylist(), batch.column(3).to_pylist()))
    # partition 0: the person and the bid at :09; 1: the person (its latest); 2: the bid at :06
    assert kept == [(0, 0), (0, 2), (1, 1), (2, 1)]


def test_a_sample_spreads_over_each_partitions_part_of_the_span():
    """8 places of 500 offsets, evenly spread, where a partition's part is long; its whole
    part where it is short; a partition the span does not advance, not at all."""
    from connectors.kafka.reader import sample_pieces
    places = sample_pieces({"t:0": 1000, "t:1": 0, "t:2": 7}, {"t:0": 9000, "t:1": 300, "t:2": 7})
    assert len(places) == 8
    assert places[0] == [("t", 0, 1000, 1500), ("t", 1, 0, 300)]
    assert [pl for pl in places[1:]] == [[("t", 0, 1000 + 1000 * i, 1500 + 1000 * i)] for i in range(1, 8)]


def test_an_epoch_is_sized_by_the_share_the_sample_keeps(monkeypatch):
    """rows / share, never below the rows' cap nor above the records' cap; no sample (and the
    rows' cap) where the backlog fits anyway or the sample fails."""
    from connectors.kafka import reader
    shares = iter([0.01, 0.5, 1.0, None])
    monkeypatch.setattr(reader, "kept_share", lambda *a: next(shares))
    pos, end = {"t:0": 0, "t:1": 0}, {"t:0": 50_000, "t:1": 50_000}
    assert reader.admit({}, [], pos, end, 1000, 8000) == (8000, 0.01)
    assert reader.admit({}, [], pos, end, 1000, 8000) == (2000, 0.5)
    assert reader.admit({}, [], pos, end, 1000, 8000) == (1000, 1.0)
    assert reader.admit({}, [], pos, end, 1000, 8000) == (1000, None)
    assert reader.admit({}, [], pos, {"t:0": 600, "t:1": 400}, 1000, 8000) == (1000, None)  # fits: no sample

    def broken(*a):
        raise reader.KafkaReadError("Timed out")
    monkeypatch.setattr(reader, "kept_share", broken)
    assert reader.admit({}, [], pos, end, 1000, 8000) == (1000, None)


def test_after_a_sample_that_kept_most_records_the_next_epochs_take_the_rows_cap(monkeypatch):
    """A high share would barely grow an epoch: 16 epochs go without a sample (a fall of the
    share then waits for the next one: epochs stay at the rows' cap, never above); a low one
    is sampled again every epoch."""
    import json
    from connectors.kafka import reader
    calls = []

    def admit(options, fields, pos, end, rows, max_records):
        calls.append(rows)
        return int(rows / share), share
    monkeypatch.setattr(reader, "admit", admit)
    opts = {"bounded": json.dumps({"mode": "unbounded"}), "max_rows": "1000", "max_records": "8000",
            "value_filter": json.dumps(["=", ["kind"], 0])}
    r = reader.KafkaStreamReader(opts, [])
    share = 0.9
    assert [r._admit({}, {}, 1000) for _ in range(18)] == [1111] + [1000] * 16 + [1111]
    assert len(calls) == 2
    share = 0.1
    assert [r._admit({}, {}, 1000) for _ in range(19)] == [1000] * 16 + [10000] * 3
    assert len(calls) == 5
    assert reader.KafkaStreamReader({**opts, "value_filter": ""}, []).max_records == 0  # drops nothing: no sample


def test_a_sample_reads_small_fetches_without_the_compiled_loops(monkeypatch):
    """The sample runs in the process that plans the epochs (for the job's life): its
    consumer takes librdkafka's small-fetch settings over the readers' and reads through
    confluent-kafka's path, never loading the LLVM-compiled loops (the process held 272 MB
    after a sample with the readers' settings and loops, 155 MB with these)."""
    import json
    from connectors.kafka import native, reader
    seen = {}

    class Stop(Exception):
        pass

    class Consumer:
        def __init__(self, conf):
            seen["conf"] = conf
            raise Stop

    monkeypatch.setattr(reader, "_Confluent", Consumer)
    monkeypatch.setattr(native, "Consumer", lambda conf: pytest.fail("the sample used the native reader"))
    opts = {"client_secret_config": json.dumps({"bootstrap.servers": "b:9092"}), "fields": "__value"}
    with pytest.raises(Stop):
        reader.kept_share(opts, ["__value"], {"t:0": 0}, {"t:0": 10_000})
    conf = seen["conf"]
    assert conf["max.partition.fetch.bytes"] == "262144" and conf["queued.max.messages.kbytes"] == "256"
    assert conf["fetch.queue.backoff.ms"] == reader.FETCH["fetch.queue.backoff.ms"]  # the rest as a reader's
    assert conf["bootstrap.servers"] == "b:9092"
