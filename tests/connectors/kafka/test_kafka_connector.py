"""The kafka and upsert-kafka connectors against a real broker: reading exact offset
ranges (startup and bounded modes, metadata, key fields, bad records), writing with each
delivery guarantee, exactly-once replays, and an updating query into upsert-kafka."""
from __future__ import annotations

import json
import time

import pytest

from sqlengine.errors import SqlEngineError
from sqlengine.api.session import Session
from tests.connectors.kafka.kafka_util import new_topic, produce, read_all, upsert_table, values


@pytest.fixture
def session(spark, tmp_path):
    return Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "parallelism.default": "2"}, spark=spark)


def bids(n: int, partitions: int):
    for i in range(n):
        yield {"value": {"id": i, "item": f"i{i % 5}", "price": i % 50,
                         "ts": f"2024-01-01 10:{i // 60 % 60:02d}:{i % 60:02d}"},
               "key": str(i % 5), "partition": i % partitions, "timestamp": 1_700_000_000_000 + i,
               "headers": [("h", str(i).encode())]}


def source_ddl(name: str, topic: str, bootstrap: str, extra: str = "", columns: str = "") -> str:
    cols = columns or "id BIGINT, item STRING, price INT, ts TIMESTAMP(3)"
    return (f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
            f"'properties.bootstrap.servers' = '{bootstrap}', 'scan.startup.mode' = 'earliest-offset', "
            f"'scan.bounded.mode' = 'latest-offset', 'format' = 'json'{extra})")


def test_bounded_read_with_metadata_and_key_fields(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 3)
    produce(kafka_bootstrap, topic, bids(300, 3))
    session.execute_sql(source_ddl("src", topic, kafka_bootstrap, ", 'key.format' = 'raw', 'key.fields' = 'k'",
                                   "k STRING, id BIGINT, item STRING, price INT, ts TIMESTAMP(3), "
                                   "`partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL, "
                                   "rt TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
                                   "hs MAP<STRING, BYTES> METADATA FROM 'headers', t STRING METADATA FROM 'topic'"))
    rows = session.execute_sql("SELECT k, id, `partition`, `offset`, rt, hs['h'], t FROM src").collect()
    assert len(rows) == 300
    by_id = {r[2]: r for r in rows}
    r = by_id[7]
    # value.fields-include ALL: k is a value field too, and the value's (absent: NULL) wins, as in Flink
    assert r[1] is None
    assert r[3] == 7 % 3 and r[4] == 7 // 3 and r[6] == b"7" and r[7] == topic
    assert int(r[5].timestamp() * 1000) == 1_700_000_000_007
    session.execute_sql(source_ddl("keyed", topic, kafka_bootstrap,
                                   ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'",
                                   "k STRING, id BIGINT"))
    assert {r[2]: r[1] for r in session.execute_sql("SELECT * FROM keyed").collect()} == \
        {i: str(i % 5) for i in range(300)}
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    counts = session.execute_sql("SELECT `partition`, COUNT(*), MIN(`offset`), MAX(`offset`) FROM src "
                                 "GROUP BY `partition`").collect()
    assert sorted(counts) == [[0, 100, 0, 99], [1, 100, 0, 99], [2, 100, 0, 99]]


def _stream_reader(bootstrap: str, topic: str, startup: str = "earliest-offset", group: str = "", native: str = "true",
                   bounded: str = "latest-offset", **more: str):
    from connectors.kafka.reader import KafkaStreamReader
    client = {"bootstrap.servers": bootstrap, **({"group.id": group} if group else {})}
    options = {"client_secret_config": json.dumps(client), "topics": json.dumps([topic]), "pattern": "",
               "startup": json.dumps({"mode": startup}), "bounded": json.dumps({"mode": bounded}),
               "fields": "__value,__offset", "source_id": f"test#{topic}", "num_partitions": "2",
               "timeout_s": "30", "native": native, **more}
    return KafkaStreamReader(options, ["__value", "__offset"])


@pytest.mark.parametrize("pace_ms", [10 ** 12, 0])
def test_a_backlog_is_admitted_at_once_and_new_records_once_per_interval(kafka_bootstrap, pace_ms):
    """connectors/pace.py: with a checkpoint interval (here one slot of 31 years), the
    reader admits a capped backlog epoch after epoch, then nothing new until the next
    slot; without one (0), whatever has arrived."""
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, ({"value": str(i), "partition": i % 2} for i in range(20)))
    reader = _stream_reader(kafka_bootstrap, topic, bounded="unbounded", max_rows="8", pace_ms=str(pace_ms))
    try:
        limit = reader.getDefaultReadLimit()
        ends = [reader.initialOffset()]
        for _ in range(3):
            ends.append(reader.latestOffset(ends[-1], limit))
        assert [sum(e["pos"].values()) for e in ends] == [0, 8, 16, 20]
        produce(kafka_bootstrap, topic, ({"value": "late", "partition": p} for p in (0, 1)))
        later = reader.latestOffset(ends[-1], limit)
        assert sum(later["pos"].values()) == (20 if pace_ms else 22)
    finally:
        reader.stop()


