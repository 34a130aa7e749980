"""Top-N and deduplication in batch: a ranking window function, filtered to
``rank_start <= rank <= rank_end``; the rank is the last output column when kept."""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sqlengine.hidden import fcol as col
from sqlengine.physical.shared.ranking import RANKING, window
from sqlengine.plan import nodes as P


def batch_rank(node: P.Rank, df: DataFrame) -> DataFrame:
    n = len(node.input.schema)
    r = RANKING[node.rank_fn]().over(window(node.partition_keys, node.order_keys)).cast("long")
    ranked = df.select(*[col(i) for i in range(n)], r.alias("__rank"))
    ranked = ranked.where((F.col("__rank") >= node.rank_start) & (F.col("__rank") <= node.rank_end))
    extra = [F.col("__rank").alias(f"f{n}")] if node.output_rank else []
    return ranked.select(*[col(i) for i in range(n)], *extra)
