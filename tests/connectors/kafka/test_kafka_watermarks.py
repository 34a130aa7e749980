"""Per-partition watermarks of the kafka source (Flink's): a partition that lags behind
holds the watermark back, so its rows are not late; the plan and the final result equal
Flink's."""
from __future__ import annotations

import pytest

from sqlengine.api.session import Session
from tests.connectors.kafka.kafka_util import new_topic, produce


@pytest.fixture
def session(spark, tmp_path):
    return Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "parallelism.default": "2"}, spark=spark)


def lagging(n: int = 60):
    """Partition 0: one event a second from 10:00:00; partition 1 the same a minute earlier."""
    for i in range(n):
        for p, minute in ((0, "10:00"), (1, "09:59")):
            yield {"value": {"id": i, "p": p, "ts": f"2024-01-01 {minute}:{i:02d}"}, "partition": p}


def test_lagging_partition_holds_the_watermark_back(session, kafka_bootstrap):
    topic = new_topic(kafka_bootstrap, 2)
    produce(kafka_bootstrap, topic, lagging())
    session.execute_sql(f"CREATE TABLE ev (id INT, p INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' "
                        f"SECOND) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        f"'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                        f"'format' = 'json')")
    # small epochs: the partitions advance side by side, 20 records each per epoch
    session.execute_sql("SET 'sqlengine.kafka.max-rows-per-epoch' = '40'")
    rows = session.execute_sql("SELECT window_start, p, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
                               "INTERVAL '10' SECOND)) GROUP BY window_start, window_end, p").collect()
    counts = {(str(r[1])[11:19], r[2]): r[3] for r in rows}
    # one watermark for both partitions (the largest event time) would make partition 1's
    # rows after the first epoch late, and drop them
    assert counts == {**{(f"10:00:{s:02d}", 0): 10 for s in range(0, 60, 10)},
                      **{(f"09:59:{s:02d}", 1): 10 for s in range(0, 60, 10)}}
