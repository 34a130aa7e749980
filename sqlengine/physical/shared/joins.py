"""Joins of a node's two inputs, shared by the join operators (regular, interval, window
and temporal): whole inputs in batch, and signed multisets per epoch (the delta rule
``ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR``, a result row's count the product of its inputs')."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.hidden import COUNT, Lowered, fcol, fcols
from sqlengine.physical.shared.logs import append_log
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.delta import emit_inserts_deletes, epoch_delta, expand, key_frame, net
from sqlengine.runtime.state import Table

HOW = {"INNER": "inner", "LEFT": "left_outer", "RIGHT": "right_outer", "FULL": "full_outer",
       "SEMI": "left_semi", "ANTI": "left_anti"}


# -- batch ---------------------------------------------------------------------------------
def _align(node: P.Join, left: DataFrame, right: DataFrame) -> tuple[DataFrame, DataFrame, int, int]:
    """Left keeps f0..f(nl-1); right's columns move to f(nl)..: one name space for the condition."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    left = left.select(*[fcol(i) for i in range(nl)])
    right = right.select(*[fcol(j).alias(f"f{nl + j}") for j in range(nr)])
    return left, right, nl, nr


def batch_join(ctx: BatchContext, node: P.Join, left: DataFrame, right: DataFrame) -> DataFrame:
    """Any ``Join`` (INNER/LEFT/RIGHT/FULL/SEMI/ANTI, interval and window joins included)
    as one Spark join on the full condition (Spark extracts the equi keys; SQL equality
    never matches NULL)."""
    left, right, nl, nr = _align(node, left, right)
    # The DAG's edges: both sides hashed on the equi keys (a sort-merge join), or the
    # right side broadcast when there are none.
    right = right.hint("merge" if node.left_keys else "broadcast")
    cond = ctx.expr(node.condition) if node.condition is not None else None
    if cond is None and node.kind == "INNER":
        out = left.crossJoin(right)
    else:
        out = left.join(right, cond if cond is not None else F.lit(True), HOW[node.kind])
    width = nl if node.kind in ("SEMI", "ANTI") else nl + nr
    return out.select(*[fcol(i) for i in range(width)])


def batch_temporal_join(ctx: BatchContext, node: P.TemporalJoin, left: DataFrame, right: DataFrame) -> DataFrame:
    """Each left row joins the right row with its key and the largest ``right_time <=
    left_time`` (event time); processing time joins the right table as it is. The rest
    of the condition applies to that version (LEFT: NULLs when it fails)."""
    left, right, nl, nr = _align(node, left, right)
    lid = "__lid"
    left = left.withColumn(lid, F.monotonically_increasing_id())
    on = F.lit(True)
    for lk, rk in zip(node.left_keys, node.right_keys):
        on = on & (fcol(lk) == fcol(nl + rk))
    if node.right_time >= 0:
        on = on & (fcol(nl + node.right_time) <= fcol(node.left_time))
    joined = left.join(right.hint("merge"), on, "left") if node.left_keys else left.join(right, on, "left")
    if node.right_time >= 0:
        # Partitioned within the join's key partitions: no exchange beyond the join's.
        latest = Window.partitionBy(*[fcol(k) for k in node.left_keys], lid) \
            .orderBy(fcol(nl + node.right_time).desc_nulls_last())
        joined = joined.withColumn("__v", F.row_number().over(latest)).where(F.col("__v") == 1)
    cond = ctx.expr(node.condition) if node.condition is not None else F.lit(True)
    if node.kind == "INNER":
        return joined.where(cond).select(*[fcol(i) for i in range(nl + nr)])
    ok = F.coalesce(cond, F.lit(False))
    return joined.select(*[fcol(i) for i in range(nl)],
                         *[F.when(ok, fcol(nl + j)).alias(f"f{nl + j}") for j in range(nr)])


