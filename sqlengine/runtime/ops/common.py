"""Helpers shared by the batch operators."""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P


def col(i: int) -> Column:
    return F.col(f"f{i}")


def order_col(k: P.SortKey) -> Column:
    """Flink's default null order: NULLS FIRST ascending, NULLS LAST descending."""
    c = col(k.index)
    if k.ascending:
        return c.asc_nulls_last() if k.nulls_first is False else c.asc_nulls_first()
    return c.desc_nulls_first() if k.nulls_first else c.desc_nulls_last()


def window(partition: tuple[int, ...], order: tuple[P.SortKey, ...]) -> WindowSpec:
    w = Window.partitionBy(*[col(k) for k in partition])
    return w.orderBy(*[order_col(k) for k in order]) if order else w


def columns(df: DataFrame, n: int) -> list[Column]:
    return [col(i) for i in range(n)]