def test_epochs_of_a_backlog_do_not_wait_for_the_checkpoint_interval(session, kafka_bootstrap, tmp_path):
    """Four capped epochs under a 1-minute interval: Spark's processing-time trigger would
    start them a minute apart; paced sources run them back to back (the job's trigger)."""
    topic, out = new_topic(kafka_bootstrap, 2), new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, bids(400, 2))
    session.execute_sql(source_ddl("bids", topic, kafka_bootstrap))
    session.execute_sql(f"CREATE TABLE copy (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '{out}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json')")
    session.execute_sql("SET 'sqlengine.kafka.max-rows-per-epoch' = '100'")
    session.execute_sql("SET 'execution.checkpointing.interval' = '1 min'")
    t = time.monotonic()
    session.execute_sql("INSERT INTO copy SELECT id FROM bids").wait(timeout_ms=120_000)
    assert time.monotonic() - t < 50
    assert sorted(json.loads(r[3])["id"] for r in read_all(kafka_bootstrap, out)) == list(range(400))
    epochs = list((tmp_path / "ck").rglob("offsets/[0-9]*"))
    assert len(epochs) >= 4


def test_a_reader_that_drops_rows_reads_more_records_an_epoch(session, kafka_bootstrap, tmp_path):
    """The rows' cap counts the rows that enter an epoch: where the reader drops rows (a filter
    pushed into it), it samples the records the epoch could take (8 places of 500 in each
    partition, read and filtered as the tasks will) and admits rows cap / kept share of them,
    at most 8 x the cap (``sqlengine.kafka.max-records-per-epoch``). 9,600 records of which
    every 32nd passes, a cap of 600 rows: 4,800 records (150 rows) an epoch, not 600."""
    topic, out = new_topic(kafka_bootstrap, 1), new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, ({"value": {"kind": 0 if i % 32 == 0 else 2, "id": i}} for i in range(9600)))
    session.execute_sql(source_ddl("ev", topic, kafka_bootstrap, columns="kind INT, id BIGINT"))
    session.execute_sql(f"CREATE TABLE ids (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '{out}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json')")
    session.execute_sql("SET 'sqlengine.source.max-rows-per-epoch' = '600'")
    session.execute_sql("INSERT INTO ids SELECT id FROM ev WHERE kind = 0").wait(timeout_ms=120_000)
    assert sorted(json.loads(r[3])["id"] for r in read_all(kafka_bootstrap, out)) == list(range(0, 9600, 32))
    ends = {int(f.name): sum(json.loads(f.read_text().splitlines()[2])["pos"].values())
            for f in (tmp_path / "ck").rglob("offsets/[0-9]*")}
    assert [ends[e] for e in sorted(ends)][:2] == [4800, 9600]


