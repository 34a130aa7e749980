"""A job killed with SIGKILL midway (a real CLI process) restarts from its checkpoint with
another ``parallelism.default`` and commits exactly Flink's result (computed here): one
statement set with a window aggregation feeding a regular join into the (two-phase)
filesystem sink, and a join feeding a Top-N whose changelog goes, epoch by epoch, into a
filesystem sink in ``debezium-json`` (the materialized changelog equals the Top-N Flink
computes).
A restore path that holds no checkpoint is an error, not a fresh start."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.e2e.conftest import kill_after_commits, read_rows, run_cli

SCRIPT = """
CREATE TABLE orders (ot TIMESTAMP(3), cid INT, amount INT,
  WATERMARK FOR ot AS ot - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (cid INT, tier STRING)
  WITH ('connector' = 'filesystem', 'path' = '{src}/customers.jsonl', 'format' = 'json');
CREATE TABLE `out` (window_start TIMESTAMP(3), tier STRING, n BIGINT, total INT)
  WITH ('connector' = 'filesystem', 'path' = '{dst}', 'format' = 'json');
INSERT INTO `out`
SELECT w.window_start, c.tier, w.n, w.total FROM (
  SELECT window_start, cid, COUNT(*) AS n, SUM(amount) AS total
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ot), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, cid) AS w
JOIN customers AS c ON w.cid = c.cid;
"""


def _inputs(src: Path) -> None:
    src.mkdir()
    rnd = random.Random(3)
    orders = [{"ot": f"2024-01-01 10:{i // 12:02d}:{i % 12 * 5:02d}.000", "cid": rnd.randint(1, 8),
               "amount": rnd.randint(1, 99)} for i in range(240)]
    (src / "orders.jsonl").write_text("".join(json.dumps(o) + "\n" for o in orders))
    tiers = [{"cid": c, "tier": "gold" if c % 3 == 0 else "basic"} for c in range(1, 8)]
    (src / "customers.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tiers))


def _args(ckpt: Path, parallelism: int, *extra: str) -> list[str]:
    return ["-D", f"execution.checkpointing.dir={ckpt}", "-D", "pipeline.job-id=kill-test",
            "-D", f"parallelism.default={parallelism}", "-D", "sqlengine.filesystem.max-lines-per-batch=40",
            *extra]


def _rows(folder: Path) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in read_rows(folder))


def _kill_midway(script: Path, ckpt: Path, commits: int = 2) -> None:
    """Run ``script`` with parallelism 1 and SIGKILL it after ``commits`` committed epochs."""
    kill_after_commits(["-f", str(script), *_args(ckpt, 1)], ckpt, commits)


def _windows_joined(orders: list[dict]) -> Counter:
    """What the script commits (Flink's result): per 1-minute window and customer the
    count and sum of its orders, joined with the customer's tier (customer 8 has none)."""
    per: dict[tuple[str, int], list[int]] = {}
    for o in orders:
        start = o["ot"][:16] + ":00"  # the minute the order falls in
        per.setdefault((start, o["cid"]), []).append(o["amount"])
    return Counter(json.dumps({"window_start": start, "tier": "gold" if cid % 3 == 0 else "basic",
                               "n": len(amounts), "total": sum(amounts)}, sort_keys=True)
                   for (start, cid), amounts in per.items() if cid <= 7)


TOP_N = """
CREATE TABLE orders (ot TIMESTAMP(3), cid INT, amount INT)
  WITH ('connector' = 'filesystem', 'path' = '{src}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (cid INT, tier STRING)
  WITH ('connector' = 'filesystem', 'path' = '{src}/customers.jsonl', 'format' = 'json');
CREATE TABLE top3 (tier STRING, ot TIMESTAMP(3), amount INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{dst}', 'format' = 'debezium-json');
INSERT INTO top3
SELECT tier, ot, amount, rn FROM (
  SELECT c.tier, o.ot, o.amount,
         ROW_NUMBER() OVER (PARTITION BY c.tier ORDER BY o.amount DESC, o.ot) AS rn
  FROM orders AS o JOIN customers AS c ON o.cid = c.cid)
WHERE rn <= 3;
"""


def _materialized(folder: Path) -> Counter:
    """The changelog (Debezium events) applied: c adds ``after``, d removes ``before``."""
    table: Counter = Counter()
    for event in read_rows(folder):
        if event["op"] == "c":
            table[json.dumps(event["after"], sort_keys=True)] += 1
        else:
            table[json.dumps(event["before"], sort_keys=True)] -= 1
    assert all(v >= 0 for v in table.values()), "a retraction without its row: lost or duplicated"
    return +table


BOTH = SCRIPT.split("INSERT INTO")[0] + """
CREATE TABLE top3 (tier STRING, ot TIMESTAMP(3), amount INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{top}', 'format' = 'debezium-json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO `out`""" + SCRIPT.split("INSERT INTO `out`")[1].rstrip().rstrip(";") + """;
INSERT INTO top3""" + TOP_N.split("INSERT INTO top3")[1].rstrip().rstrip(";") + """;
END;
"""


def test_sigkill_midway_then_restore_with_other_parallelism(tmp_path):
    """One job (a statement set) with both pipelines: killed midway at parallelism 1,
    restored at parallelism 2; both sinks hold exactly Flink's result."""
    _inputs(tmp_path / "in")
    orders = [json.loads(line) for line in (tmp_path / "in" / "orders.jsonl").read_text().splitlines()]
    windows = _windows_joined(orders)
    tier = {c: "gold" if c % 3 == 0 else "basic" for c in range(1, 8)}
    top: Counter = Counter()
    for t in ("gold", "basic"):
        rows = sorted((o for o in orders if tier.get(o["cid"]) == t), key=lambda o: (-o["amount"], o["ot"]))
        for rn, o in enumerate(rows[:3], 1):
            top[json.dumps({"tier": t, "ot": o["ot"].replace(".000", ""), "amount": o["amount"], "rn": rn},
                           sort_keys=True)] += 1

    script = tmp_path / "job.sql"
    script.write_text(BOTH.format(src=tmp_path / "in", dst=tmp_path / "out", top=tmp_path / "top"))
    ckpt = tmp_path / "ckpt"
    _kill_midway(script, ckpt)
    assert sum(_rows(tmp_path / "out").values()) < sum(windows.values()), "killed midway"
    assert _materialized(tmp_path / "top") != top, "killed midway"
    restore = ckpt / "kill-test"
    res = run_cli("-f", str(script), *_args(ckpt, 2, "-D", f"execution.state-recovery.path={restore}"))
    assert res.returncode == 0, res.stderr[-2000:]
    assert _rows(tmp_path / "out") == windows, "nothing lost, nothing duplicated"
    assert _materialized(tmp_path / "top") == top


def test_restore_path_without_checkpoint_is_an_error(tmp_path):
    _inputs(tmp_path / "in")
    script = tmp_path / "job.sql"
    script.write_text(SCRIPT.format(src=tmp_path / "in", dst=tmp_path / "out"))
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    res = run_cli("-f", str(script), "-D", f"execution.state-recovery.path={empty}")
    assert res.returncode != 0
    errors = [line for line in res.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 1 and "holds no checkpoint" in res.stderr, res.stderr
    assert not (tmp_path / "out").exists() or not read_rows(tmp_path / "out")


def test_restore_with_another_query_is_an_error(spark, tmp_path):
    _inputs(tmp_path / "in")
    query = """CREATE TABLE customers (cid INT, tier STRING)
  WITH ('connector' = 'filesystem', 'path' = '{src}/customers.jsonl', 'format' = 'json');
CREATE TABLE `out` (tier STRING, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO `out` SELECT tier, {agg} FROM customers GROUP BY tier;
"""
    first, second = tmp_path / "first.sql", tmp_path / "second.sql"
    first.write_text(query.format(src=tmp_path / "in", agg="COUNT(*)"))
    second.write_text(query.format(src=tmp_path / "in", agg="SUM(cid)"))
    ckpt = tmp_path / "ckpt"
    res = run_cli("-f", str(first), *_args(ckpt, 1))
    assert res.returncode == 0, res.stderr[-2000:]
    res = run_cli("-f", str(second), *_args(ckpt, 1, "-D", f"execution.state-recovery.path={ckpt / 'kill-test'}"))
    assert res.returncode != 0
    errors = [line for line in res.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 1 and "the state of operator GroupAggregate" in res.stderr, res.stderr
    assert "cannot be mapped to the changed query" in res.stderr
    # The same statement over a changed table, or with other key groups: in this process
    # (the same check; the CLI's one-line error is asserted above).
    from sqlengine.errors import ExecutionError
    from sqlengine.api.session import Session

    def restore(text: str, **conf: str) -> str:
        session = Session({"execution.checkpointing.dir": str(ckpt), "pipeline.job-id": "kill-test",
                           "execution.runtime-mode": "streaming", "parallelism.default": "1",
                           "execution.state-recovery.path": str(ckpt / "kill-test"), **conf}, spark=spark)
        statements = [st for st in text.split(";") if st.strip()]
        for st in statements[:-1]:
            session.execute_sql(st)
        with pytest.raises(ExecutionError) as failed:
            session.execute_sql(statements[-1]).wait()
        return str(failed.value)

    changed = query.format(src=tmp_path / "in", agg="COUNT(*)").replace("tier STRING)", "tier STRING, x INT)", 1)
    assert "cannot be mapped to the changed query" in restore(changed)
    # Flink refuses a changed max parallelism too; the parallelism alone may change (tests above).
    other_groups = restore(query.format(src=tmp_path / "in", agg="COUNT(*)"), **{"pipeline.max-parallelism": "8"})
    assert "its state is in 128 key groups" in other_groups and "this job has 8" in other_groups
