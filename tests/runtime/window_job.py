"""A TUMBLE job over a JSON file into the (two-phase) filesystem sink, several epochs long,
and the result Flink computes for it: the job the restart and savepoint tests fail, stop and
restore."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.e2e.conftest import read_rows
from tests.runtime.changelog_util import write_jsonl


def window_input(tmp_path: Path, n: int) -> Counter:
    """Write ``n`` bids to ``<tmp_path>/in/bids.jsonl``; the job's expected output (per item
    and minute: count and sum of prices)."""
    rows = [{"ts": f"2024-01-01 10:{i // 20:02d}:{i % 20 * 3:02d}.000", "item": f"i{i % 3}", "price": i % 11}
            for i in range(n)]
    write_jsonl(tmp_path / "in" / "bids.jsonl", rows)
    per: dict = {}
    for r in rows:
        key = (r["item"], r["ts"][:16] + ":00")
        count, total = per.get(key, (0, 0))
        per[key] = (count + 1, total + r["price"])
    return Counter(json.dumps({"item": i, "window_start": w, "n": c, "total": t}, sort_keys=True)
                   for (i, w), (c, t) in per.items())


def window_script(tmp_path: Path, out: str) -> list[str]:
    """The job's statements, writing into ``<tmp_path>/<out>``."""
    return [f"""CREATE TABLE bids (ts TIMESTAMP(3), item STRING, price INT,
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                WITH ('connector' = 'filesystem', 'path' = '{tmp_path / "in" / "bids.jsonl"}', 'format' = 'json')""",
            f"""CREATE TABLE `out` (item STRING, window_start TIMESTAMP(3), n BIGINT, total INT)
                WITH ('connector' = 'filesystem', 'path' = '{tmp_path / out}', 'format' = 'json')""",
            """INSERT INTO `out` SELECT item, window_start, COUNT(*), SUM(price)
               FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY item, window_start, window_end"""]


def session(spark, tmp_path: Path, job_id: str, per_epoch: int, **conf):
    from sqlengine.api.session import Session
    return Session({"execution.checkpointing.dir": str(tmp_path / "ckpt"), "pipeline.job-id": job_id,
                    "execution.runtime-mode": "streaming", "parallelism.default": "1",
                    "sqlengine.filesystem.max-lines-per-batch": str(per_epoch), **conf}, spark=spark)


def submit(sess, script: list[str]):
    """Run the statements; the INSERT's job (running in the background)."""
    for st in script[:-1]:
        sess.execute_sql(st)
    return sess.execute_sql(script[-1]).job


def output(folder: Path) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in read_rows(folder))