def _delete_records(bootstrap: str, topic: str, before: dict[int, int]) -> None:
    """Move the partitions' log start, as retention does (DeleteRecords: no waiting for it)."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.delete_records([TopicPartition(topic, p, o) for p, o in before.items()]).values():
        f.result()


@pytest.mark.parametrize("native", ["true", "false"])  # connectors/kafka/native.py, confluent-kafka's consumer
def test_records_deleted_after_the_epoch_was_planned_fail_the_read(kafka_bootstrap, native):
    """The flaky ``0 == 300`` of the bounded read above: its records (2023 timestamps) were
    deleted by the broker's time retention between planning epoch 0 ([0, 100) per
    partition) and reading it; the tasks' consumers reset to the new log start (100),
    met the partition end and returned nothing, and the SELECT ended without rows or
    error. Here that interleaving is made with DeleteRecords: the read must fail."""
    from connectors.kafka.reader import KafkaReadError
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, ({"value": str(i), "partition": i % 2} for i in range(20)))
    reader = _stream_reader(kafka_bootstrap, topic, native=native)
    try:
        start = reader.initialOffset()
        end = reader.latestOffset(start, reader.getDefaultReadLimit())
        assert start["pos"] == {f"{topic}:0": 0, f"{topic}:1": 0} and end["pos"] == {f"{topic}:0": 10, f"{topic}:1": 10}
        ranges = reader.partitions(start, end)[:-1]  # the last one is the end-of-input row
        _delete_records(kafka_bootstrap, topic, {0: 10, 1: 4})
        with pytest.raises(KafkaReadError, match=rf"Kafka partition {topic}-[01] no longer holds offset 0"):
            for part in ranges:
                list(reader.read(part))
    finally:
        reader.stop()


def test_a_committed_group_offset_below_the_log_start_reads_from_the_log_start(kafka_bootstrap):
    from confluent_kafka import Consumer, TopicPartition
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, ({"value": str(i)} for i in range(10)))
    group = f"g-{topic}"
    committer = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group})
    committer.commit(offsets=[TopicPartition(topic, 0, 2)], asynchronous=False)
    committer.close()
    _delete_records(kafka_bootstrap, topic, {0: 6})
    reader = _stream_reader(kafka_bootstrap, topic, "group-offsets", group)
    try:
        start = reader.initialOffset()
        end = reader.latestOffset(start, reader.getDefaultReadLimit())
        assert start["pos"] == {f"{topic}:0": 6}
        rows = [r for part in reader.partitions(start, end) for b in reader.read(part) for r in b.to_pylist()]
        assert [r["__offset"] for r in rows if not r["__eoi"]] == [6, 7, 8, 9]
    finally:
        reader.stop()


def test_key_fields_except_key(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, [{"key": json.dumps({"id": 1}), "value": {"name": "a"}},
                                     {"key": json.dumps({"id": 2}), "value": {"name": "b"}}])
    session.execute_sql(source_ddl("kv", topic, kafka_bootstrap,
                                   ", 'key.format' = 'json', 'key.fields' = 'k_id', 'key.fields-prefix' = 'k_', "
                                   "'value.fields-include' = 'EXCEPT_KEY'", "k_id INT, name STRING"))
    assert sorted(r[1:] for r in session.execute_sql("SELECT * FROM kv").collect()) == [[1, "a"], [2, "b"]]


@pytest.mark.parametrize("mode,extra,expected", [
    ("earliest-offset", "", list(range(10))),
    ("specific-offsets", ", 'scan.startup.specific-offsets' = 'partition:0,offset:6'", [6, 7, 8, 9]),
    ("timestamp", ", 'scan.startup.timestamp-millis' = '1700000000004'", [4, 5, 6, 7, 8, 9]),
])
def test_startup_modes(session, kafka_bootstrap, mode, extra, expected):
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, bids(10, 1))
    ddl = source_ddl("s", topic, kafka_bootstrap, extra).replace("'earliest-offset'", f"'{mode}'")
    session.execute_sql(ddl)
    assert sorted(r[1] for r in session.execute_sql("SELECT id FROM s").collect()) == expected


def test_bounded_specific_offsets_and_group_offsets(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, bids(20, 2))  # 10 per partition
    session.execute_sql(source_ddl("s", topic, kafka_bootstrap,
                                   ", 'scan.bounded.specific-offsets' = 'partition:0,offset:3;partition:1,offset:2'")
                        .replace("'scan.bounded.mode' = 'latest-offset'", "'scan.bounded.mode' = 'specific-offsets'"))
    assert sorted(r[1] for r in session.execute_sql("SELECT id FROM s").collect()) == [0, 1, 2, 3, 4]
    # Offsets of a consumer group are committed on each epoch; group-offsets resumes there.
    group = f"g-{topic}"
    session.execute_sql(source_ddl("g", topic, kafka_bootstrap, f", 'properties.group.id' = '{group}'")
                        .replace("'scan.bounded.specific-offsets'", "'x'"))
    assert len(session.execute_sql("SELECT id FROM g").collect()) == 20
    produce(kafka_bootstrap, topic, [{"value": {"id": 100 + i}, "partition": i % 2} for i in range(4)])
    session.execute_sql(source_ddl("g2", topic, kafka_bootstrap, f", 'properties.group.id' = '{group}'")
                        .replace("'earliest-offset'", "'group-offsets'"))
    assert sorted(r[1] for r in session.execute_sql("SELECT id FROM g2").collect()) == [100, 101, 102, 103]


def test_malformed_record_fails_naming_topic_partition_offset(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, [{"value": {"id": 1}, "partition": 0}, {"value": "{oops", "partition": 1},
                                     {"value": {"id": 2}, "partition": 1}])
    session.execute_sql(source_ddl("bad", topic, kafka_bootstrap))
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("SELECT id FROM bad").collect()
    msg = str(err.value)
    assert f"topic {topic} partition 1 offset 0" in msg and "{oops" in msg, msg
    session.execute_sql(source_ddl("lenient", topic, kafka_bootstrap, ", 'json.ignore-parse-errors' = 'true'"))
    assert sorted(r[1] for r in session.execute_sql("SELECT id FROM lenient").collect()) == [1, 2]
    session.execute_sql("CREATE TABLE sunk (id BIGINT) WITH ('connector' = 'blackhole')")
    res = session.execute_sql("INSERT INTO sunk SELECT id FROM lenient").wait()
    assert any("Skipped 1 malformed record(s)" in m for m in res.messages), res.messages


def test_a_time_that_does_not_convert_fails_naming_its_record(session, kafka_bootstrap):
    """The reader leaves out the bytes of a batch it decoded when no conversion of it can
    fail (json_arrow.Decoder.covers): a batch with a timestamp Spark cannot convert keeps
    them, so the error shows the record; the batches beside it lose no row."""
    topic = new_topic(kafka_bootstrap, 2)
    bad = '{"id": 2, "ts": "2023-13-45 10:00:00"}'
    produce(kafka_bootstrap, topic, [{"value": {"id": 1, "ts": "2023-01-01 10:00:00"}, "partition": 0},
                                     {"value": {"id": 3, "ts": "2023-02-30 10:00:00"}, "partition": 0},
                                     {"value": bad, "partition": 1}])
    session.execute_sql(source_ddl("badtime", topic, kafka_bootstrap))
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("SELECT id FROM badtime").collect()
    assert f"Failed to deserialize JSON '{bad}' at topic {topic} partition 1 offset 0" in str(err.value), \
        str(err.value)
    session.execute_sql(source_ddl("badtime_lenient", topic, kafka_bootstrap, ", 'json.ignore-parse-errors' = 'true'"))
    rows = session.execute_sql("SELECT id, ts FROM badtime_lenient").collect()
    assert sorted((r[1], str(r[2])) for r in rows) == [
        (1, "2023-01-01 10:00:00"), (2, "None"), (3, "2023-02-28 10:00:00")]


def test_bad_value_in_an_unselected_field_fails_as_in_flink(session, kafka_bootstrap):
    """Flink 2.3's Kafka source decodes every field of the table, whatever the query
    selects (no projection push-down into the format; benchmarks/README.md): a value
    that does not convert fails the job even when its column is not used, and with
    ignore-parse-errors it is NULL and the record is kept."""
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, [{"value": {"id": 1, "price": 5}}, {"value": {"id": 2, "price": "abc"}}])
    session.execute_sql(source_ddl("unused", topic, kafka_bootstrap))
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("SELECT id FROM unused").collect()
    assert "offset 1" in str(err.value) and "field: price" in str(err.value), str(err.value)
    session.execute_sql(source_ddl("unused_lenient", topic, kafka_bootstrap, ", 'json.ignore-parse-errors' = 'true'"))
    assert sorted(tuple(r)[1:] for r in session.execute_sql("SELECT id, price FROM unused_lenient").collect()) == [
        (1, 5), (2, None)]


def test_values_no_operator_reads_are_left_out_and_still_checked(session, kafka_bootstrap):
    """The reader sends NULL for the values no operator reads (plan/reads.py: here every
    bid member but its price, and the persons' extra), where Arrow has checked them; a bad
    time in an unread member still fails the job, as Flink's decoding of every field does."""
    topic = new_topic(kafka_bootstrap, 1)
    events = [{"value": {"kind": 0, "person": {"id": i, "extra": "x" * 50, "t": "2024-01-01 10:00:00"}}}
              for i in range(3)]
    events += [{"value": {"kind": 2, "bid": {"auction": i, "price": 10 * i, "t": f"2024-01-01 10:00:0{i}",
                                              "extra": "y" * 50}}} for i in range(5)]
    produce(kafka_bootstrap, topic, events)
    columns = ("kind INT, person ROW<id BIGINT, extra STRING, t TIMESTAMP(3)>, "
               "bid ROW<auction BIGINT, price BIGINT, t TIMESTAMP(3), extra STRING>")
    session.execute_sql(source_ddl("ev", topic, kafka_bootstrap, columns=columns))
    scan = session.execute_sql("SELECT kind, person.id, bid.price FROM ev WHERE kind IN (0, 2)")
    assert sorted(tuple(r) for r in scan.collect()) == sorted(
        [("+I", 0, i, None) for i in range(3)] + [("+I", 2, None, 10 * i) for i in range(5)])
    # An updating aggregation in streaming, and the same in batch: only bid.price and kind read.
    agg = "SELECT kind, COUNT(*), SUM(bid.price) FROM ev GROUP BY kind"
    final = {}
    for r in session.execute_sql(agg).collect():
        if r[0] in ("+I", "+U"):
            final[r[1]] = (r[2], r[3])
    assert final == {0: (3, None), 2: (5, 100)}
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    assert sorted(tuple(r) for r in session.execute_sql(agg).collect()) == [(0, 3, None), (2, 5, 100)]
    session.execute_sql("SET 'execution.runtime-mode' = 'streaming'")
    produce(kafka_bootstrap, topic, [{"value": {"kind": 2, "bid": {"auction": 9, "price": 1,
                                                                    "t": "2024-13-01 00:00:00"}}}])
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("SELECT kind, bid.price FROM ev").collect()
    assert "offset 8" in str(err.value), str(err.value)


def test_rows_no_operator_uses_are_dropped_where_they_are_read(session, kafka_bootstrap):
    """The filters above a scan reach the reader (plan/pushdown.py): a batch it decoded and
    checked in full sends Spark only the rows they keep, and the source's records out count
    those (as a Flink source that takes a filter counts its own). Every row is sent where a
    window reads the table's watermark (it is over every row) and where a key is decoded
    (in Spark, where it could fail)."""
    from sqlengine.api.jobs import job_metrics, job_vertices
    topic = new_topic(kafka_bootstrap, 1)
    events = [{"value": {"kind": 0, "person": {"id": i, "t": f"2024-01-01 10:00:0{i}"}}} for i in range(3)]
    events += [{"key": f"k{i}", "value": {"kind": 2, "bid": {"auction": i, "price": 10 * i,
                                                             "t": f"2024-01-01 10:00:{i:02d}"}}} for i in range(20)]
    produce(kafka_bootstrap, topic, events)
    columns = ("kind INT, person ROW<id BIGINT, t TIMESTAMP(3)>, bid ROW<auction BIGINT, price BIGINT, "
               "t TIMESTAMP(3)>, t AS CASE WHEN kind = 0 THEN person.t ELSE bid.t END, "
               "WATERMARK FOR t AS t - INTERVAL '1' SECOND")
    session.execute_sql(source_ddl("ev", topic, kafka_bootstrap, columns=columns))
    session.execute_sql(source_ddl("keyed", topic, kafka_bootstrap, columns="k STRING, " + columns,
                                   extra=", 'key.format' = 'raw', 'key.fields' = 'k', "
                                         "'value.fields-include' = 'EXCEPT_KEY'").replace("'format'", "'value.format'"))
    session.execute_sql("CREATE TABLE bh (a BIGINT, b BIGINT) WITH ('connector' = 'blackhole')")

    def source_records(insert: str) -> int:
        job = session.execute_sql(insert).wait().get_job_client().get_job_id()
        (source,) = [v for v in job_vertices(session, job) if v.source]
        return job_metrics(session, job).vertices[source.vertex_id].records_out

    assert sorted((tuple(r)[1:] for r in session.execute_sql(
        "SELECT person.id, bid.price FROM ev WHERE kind = 0 OR bid.price >= 170").collect()), key=str) == [
        (0, None), (1, None), (2, None), (None, 170), (None, 180), (None, 190)]
    # (the source also counts the end-of-input row a bounded scan ends with: ``eoi``)
    eoi = source_records("INSERT INTO bh SELECT person.id, 0 FROM ev") - 23
    assert source_records("INSERT INTO bh SELECT person.id, 0 FROM ev WHERE kind = 0 AND person.id > 0") == 2 + eoi
    assert source_records("INSERT INTO bh SELECT bid.auction, bid.price FROM ev WHERE bid.price BETWEEN 30 AND 50 "
                          "UNION ALL SELECT person.id, 0 FROM ev WHERE kind = 0") == 6 + eoi
    # a window reads the watermark: each batch's row with the largest time is kept too
    assert 3 + 1 + eoi <= source_records("INSERT INTO bh SELECT COUNT(*), 0 FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(t), "
                                         "INTERVAL '5' SECOND)) WHERE kind = 0 GROUP BY window_start, window_end") < 23
    assert source_records("INSERT INTO bh SELECT person.id, 0 FROM keyed WHERE kind = 0") == 23 + eoi


def test_a_watermark_is_over_the_rows_the_filters_drop(session, kafka_bootstrap):
    """The persons' windows fire on the bids' times, though the reader sends no bid but the
    latest of each batch: after the first epoch (23 records, up to a bid at 10:00:19) the
    watermark is 10:00:18, so the person at 10:00:01 in the second epoch is late and
    dropped. (Were the bids' times lost, the window would count it: 4.)"""
    topic = new_topic(kafka_bootstrap, 1)
    events = [{"value": {"kind": 0, "person": {"id": i, "t": f"2024-01-01 10:00:0{i}"}}} for i in range(3)]
    events += [{"value": {"kind": 2, "bid": {"auction": i, "price": 10 * i, "t": f"2024-01-01 10:00:{i:02d}"}}}
               for i in range(20)]
    events += [{"value": {"kind": 0, "person": {"id": 9, "t": "2024-01-01 10:00:01"}}}]
    produce(kafka_bootstrap, topic, events)
    columns = ("kind INT, person ROW<id BIGINT, t TIMESTAMP(3)>, bid ROW<auction BIGINT, price BIGINT, "
               "t TIMESTAMP(3)>, t AS CASE WHEN kind = 0 THEN person.t ELSE bid.t END, "
               "WATERMARK FOR t AS t - INTERVAL '1' SECOND")
    session.execute_sql(source_ddl("ev", topic, kafka_bootstrap, columns=columns))
    session.execute_sql("SET 'sqlengine.source.max-rows-per-epoch' = '23'")
    session.execute_sql("SET 'sqlengine.kafka.max-records-per-epoch' = '23'")  # (else one epoch: see below)
    got = [tuple(r) for r in session.execute_sql(
        "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(t), INTERVAL '5' SECOND)) "
        "WHERE kind = 0 GROUP BY window_start, window_end").collect()]
    assert [(r[0], str(r[1]), r[2]) for r in got] == [("+I", "2024-01-01 10:00:00", 3)]


def test_unbounded_table_in_batch_mode_is_an_error(spark, kafka_bootstrap, tmp_path):
    s = Session({"execution.runtime-mode": "batch"}, spark=spark)
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, bids(3, 1))
    s.execute_sql(source_ddl("u", topic, kafka_bootstrap).replace("'latest-offset'", "'unbounded'"))
    with pytest.raises(SqlEngineError, match="Querying an unbounded table .* in batch mode is not allowed"):
        s.execute_sql("SELECT * FROM u").collect()
    s.execute_sql(source_ddl("b", topic, kafka_bootstrap))
    assert sorted(r[-4] for r in s.execute_sql("SELECT * FROM b").collect()) == [0, 1, 2]


