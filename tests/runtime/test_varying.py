"""Values that change every epoch stay out of Spark's generated code (functions/varying.py):
a watermark comparison compiles once, whatever the watermark; an epoch of a job compiles no
class the same epoch over other times did not."""
from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

from sqlengine.functions.varying import varying
from tests.runtime.changelog_util import compiled_classes, write_jsonl
from tests.runtime.window_job import output, session, submit, window_script


@pytest.fixture(scope="module")
def times(spark):
    rows = [(i * 7 % 1003 if i % 5 else None, i) for i in range(2000)]
    df = spark.createDataFrame(rows, "t long, v long").cache()
    df.count()
    return df


def _run(df, bound):
    return sorted(df.where(F.col("t") <= bound(F.col("t"))).groupBy(F.col("t") % 7)
                  .agg(F.count("*"), F.sum("v")).collect())


@pytest.mark.parametrize("anchor", ["t", "v"])
def test_a_varying_value_is_compiled_once_and_answers_as_the_literal(spark, times, anchor):
    """Same rows as the literal (NULL times included; ``v`` is never NULL, ``t`` often);
    the second and third values compile nothing, where each literal compiles its own."""
    assert _run(times, lambda t: varying(0, F.col(anchor))) == _run(times, lambda t: F.lit(0))
    for value in (100 + (anchor == "v"), 500 + (anchor == "v")):
        before = compiled_classes(spark)
        got = _run(times, lambda t: varying(value, F.col(anchor)))
        assert compiled_classes(spark) == before, "a new value compiled a class"
        assert got == _run(times, lambda t: F.lit(value))
        assert compiled_classes(spark) > before, "the literal (the control) compiles its own classes"


def test_the_optimizer_keeps_it_a_lookup_not_a_literal(spark, times):
    plan = times.where(F.col("t") <= varying(123456789, F.col("v")))._jdf.queryExecution().optimizedPlan().toString()
    assert "element_at" in plan and "<= 123456789)" not in plan, plan


def _bids(path, day: int, n: int = 120) -> None:
    write_jsonl(path, [{"ts": f"2024-01-{day:02d} 10:{i // 20:02d}:{i % 20 * 3:02d}.000", "item": f"i{i % 3}",
                        "price": i % 11} for i in range(n)])


def test_a_job_over_other_times_compiles_no_class_of_its_own(spark, tmp_path):
    """The same windowed job, six epochs each, over two days: every watermark differs, every
    plan is the same; the second run compiles nothing (with literal watermarks each of its
    epochs compiled the stages that compare them). Its rows are right."""
    runs = []
    for day in (1, 2):
        folder = tmp_path / f"day{day}"
        _bids(folder / "in" / "bids.jsonl", day)
        sess = session(spark, folder, f"varying-{day}", per_epoch=20)
        before = compiled_classes(spark)
        submit(sess, window_script(folder, "out")).wait()
        runs.append(compiled_classes(spark) - before)
        rows = output(folder / "out")
        assert sum(json.loads(r)["n"] * k for r, k in rows.items()) == 120
        assert {json.loads(r)["window_start"][:10] for r in rows} == {f"2024-01-{day:02d}"}
    assert runs[1] == 0, runs
