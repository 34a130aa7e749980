"""``table.exec.state.ttl``: a key idle for the TTL is forgotten (Flink: no retraction,
the next row of the key starts afresh). With a TTL of 1 ms every key's state lives only
for the epoch that wrote it (epochs are far more than 1 ms apart), so each epoch's
result is computed from that epoch's rows alone: exact, and different from the result
without a TTL."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.runtime.changelog_util import write_jsonl

N, PER_EPOCH = 42, 7


@pytest.fixture
def bids(tmp_path):
    rnd = random.Random(11)
    rows = [{"bidtime": f"2024-01-01 10:00:{i:02d}.000", "bidder": rnd.randint(1, 4)} for i in range(N)]
    src = write_jsonl(tmp_path / "in" / "bids.jsonl", rows)
    ddl = f"""CREATE TABLE bids (bidtime TIMESTAMP(3), bidder INT)
      WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')"""
    chunks = [rows[i:i + PER_EPOCH] for i in range(0, N, PER_EPOCH)]
    return ddl, chunks


def run(spark, tmp_path, ddl: str, query: str, ttl: str) -> list:
    from sqlengine.api.session import Session
    s = Session({"execution.checkpointing.dir": str(tmp_path / f"ckpt-{ttl}"), "table.exec.state.ttl": ttl,
                 "sqlengine.filesystem.max-lines-per-batch": str(PER_EPOCH)}, spark=spark)
    s.execute_sql(ddl)
    return s.execute_sql(query).collect()


def test_group_aggregate_forgets_idle_keys(spark, tmp_path, bids):
    ddl, chunks = bids
    q = "SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder"
    changes = run(spark, tmp_path, ddl, q, "1 ms")
    expected = Counter(("+I", b, n) for c in chunks for b, n in Counter(r["bidder"] for r in c).items())
    assert Counter(tuple(r) for r in changes) == expected
    kept = run(spark, tmp_path, ddl, q, "0 ms")  # 0: no TTL, as in Flink
    assert {r[0] for r in kept} >= {"+I", "-U", "+U"}


def test_count_distinct_forgets_the_values_of_idle_keys(spark, tmp_path, bids):
    """The merged COUNT(DISTINCT) keeps the values it counted per key (state ``distinct``):
    an expired key forgets them with its result, so each epoch counts its own bidders."""
    ddl, chunks = bids
    q = "SELECT MOD(bidder, 2) AS k, COUNT(DISTINCT bidder) AS n FROM bids GROUP BY MOD(bidder, 2)"
    changes = run(spark, tmp_path, ddl, q, "1 ms")
    expected = Counter()
    for c in chunks:
        for k in {r["bidder"] % 2 for r in c}:
            expected[("+I", k, len({r["bidder"] for r in c if r["bidder"] % 2 == k}))] += 1
    assert Counter(tuple(r) for r in changes) == expected


def test_join_forgets_idle_rows(spark, tmp_path, bids):
    ddl, chunks = bids
    q = "SELECT a.bidder FROM bids a JOIN bids b ON a.bidder = b.bidder"
    changes = run(spark, tmp_path, ddl, q, "1 ms")
    expected = Counter()
    for c in chunks:
        for b, n in Counter(r["bidder"] for r in c).items():
            expected[("+I", b)] += n * n
    assert Counter(tuple(r) for r in changes) == expected


def test_ttl_must_be_a_duration(spark, tmp_path, bids):
    from sqlengine.errors import SqlEngineError
    ddl, _ = bids
    with pytest.raises(SqlEngineError, match="table.exec.state.ttl.*'soon' is not a duration"):
        run(spark, tmp_path, ddl, "SELECT bidder, COUNT(*) FROM bids GROUP BY bidder", "soon")
