"""Session keys that shape how a job runs: key groups, the state backend, datagen pacing,
the checkpoint interval."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from sqlengine.errors import ValidationError
from sqlengine.api.session import Session
from tests.e2e.conftest import BIDS_DDL, read_rows

BIDS = BIDS_DDL + """
CREATE TABLE `out` (window_start TIMESTAMP(3), item STRING, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = '{dst}', 'format' = 'json');
"""
WINDOWED = """INSERT INTO `out` SELECT window_start, item, COUNT(*)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, item"""


def _bids(spark, tmp: Path, conf: dict, dst: str = "out") -> Session:
    (tmp / "in.jsonl").write_text("".join(
        json.dumps({"bidtime": f"2024-01-01 10:0{i % 5}:00", "price": 1, "item": "AB"[i % 2]}) + "\n"
        for i in range(20)))
    s = Session({"execution.checkpointing.dir": str(tmp / "ck"), **conf}, spark=spark)
    s.execute_sql(BIDS.format(src=tmp / "in.jsonl", dst=tmp / dst))
    return s


def _explain_key_groups(session: Session) -> set[str]:
    text = session.execute_sql("EXPLAIN " + WINDOWED).text
    return {part.split(")")[0] for part in text.split("keyGroups=")[1:]}


@pytest.mark.parametrize("conf, groups", [
    ({}, "128"),  # Flink's default at small parallelism (parallelism.default 2)
    ({"parallelism.default": "3"}, "128"),
    ({"parallelism.default": "100"}, "256"),  # 1.5 x 100 rounded up to a power of two
    ({"parallelism.default": "3", "pipeline.max-parallelism": "16"}, "16"),
])
def test_key_groups_default_from_parallelism(spark, tmp_path, conf, groups):
    assert _explain_key_groups(_bids(spark, tmp_path, conf)) == {groups}


def test_invalid_parallelism_is_named(spark, tmp_path):
    with pytest.raises(ValidationError, match="Invalid value for 'pipeline.max-parallelism': 'many'"):
        _explain_key_groups(_bids(spark, tmp_path, {"pipeline.max-parallelism": "many"}))


def _provider(job) -> str:
    offsets = next(Path(job.checkpoint_root).rglob("offsets/0")).read_text().splitlines()
    return json.loads(offsets[1])["conf"]["spark.sql.streaming.stateStore.providerClass"]


@pytest.mark.parametrize("backend, provider", [
    (None, "HDFSBackedStateStoreProvider"),  # Flink's default: hashmap (heap)
    ("rocksdb", "RocksDBStateStoreProvider"),
    ("HashMap", "HDFSBackedStateStoreProvider"),
])
def test_state_backend_type_picks_the_state_store(spark, tmp_path, backend, provider):
    s = _bids(spark, tmp_path, {"state.backend.type": backend} if backend else {})
    job = s.execute_sql(WINDOWED).wait().job
    assert _provider(job).endswith("." + provider)
    assert sum(r["n"] for r in read_rows(tmp_path / "out")) == 20


def test_unknown_state_backend_lists_the_valid_ones(spark, tmp_path):
    s = _bids(spark, tmp_path, {"state.backend.type": "heap"})
    with pytest.raises(ValidationError, match="Unknown state backend .heap.*hashmap, rocksdb, forst"):
        s.execute_sql(WINDOWED)
    assert not (tmp_path / "out").exists()


def test_datagen_rows_per_second_paces_the_micro_batches(spark, tmp_path):
    """2 rows per second: a micro-batch of 2 rows per 1 s trigger (Spark aligns processing-time
    triggers to multiples of the interval); unthrottled, batches would run back to back."""
    s = Session({"execution.checkpointing.dir": str(tmp_path / "ck")}, spark=spark)
    s.execute_sql("""
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '8',
  'rows-per-second' = '2', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '8');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
""")
    job = s.execute_sql("INSERT INTO sink SELECT id FROM gen").wait().job
    progress = job.queries[0].query.recentProgress
    assert [p["numInputRows"] for p in progress][:4] == [2, 2, 2, 2]
    starts = [datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")) for p in progress[:4]]
    # The first micro-batches overrun their second (JVM warm-up); once on time, a trigger
    # fires on each whole second.
    assert (starts[3] - starts[2]).total_seconds() >= 0.7, f"a 2-row micro-batch per second: {starts}"
    assert all(t.microsecond < 300_000 for t in starts[2:]), f"triggers on whole seconds: {starts}"


def test_a_backlog_does_not_wait_for_the_checkpointing_interval(spark, tmp_path):
    """``execution.checkpointing.interval`` = 3 s over a file source whose 20 lines take
    three capped epochs (7 lines each): Spark's processing-time trigger would start each on
    a multiple of 3 s, idle until then; the sources pace themselves instead
    (connectors/pace.py: a backlog at once, new data at most once per interval), so the
    trigger is back to back and the epochs follow one another (pacing itself:
    tests/connectors/kafka/test_kafka_connector.py)."""
    s = _bids(spark, tmp_path, {"execution.checkpointing.interval": "3 s",
                                "sqlengine.filesystem.max-lines-per-batch": "7"})
    s.execute_sql("CREATE TABLE nowhere (item STRING) WITH ('connector' = 'blackhole')")
    job = s.execute_sql("INSERT INTO nowhere SELECT item FROM bids").wait().job
    query = job.queries[0].query
    assert query._jsq.streamingQuery().trigger().toString() == "ProcessingTimeTrigger(0)"
    # and between epochs with nothing new it asks its sources every 150 ms, not Spark's 10
    assert spark.conf.get("spark.sql.streaming.pollingDelay") == "150ms"
    progress = [p for p in query.recentProgress if p["numInputRows"]]
    assert len(progress) == 3, progress  # 20 lines, 7 per epoch
    starts = [datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")).timestamp() for p in progress]
    ends = [t + p["durationMs"]["triggerExecution"] / 1000 for t, p in zip(starts, progress)]
    for start, end, following in zip(starts, ends, starts[1:]):
        slot_end = (start // 3 + 1) * 3  # where a processing-time trigger would have started the next
        if end < slot_end - 1:
            assert following < slot_end - 0.5, f"an epoch waited for the clock: {starts}, ends {ends}"
