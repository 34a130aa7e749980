"""Changelogs as signed multisets: the algebra every incremental operator is built from.

Inside an epoch an operator sees each input as a *delta*: a Spark batch DataFrame with
the node's columns ``f0..fn`` and a signed count ``__n`` (``+I``/``+U`` count +1,
``-U``/``-D`` count -1). State holds netted rows (one row per distinct value with its
multiplicity). All of it is Spark batch work: no per-row Python.
"""
from __future__ import annotations

from typing import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StructType, ArrayType, DataType

from sqlengine.hidden import COUNT, OP, fcols  # noqa: F401 - fcols: the frames' column names

POSITIVE = ("+I", "+U")


def signed(df: DataFrame, updating: bool, width: int) -> DataFrame:
    """The delta of a lowered input: its columns plus ``__n`` (+1/-1 per change)."""
    n = F.when(F.col(OP).isin(*POSITIVE), F.lit(1)).otherwise(F.lit(-1)) if updating else F.lit(1)
    return df.select(*[F.col(c) for c in fcols(width)], n.cast("long").alias(COUNT))


def epoch_delta(df: DataFrame, updating: bool, width: int) -> DataFrame:
    """An input's epoch delta as a signed multiset. An updating input is netted (a change
    and its retraction in one epoch cancel); an insert-only one is not: its rows only add,
    duplicates are just multiplicities, and a wide group-by per epoch would cost more
    than it saves (the state log is netted when it is compacted)."""
    rows = signed(df, updating, width)
    return net(rows, fcols(width)) if updating else rows


def _has_map(t: DataType) -> bool:
    if isinstance(t, MapType):
        return True
    if isinstance(t, StructType):
        return any(_has_map(f.dataType) for f in t.fields)
    if isinstance(t, ArrayType):
        return _has_map(t.elementType)
    return False


def net(df: DataFrame, cols: Sequence[str]) -> DataFrame:
    """One row per distinct value of ``cols`` with its summed count; zero counts vanish.

    Spark cannot group by MAP values; rows with a MAP column are grouped by their
    JSON text instead (the first row of each group is kept as its value).
    """
    if not cols:
        return df.agg(F.sum(COUNT).alias(COUNT)).where(F.col(COUNT) != 0)
    if any(_has_map(df.schema[c].dataType) for c in cols):
        key = F.to_json(F.struct(*[F.col(c) for c in cols]))
        return (df.groupBy(key.alias("__k"))
                .agg(*[F.first(c).alias(c) for c in cols], F.sum(COUNT).alias(COUNT))
                .where(F.col(COUNT) != 0).drop("__k"))
    return df.groupBy(*cols).agg(F.sum(COUNT).alias(COUNT)).where(F.col(COUNT) != 0)


def expand(df: DataFrame) -> DataFrame:
    """Rows repeated by their (positive) count, without ``__n``: a multiset as plain rows."""
    cols = [c for c in df.columns if c != COUNT]
    pos = df.where(F.col(COUNT) > 0)
    rep = F.explode(F.array_repeat(F.lit(0), F.col(COUNT).cast("int")))
    return pos.select(*cols, rep.alias("__r")).drop("__r")


def emit_inserts_deletes(df: DataFrame) -> DataFrame:
    """A signed delta as a changelog: ``+I`` per positive and ``-D`` per negative count."""
    cols = [c for c in df.columns if c != COUNT]
    op = F.when(F.col(COUNT) > 0, F.lit("+I")).otherwise(F.lit("-D"))
    rep = F.explode(F.array_repeat(F.lit(0), F.abs(F.col(COUNT)).cast("int")))
    return df.select(*cols, op.alias(OP), rep.alias("__r")).drop("__r")


def diff(new: DataFrame, old: DataFrame, cols: Sequence[str]) -> DataFrame:
    """``new - old`` as a signed delta (both multisets with ``__n``)."""
    neg = old.select(*cols, (-F.col(COUNT)).alias(COUNT))
    return net(new.select(*cols, COUNT).unionByName(neg), cols)


def null_safe_eq(left: Sequence[Column], right: Sequence[Column]) -> Column:
    cond = F.lit(True)
    for a, b in zip(left, right):
        cond = cond & a.eqNullSafe(b)
    return cond


def semi(df: DataFrame, keys: DataFrame, df_cols: Sequence[str]) -> DataFrame:
    """Rows of ``df`` whose ``df_cols`` equal (null-safely) a row of ``keys`` (columns k0..)."""
    if not df_cols:
        return df
    kcols = [f"k{i}" for i in range(len(df_cols))]
    cond = null_safe_eq([df[c] for c in df_cols], [keys[k] for k in kcols])
    return df.join(keys, cond, "left_semi")


def anti(df: DataFrame, keys: DataFrame, df_cols: Sequence[str]) -> DataFrame:
    if not df_cols:
        return df.limit(0)
    kcols = [f"k{i}" for i in range(len(df_cols))]
    cond = null_safe_eq([df[c] for c in df_cols], [keys[k] for k in kcols])
    return df.join(keys, cond, "left_anti")


def key_frame(df: DataFrame, cols: Sequence[str]) -> DataFrame:
    """The distinct keys of ``df`` as columns k0..kn (a one-row frame when there are no keys)."""
    if not cols:
        return df.limit(1).select(F.lit(0).alias("k0"))
    return df.select(*[F.col(c).alias(f"k{i}") for i, c in enumerate(cols)]).distinct()
