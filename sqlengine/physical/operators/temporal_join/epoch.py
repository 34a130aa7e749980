"""Temporal joins in an epoch: ``FOR SYSTEM_TIME AS OF``.

Event time: a left row waits until the watermark (of both inputs) passes its time, so
every version of the right row valid at that time has arrived; it then joins the
right version with the largest time not after its own (per key), or is null-padded
in a LEFT join. Right versions are kept per key: those newer than the watermark and
the newest one not newer. Processing time (a lookup join): each left row joins the
right table as it is in the epoch the row arrives. Output is insert-only.
"""
from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.functions.varying import above, at_most
from sqlengine.hidden import OP, TASK, Lowered, fcol, fcols
from sqlengine.physical.shared.joins import batch_temporal_join, join_frames, join_key
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import columns, epoch_delta, expand, net, signed


def epoch_temporal_join(ctx: EpochContext, node: P.TemporalJoin, left: Lowered, right: Lowered,
                        lookup: bool) -> Lowered:
    if node.right_time < 0:
        return _processing_time(ctx, node, left, right, lookup)
    nl, nr = len(node.left.schema), len(node.right.schema)
    lkey, rkey = join_key(node)
    prev = ctx.previous_input_watermark
    lt = F.unix_millis(F.col(f"f{node.left_time}"))
    fresh = ctx.exchange(left.df.select(*fcols(nl)).where(above(lt, prev)), lkey)
    pending_t = ctx.table("pending", fresh.schema, lkey)
    pending = ctx.persist(pending_t.read(ctx.epoch).unionByName(fresh))
    rnew = right.df.select(*fcols(nr))
    if right.updating:  # versions are the rows that take effect; retractions end nothing here
        rnew = right.df.where(F.col(OP).isin("+I", "+U")).select(*fcols(nr))
    rnew = ctx.exchange(rnew, rkey)
    versions_t = ctx.table("versions", rnew.schema, rkey)
    versions = ctx.persist(versions_t.read(ctx.epoch).unionByName(rnew))
    ctx.settle(pending, versions)
    wm = ctx.input_watermark
    ready = ctx.persist(pending.where(at_most(lt, wm)))
    out = ctx.persist(batch_temporal_join(ctx, node, ready, versions, keyed=True))
    pending_t.write(ctx.epoch, pending.where(above(lt, wm)), snapshot=True)
    versions_t.write(ctx.epoch, _prune(node, versions, wm), snapshot=True)
    return Lowered(out)


def _prune(node: P.TemporalJoin, versions: DataFrame, wm: int) -> DataFrame:
    rt = fcol(node.right_time)
    keys = [fcol(k) for k in node.right_keys] + [F.col(TASK)]
    old = at_most(F.unix_millis(rt), wm)
    newest_old = Window.partitionBy(*keys, old).orderBy(rt.desc())
    ranked = versions.withColumn("__rn", F.row_number().over(newest_old))
    return ranked.where(~old | (F.col("__rn") == 1)).drop("__rn")


def _processing_time(ctx: EpochContext, node: P.TemporalJoin, left: Lowered, right: Lowered,
                     lookup: bool) -> Lowered:
    nl, nr = len(node.left.schema), len(node.right.schema)
    width = len(node.schema)
    lkey, rkey = join_key(node)
    dl = signed(ctx.exchange(left.df, lkey), False, columns(nl))
    kind = "LEFT" if node.kind == "LEFT" else "INNER"
    if lookup:  # a lookup table: its rows as they are in this epoch, no state
        if left.empty:
            return ctx.nothing(False)
        current = ctx.persist(signed(ctx.exchange(right.df, rkey), False, columns(nr)))
        return Lowered(ctx.persist(expand(join_frames(ctx, node, dl, current, kind)).select(*fcols(width))))
    dr = epoch_delta(ctx.exchange(right.df, rkey), right.updating, columns(nr))
    table = ctx.table("right", dr.schema, rkey)
    current = ctx.persist(net(table.read(ctx.epoch).unionByName(dr), columns(nr)))
    out = ctx.persist(expand(join_frames(ctx, node, dl, current, kind)).select(*fcols(width)))
    table.write(ctx.epoch, current, snapshot=True)
    return Lowered(out)
