"""Running one query streaming (changelog, several epochs) and batch, and comparing the
materialized streaming result with the batch result."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Iterable


def write_jsonl(path: Path, rows: Iterable[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def materialize(changes: list[list]) -> Counter:
    """Apply a changelog (op first) to an empty multiset; a retraction must match a row."""
    table: Counter = Counter()
    for op, *row in changes:
        key = tuple(row)
        if op in ("+I", "+U"):
            table[key] += 1
        else:
            assert table[key] > 0, f"{op}{list(row)} retracts a row that is not there: {sorted(table)}"
            table[key] -= 1
            if not table[key]:
                del table[key]
    return table


def run_both(spark, tmp_path: Path, ddl: str, query: str, lines_per_epoch: int = 12,
             conf: dict[str, str] | None = None) -> tuple[list, Counter, Counter]:
    """(changelog, materialized streaming result, batch result) of ``query`` (``conf``:
    more session settings)."""
    changes = run(spark, tmp_path, ddl, query, "streaming", lines_per_epoch, conf)
    batch = run(spark, tmp_path, ddl, query, "batch", lines_per_epoch, conf)
    return changes, materialize(changes), Counter(tuple(r) for r in batch)


def run(spark, tmp_path: Path, ddl: str, query: str, mode: str, lines_per_epoch: int = 12,
        conf: dict[str, str] | None = None) -> list:
    """``query``'s rows (streaming: its changelog) in ``mode``, after ``ddl``."""
    from sqlengine.api.session import Session
    s = Session({"execution.runtime-mode": mode, "execution.checkpointing.dir": str(tmp_path / "ckpt"),
                 "sqlengine.filesystem.max-lines-per-batch": str(lines_per_epoch), **(conf or {})}, spark=spark)
    for stmt in ddl.split(";"):
        if stmt.strip():
            s.execute_sql(stmt)
    return s.execute_sql(query).collect()


def compiled_classes(spark) -> int:
    """How many classes Spark has generated and compiled so far (Janino, ``CodegenMetrics``)."""
    return spark.sparkContext._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME().getCount()
