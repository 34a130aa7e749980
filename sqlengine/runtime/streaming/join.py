"""Joins in an epoch: regular (with retractions), interval and window joins.

* Regular INNER join: the delta rule ``ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR`` over signed
  multisets (a result row's count is the product of its inputs' counts), so
  retractions on either side retract the joined rows they produced.
* Regular outer, SEMI and ANTI joins: the join keys an epoch touches are re-joined
  from both sides' state before and after the epoch, and the difference is emitted
  (``+I``/``-D``): a null-padded row is retracted when its first match arrives.
* Interval join: the inner part by the delta rule; a LEFT/RIGHT/FULL interval join
  emits a row's null-padded result once the watermark passes the last time a partner
  could arrive (left: ``l.time + upper``; right: ``r.time - lower``), insert-only.
* Window join: both sides wait in state until the watermark closes their window, then
  the closed windows are joined as a batch (any join kind), insert-only.

State: ``left``/``right`` hold each side's netted rows (compacted logs); a window join
holds each side's pending rows.
"""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered
from sqlengine.runtime.streaming.changes import (diff, emit_inserts_deletes, epoch_delta, fcols, key_frame,
                                                 net, semi)
from sqlengine.runtime.streaming.group_aggregate import append_log
from sqlengine.runtime.streaming.state import COUNT

HOW = {"INNER": "inner", "LEFT": "left_outer", "RIGHT": "right_outer", "FULL": "full_outer",
       "SEMI": "left_semi", "ANTI": "left_anti"}


