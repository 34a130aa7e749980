"""Joins in batch: regular (all kinds), interval and window joins are one Spark join on
the full condition (Spark extracts the equi keys; SQL equality never matches NULL);
the temporal join picks, per left row, the right version valid at the left row's time."""
from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P
from sqlengine.runtime.ops.common import col

HOW = {"INNER": "inner", "LEFT": "left", "RIGHT": "right", "FULL": "full",
       "SEMI": "left_semi", "ANTI": "left_anti"}


def _align(node: P.Join, left: DataFrame, right: DataFrame) -> tuple[DataFrame, DataFrame, int, int]:
    """Left keeps f0..f(nl-1); right's columns move to f(nl)..: one name space for the condition."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    left = left.select(*[col(i) for i in range(nl)])
    right = right.select(*[col(j).alias(f"f{nl + j}") for j in range(nr)])
    return left, right, nl, nr


def batch_join(lw, node: P.Join, left: DataFrame, right: DataFrame) -> DataFrame:
    """Any ``Join`` (INNER/LEFT/RIGHT/FULL/SEMI/ANTI, interval and window joins included)."""
    left, right, nl, nr = _align(node, left, right)
    # The DAG's edges: both sides hashed on the equi keys (a sort-merge join), or the
    # right side broadcast when there are none.
    right = right.hint("merge" if node.left_keys else "broadcast")
    cond = lw.exprs.lower(node.condition) if node.condition is not None else None
    if cond is None and node.kind == "INNER":
        out = left.crossJoin(right)
    else:
        out = left.join(right, cond if cond is not None else F.lit(True), HOW[node.kind])
    width = nl if node.kind in ("SEMI", "ANTI") else nl + nr
    return out.select(*[col(i) for i in range(width)])


def batch_temporal_join(lw, node: P.TemporalJoin, left: DataFrame, right: DataFrame) -> DataFrame:
    """Each left row joins the right row with its key and the largest ``right_time <=
    left_time`` (event time); processing time joins the right table as it is. The rest
    of the condition applies to that version (LEFT: NULLs when it fails)."""
    left, right, nl, nr = _align(node, left, right)
    lid = "__lid"
    left = left.withColumn(lid, F.monotonically_increasing_id())
    on = F.lit(True)
    for lk, rk in zip(node.left_keys, node.right_keys):
        on = on & (col(lk) == col(nl + rk))
    if node.right_time >= 0:
        on = on & (col(nl + node.right_time) <= col(node.left_time))
    joined = left.join(right.hint("merge"), on, "left") if node.left_keys else left.join(right, on, "left")
    if node.right_time >= 0:
        # Partitioned within the join's key partitions: no exchange beyond the join's.
        latest = Window.partitionBy(*[col(k) for k in node.left_keys], lid) \
            .orderBy(col(nl + node.right_time).desc_nulls_last())
        joined = joined.withColumn("__v", F.row_number().over(latest)).where(F.col("__v") == 1)
    cond = lw.exprs.lower(node.condition) if node.condition is not None else F.lit(True)
    if node.kind == "INNER":
        return joined.where(cond).select(*[col(i) for i in range(nl + nr)])
    ok = F.coalesce(cond, F.lit(False))
    return joined.select(*[col(i) for i in range(nl)],
                         *[F.when(ok, col(nl + j)).alias(f"f{nl + j}") for j in range(nr)])