def test_unreachable_broker_is_a_clear_error_within_the_timeout(spark, tmp_path):
    s = Session({"sqlengine.kafka.timeout": "3 s", "execution.checkpointing.dir": str(tmp_path)}, spark=spark)
    s.execute_sql(source_ddl("nowhere", "t", "127.0.0.1:1"))
    t = time.monotonic()
    with pytest.raises(SqlEngineError, match=r"Could not reach the Kafka brokers 127\.0\.0\.1:1 within 3 s"):
        s.execute_sql("SELECT * FROM nowhere").collect()
    assert time.monotonic() - t < 30


def sink_ddl(name: str, topic: str, bootstrap: str, guarantee: str, columns: str = "item STRING, n BIGINT",
             extra: str = "") -> str:
    txn = ", 'sink.transactional-id-prefix' = 'tx-" + topic + "'" if guarantee == "exactly-once" else ""
    return (f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
            f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
            f"'sink.delivery-guarantee' = '{guarantee}'{txn}{extra})")


@pytest.mark.parametrize("guarantee", ["none", "at-least-once", "exactly-once"])
def test_window_aggregation_into_kafka(session, kafka_bootstrap, guarantee):
    src, out = new_topic(kafka_bootstrap, 2), new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, src, bids(600, 2))
    session.execute_sql(source_ddl("bids", src, kafka_bootstrap, columns="id BIGINT, item STRING, price INT, "
                                   "ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"))
    session.execute_sql(sink_ddl("agg", out, kafka_bootstrap, guarantee,
                                 "item STRING, n BIGINT, total BIGINT, w TIMESTAMP(3)"))
    session.execute_sql("INSERT INTO agg SELECT item, COUNT(*), SUM(price), window_start FROM TABLE("
                        "TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
                        "GROUP BY item, window_start, window_end").wait()
    got = sorted((v["w"], v["item"], v["n"], v["total"]) for v in values(kafka_bootstrap, out))
    want = {}
    for i in range(600):
        key = (f"2024-01-01 10:{i // 60 % 60:02d}:00", f"i{i % 5}")
        n, t = want.get(key, (0, 0))
        want[key] = (n + 1, t + i % 50)
    assert got == sorted((w, item, n, t) for (w, item), (n, t) in want.items())


