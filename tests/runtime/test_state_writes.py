"""An epoch's state writes run on the driver's write threads (``EpochRun.background``):
off the epoch's thread, with its Spark job group, every one ended before the sinks take
the epoch, and a failed write fails the epoch."""
from __future__ import annotations

import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from sqlengine.errors import ValidationError
from sqlengine.runtime.context import EpochRun
from sqlengine.runtime.state import StateStore
from tests.runtime.changelog_util import materialize, run, run_both, write_jsonl

GROUP = "spark.jobGroup.id"


def _run(spark, tmp_path, pool) -> EpochRun:
    store = StateStore(spark, str(tmp_path / "state"), 128)
    return EpochRun(3, store, {}, {}, {}, frozenset(), frozenset(), lambda n: None, lambda n: False, pool=pool)


def test_a_write_runs_on_a_write_thread_with_the_epochs_job_group(spark, tmp_path):
    sc = spark.sparkContext
    seen = {}

    def write():
        seen["thread"] = threading.current_thread().name
        seen["group"] = sc.getLocalProperty(GROUP)
        seen["rows"] = spark.range(5).count()  # a Spark job from the write thread
    with ThreadPoolExecutor(1, thread_name_prefix="writer") as pool:
        sc.setLocalProperty(GROUP, "epoch-group")
        try:
            run = _run(spark, tmp_path, pool)
            run.background(write)
            run.wait()
        finally:
            sc.setLocalProperty(GROUP, None)
        assert seen == {"thread": seen["thread"], "group": "epoch-group", "rows": 5}
        assert seen["thread"].startswith("writer") and seen["thread"] != threading.current_thread().name
        # the thread keeps no group once its write ended
        assert pool.submit(lambda: sc.getLocalProperty(GROUP)).result() is None


def test_wait_raises_the_first_error_once_every_write_ended(spark, tmp_path):
    started, later_ended = threading.Event(), threading.Event()

    def failing():
        started.set()
        raise OSError("disk full")

    def later():
        assert started.wait(30)
        later_ended.set()
    with ThreadPoolExecutor(2) as pool:
        run = _run(spark, tmp_path, pool)
        run.background(failing)
        run.background(later)
        with pytest.raises(OSError, match="disk full"):
            run.wait()
        assert later_ended.is_set()
        assert run.pending == []
        run.wait()  # nothing left to raise


def test_without_write_threads_a_write_runs_inline(spark, tmp_path):
    seen = []
    run = _run(spark, tmp_path, None)
    run.background(lambda: seen.append(threading.current_thread().name))
    assert seen == [threading.current_thread().name] and run.pending == []


@pytest.fixture
def bids(tmp_path):
    rnd = random.Random(11)
    rows = [{"bidtime": f"2024-01-01 10:{i // 6:02d}:{(i * 7) % 60:02d}.000", "bidder": rnd.randint(1, 6),
             "price": rnd.randint(1, 50)} for i in range(48)]
    rows.sort(key=lambda r: r["bidtime"])
    src = write_jsonl(tmp_path / "in" / "bids.jsonl", rows)
    return f"""CREATE TABLE bids (bidtime TIMESTAMP(3), bidder INT, price INT,
      WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')""", rows


def test_every_job_of_a_streaming_query_is_in_its_job_group(spark, tmp_path, bids):
    """Two stateful operators, each writing its state every epoch from the write threads:
    no job of the query runs outside the query's job group (stopping the query cancels
    its group's jobs, the writes included)."""
    ddl, rows = bids
    q = """SELECT cnt, COUNT(*) AS bidders, MAX(top) AS top FROM
           (SELECT bidder, COUNT(*) AS cnt, MAX(price) AS top FROM bids GROUP BY bidder) GROUP BY cnt"""
    tracker = spark.sparkContext.statusTracker()
    ungrouped = set(tracker.getJobIdsForGroup(None))
    changes = run(spark, tmp_path, ddl, q, "streaming", 12)
    # Spark's status store keeps the last spark.ui.retainedJobs jobs: old ungrouped jobs may
    # be forgotten while the query runs, so the check is that no new one appeared.
    assert set(tracker.getJobIdsForGroup(None)) - ungrouped == set()
    counts = Counter(r["bidder"] for r in rows)
    top = {b: max(r["price"] for r in rows if r["bidder"] == b) for b in counts}
    expected = Counter()
    for c in set(counts.values()):
        expected[(c, sum(1 for v in counts.values() if v == c), max(top[b] for b in counts if counts[b] == c))] = 1
    assert materialize(changes) == expected
    assert {c[0] for c in changes} >= {"+I", "-U", "+U"}, "several epochs"


@pytest.mark.parametrize("threads", ["0", "1"])
def test_write_threads_zero_or_one_give_the_same_changelog(spark, tmp_path, bids, threads):
    ddl, _ = bids
    q = "SELECT bidder, COUNT(*) AS n, SUM(price) AS s FROM bids GROUP BY bidder"
    _, streamed, batch = run_both(spark, tmp_path, ddl, q, 12, {"sqlengine.state.write-threads": threads})
    assert streamed == batch and len(batch) == 6


def test_write_threads_must_be_a_count(spark, tmp_path, bids):
    ddl, _ = bids
    with pytest.raises(ValidationError, match="'sqlengine.state.write-threads': -1 must be 0 or more"):
        run(spark, tmp_path, ddl, "SELECT bidder, COUNT(*) FROM bids GROUP BY bidder", "streaming", 12,
            {"sqlengine.state.write-threads": "-1"})
