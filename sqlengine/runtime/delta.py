"""Changelogs as signed multisets: the algebra every incremental operator is built from.

Inside an epoch an operator sees each input as a *delta*: a Spark batch DataFrame with
the node's columns ``f0..fn`` and a signed count ``__n`` (``+I``/``+U`` count +1,
``-U``/``-D`` count -1). State holds netted rows (one row per distinct value with its
multiplicity). All of it is Spark batch work: no per-row Python.

Behind a hash exchange every frame also carries ``__task`` (``runtime/keygroups.py``);
an operator lists it among the columns it nets and the keys it matches on, so Spark
keeps each key on the task that owns it. A key frame (``key_frame``) names its columns
``k0..`` by position, and the task ``k__task``.
"""
from __future__ import annotations

from typing import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StructType, ArrayType, DataType

from sqlengine.hidden import COUNT, OP, TASK, fcols

POSITIVE = ("+I", "+U")
TASK_KEY = "k" + TASK  # a key frame's task column


def columns(width: int, keyed: bool = True) -> list[str]:
    """A frame's columns as an operator nets them: ``f0..`` and, behind an exchange, ``__task``."""
    return fcols(width) + ([TASK] if keyed else [])


def signed(df: DataFrame, updating: bool, cols: Sequence[str]) -> DataFrame:
    """The delta of a lowered input: the columns ``cols`` plus ``__n`` (+1/-1 per change)."""
    n = F.when(F.col(OP).isin(*POSITIVE), F.lit(1)).otherwise(F.lit(-1)) if updating else F.lit(1)
    return df.select(*[F.col(c) for c in cols], n.cast("long").alias(COUNT))


def epoch_delta(df: DataFrame, updating: bool, cols: Sequence[str]) -> DataFrame:
    """An input's epoch delta as a signed multiset. An updating input is netted (a change
    and its retraction in one epoch cancel); an insert-only one is not: its rows only add,
    duplicates are just multiplicities, and a wide group-by per epoch would cost more
    than it saves (the state log is netted when it is compacted)."""
    rows = signed(df, updating, cols)
    return net(rows, cols) if updating else rows


def has_map(t: DataType) -> bool:
    if isinstance(t, MapType):
        return True
    if isinstance(t, StructType):
        return any(has_map(f.dataType) for f in t.fields)
    if isinstance(t, ArrayType):
        return has_map(t.elementType)
    return False


def net(df: DataFrame, cols: Sequence[str]) -> DataFrame:
    """One row per distinct value of ``cols`` with its summed count; zero counts vanish.

    Spark cannot group by MAP values; rows with a MAP column are grouped by their
    JSON text instead (the first row of each group is kept as its value).
    """
    if not cols:
        return df.agg(F.sum(COUNT).alias(COUNT)).where(F.col(COUNT) != 0)
    if any(has_map(df.schema[c].dataType) for c in cols):
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


def keys_equal(left: DataFrame, right: DataFrame, left_cols: Sequence[str], right_cols: Sequence[str]) -> Column:
    """The columns equal pairwise, null-safely, except ``__task`` (never null), compared
    plainly: Spark keeps it as a join key of its own, which the exchange's partitioning
    by ``__task`` satisfies (a null-safe key becomes ``coalesce``/``isnull`` keys it
    would shuffle both sides again for)."""
    cond = F.lit(True)
    for a, b in zip(left_cols, right_cols):
        cond = cond & (left[a] == right[b] if a == TASK else left[a].eqNullSafe(right[b]))
    return cond


def key_names(cols: Sequence[str]) -> list[str]:
    """The names of a key frame's columns for ``cols``: ``k0..`` by position, ``k__task``."""
    return [TASK_KEY if c == TASK else f"k{i}" for i, c in enumerate(cols)]


def _matches(df: DataFrame, keys: DataFrame, df_cols: Sequence[str]) -> Column:
    return keys_equal(df, keys, df_cols, key_names(df_cols))


def semi(df: DataFrame, keys: DataFrame, df_cols: Sequence[str]) -> DataFrame:
    """Rows of ``df`` whose ``df_cols`` equal (null-safely) a row of the key frame ``keys``."""
    if not df_cols:
        return df
    return df.join(keys, _matches(df, keys, df_cols), "left_semi")


def anti(df: DataFrame, keys: DataFrame, df_cols: Sequence[str]) -> DataFrame:
    """Rows of ``df`` whose ``df_cols`` equal no row of the key frame ``keys``."""
    if not df_cols:
        return df.limit(0)
    return df.join(keys, _matches(df, keys, df_cols), "left_anti")


def key_frame(df: DataFrame, cols: Sequence[str]) -> DataFrame:
    """The distinct keys of ``df`` (``key_names``; a one-row frame when there are no keys)."""
    if not cols:
        return df.limit(1).select(F.lit(0).alias("k0"))
    return df.select(*[F.col(c).alias(k) for c, k in zip(cols, key_names(cols))]).distinct()