def test_exactly_once_replay_of_an_epoch_is_a_no_op(spark, kafka_bootstrap):
    """Spark replays an epoch after a crash between the Kafka commits and its commit log:
    each writer task finds its epoch marker committed and writes nothing."""
    from connectors.base import Options, SinkContext, factory_for
    from sqlengine import types as T
    out = new_topic(kafka_bootstrap, 2)
    opts = {"connector": "kafka", "topic": out, "properties.bootstrap.servers": kafka_bootstrap, "format": "json",
            "sink.delivery-guarantee": "exactly-once", "sink.transactional-id-prefix": f"tx-{out}"}
    cols = [("id", T.BIGINT()), ("name", T.STRING())]
    ctx = SinkContext(spark, True, 2, "t", cols, Options("kafka", opts), False, sink_id="s1", writer_tasks=4)
    sink = factory_for("kafka", "t").sink(ctx)
    df = spark.createDataFrame([(i, f"n{i}") for i in range(50)], "id bigint, name string")
    sink.write_epoch(df, 0, "q1")
    sink.write_epoch(df, 0, "q1")  # the replay
    assert sorted(v["id"] for v in values(kafka_bootstrap, out)) == list(range(50))
    sink.write_epoch(df.where("id < 5"), 1, "q1")
    assert sorted(v["id"] for v in values(kafka_bootstrap, out)) == sorted(list(range(50)) + list(range(5)))
    # Another query (a fresh start, not a restore) numbers its epochs from 0 again.
    sink.write_epoch(df.where("id < 2"), 0, "q2")
    assert len(values(kafka_bootstrap, out)) == 57
    # Nothing aborted is left visible: every record read uncommitted is also committed.
    assert len([r for r in read_all(kafka_bootstrap, out, committed=False)]) == 57


