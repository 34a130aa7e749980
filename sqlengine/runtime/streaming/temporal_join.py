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

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col
from sqlengine.runtime.streaming.changes import epoch_delta, expand, fcols, net, signed
from sqlengine.runtime.streaming.join import join_frames


def epoch_temporal_join(lw, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
    if node.right_time < 0:
        return _lookup(lw, node, left, right)
    ep = lw.ep
    nl, nr = len(node.left.schema), len(node.right.schema)
    prev = lw.prev_input_wm(node)
    lt = F.unix_millis(F.col(f"f{node.left_time}"))
    fresh = left.df.select(*fcols(nl)).where(lt > F.lit(prev))
    pending_t = ep.store.table(ep.ids[node], "pending", fresh.schema, [f"f{k}" for k in node.left_keys])
    pending = ep.persist(pending_t.read(ep.epoch).unionByName(fresh))
    rnew = right.df.select(*fcols(nr))
    if right.updating:  # versions are the rows that take effect; retractions end nothing here
        from connectors.base import OP
        rnew = right.df.where(F.col(OP).isin("+I", "+U")).select(*fcols(nr))
    versions_t = ep.store.table(ep.ids[node], "versions", rnew.schema, [f"f{k}" for k in node.right_keys])
    versions = ep.persist(versions_t.read(ep.epoch).unionByName(rnew))
    lw.settle(node, pending, versions)
    wm = lw.input_wm(node)
    ready = ep.persist(pending.where(lt <= F.lit(wm)))
    out = ep.persist(_as_of(lw, node, ready, versions))
    pending_t.write(ep.epoch, pending.where(lt > F.lit(wm)), snapshot=True)
    versions_t.write(ep.epoch, _prune(node, versions, wm), snapshot=True)
    return Lowered(out)


def _as_of(lw, node: P.TemporalJoin, ready: DataFrame, versions: DataFrame) -> DataFrame:
    from sqlengine.runtime.ops.join import batch_temporal_join
    return batch_temporal_join(lw, node, ready, versions)


def _prune(node: P.TemporalJoin, versions: DataFrame, wm: int) -> DataFrame:
    rt = col(node.right_time)
    keys = [col(k) for k in node.right_keys]
    old = F.unix_millis(rt) <= F.lit(wm)
    newest_old = Window.partitionBy(*keys, old).orderBy(rt.desc())
    ranked = versions.withColumn("__rn", F.row_number().over(newest_old))
    return ranked.where(~old | (F.col("__rn") == 1)).drop("__rn")


def _lookup(lw, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
    ep = lw.ep
    nl, nr = len(node.left.schema), len(node.right.schema)
    dl = signed(left.df, False, nl)
    from sqlengine.runtime.streaming.runner import lookup_side
    if lookup_side(node) is not None:  # a lookup table: its rows as they are in this epoch, no state
        if left.empty:
            return lw.nothing(node, False)
        current = ep.persist(signed(right.df, False, nr))
        kind = "LEFT" if node.kind == "LEFT" else "INNER"
        return Lowered(ep.persist(expand(join_frames(lw, node, dl, current, kind))))
    dr = epoch_delta(right.df, right.updating, nr)
    table = ep.store.table(ep.ids[node], "right", dr.schema, [f"f{k}" for k in node.right_keys])
    current = ep.persist(net(table.read(ep.epoch).unionByName(dr), fcols(nr)))
    kind = "LEFT" if node.kind == "LEFT" else "INNER"
    out = ep.persist(expand(join_frames(lw, node, dl, current, kind)))
    table.write(ep.epoch, current, snapshot=True)
    return Lowered(out)
