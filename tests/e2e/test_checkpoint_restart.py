"""Exactly-once across a restart: stop a streaming window aggregation midway, restart it
from its checkpoint with a different parallelism.default, and get the same final output
as an uninterrupted run."""
from __future__ import annotations

import json
import random
from pathlib import Path

from sqlengine.dialect import parse_one
from sqlengine.session import Session
from tests.e2e.conftest import BIDS_DDL, read_rows

DDL = BIDS_DDL + """
CREATE TABLE out (
  window_start TIMESTAMP(3), window_end TIMESTAMP(3), item STRING, total DECIMAL(38, 2), n BIGINT
) WITH ('connector' = 'filesystem', 'path' = '{dst}', 'format' = 'json');
"""
INSERT = """INSERT INTO out
SELECT window_start, window_end, item, SUM(price), COUNT(*)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, item"""


def _input(path: Path) -> None:
    rnd = random.Random(7)
    lines = []
    for i in range(400):
        ts = f"2024-01-01 10:{i // 10 % 60:02d}:{i % 10 * 6:02d}.000"
        lines.append(json.dumps({"bidtime": ts, "price": round(rnd.uniform(1, 50), 2), "item": rnd.choice("ABC")}))
    path.write_text("\n".join(lines) + "\n")


def _session(spark, tmp: Path, dst: Path, extra: dict) -> Session:
    s = Session({"sqlengine.filesystem.max-lines-per-batch": "40", **extra}, spark=spark)
    s.execute_sql(DDL.format(src=tmp / "in.jsonl", dst=dst))
    return s


def _key(r: dict) -> str:
    return json.dumps(r, sort_keys=True)


def test_restart_from_checkpoint_with_other_parallelism(spark, tmp_path):
    _input(tmp_path / "in.jsonl")
    # Uninterrupted run.
    full = _session(spark, tmp_path, tmp_path / "full", {"execution.checkpointing.dir": str(tmp_path / "c1")})
    full.execute_sql(INSERT)
    expected = sorted(map(_key, read_rows(tmp_path / "full")))
    assert len(expected) > 20

    # Interrupted run: stop after a few micro-batches.
    ck = tmp_path / "c2"
    s1 = _session(spark, tmp_path, tmp_path / "split",
                  {"execution.checkpointing.dir": str(ck), "parallelism.default": "2", "pipeline.job-id": "j"})
    sink = s1.plan_insert(parse_one(INSERT), INSERT)
    job = s1.runner().run_sinks([sink], INSERT, wait=False)
    query = job.queries[0]
    while query.isActive and (query.lastProgress is None or query.lastProgress["batchId"] < 2):
        query.awaitTermination(0.05)
    query.stop()
    commits = sorted(int(p.name) for p in (Path(job.checkpoint_root)).rglob("commits/*") if p.name.isdigit())
    assert commits and max(commits) < 10, f"the job was not stopped midway: {commits}"
    partial = read_rows(tmp_path / "split")
    assert len(partial) < len(expected)

    # Restart from the checkpoint with another parallelism.
    s2 = _session(spark, tmp_path, tmp_path / "split",
                  {"execution.state-recovery.path": job.checkpoint_root, "parallelism.default": "1",
                   "pipeline.job-id": "j"})
    s2.execute_sql(INSERT)
    assert sorted(map(_key, read_rows(tmp_path / "split"))) == expected