def test_exactly_once_requires_a_transactional_id_prefix(session, kafka_bootstrap):
    session.execute_sql(sink_ddl("x", "t", kafka_bootstrap, "at-least-once")
                        .replace("'at-least-once'", "'exactly-once'"))
    with pytest.raises(SqlEngineError, match="sink.transactional-id-prefix must be specified"):
        session.execute_sql("INSERT INTO x VALUES ('a', 1)").wait()


def test_group_by_into_upsert_kafka(session, kafka_bootstrap):
    src, out = new_topic(kafka_bootstrap, 2), new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, src, bids(400, 2))
    session.execute_sql(source_ddl("bids", src, kafka_bootstrap))
    session.execute_sql(f"CREATE TABLE totals (item STRING, n BIGINT, total BIGINT, PRIMARY KEY (item) NOT ENFORCED) "
                        f"WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', "
                        f"'value.format' = 'json')")
    session.execute_sql("SET 'sqlengine.kafka.max-rows-per-epoch' = '100'")
    session.execute_sql("INSERT INTO totals SELECT item, COUNT(*), SUM(price) FROM bids GROUP BY item").wait()
    final = upsert_table(kafka_bootstrap, out, "item")
    # value.fields-include ALL (Flink's default for upsert-kafka too): the value holds the key column
    assert final == {f"i{j}": {"item": f"i{j}", "n": 80, "total": sum(i % 50 for i in range(400) if i % 5 == j)}
                     for j in range(5)}
    # more than one epoch wrote updates of the same key: the log holds the history
    assert len(read_all(kafka_bootstrap, out)) > 5


