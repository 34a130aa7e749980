"""Ranking window functions over a node's columns (OVER's ranking calls, Top-N)."""
from __future__ import annotations

from pyspark.sql import Window, WindowSpec
from pyspark.sql import functions as F

from sqlengine.hidden import fcol
from sqlengine.plan import nodes as P
from sqlengine.runtime.exprs import sort_order

RANKING = {"ROW_NUMBER": F.row_number, "RANK": F.rank, "DENSE_RANK": F.dense_rank}


def window(partition: tuple[int, ...], order: tuple[P.SortKey, ...]) -> WindowSpec:
    """A Spark window partitioned by the columns ``partition``, ordered by ``order``."""
    w = Window.partitionBy(*[fcol(k) for k in partition])
    return w.orderBy(*[sort_order(k) for k in order]) if order else w