# -- per epoch -------------------------------------------------------------------------------
def join_frames(ctx: BatchContext, node: P.Join, left: DataFrame, right: DataFrame, kind: str) -> DataFrame:
    """Join two signed multisets (columns f.., ``__n``) as ``node`` does; result: the
    node's columns f0.. and ``__n`` (product of counts; an unmatched side counts 1)."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    lf = left.select(*fcols(nl), F.col(COUNT).alias("__nl"))
    rf = right.select(*[F.col(f"f{i}").alias(f"f{nl + i}") for i in range(nr)], F.col(COUNT).alias("__nr"))
    cond = ctx.expr(node.condition) if node.condition is not None else F.lit(True)
    out = lf.join(rf, cond, HOW[kind])
    if kind in ("SEMI", "ANTI"):
        return out.select(*fcols(nl), F.col("__nl").alias(COUNT))
    n = F.coalesce(F.col("__nl"), F.lit(1)) * F.coalesce(F.col("__nr"), F.lit(1))
    return out.select(*fcols(nl + nr), n.alias(COUNT))


def deltas(ctx: EpochContext, node: P.Join, left: Lowered, right: Lowered,
           expire_keys: bool = True) -> tuple["Side", "Side"]:
    """Both inputs' epoch deltas with their state logs (``left``/``right``, keyed by the
    join keys); ``expire_keys``: ``table.exec.state.ttl`` applies per join key."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    lk = [f"f{k}" for k in node.left_keys]
    rk = [f"f{k}" for k in node.right_keys]
    dl = ctx.persist(epoch_delta(left.df, left.updating, nl))
    dr = ctx.persist(epoch_delta(right.df, right.updating, nr))
    tl = ctx.table("left", dl.schema, lk)
    tr = ctx.table("right", dr.schema, rk)
    return (Side(ctx, "left", tl, dl, lk if expire_keys else [], left.empty),
            Side(ctx, "right", tr, dr, rk if expire_keys else [], right.empty))


class Side:
    """One input's state log as of this epoch, without the keys ``table.exec.state.ttl``
    expired (``stored``: as written; ``old``: live)."""

    def __init__(self, ctx: EpochContext, name: str, table: Table, delta: DataFrame, keys: list[str],
                 empty: bool = False):
        self.table, self.delta, self.keys, self.empty = table, delta, keys, empty
        self.stored = table.read(ctx.epoch)
        self.expiry = ctx.expiry(name, ctx.persist(key_frame(delta, keys)), keyed=bool(keys))
        self.old = self.expiry.live(self.stored, keys)
        if self.expiry.expired is not None:  # the log holds retractions of expired rows
            self.old = net(self.old, fcols(len(delta.columns) - 1))

    def log(self, ctx: EpochContext, width: int, keep: Optional[Column] = None) -> None:
        if self.empty and self.expiry.expired is None:
            return  # nothing changed: the latest version stays current
        append_log(self.table, ctx.epoch, self.expiry.retract(self.stored, self.delta, self.keys),
                   fcols(width), keep)


def finish(ctx: EpochContext, node: P.Join, out: DataFrame, ls: Side, rs: Side, insert_only: bool,
           keep: tuple[Optional[Column], Optional[Column]] = (None, None)) -> Lowered:
    """Persist the epoch's joined delta, log both sides, and emit it (insert-only: plain
    rows; else ``+I``/``-D``)."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    out = ctx.persist(out)
    ls.log(ctx, nl, keep[0])
    rs.log(ctx, nr, keep[1])
    if insert_only:
        return Lowered(expand(out))
    return Lowered(emit_inserts_deletes(out), False, True)


def inner_delta(ctx: BatchContext, node: P.Join, dl: DataFrame, dr: DataFrame, old_l: DataFrame,
                old_r: DataFrame, l_empty: bool = False, r_empty: bool = False, netted: bool = True) -> DataFrame:
    """ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR; a term with an empty delta is skipped (so an
    epoch that changes one side does not read the other side's whole state twice).
    Over insert-only inputs nothing can cancel, so the result is not netted."""
    width = len(node.schema)
    parts = ([] if l_empty else [join_frames(ctx, node, dl, old_r, "INNER")]) + \
        ([] if r_empty else [join_frames(ctx, node, old_l, dr, "INNER")]) + \
        ([] if l_empty or r_empty else [join_frames(ctx, node, dl, dr, "INNER")])
    if not parts:
        return join_frames(ctx, node, dl, dr, "INNER").limit(0)
    out = parts[0]
    for p in parts[1:]:
        out = out.unionByName(p)
    return net(out, fcols(width)) if netted else out