def test_secrets_do_not_print(session, kafka_bootstrap):
    session.execute_sql(source_ddl("sec", "t", kafka_bootstrap,
                                   ", 'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain."
                                   "PlainLoginModule required username=\"u\" password=\"hunter2\";'"))
    shown = session.execute_sql("SHOW CREATE TABLE sec").render()
    assert "hunter2" not in shown and "******" in shown
    explained = session.execute_sql("EXPLAIN SELECT * FROM sec").render()
    assert "hunter2" not in explained


def test_json_values_decoded_by_the_reader_read_as_spark_reads_them(session, kafka_bootstrap):
    """``sqlengine.kafka.arrow-json`` (on by default: the reader decodes plain JSON with
    Arrow, connectors/formats/json_arrow.py) changes no row: a topic of plain records,
    and one mixing plain records with Flink's lenient forms and unreadable ones, read both
    ways."""
    from tests.connectors.formats.test_json_arrow import TAKEN
    cols = ("ti TINYINT, si SMALLINT, i INT, b BIGINT, ok BOOLEAN, s STRING, v VARCHAR(5), ts TIMESTAMP(3), "
            "`day` DATE, tm TIME(0), `odd name` INT, r ROW<id BIGINT, name STRING, `at` TIMESTAMP(3), "
            "`inner` ROW<n INT>>")
    readable = TAKEN[:8] + TAKEN[9:]  # TAKEN[8]'s times are unreadable
    plain = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, plain, [{"value": line, "partition": i % 2} for i, line in enumerate(readable * 50)])
    mixed = new_topic(kafka_bootstrap, 2)
    lenient = [b'{"i": "12", "ok": "yes"}', b'{"b": 1.9}', b'{"s": 12}', b'not json', b'{"i": 1, "i": 2}',
               b'{"ts": "2023-02-29 10:00:00"}', b'{"ts": "2023-01-01T10:00:00"}',  # Feb 28th (SMART); NULL
               b'{"r": {"id": "5", "inner": {"n": "6"}}}']
    produce(kafka_bootstrap, mixed, [{"value": line, "partition": i % 2}
                                     for i, line in enumerate(readable + lenient + readable)])
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    out = {}
    for on in ("true", "false"):
        session.execute_sql(f"SET 'sqlengine.kafka.arrow-json' = '{on}'")
        for topic in (plain, mixed):
            name = f"j_{on}_{topic.split('-')[0]}"
            session.execute_sql(source_ddl(name, topic, kafka_bootstrap, ", 'json.ignore-parse-errors' = 'true'",
                                           cols))
            out[(on, topic)] = sorted(map(tuple, session.execute_sql(f"SELECT * FROM {name}").collect()), key=repr)
    session.execute_sql("RESET 'sqlengine.kafka.arrow-json'")
    assert len(out[("true", plain)]) == len(readable) * 50
    assert out[("true", plain)] == out[("false", plain)]
    assert out[("true", mixed)] == out[("false", mixed)], (out[("true", mixed)], out[("false", mixed)])
    assert len(out[("true", mixed)]) == 2 * len(readable) + len(lenient) - 1  # 'not json' skipped
    assert (5, (6,)) in {(r[11][0], tuple(r[11][3])) for r in out[("true", mixed)] if r[11] and r[11][3]}
    assert out[("true", mixed)] == out[("false", mixed)]
    assert (12, False) in {(r[2], r[4]) for r in out[("true", mixed)]}  # "yes" is FALSE, as in Flink
    assert {str(r[7]) for r in out[("true", mixed)] if r[:7] == (None,) * 7} >= {"2023-02-28 10:00:00", "None"}


