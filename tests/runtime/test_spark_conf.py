"""Spark settings the engine starts its session with (sqlengine/runtime/spark.py)."""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.runtime.spark import OPTIMIZER_EXCLUDED_RULES, driver_conf

PRUNE_FILTERS = "org.apache.spark.sql.catalyst.optimizer.PruneFilters"


def test_prune_filters_is_not_run_and_results_are_the_same(spark):
    """PruneFilters would drop an always-true filter (and derive its input's constraints on
    every optimizer pass to find one): excluded, the filter stays in the optimized plan and
    the rows are the same."""
    assert PRUNE_FILTERS in spark.conf.get(OPTIMIZER_EXCLUDED_RULES).split(",")
    df = spark.range(5).where(F.lit(True))
    assert "Filter true" in df._jdf.queryExecution().optimizedPlan().toString()
    assert sorted(r.id for r in df.collect()) == [0, 1, 2, 3, 4]
    assert spark.range(5).where(F.lit(False)).count() == 0


def test_a_users_excluded_rules_keep_ours():
    assert driver_conf({})[OPTIMIZER_EXCLUDED_RULES] == PRUNE_FILTERS
    mine = "org.apache.spark.sql.catalyst.optimizer.CombineFilters"
    assert driver_conf({OPTIMIZER_EXCLUDED_RULES: mine})[OPTIMIZER_EXCLUDED_RULES] == f"{PRUNE_FILTERS},{mine}"
