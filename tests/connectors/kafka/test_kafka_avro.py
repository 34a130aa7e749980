"""The avro format through a real Kafka topic: rows written by sqlengine are the records Flink
2.3 writes for the same INSERT (golden bytes in tests/connectors/formats/test_avro_format.py),
Flink's records read back as the same rows, as key and as value, and a record that does not
decode fails the job naming its topic, partition and offset (the avro format has no
ignore-parse-errors, as in Flink)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from sqlengine.errors import SqlEngineError
from sqlengine.api.session import Session
from tests.connectors.formats.test_avro_format import ALL_DDL, FLINK_BINARY, FLINK_JSON, FLINK_VALUES
from tests.connectors.kafka.kafka_util import new_topic, produce, read_all


@pytest.fixture
def session(spark, tmp_path):
    return Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "parallelism.default": "2"}, spark=spark)


def ddl(name: str, topic: str, bootstrap: str, columns: str = ALL_DDL, extra: str = "") -> str:
    return (f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
            f"'properties.bootstrap.servers' = '{bootstrap}', 'scan.startup.mode' = 'earliest-offset', "
            f"'scan.bounded.mode' = 'latest-offset', 'format' = 'avro'{extra})")


def test_written_records_are_flinks_and_read_back(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap)
    session.execute_sql(ddl("t", topic, kafka_bootstrap))
    session.execute_sql("INSERT INTO t VALUES " + ", ".join(f"({v})" for v in FLINK_VALUES)).wait()
    assert sorted(v.hex() for _, _, _, v, _ in read_all(kafka_bootstrap, topic)) == sorted(FLINK_BINARY)
    rows = [r[1:] for r in session.execute_sql("SELECT i, s, dc, ts, m['Aa'], r.g.lat, nn FROM t").collect()]
    assert sorted(rows, key=lambda r: r[-1]) == [
        [None, None, None, None, None, None, -1],
        [-2147483648, "", Decimal("99999999.99"), dt.datetime(1969, 12, 31, 23, 59, 59, 999000), None, None, 0],
        [1, "héllo", Decimal("-123.45"), dt.datetime(2020, 4, 15, 8, 5, 0, 123000), 5, -36.6125, 42]]


def test_json_encoding_through_a_topic(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap)
    session.execute_sql(ddl("tj", topic, kafka_bootstrap, extra=", 'avro.encoding' = 'json'"))
    session.execute_sql("INSERT INTO tj VALUES " + ", ".join(f"({v})" for v in FLINK_VALUES)).wait()
    assert sorted(v.decode() for _, _, _, v, _ in read_all(kafka_bootstrap, topic)) == sorted(FLINK_JSON)
    assert sorted(r[-1] for r in session.execute_sql("SELECT nn FROM tj").collect()) == [-1, 0, 42]


def test_flinks_records_as_key_and_value(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap)
    # key.fields 'nn': the key is Flink's record {nn: int} (NOT NULL, so no union): the zig-zag varint.
    produce(kafka_bootstrap, topic, [{"key": bytes([2 * n if n >= 0 else -2 * n - 1]), "value": bytes.fromhex(v)}
                                     for n, v in zip((42, -1, 0), FLINK_BINARY)])
    session.execute_sql(ddl("kv", topic, kafka_bootstrap, "k INT NOT NULL, " + ALL_DDL,
                            ", 'key.format' = 'avro', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'"))
    rows = [r[1:] for r in session.execute_sql("SELECT k, nn, arr, bin FROM kv").collect()]
    assert sorted(rows) == [[-1, -1, None, None], [0, 0, [None], b""], [42, 42, [1, None, 3], b"\x00\xff\x10"]]
    out = new_topic(kafka_bootstrap)
    session.execute_sql(ddl("kv_out", out, kafka_bootstrap, "k INT NOT NULL, " + ALL_DDL,
                            ", 'key.format' = 'avro', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'"))
    session.execute_sql("INSERT INTO kv_out SELECT * FROM kv").wait()
    records = sorted((k.hex(), v.hex()) for _, _, k, v, _ in read_all(kafka_bootstrap, out))
    assert records == sorted((bytes([2 * n if n >= 0 else -2 * n - 1]).hex(), v)
                             for n, v in zip((42, -1, 0), FLINK_BINARY))


def test_undecodable_record_fails_naming_topic_partition_offset(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, [{"value": b"\x02\x02\x02\x06abc", "partition": 0},
                                     {"value": b"\x02\x02\x02\x40ab", "partition": 1}])
    session.execute_sql(ddl("bad", topic, kafka_bootstrap, "i INT, s STRING"))
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("SELECT i, s FROM bad").collect()
    msg = str(err.value)
    assert f"'020202406162' at topic {topic} partition 1 offset 0" in msg, msg
    assert "Failed to deserialize Avro record." in msg, msg
    session.execute_sql(ddl("lenient", topic, kafka_bootstrap, "i INT, s STRING", ", 'avro.ignore-parse-errors' = 'true'"))
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("SELECT i FROM lenient").collect()
    assert "avro.ignore-parse-errors" in str(err.value), str(err.value)
