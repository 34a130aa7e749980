"""Nexmark q10 as upstream wrote it (benchmarks/nexmark/queries/q10.sql, only its path
substituted): the real INSERT into the partitioned filesystem sink, with partition-time
commit, over the ``nexmark`` connector. test_nexmark_queries.py compares q10's SELECT with
Flink's; this runs the sink: one ``dt=<day>/hm=<HH%3Amm>`` folder per minute of bids, each
with its bids (the partition columns not in the csv lines) and, the input being bounded,
its ``_SUCCESS`` file."""
from __future__ import annotations

import csv
from collections import Counter

from benchmarks.nexmark import suite
from sqlengine.api.session import Session

EVENTS, RATE, BASE = 20_000, 100, 1700000000000  # 200 s of events: 4 minutes


def test_q10_writes_one_committed_partition_per_minute(spark, tmp_path):
    s = Session({"parallelism.default": "2", "execution.checkpointing.dir": str(tmp_path / "ck"),
                 "sqlengine.nexmark.max-rows-per-epoch": "5000"}, spark=spark)
    before, select = suite.statements("q10", suite.nexmark_source(EVENTS, rate=RATE, base_time=BASE))
    for st in before:
        s.execute_sql(st)
    expected = Counter((r[-2], r[-1]) for r in s.execute_sql(select).collect())
    script = (suite.HERE / "queries" / "q10.sql").read_text()
    script = script.replace("${NEXMARK_DIR}", str(tmp_path / "nexmark")).replace("${SUBMIT_TIME}", "1")
    for st in suite.split(script):
        result = s.execute_sql(st)
    result.job.wait(600)
    out = tmp_path / "nexmark" / "data" / "output" / "1" / "bid"
    written = Counter()
    for f in out.rglob("part-*"):
        folder = f.relative_to(out).parent
        dt, hm = (p.split("=", 1)[1] for p in folder.parts)
        rows = list(csv.reader(f.read_text().splitlines()))
        assert all(len(r) == 5 for r in rows), "auction, bidder, price, dateTime, extra: no partition columns"
        written[(dt, hm.replace("%3A", ":"))] += len(rows)
    assert len(expected) >= 3 and written == expected
    assert sorted(str(f.parent.relative_to(out)) for f in out.rglob("_SUCCESS")) == \
        sorted(f"dt={dt}/hm={hm.replace(':', '%3A')}" for dt, hm in expected)
