"""A regular join in an epoch.

* INNER: the delta rule ``ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR`` over signed multisets,
  so retractions on either side retract the joined rows they produced.
* Outer, SEMI and ANTI: the join keys an epoch touches are re-joined from both sides'
  state before and after the epoch, and the difference is emitted (``+I``/``-D``): a
  null-padded row is retracted when its first match arrives.

State: ``left``/``right`` hold each side's netted rows (compacted logs).
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from sqlengine.hidden import TASK, Lowered
from sqlengine.physical.shared.joins import deltas, finish, inner_delta, join_frames
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import columns, diff, key_frame, net
from sqlengine.runtime.touched import cached_rows


def epoch_join(ctx: EpochContext, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
    lk = [f"f{k}" for k in node.left_keys] + [TASK]
    rk = [f"f{k}" for k in node.right_keys] + [TASK]
    ls, rs = deltas(ctx, node, left, right)
    dl, dr, old_l, old_r = ls.delta, rs.delta, ls.old, rs.old
    if node.kind == "INNER":
        # Each side's stored rows meet only the other side's delta: read narrowed to its keys.
        if not left.empty:
            old_r = ctx.touched(key_frame(dl, lk), rs.table).narrow(old_r, rk)
        if not right.empty:
            old_l = ctx.touched(key_frame(dr, rk), ls.table).narrow(old_l, lk)
        insert_only = not (left.updating or right.updating)
        out = inner_delta(ctx, node, dl, dr, old_l, old_r, left.empty, right.empty, not insert_only,
                          _smaller(dl, dr))
        return finish(ctx, node, out, ls, rs, insert_only)
    touched = ctx.touched(key_frame(dl, lk).unionByName(key_frame(dr, rk)).distinct(), ls.table, rs.table)
    ol, orr = ctx.persist(touched.rows(old_l, lk)), ctx.persist(touched.rows(old_r, rk))
    nl, nr = len(node.left.schema), len(node.right.schema)
    new_l = net(ol.unionByName(dl), columns(nl))
    new_r = net(orr.unionByName(dr), columns(nr))
    width = len(node.schema)
    out = diff(join_frames(ctx, node, new_l, new_r, node.kind),
               join_frames(ctx, node, ol, orr, node.kind), columns(width))
    return finish(ctx, node, out, ls, rs, False)


def _smaller(dl: DataFrame, dr: DataFrame) -> str:
    """The side whose epoch delta has fewer rows, where weighing the keys computed both
    (``touched.cached_rows``); else the left."""
    nl, nr = cached_rows(dl), cached_rows(dr)
    return "right" if nl is not None and nr is not None and nr < nl else "left"
