"""Key groups as Flink has them: a job killed with SIGKILL (a real CLI process) restores at
another parallelism with no setting, three times, 2 -> 4 -> 3 -> 1 tasks, over the default 128 key
groups; each restore moves ranges of key groups between tasks, and the committed results
equal Apache Flink 2.3's (``rescale/flink``, see its README).

The job is one statement set: a TUMBLE window aggregation joined with a table, and a
regular join feeding a Top-3 whose changelog goes epoch by epoch into a filesystem sink
in ``debezium-json`` (its materialized rows are compared)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.e2e.conftest import kill_after_commits, read_rows, run_cli

HERE = Path(__file__).parent / "rescale"

SCRIPT = """
CREATE TABLE orders (ot TIMESTAMP(3), cid INT, amount INT, WATERMARK FOR ot AS ot - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (cid INT, tier STRING)
  WITH ('connector' = 'filesystem', 'path' = '{src}/customers.jsonl', 'format' = 'json');
CREATE TABLE windows_out (window_start TIMESTAMP(3), tier STRING, n BIGINT, total INT)
  WITH ('connector' = 'filesystem', 'path' = '{out}/windows_out', 'format' = 'json');
CREATE TABLE top3 (tier STRING, ot TIMESTAMP(3), amount INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{out}/top3', 'format' = 'debezium-json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO windows_out
SELECT w.window_start, c.tier, w.n, w.total FROM (
  SELECT window_start, cid, COUNT(*) AS n, SUM(amount) AS total
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ot), INTERVAL '5' MINUTE))
  GROUP BY window_start, window_end, cid) AS w
JOIN customers AS c ON w.cid = c.cid;
INSERT INTO top3
SELECT tier, ot, amount, rn FROM (
  SELECT c.tier, o.ot, o.amount,
         ROW_NUMBER() OVER (PARTITION BY c.tier ORDER BY o.amount DESC, o.ot) AS rn
  FROM orders AS o JOIN customers AS c ON o.cid = c.cid)
WHERE rn <= 3;
END;
"""


def _args(ckpt: Path, parallelism: int, restore: bool, lines: int = 80) -> list[str]:
    """80 lines per epoch: the 720 orders in 9 epochs (and the customers' in one)."""
    out = ["-D", f"execution.checkpointing.dir={ckpt}", "-D", "pipeline.job-id=rescale",
           "-D", f"parallelism.default={parallelism}", "-D", f"sqlengine.filesystem.max-lines-per-batch={lines}"]
    return out + (["-D", f"execution.state-recovery.path={ckpt / 'rescale'}"] if restore else [])


def _parallelism_of_last_epoch(ckpt: Path) -> int:
    """The tasks the last committed epoch ran with (the epoch facts the runtime keeps)."""
    metas = sorted(ckpt.glob("*/*/state/_meta/*.json"), key=lambda p: int(p.stem))
    return json.loads(metas[-1].read_text())["parallelism"]


def _run_until(script: Path, ckpt: Path, parallelism: int, restore: bool, count: int) -> None:
    """Run ``script`` and SIGKILL it once ``count`` epochs are committed in all."""
    kill_after_commits(["-f", str(script), *_args(ckpt, parallelism, restore)], ckpt, count)


def _windows(out: Path) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in read_rows(out / "windows_out"))


def _top3(out: Path) -> Counter:
    """The Top-3 changelog (Debezium events) applied: c adds ``after``, d removes ``before``."""
    table: Counter = Counter()
    for event in read_rows(out / "top3"):
        if event["op"] == "c":
            table[json.dumps(event["after"], sort_keys=True)] += 1
        else:
            table[json.dumps(event["before"], sort_keys=True)] -= 1
    assert all(v >= 0 for v in table.values()), "a retraction without its row: lost or duplicated"
    return +table


def _flink(name: str) -> Counter:
    return Counter(json.dumps(json.loads(line), sort_keys=True)
                   for line in (HERE / "flink" / f"{name}.jsonl").read_text().splitlines() if line)


def test_sigkill_then_restore_at_4_then_at_3_then_at_1_task(tmp_path):
    """Killed at 2 tasks after 2 epochs, restored at 4 and killed again after 2 more,
    restored at 3 and killed after 2 more, restored at 1 to the end (10 epochs in all):
    both sinks hold exactly Flink's rows (an uninterrupted run's, as the conformance
    cases show for these shapes)."""
    split = tmp_path / "split"
    split.mkdir()
    script = split / "job.sql"
    script.write_text(SCRIPT.format(src=HERE / "input", out=split / "out"))
    ckpt = split / "ckpt"
    _run_until(script, ckpt, 2, False, count=2)
    assert _parallelism_of_last_epoch(ckpt) == 2
    _run_until(script, ckpt, 4, True, count=4)
    assert _parallelism_of_last_epoch(ckpt) == 4
    assert sum(_windows(split / "out").values()) < sum(_flink("windows_out").values()), "killed midway"
    _run_until(script, ckpt, 3, True, count=6)
    assert _parallelism_of_last_epoch(ckpt) == 3
    res = run_cli("-f", str(script), *_args(ckpt, 1, True))
    assert res.returncode == 0, res.stderr[-2000:]
    assert _parallelism_of_last_epoch(ckpt) == 1
    assert _windows(split / "out") == _flink("windows_out"), "nothing lost, nothing duplicated"
    assert _top3(split / "out") == _flink("top3")


def test_restore_with_another_max_parallelism_is_an_error_naming_both(tmp_path):
    script = tmp_path / "job.sql"
    script.write_text(SCRIPT.format(src=HERE / "input", out=tmp_path / "out"))
    ckpt = tmp_path / "ckpt"
    res = run_cli("-f", str(script), *_args(ckpt, 2, False), "-D", "sqlengine.filesystem.max-lines-per-batch=400")
    assert res.returncode == 0, res.stderr[-2000:]
    res = run_cli("-f", str(script), *_args(ckpt, 2, True), "-D", "pipeline.max-parallelism=256")
    assert res.returncode != 0
    errors = [line for line in res.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 1, res.stderr
    assert "its state is in 128 key groups" in res.stderr and "this job has 256" in res.stderr, res.stderr
