"""EXECUTE STATEMENT SET: one job for several INSERTs — one Spark query, one checkpoint,
each source read once — with the same rows as the INSERTs run one by one."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqlengine.api.session import Session
from sqlengine.dialect import parse_one
from tests.e2e.conftest import BIDS_DDL, read_rows, run_cli

DDL = BIDS_DDL + """
CREATE TABLE per_minute (
  window_start TIMESTAMP(3), item STRING, total DECIMAL(38, 2), n BIGINT
) WITH ('connector' = 'filesystem', 'path' = '{out}/per_minute', 'format' = 'json');
CREATE TABLE cheap (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING)
WITH ('connector' = 'filesystem', 'path' = '{out}/cheap', 'format' = 'csv');
"""
WINDOWED = """INSERT INTO per_minute
SELECT window_start, item, SUM(price), COUNT(*)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, item"""
FILTERED = "INSERT INTO cheap SELECT bidtime, price, item FROM bids WHERE price < 10"
SET = f"EXECUTE STATEMENT SET BEGIN\n{WINDOWED};\n{FILTERED};\nEND"


def _input(path: Path) -> list[dict]:
    rows = [{"bidtime": f"2024-01-01 10:{i // 10:02d}:{i % 10 * 6:02d}", "price": (i * 37) % 50 + 0.5,
             "item": "ABC"[i % 3]} for i in range(300)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def _session(spark, tmp: Path, out: str, **conf) -> Session:
    s = Session({"sqlengine.filesystem.max-lines-per-batch": "50",
                 "execution.checkpointing.dir": str(tmp / f"ck-{out}"), **conf}, spark=spark)
    s.execute_sql(DDL.format(src=tmp / "in.jsonl", out=tmp / out))
    return s


def _outputs(folder: Path) -> tuple[list, list]:
    windows = sorted(json.dumps(r, sort_keys=True) for r in read_rows(folder / "per_minute"))
    cheap = sorted(line for f in sorted((folder / "cheap").glob("part-*")) for line in f.read_text().splitlines())
    return windows, cheap


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_statement_set_is_one_job_with_the_rows_of_its_inserts(spark, tmp_path, mode):
    rows = _input(tmp_path / "in.jsonl")
    one_by_one = _session(spark, tmp_path, "single", **{"execution.runtime-mode": mode})
    one_by_one.execute_sql(WINDOWED).wait()
    one_by_one.execute_sql(FILTERED).wait()
    windows, cheap = _outputs(tmp_path / "single")
    assert len(windows) == 30 * 3
    assert len(cheap) == sum(1 for r in rows if r["price"] < 10) > 0

    together = _session(spark, tmp_path, "set", **{"execution.runtime-mode": mode})
    job = together.execute_sql(SET).wait().job
    assert job.status == "FINISHED"
    assert _outputs(tmp_path / "set") == (windows, cheap)
    if mode == "batch":
        return
    assert len(job.queries) == 1
    queries = [p for p in Path(job.checkpoint_root).iterdir() if (p / "offsets").is_dir()]
    assert len(queries) == 1, f"one checkpoint per job, found {queries}"
    # One reader (one MicroBatchStream) for the table: Spark's progress lists distinct
    # sources; its offsets log repeats a source once per place it appears in the plan.
    assert len(job.queries[0].query.lastProgress["sources"]) == 1
    first = (queries[0] / "offsets" / "0").read_text().splitlines()
    assert len({line for line in first[2:] if line.strip()}) == 1, first
    batches = sorted(int(p.name) for p in (queries[0] / "commits").iterdir() if p.name.isdigit())
    assert len(batches) >= 6  # 300 lines, 50 per micro-batch, plus end of input


def test_statement_set_through_the_cli_prints_both_sinks(tmp_path):
    script = tmp_path / "set.sql"
    script.write_text("""
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE evens (id BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'evens', 'sink.parallelism' = '1');
CREATE TABLE squares (id BIGINT, sq BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'sq',
  'sink.parallelism' = '1');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO evens SELECT id FROM src WHERE MOD(id, 2) = 0;
  INSERT INTO squares SELECT id, id * id FROM src;
END;
""")
    proc = run_cli("-D", f"execution.checkpointing.dir={tmp_path / 'ck'}", "-f", str(script))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if "> +I[" in line]
    assert sorted(line for line in lines if line.startswith("evens>")) == ["evens> +I[2]", "evens> +I[4]"]
    assert sorted(line for line in lines if line.startswith("sq>")) == \
        sorted(f"sq> +I[{i}, {i * i}]" for i in range(1, 6))
    assert len(list((tmp_path / "ck").iterdir())) == 1


def test_statement_set_restarts_from_its_checkpoint_without_duplicates(spark, tmp_path):
    """Stopped midway and restored: each sink ends with exactly the rows of an uninterrupted run."""
    from sqlengine.dialect import parse_one

    _input(tmp_path / "in.jsonl")
    full = _session(spark, tmp_path, "full")
    full.execute_sql(SET).wait()
    expected = _outputs(tmp_path / "full")

    s1 = _session(spark, tmp_path, "split", **{"pipeline.job-id": "set"})
    planned = s1.planner().plan(parse_one(SET), SET)
    job = s1.runner().run(planned.dag, SET, wait=False)
    query = job.queries[0].query
    while query.isActive and (query.lastProgress is None or query.lastProgress["batchId"] < 2):
        query.awaitTermination(0.05)
    query.stop()
    partial = _outputs(tmp_path / "split")
    assert len(partial[0]) < len(expected[0]) and 0 < len(partial[1]) < len(expected[1])

    s2 = _session(spark, tmp_path, "split", **{"pipeline.job-id": "set",
                                               "execution.state-recovery.path": job.checkpoint_root})
    s2.execute_sql(SET).wait()
    assert _outputs(tmp_path / "split") == expected


def test_a_mixed_statement_set_runs_the_dag_explain_printed(spark, tmp_path):
    """A statement set mixing a bounded INSERT ... VALUES and a streaming INSERT is one DAG:
    EXPLAIN prints its tasks, and the job's stateful operator keeps its state under the id
    that DAG gave it (the static part runs as a batch job over its part of the same DAG)."""
    _input(tmp_path / "in.jsonl")
    s = _session(spark, tmp_path, "mixed")
    mixed = (f"EXECUTE STATEMENT SET BEGIN\nINSERT INTO cheap VALUES (TIMESTAMP '2024-01-01 00:00:00', 1.5, 'Z');\n"
             f"{WINDOWED};\nEND")
    explained = s.execute_sql("EXPLAIN " + mixed).text
    planned = s.planner().plan(parse_one(mixed), mixed).dag
    tasks = [t.number for t in planned.tasks()]
    assert [line.split(" (")[0] for line in explained.splitlines() if line.startswith("Task ")] == \
        [f"Task {n}" for n in tasks]
    job = s.execute_sql(mixed).wait().job
    assert job.status == "FINISHED"
    stateful = {pn.id for pn in planned.nodes if pn.op.stateful}
    folders = {p.name for p in Path(job.checkpoint_root).glob("*/state/*") if p.name != "_meta"}
    assert folders and folders <= stateful, (folders, stateful)
    windows, cheap = _outputs(tmp_path / "mixed")
    assert len(windows) == 30 * 3 and any(",Z" in line for line in cheap)
