"""An interval join in an epoch: the inner part by the delta rule; a LEFT/RIGHT/FULL
interval join emits a row's null-padded result once the watermark passes the last time
a partner could arrive (left: ``l.time + upper``; right: ``r.time - lower``),
insert-only. State is cleaned by time, as Flink does: once the watermark passes
``l.time + upper`` no later right row can match a left row (nor a right row once it
passes ``r.time - lower``), so compaction drops them; rows already late on arrival
(older than the watermark before the epoch) are dropped."""
from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine.functions.varying import above, at_least, at_most
from sqlengine.hidden import COUNT, TASK, Lowered, fcols
from sqlengine.physical.shared.joins import deltas, finish, inner_delta, join_frames
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.delta import columns, net
from sqlengine.runtime.watermarks import WM_MIN


def _ms(c: Column) -> Column:
    return F.unix_millis(c)


def epoch_interval_join(ctx: EpochContext, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
    prev = ctx.previous_input_watermark
    lt, rt = _ms(F.col(f"f{node.left_time}")), _ms(F.col(f"f{node.right_time}"))
    if prev > WM_MIN:
        left = Lowered(left.df.where(at_least(lt, prev)), empty=left.empty, updating=left.updating)
        right = Lowered(right.df.where(at_least(rt, prev)), empty=right.empty, updating=right.updating)
    ls, rs = deltas(ctx, node, left, right, expire_keys=False)
    dl, dr, old_l, old_r = ls.delta, rs.delta, ls.old, rs.old
    out = inner_delta(ctx, node, dl, dr, old_l, old_r, left.empty, right.empty, netted=False)
    nl = len(node.left.schema)
    ctx.settle(dl, dr)
    wm = ctx.input_watermark
    all_l = net(old_l.unionByName(dl), columns(nl))
    all_r = net(old_r.unionByName(dr), columns(len(node.right.schema)))
    if node.kind in ("LEFT", "FULL"):
        expiry = _ms(F.col(f"f{node.left_time}")) + F.lit(node.upper_ms)
        due = all_l.where(above(expiry, prev) & at_most(expiry, wm))
        out = out.unionByName(_padded_left(ctx, node, due, all_r))
    if node.kind in ("RIGHT", "FULL"):
        expiry = _ms(F.col(f"f{node.right_time}")) - F.lit(node.lower_ms)
        due = all_r.where(above(expiry, prev) & at_most(expiry, wm))
        out = out.unionByName(_padded_right(ctx, node, all_l, due))
    keep = (above(lt + F.lit(node.upper_ms), wm), above(rt - F.lit(node.lower_ms), wm))
    return finish(ctx, node, out, ls, rs, True, keep)


def _padded_left(ctx: BatchContext, node: P.Join, due: DataFrame, right: DataFrame) -> DataFrame:
    """Left rows of ``due`` that match no right row, padded with nulls."""
    unmatched = join_frames(ctx, node, due, right, "ANTI")
    nl = len(node.left.schema)
    nulls = [F.lit(None).cast(f.type.to_spark()).alias(f"f{nl + i}") for i, f in enumerate(node.right.schema)]
    return unmatched.select(*fcols(nl), *nulls, TASK, COUNT)


def _padded_right(ctx: BatchContext, node: P.Join, left: DataFrame, due: DataFrame) -> DataFrame:
    """Right rows of ``due`` that match no left row, padded with nulls."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    rf = due.select(*[F.col(f"f{i}").alias(f"f{nl + i}") for i in range(nr)], F.col(TASK).alias("__tr"), COUNT)
    cond = F.col("__tl") == F.col("__tr")
    if node.condition is not None:
        cond = cond & ctx.expr(node.condition)
    unmatched = rf.join(left.select(*fcols(nl), F.col(TASK).alias("__tl")), cond, "left_anti")
    nulls = [F.lit(None).cast(f.type.to_spark()).alias(f"f{i}") for i, f in enumerate(node.left.schema)]
    return unmatched.select(*nulls, *[F.col(f"f{nl + i}") for i in range(nr)], F.col("__tr").alias(TASK), COUNT)