def test_timestamps_the_reader_parses_read_as_spark_parses_them(session, kafka_bootstrap):
    """Where every temporal field is a TIMESTAMP in Flink's SQL form, the reader sends a
    batch's values as the table holds them, its TIMESTAMPs parsed (json_arrow ``finish``),
    and Spark converts nothing of such a batch: the same rows as Spark's own reading,
    streaming and batch, with times of every shape Flink reads (fractions of 1-9 digits,
    a day past the month's end, a leap day, nested in a ROW), and batches the reader
    leaves to Spark (a time only SMART resolving reads, a lenient number, a bad line)."""
    from connectors.formats.json_arrow import raw_free, wire_fields
    from sqlengine import types as T
    cols = ("i INT, s STRING, ts TIMESTAMP(3), r ROW<id BIGINT, `at` TIMESTAMP(6), `inner` ROW<n INT>>")
    times = ["2023-01-01 10:00:00", "2023-02-29 10:00:00.5", "2024-02-29 23:59:59.123456789", "2024-02-31 00:00:01.12",
             "1000-01-01 00:00:00", "9999-12-31 23:59:59.999999", "2023-04-31 12:00:00.000", "1970-01-01 00:00:00.000001"]
    plain = [json.dumps({"i": k, "s": f"v{k}", "ts": t, "r": {"id": k, "at": times[-1 - j], "inner": {"n": k}}}).encode()
             for k, (j, t) in enumerate([*enumerate(times)] * 3)] + [b'{"i": 99, "r": null}', b'{}']
    left = [b'{"ts": "2023-01-01 24:00:00"}', b'{"i": "12"}', b'not json', b'{"r": {"at": "2023-02-30 10:00"}}']
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, [{"value": line, "partition": i % 2} for i, line in enumerate(plain + left + plain)])
    # the reader sends this table's values typed: its only temporal fields are SQL-form TIMESTAMPs
    assert raw_free(wire_fields([("i", T.INT()), ("ts", T.TIMESTAMP(3)), ("r", T.ROW([("at", T.TIMESTAMP(6))]))]),
                    iso=False) == [["ts"], ["r", "at"]]
    out = {}
    for mode in ("batch", "streaming"):
        session.execute_sql(f"SET 'execution.runtime-mode' = '{mode}'")
        for on in ("true", "false"):
            session.execute_sql(f"SET 'sqlengine.kafka.arrow-json' = '{on}'")
            name = f"t_{on}_{mode}"
            session.execute_sql(source_ddl(name, topic, kafka_bootstrap, ", 'json.ignore-parse-errors' = 'true'", cols))
            for q in ("*", "i, r.`at`, r.`inner`.n", "i, r IS NULL"):  # the others leave s, ts (, r.id) unread
                rows = [tuple(r)[1:] if mode == "streaming" else tuple(r)  # (the row kind, +I)
                        for r in session.execute_sql(f"SELECT {q} FROM {name}").collect()]
                out[(mode, on, q)] = sorted(rows, key=repr)
    session.execute_sql("RESET 'sqlengine.kafka.arrow-json'")
    session.execute_sql("RESET 'execution.runtime-mode'")
    want = out[("batch", "false", "*")]
    assert len(want) == 2 * len(plain) + len(left) - 1  # 'not json' skipped
    for key, rows in out.items():
        assert rows == out[("batch", "false", key[2])], key

    def part(r):  # the second query's row, from the whole one
        inner = r[3][2] if r[3] is not None else None
        return r[0], r[3][1] if r[3] is not None else None, inner[0] if inner is not None else None
    assert sorted(map(part, want), key=repr) == out[("batch", "false", "i, r.`at`, r.`inner`.n")]
    assert sorted(((r[0], r[3] is None) for r in want), key=repr) == out[("batch", "false", "i, r IS NULL")]
    got = {(r[0], str(r[2]), str(r[3][1])) for r in want if r[0] is not None and r[0] < 3}
    assert got == {(0, "2023-01-01 10:00:00", "1970-01-01 00:00:00.000001"),
                   (1, "2023-02-28 10:00:00.500000", "2023-04-30 12:00:00"),
                   (2, "2024-02-29 23:59:59.123456", "9999-12-31 23:59:59.999999")}
    assert "2023-01-02 00:00:00" in {str(r[2]) for r in want}  # 24:00 (SMART, Spark's path) is the next day
    assert 12 in {r[0] for r in want}  # a lenient number, Spark's path

