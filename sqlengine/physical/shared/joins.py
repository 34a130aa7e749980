"""Joins of a node's two inputs, shared by the join operators (regular, interval, window
and temporal): whole inputs in batch, and signed multisets per epoch (the delta rule
``ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR``, a result row's count the product of its inputs')."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from sqlengine import types as T
from sqlengine.hidden import COUNT, OP, TASK, Lowered, drop_eoi, fcol, fcols
from sqlengine.physical.operator import Operator
from sqlengine.physical.shared.logs import append_log
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, BROADCAST, FORWARD, INSERT_ONLY, SINGLE, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.delta import columns, emit_inserts_deletes, epoch_delta, expand, key_frame, net
from sqlengine.runtime.state import Table

HOW = {"INNER": "inner", "LEFT": "left_outer", "RIGHT": "right_outer", "FULL": "full_outer",
       "SEMI": "left_semi", "ANTI": "left_anti"}


class JoinOperator(Operator):
    """What the join operators share: hashed on the equi keys (without equi keys one task
    per side in streaming, the right side broadcast in batch), insert-only out of
    insert-only inputs, one Spark join in batch. ``kind`` names the operator in EXPLAIN."""

    stateful = True
    kind = "Join"

    def materializes(self, node: P.Node) -> bool:
        """Per epoch each side's delta (``deltas``) or pending rows (``pend``) is persisted
        (the output too where several consumers read it: ``runtime/epoch.py``)."""
        return True

    def explain(self, node: P.Join) -> str:
        return (f"{self.kind}(joinType=[{node.join_type()}], where=[{node.condition}], "
                f"select=[{', '.join(node.names())}])")

    def edges(self, node: P.Join, streaming: bool) -> list[Edge]:
        if not node.left_keys:
            return [SINGLE, SINGLE] if streaming else [FORWARD, BROADCAST]
        return [hash_edge(node.left, node.left_keys), hash_edge(node.right, node.right_keys)]

    def changelog(self, node: P.Join, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS if any(i != INSERT_ONLY for i in inputs) else INSERT_ONLY

    def lower(self, ctx: BatchContext, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        return Lowered(batch_join(ctx, node, drop_eoi(left).df, drop_eoi(right).df))


# -- batch ---------------------------------------------------------------------------------
def _align(node: P.Join, left: DataFrame, right: DataFrame, keyed: bool = False
           ) -> tuple[DataFrame, DataFrame, int, int]:
    """Left keeps f0..f(nl-1); right's columns move to f(nl)..: one name space for the
    condition (``keyed``: with each side's ``__task``, as ``__tl`` and ``__tr``)."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    left = left.select(*[fcol(i) for i in range(nl)], *([F.col(TASK).alias("__tl")] if keyed else []))
    right = right.select(*[fcol(j).alias(f"f{nl + j}") for j in range(nr)],
                         *([F.col(TASK).alias("__tr")] if keyed else []))
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


def batch_temporal_join(ctx: BatchContext, node: P.TemporalJoin, left: DataFrame, right: DataFrame,
                        keyed: bool = False) -> DataFrame:
    """Each left row joins the right row with its key and the largest ``right_time <=
    left_time`` (event time); processing time joins the right table as it is. The rest
    of the condition applies to that version (LEFT: NULLs when it fails). ``keyed``: both
    sides are on their keys' tasks (an epoch's), and stay there."""
    left, right, nl, nr = _align(node, left, right, keyed)
    lid = "__lid"
    left = left.withColumn(lid, F.monotonically_increasing_id())
    on = F.col("__tl") == F.col("__tr") if keyed else F.lit(True)
    for lk, rk in zip(node.left_keys, node.right_keys):
        on = on & (fcol(lk) == fcol(nl + rk))
    if node.right_time >= 0:
        on = on & (fcol(nl + node.right_time) <= fcol(node.left_time))
    joined = left.join(right.hint("merge"), on, "left") if node.left_keys else left.join(right, on, "left")
    if node.right_time >= 0:
        # Partitioned within the join's key partitions: no exchange beyond the join's.
        latest = Window.partitionBy(*[fcol(k) for k in node.left_keys], *([F.col("__tl")] if keyed else []), lid) \
            .orderBy(fcol(nl + node.right_time).desc_nulls_last())
        joined = joined.withColumn("__v", F.row_number().over(latest)).where(F.col("__v") == 1)
    cond = ctx.expr(node.condition) if node.condition is not None else F.lit(True)
    if node.kind == "INNER":
        return joined.where(cond).select(*[fcol(i) for i in range(nl + nr)])
    ok = F.coalesce(cond, F.lit(False))
    return joined.select(*[fcol(i) for i in range(nl)],
                         *[F.when(ok, fcol(nl + j)).alias(f"f{nl + j}") for j in range(nr)])


# -- per epoch -------------------------------------------------------------------------------
def key_columns(keys: tuple[int, ...], other: tuple[int, ...], side: P.Node, other_side: P.Node) -> list[Column]:
    """One side's equi-join key, as its exchange and state hash it: each column cast to
    the type it shares with its partner on the other side, so that keys that join hash
    to the same key group (``INT = BIGINT`` hashes as BIGINT on both sides)."""
    out = []
    for k, o in zip(keys, other):
        mine, theirs = side.schema[k].type, other_side.schema[o].type
        if mine.to_spark() == theirs.to_spark():
            out.append(fcol(k))
            continue
        common = T.common_type(mine.with_time_attr(None), theirs.with_time_attr(None))
        out.append(fcol(k).cast(common.to_spark()) if common is not None else fcol(k))
    return out


def join_key(node: P.Join, extra: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
             ) -> tuple[list[Column], list[Column]]:
    """Both sides' keys (``key_columns``): the equi keys, then ``extra`` (per side: a
    window join's window bounds)."""
    lk, rk = node.left_keys + extra[0], node.right_keys + extra[1]
    return key_columns(lk, rk, node.left, node.right), key_columns(rk, lk, node.right, node.left)


def join_frames(ctx: BatchContext, node: P.Join, left: DataFrame, right: DataFrame, kind: str) -> DataFrame:
    """Join two signed multisets (columns f.., ``__task``, ``__n``) as ``node`` does, each
    row of one side only with the rows on its own task; result: the node's columns f0..,
    ``__task`` and ``__n`` (product of counts; an unmatched side counts 1)."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    lf = left.select(*fcols(nl), F.col(TASK).alias("__tl"), F.col(COUNT).alias("__nl"))
    rf = right.select(*[F.col(f"f{i}").alias(f"f{nl + i}") for i in range(nr)], F.col(TASK).alias("__tr"),
                      F.col(COUNT).alias("__nr"))
    cond = F.col("__tl") == F.col("__tr")
    if node.condition is not None:
        cond = cond & ctx.expr(node.condition)
    out = lf.join(rf, cond, HOW[kind])
    if kind in ("SEMI", "ANTI"):
        return out.select(*fcols(nl), F.col("__tl").alias(TASK), F.col("__nl").alias(COUNT))
    n = F.coalesce(F.col("__nl"), F.lit(1)) * F.coalesce(F.col("__nr"), F.lit(1))
    return out.select(*fcols(nl + nr), F.coalesce(F.col("__tl"), F.col("__tr")).alias(TASK), n.alias(COUNT))


def deltas(ctx: EpochContext, node: P.Join, left: Lowered, right: Lowered,
           expire_keys: bool = True) -> tuple["Side", "Side"]:
    """Both inputs through the node's exchanges, as epoch deltas with their state logs
    (``left``/``right``, keyed by the join key); ``expire_keys``:
    ``table.exec.state.ttl`` applies per join key."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    lkey, rkey = join_key(node)
    dl = ctx.persist(epoch_delta(ctx.exchange(left.df, lkey), left.updating, columns(nl)))
    dr = ctx.persist(epoch_delta(ctx.exchange(right.df, rkey), right.updating, columns(nr)))
    tl = ctx.table("left", dl.schema, lkey)
    tr = ctx.table("right", dr.schema, rkey)
    lk = [f"f{k}" for k in node.left_keys] + [TASK] if expire_keys else []
    rk = [f"f{k}" for k in node.right_keys] + [TASK] if expire_keys else []
    return (Side(ctx, "left", tl, dl, lk, left.empty), Side(ctx, "right", tr, dr, rk, right.empty))


class Side:
    """One input's state log as of this epoch, without the keys ``table.exec.state.ttl``
    expired (``stored``: as written; ``old``: live); ``keys``: the columns a key expires
    by (``__task`` last), or none."""

    def __init__(self, ctx: EpochContext, name: str, table: Table, delta: DataFrame, keys: list[str],
                 empty: bool = False):
        self.table, self.delta, self.keys, self.empty = table, delta, keys, empty
        self.stored = table.read(ctx.epoch)
        self.expiry = ctx.expiry(name, ctx.persist(key_frame(delta, keys)), keyed=len(keys) > 1)
        self.old = self.expiry.live(self.stored, keys)
        if self.expiry.expired is not None:  # the log holds retractions of expired rows
            self.old = net(self.old, [c for c in delta.columns if c != COUNT])

    def log(self, ctx: EpochContext, keep: Optional[Column] = None) -> None:
        if self.empty and self.expiry.expired is None:
            return  # nothing changed: the latest version stays current
        append_log(self.table, ctx.epoch, self.expiry.retract(self.stored, self.delta, self.keys),
                   [c for c in self.delta.columns if c != COUNT], keep)


def finish(ctx: EpochContext, node: P.Join, out: DataFrame, ls: Side, rs: Side, insert_only: bool,
           keep: tuple[Optional[Column], Optional[Column]] = (None, None)) -> Lowered:
    """Log both sides, and emit the epoch's joined delta (insert-only: plain rows; else
    ``+I``/``-D``). Not persisted: its one consumer reads it once (a fork's consumers
    share a persisted copy, ``runtime/epoch.py``)."""
    width = len(node.schema)
    ls.log(ctx, keep[0])
    rs.log(ctx, keep[1])
    if insert_only:
        return Lowered(expand(out).select(*fcols(width)))
    return Lowered(emit_inserts_deletes(out).select(*fcols(width), OP), False, True)


def inner_delta(ctx: BatchContext, node: P.Join, dl: DataFrame, dr: DataFrame, old_l: DataFrame,
                old_r: DataFrame, l_empty: bool = False, r_empty: bool = False, netted: bool = True,
                grow: str = "left") -> DataFrame:
    """``ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR``, computed as two joins: the side ``grow``
    names joins the other's delta as its new state (``L_new ⋈ ΔR ∪ ΔL ⋈ R_old`` for
    "left"), so the other delta is sorted once, not twice; grow the side whose delta
    is smaller. A term with an empty delta is skipped (so an epoch that changes one side
    does not read the other side's whole state twice). Over insert-only inputs nothing
    can cancel, so the result is not netted."""
    width = len(node.schema)
    if l_empty and r_empty:
        return join_frames(ctx, node, dl, dr, "INNER").limit(0)
    if l_empty:
        out = join_frames(ctx, node, old_l, dr, "INNER")
    elif r_empty:
        out = join_frames(ctx, node, dl, old_r, "INNER")
    elif grow == "left":
        out = join_frames(ctx, node, dl, old_r, "INNER").unionByName(
            join_frames(ctx, node, _routed(ctx, old_l).unionByName(dl), dr, "INNER"))
    else:
        out = join_frames(ctx, node, old_l, dr, "INNER").unionByName(
            join_frames(ctx, node, dl, _routed(ctx, old_r).unionByName(dr), "INNER"))
    return net(out, columns(width)) if netted else out


def _routed(ctx: BatchContext, old: DataFrame) -> DataFrame:
    """Stored rows (with their ``__task``) partitioned as an exchange partitions an epoch's
    delta, so a union of the two keeps the delta's partitioning (else Spark would
    shuffle the delta again)."""
    return old.repartition(ctx.node.parallelism, F.col(TASK))