def join_frames(lw, node: P.Join, left: DataFrame, right: DataFrame, kind: str) -> DataFrame:
    """Join two signed multisets (columns f.., ``__n``) as ``node`` does; result: the
    node's columns f0.. and ``__n`` (product of counts; an unmatched side counts 1)."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    lf = left.select(*fcols(nl), F.col(COUNT).alias("__nl"))
    rf = right.select(*[F.col(f"f{i}").alias(f"f{nl + i}") for i in range(nr)], F.col(COUNT).alias("__nr"))
    cond = lw.exprs.lower(node.condition) if node.condition is not None else F.lit(True)
    out = lf.join(rf, cond, HOW[kind])
    if kind in ("SEMI", "ANTI"):
        return out.select(*fcols(nl), F.col("__nl").alias(COUNT))
    n = F.coalesce(F.col("__nl"), F.lit(1)) * F.coalesce(F.col("__nr"), F.lit(1))
    return out.select(*fcols(nl + nr), n.alias(COUNT))


def _sides(lw, node: P.Join, left: Lowered, right: Lowered):
    ep = lw.ep
    nl, nr = len(node.left.schema), len(node.right.schema)
    dl = ep.persist(epoch_delta(left.df, left.updating, nl))
    dr = ep.persist(epoch_delta(right.df, right.updating, nr))
    tl = ep.store.table(ep.ids[node], "left", dl.schema, [f"f{k}" for k in node.left_keys])
    tr = ep.store.table(ep.ids[node], "right", dr.schema, [f"f{k}" for k in node.right_keys])
    return dl, dr, tl, tr


class _Side:
    """One input's state log as of this epoch, without the keys ``table.exec.state.ttl``
    expired (``stored``: as written; ``old``: live)."""

    def __init__(self, lw, node: P.Join, name: str, table, delta: DataFrame, keys: list[str],
                 empty: bool = False):
        from sqlengine.runtime.streaming.ttl import Expiry
        self.table, self.delta, self.keys, self.empty = table, delta, keys, empty
        self.stored = table.read(lw.ep.epoch)
        self.expiry = Expiry(lw, node, name, ep_key_frame(lw, delta, keys), keyed=bool(keys))
        self.old = self.expiry.live(self.stored, keys)
        if self.expiry.expired is not None:  # the log holds retractions of expired rows
            self.old = net(self.old, fcols(len(delta.columns) - 1))

    def log(self, lw, width: int, keep: Optional[Column] = None) -> None:
        if self.empty and self.expiry.expired is None:
            return  # nothing changed: the latest version stays current
        append_log(self.table, lw.ep.epoch, self.expiry.retract(self.stored, self.delta, self.keys),
                   fcols(width), keep)


def ep_key_frame(lw, delta: DataFrame, keys: list[str]) -> DataFrame:
    return lw.ep.persist(key_frame(delta, keys))


def _finish(lw, node, out: DataFrame, ls: "_Side", rs: "_Side", insert_only: bool,
            keep: tuple[Optional[Column], Optional[Column]] = (None, None)) -> Lowered:
    ep = lw.ep
    nl, nr = len(node.left.schema), len(node.right.schema)
    out = ep.persist(out)
    ls.log(lw, nl, keep[0])
    rs.log(lw, nr, keep[1])
    if insert_only:
        from sqlengine.runtime.streaming.changes import expand
        return Lowered(expand(out))
    return Lowered(emit_inserts_deletes(out), False, True)


def _inner_delta(lw, node: P.Join, dl, dr, old_l, old_r, l_empty: bool = False,
                 r_empty: bool = False, netted: bool = True) -> DataFrame:
    """ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR; a term with an empty delta is skipped (so an
    epoch that changes one side does not read the other side's whole state twice).
    Over insert-only inputs nothing can cancel, so the result is not netted."""
    width = len(node.schema)
    parts = ([] if l_empty else [join_frames(lw, node, dl, old_r, "INNER")]) + \
        ([] if r_empty else [join_frames(lw, node, old_l, dr, "INNER")]) + \
        ([] if l_empty or r_empty else [join_frames(lw, node, dl, dr, "INNER")])
    if not parts:
        return join_frames(lw, node, dl, dr, "INNER").limit(0)
    out = parts[0]
    for p in parts[1:]:
        out = out.unionByName(p)
    return net(out, fcols(width)) if netted else out


def epoch_join(lw, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
    ep = lw.ep
    dl, dr, tl, tr = _sides(lw, node, left, right)
    lk = [f"f{k}" for k in node.left_keys]
    rk = [f"f{k}" for k in node.right_keys]
    ls = _Side(lw, node, "left", tl, dl, lk, left.empty)
    rs = _Side(lw, node, "right", tr, dr, rk, right.empty)
    old_l, old_r = ls.old, rs.old
    if node.kind == "INNER":
        insert_only = not (left.updating or right.updating)
        out = _inner_delta(lw, node, dl, dr, old_l, old_r, left.empty, right.empty, not insert_only)
        return _finish(lw, node, out, ls, rs, not (left.updating or right.updating))
    touched = ep.persist(key_frame(dl, lk).unionByName(key_frame(dr, rk)).distinct())
    ol, orr = ep.persist(semi(old_l, touched, lk)), ep.persist(semi(old_r, touched, rk))
    nl_, nr_ = len(node.left.schema), len(node.right.schema)
    new_l = net(ol.unionByName(dl), fcols(nl_))
    new_r = net(orr.unionByName(dr), fcols(nr_))
    width = len(node.schema)
    out = diff(join_frames(lw, node, new_l, new_r, node.kind),
               join_frames(lw, node, ol, orr, node.kind), fcols(width))
    return _finish(lw, node, out, ls, rs, False)


def _ms(c: Column) -> Column:
    return F.unix_millis(c)


def epoch_interval_join(lw, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
    """State is cleaned by time, as Flink does: once the watermark passes ``l.time +
    upper`` no later right row can match a left row (nor a right row once it passes
    ``r.time - lower``), so compaction drops them; rows already late on arrival
    (older than the watermark before the epoch) are dropped."""
    from sqlengine.runtime.streaming.epoch import WM_MIN
    prev = lw.prev_input_wm(node)
    lt, rt = _ms(F.col(f"f{node.left_time}")), _ms(F.col(f"f{node.right_time}"))
    if prev > WM_MIN:
        left = Lowered(left.df.where(lt >= F.lit(prev)), empty=left.empty, updating=left.updating)
        right = Lowered(right.df.where(rt >= F.lit(prev)), empty=right.empty, updating=right.updating)
    dl, dr, tl, tr = _sides(lw, node, left, right)
    ls = _Side(lw, node, "left", tl, dl, [], left.empty)
    rs = _Side(lw, node, "right", tr, dr, [], right.empty)
    old_l, old_r = ls.old, rs.old
    out = _inner_delta(lw, node, dl, dr, old_l, old_r, left.empty, right.empty, netted=False)
    nl = len(node.left.schema)
    lw.settle(node, dl, dr)
    wm = lw.input_wm(node)
    all_l = net(old_l.unionByName(dl), fcols(nl))
    all_r = net(old_r.unionByName(dr), fcols(len(node.right.schema)))
    if node.kind in ("LEFT", "FULL"):
        expiry = _ms(F.col(f"f{node.left_time}")) + F.lit(node.upper_ms)
        due = all_l.where((expiry > F.lit(prev)) & (expiry <= F.lit(wm)))
        out = out.unionByName(_padded_left(lw, node, due, all_r))
    if node.kind in ("RIGHT", "FULL"):
        expiry = _ms(F.col(f"f{node.right_time}")) - F.lit(node.lower_ms)
        due = all_r.where((expiry > F.lit(prev)) & (expiry <= F.lit(wm)))
        out = out.unionByName(_padded_right(lw, node, all_l, due))
    keep = (lt + F.lit(node.upper_ms) > F.lit(wm), rt - F.lit(node.lower_ms) > F.lit(wm))
    return _finish(lw, node, out, ls, rs, True, keep)


def _padded_left(lw, node: P.Join, due: DataFrame, right: DataFrame) -> DataFrame:
    """Left rows of ``due`` that match no right row, padded with nulls."""
    unmatched = join_frames(lw, node, due, right, "ANTI")
    nl = len(node.left.schema)
    nulls = [F.lit(None).cast(f.type.to_spark()).alias(f"f{nl + i}") for i, f in enumerate(node.right.schema)]
    return unmatched.select(*fcols(nl), *nulls, COUNT)


def _padded_right(lw, node: P.Join, left: DataFrame, due: DataFrame) -> DataFrame:
    """Right rows of ``due`` that match no left row, padded with nulls."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    rf = due.select(*[F.col(f"f{i}").alias(f"f{nl + i}") for i in range(nr)], COUNT)
    cond = lw.exprs.lower(node.condition) if node.condition is not None else F.lit(True)
    unmatched = rf.join(left.select(*fcols(nl)), cond, "left_anti")
    nulls = [F.lit(None).cast(f.type.to_spark()).alias(f"f{i}") for i, f in enumerate(node.left.schema)]
    return unmatched.select(*nulls, *[F.col(f"f{nl + i}") for i in range(nr)], COUNT)


def epoch_window_join(lw, node: P.WindowJoin, left: Lowered, right: Lowered) -> Lowered:
    from sqlengine.runtime.streaming.window_aggregate import close, pend
    prev = lw.prev_input_wm(node)
    nl, nr = len(node.left.schema), len(node.right.schema)
    lend, rend = f"f{node.left_window[1]}", f"f{node.right_window[1]}"
    fl = left.df.select(*fcols(nl)).where(_ms(F.col(lend)) > F.lit(prev))
    fr = right.df.select(*fcols(nr)).where(_ms(F.col(rend)) > F.lit(prev))
    waiting = [pend(lw, node, "left", fl, [f"f{k}" for k in node.left_keys]),
               pend(lw, node, "right", fr, [f"f{k}" for k in node.right_keys])]
    lw.settle(node, *(pending for _, pending in waiting))
    cl = close(lw, node, waiting[0], lend).withColumn(COUNT, F.lit(1).cast("long"))
    cr = close(lw, node, waiting[1], rend).withColumn(COUNT, F.lit(1).cast("long"))
    from sqlengine.runtime.streaming.changes import expand
    return Lowered(expand(join_frames(lw, node, cl, cr, node.kind)))
