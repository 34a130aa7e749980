"""Changelog sources: ``debezium-json`` (files and Kafka) and ``upsert-kafka`` read as
updating streams (Flink's ChangelogNormalize for the upsert one), into GROUP BY, joins
and sinks; the plan Flink prints; batch mode and malformed events as errors."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from sqlengine.errors import SqlEngineError
from sqlengine.api.session import Session
from tests.connectors.kafka.kafka_util import new_topic, produce, upsert_table
from tests.runtime.changelog_util import materialize


@pytest.fixture
def session(spark, tmp_path):
    return Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "parallelism.default": "2"}, spark=spark)


def event(op: str, before=None, after=None, envelope: bool = False) -> str:
    e = {"before": before, "after": after, "op": op, "ts_ms": 1}
    return json.dumps({"schema": {"type": "struct"}, "payload": e} if envelope else e)


EVENTS = [
    event("r", after={"id": 1, "name": "ann", "score": 10}),
    event("c", after={"id": 2, "name": "bob", "score": 20}),
    event("c", after={"id": 3, "name": "ann", "score": 5}),
    event("u", before={"id": 1, "name": "ann", "score": 10}, after={"id": 1, "name": "ann", "score": 12}),
    event("u", before={"id": 2, "name": "bob", "score": 20}, after={"id": 2, "name": "cat", "score": 20}),
    event("d", before={"id": 3, "name": "ann", "score": 5}),
]


def debezium_files(tmp_path, lines, envelope: bool = False):
    d = tmp_path / "cdc"
    d.mkdir()
    (d / "part-0.json").write_text("\n".join(lines) + "\n")
    return d


def test_debezium_json_files_into_group_by(session, tmp_path):
    path = debezium_files(tmp_path, EVENTS)
    session.execute_sql(f"CREATE TABLE users (id INT, name STRING, score INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'debezium-json')")
    plan = session.execute_sql("EXPLAIN CHANGELOG_MODE SELECT name, SUM(score) FROM users GROUP BY name").render()
    assert "TableSourceScan(table=[[default_catalog, default_database, users]], fields=[id, name, score]), " \
           "changelogMode=[I,UB,UA,D]" in plan
    rows = session.execute_sql("SELECT * FROM users").collect()
    assert rows == [["+I", 1, "ann", 10], ["+I", 2, "bob", 20], ["+I", 3, "ann", 5],
                    ["-U", 1, "ann", 10], ["+U", 1, "ann", 12], ["-U", 2, "bob", 20], ["+U", 2, "cat", 20],
                    ["-D", 3, "ann", 5]]
    totals = session.execute_sql("SELECT name, SUM(score), COUNT(*) FROM users GROUP BY name").collect()
    assert materialize(totals) == Counter({("ann", 12, 1): 1, ("cat", 20, 1): 1})


def test_debezium_schema_include_and_bad_events(session, tmp_path):
    path = debezium_files(tmp_path, [event("c", after={"id": 1, "name": "a", "score": 1}, envelope=True),
                                     event("d", before={"id": 1, "name": "a", "score": 1}, envelope=True)])
    session.execute_sql(f"CREATE TABLE env (id INT, name STRING, score INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'debezium-json', 'debezium-json.schema-include' = 'true')")
    assert session.execute_sql("SELECT id, name FROM env").collect() == [["+I", 1, "a"], ["-D", 1, "a"]]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.json").write_text(event("c", after={"id": 1, "name": "a", "score": 1}) + "\n"
                                + event("u", after={"id": 1, "name": "b", "score": 1}) + "\n")
    session.execute_sql(f"CREATE TABLE bad (id INT, name STRING, score INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{bad}', 'format' = 'debezium-json')")
    with pytest.raises(SqlEngineError, match='The "before" field of UPDATE message is null.*REPLICA IDENTITY'):
        session.execute_sql("SELECT * FROM bad").collect()
    session.execute_sql(f"CREATE TABLE lenient (id INT, name STRING, score INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{bad}', 'format' = 'debezium-json', 'debezium-json.ignore-parse-errors' = 'true')")
    assert session.execute_sql("SELECT id, name FROM lenient").collect() == [["+I", 1, "a"]]


def test_changelog_source_in_batch_mode_and_into_an_append_sink(session, tmp_path):
    path = debezium_files(tmp_path, EVENTS)
    session.execute_sql(f"CREATE TABLE users (id INT, name STRING, score INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'debezium-json')")
    session.execute_sql(f"CREATE TABLE out_csv (id INT, name STRING, score INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp_path / 'out'}', 'format' = 'csv')")
    with pytest.raises(SqlEngineError, match="Table sink 'default_catalog.default_database.out_csv' doesn't support "
                                             "consuming update and delete changes|doesn't support consuming update"):
        session.execute_sql("INSERT INTO out_csv SELECT * FROM users").wait()
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    with pytest.raises(SqlEngineError, match="Querying a table in batch mode is currently only possible for "
                                             "INSERT-only table sources. But the source for table "
                                             "'default_catalog.default_database.users' produces other changelog"):
        session.execute_sql("SELECT * FROM users").collect()


def upsert_ddl(name: str, topic: str, bootstrap: str, extra: str = "") -> str:
    return (f"CREATE TABLE {name} (id STRING, name STRING, score INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            f"'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
            f"'key.format' = 'json', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY', "
            f"'scan.bounded.mode' = 'latest-offset'{extra})")


def upserts(topic_parts: int):
    """Upserts and deletes of 6 keys over several records each; returns (records, final)."""
    records, final = [], {}
    for i in range(60):
        k = f"k{i % 6}"
        p = i % 6 % topic_parts
        if i % 7 == 3:
            records.append({"key": json.dumps({"id": k}), "value": None, "partition": p})
            final.pop(k, None)
        else:
            v = {"name": f"n{i % 4}", "score": i}
            records.append({"key": json.dumps({"id": k}), "value": v, "partition": p})
            final[k] = v
    return records, final


def test_upsert_kafka_tombstone_deletes_its_key_when_the_value_holds_the_key_too(session, kafka_bootstrap):
    """value.fields-include ALL (the default): a key column is read from the value, and a
    tombstone has no value; its delete takes the key from the record's key, as Flink's.
    Epochs of 30 records: deletes netted in an epoch and against state."""
    topic = new_topic(kafka_bootstrap, 2)
    records, final = upserts(2)
    for r in records:
        if r["value"] is not None:
            r["value"] = {"id": json.loads(r["key"])["id"], **r["value"]}
    produce(kafka_bootstrap, topic, records)
    want = Counter({(k, v["name"], v["score"]): 1 for k, v in final.items()})
    assert len(want) < 6  # some key's last record is a tombstone
    session.execute_sql("SET 'sqlengine.kafka.max-rows-per-epoch' = '30'")
    session.execute_sql(f"CREATE TABLE people_all (id STRING, name STRING, score INT, "
                        f"PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', "
                        f"'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset')")
    rows = session.execute_sql("SELECT * FROM people_all").collect()
    session.execute_sql("RESET 'sqlengine.kafka.max-rows-per-epoch'")
    assert materialize(rows) == want
    assert any(r[0] == "-D" and r[1] is not None for r in rows)  # a delete of a key already emitted


def test_upsert_kafka_source_normalized(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 2)
    records, final = upserts(2)
    produce(kafka_bootstrap, topic, records)
    session.execute_sql(upsert_ddl("people", topic, kafka_bootstrap))
    plan = session.execute_sql("EXPLAIN CHANGELOG_MODE SELECT * FROM people").render()
    assert "ChangelogNormalize(key=[id]), changelogMode=[I,UB,UA,D]" in plan
    assert "fields=[id, name, score]), changelogMode=[I,UA,D]" in plan  # the source: upserts, no update-before
    # small epochs: a key's changes spread over several epochs and normalized against state
    session.execute_sql("SET 'sqlengine.kafka.max-rows-per-epoch' = '30'")
    rows = session.execute_sql("SELECT * FROM people").collect()
    assert materialize(rows) == Counter({(k, v["name"], v["score"]): 1 for k, v in final.items()})
    assert {r[0] for r in rows} <= {"+I", "-U", "+U", "-D"} and any(r[0] == "-D" for r in rows)
    # an aggregate over the normalized stream, into upsert-kafka: the final table
    out = new_topic(kafka_bootstrap, 1)
    session.execute_sql(f"CREATE TABLE per_name (name STRING, n BIGINT, total INT, PRIMARY KEY (name) NOT ENFORCED) "
                        f"WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', "
                        f"'value.format' = 'json')")
    session.execute_sql("INSERT INTO per_name SELECT name, COUNT(*), SUM(score) FROM people GROUP BY name").wait()
    table = upsert_table(kafka_bootstrap, out, "name")
    expected = {}
    for v in final.values():
        e = expected.setdefault(v["name"], {"name": v["name"], "n": 0, "total": 0})  # ALL: the key in the value too
        e["n"] += 1
        e["total"] += v["score"]
    assert table == expected


def test_debezium_json_from_kafka_joined(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 1)
    produce(kafka_bootstrap, topic, [{"value": e} for e in EVENTS] + [{"value": None}])  # a tombstone
    session.execute_sql(f"CREATE TABLE users (id INT, name STRING, score INT) WITH ('connector' = 'kafka', "
                        f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        f"'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                        f"'format' = 'debezium-json')")
    session.execute_sql("CREATE TEMPORARY VIEW names AS SELECT * FROM (VALUES ('ann', 'A'), ('cat', 'C')) "
                        "AS t(name, `initial`)")
    rows = session.execute_sql("SELECT u.id, n.`initial`, u.score FROM users u JOIN names n ON u.name = n.name").collect()
    assert materialize(rows) == Counter({(1, "A", 12): 1, (2, "C", 20): 1})


def test_cdc_events_duplicate_normalizes_by_primary_key(session, tmp_path):
    """At-least-once CDC delivers some events twice; with the option the planner
    normalizes on the primary key (a ChangelogNormalize), so the duplicates change nothing."""
    path = debezium_files(tmp_path, EVENTS[:4] + EVENTS[:4] + EVENTS[4:])
    session.execute_sql(f"CREATE TABLE users (id INT, name STRING, score INT, PRIMARY KEY (id) NOT ENFORCED) WITH "
                        f"('connector' = 'filesystem', 'path' = '{path}', 'format' = 'debezium-json')")
    session.execute_sql(f"CREATE TABLE nokey (id INT, name STRING, score INT) WITH "
                        f"('connector' = 'filesystem', 'path' = '{path}', 'format' = 'debezium-json')")
    query = "SELECT name, SUM(score), COUNT(*) FROM users GROUP BY name"
    with pytest.raises(AssertionError):  # duplicates counted twice without the option
        assert materialize(session.execute_sql(query).collect()) == Counter({("ann", 12, 1): 1, ("cat", 20, 1): 1})
    session.execute_sql("SET 'table.exec.source.cdc-events-duplicate' = 'true'")
    assert "ChangelogNormalize(key=[id])" in session.execute_sql(f"EXPLAIN {query}").render()
    assert materialize(session.execute_sql(query).collect()) == Counter({("ann", 12, 1): 1, ("cat", 20, 1): 1})
    with pytest.raises(SqlEngineError, match="requires the changelog sources to define a PRIMARY KEY. However, "
                                             "table 'default_catalog.default_database.nokey' doesn't have"):
        session.execute_sql("SELECT * FROM nokey").collect()


def test_normalize_state_ttl_forgets_idle_keys(session, tmp_path):
    """``table.exec.state.ttl`` of 1 ms: ChangelogNormalize keeps a key only for the epoch
    that wrote it, so the next epoch's update of it is an insert and its delete nothing."""
    path = debezium_files(tmp_path, [EVENTS[0], EVENTS[1], EVENTS[3],
                                     event("d", before={"id": 2, "name": "bob", "score": 20})])
    session.execute_sql(f"CREATE TABLE users (id INT, name STRING, score INT, PRIMARY KEY (id) NOT ENFORCED) WITH "
                        f"('connector' = 'filesystem', 'path' = '{path}', 'format' = 'debezium-json')")
    session.execute_sql("SET 'table.exec.source.cdc-events-duplicate' = 'true'")
    session.execute_sql("SET 'sqlengine.filesystem.max-lines-per-batch' = '2'")
    assert sorted(session.execute_sql("SELECT * FROM users").collect()) == sorted([
        ["+I", 1, "ann", 10], ["+I", 2, "bob", 20], ["-U", 1, "ann", 10], ["+U", 1, "ann", 12], ["-D", 2, "bob", 20]])
    session.execute_sql("SET 'table.exec.state.ttl' = '1 ms'")
    assert sorted(session.execute_sql("SELECT * FROM users").collect()) == sorted([
        ["+I", 1, "ann", 10], ["+I", 2, "bob", 20], ["+I", 1, "ann", 12]])
