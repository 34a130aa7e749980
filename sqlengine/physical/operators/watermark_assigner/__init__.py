"""WatermarkAssigner: per epoch, the watermark is the largest event time seen so far
minus the delay (Flink's bounded out-of-orderness); batch needs no watermark, and
neither does a stream whose consumers never fire on time (no pass over the epoch).

The epoch's largest event time is observed on the rows as they flow to the operator
that fires on time (``streaming/epoch.LazyWatermark``): that operator's own pass over
them computes it.

Per split (Flink's per-partition watermarks): over a source with splits (Kafka
partitions, ``ScanResult.splits``) the largest event time is kept per split, and the
watermark is the minimum over the splits that have not ended and are not idle (no new
row for the table's ``scan.watermark.idle-timeout``, else ``table.exec.source.idle-timeout``,
as in Flink 1.18+); a split that never had a row holds it at
its minimum until it goes idle; when every live split is idle the watermark stays. It
never moves back (a split found later does not lower it)."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import functions as F

from sqlengine.config import SCAN_IDLE_TIMEOUT, duration_option_ms, source_idle_timeout_ms
from sqlengine.hidden import SPLIT, Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.watermarks import WM_MAX, WM_MIN, LazyWatermark, as_int


@register(P.WatermarkAssigner)
class WatermarkAssigner(Operator):
    def explain(self, node: P.WatermarkAssigner) -> str:
        name = node.input.schema[node.rowtime].name
        return f"WatermarkAssigner(rowtime=[{name}], watermark=[({name} - {node.delay_ms}:INTERVAL SECOND)])"

    def lower(self, ctx: BatchContext, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        return drop_eoi(child)

    def lower_epoch(self, ctx: EpochContext, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        out = (lambda df: df.drop(SPLIT)) if child.split else (lambda df: df)
        if not ctx.watermarked:
            return Lowered(out(child.df), updating=child.updating, empty=child.empty)
        before = ctx.fact("max")
        upstream = ctx.upstream_watermark

        def finish(top: Optional[int]) -> int:
            seen = before if top is None else top if before is None else max(before, top)
            if seen is not None:
                ctx.keep("max", seen)
            if as_int(upstream) == WM_MAX:  # the input has ended: the final watermark
                return WM_MAX
            return WM_MIN if seen is None else seen - node.delay_ms

        scan = _scan(node)
        splits = ctx.source_splits(scan) if child.split and scan is not None else None
        if splits is not None:
            finish = _per_split(ctx, node, splits, finish, _idle_timeout_ms(ctx, node))
        if child.empty:
            ctx.set_watermark(finish(None))
            return Lowered(out(child.df), updating=child.updating, empty=True)
        ms = F.unix_millis(F.col(f"f{node.rowtime}"))
        if splits is None:
            top = F.max(ms)
        else:  # the largest event time per split (``__split``: its position), as text "<ms>,,<ms>"
            top = F.concat_ws(",", *[F.coalesce(F.max(F.when(F.col(SPLIT) == F.lit(i), ms)).cast("string"),
                                                F.lit("")) for i in range(len(splits))])
        name = f"watermark_{ctx.node.id}_{ctx.epoch}"
        observed = child.df.observe(name, top.alias("m"))
        ctx.set_watermark(LazyWatermark(observed, name, top, finish))
        return Lowered(out(observed), updating=child.updating)


def _scan(node: P.WatermarkAssigner) -> Optional[P.TableScan]:
    """The source below (through projections), or None."""
    n = node.input
    while isinstance(n, P.Calc):
        n = n.input
    return n if isinstance(n, P.TableScan) else None


def _idle_timeout_ms(ctx: BatchContext, node: P.WatermarkAssigner) -> int:
    """The table's ``scan.watermark.idle-timeout`` (table option or OPTIONS hint), else the
    session's ``table.exec.source.idle-timeout``; 0: splits never go idle."""
    scan = _scan(node)
    own = dict(scan.options).get(SCAN_IDLE_TIMEOUT) if scan is not None else None
    if own is not None and own.strip():
        return duration_option_ms({SCAN_IDLE_TIMEOUT: own}, SCAN_IDLE_TIMEOUT, "'30 s' or '0 ms'")
    return source_idle_timeout_ms(ctx.conf)


def _per_split(ctx: EpochContext, node: P.WatermarkAssigner, splits: dict, finish, idle_ms: Optional[int] = None):
    """``finish`` over the per-split maxima (see the module docstring); ``idle_ms``: the
    idle timeout (default: the session's)."""
    tops = dict(ctx.fact("split_max", {}))
    seen = dict(ctx.fact("split_seen", {}))
    if idle_ms is None:
        idle_ms = source_idle_timeout_ms(ctx.conf)
    upstream = ctx.upstream_watermark
    previous = ctx.previous_watermark
    now = ctx.now_ms

    def per_split(text: Optional[str]) -> int:
        keys = list(splits)  # in the order of the rows' split ids
        values = text.split(",") if text else [""] * len(keys)
        for k, v in zip(keys, values):
            if v:
                tops[k] = max(tops.get(k, int(v)), int(v))
                seen[k] = now
            seen.setdefault(k, now)  # a split's idle time counts from when it is first seen
        ctx.keep("split_max", tops)
        ctx.keep("split_seen", seen)
        overall = finish(max(tops.values()) if tops else None)  # the global maximum's bookkeeping
        if as_int(upstream) == WM_MAX:
            return WM_MAX
        live = [k for k in keys if not splits[k]]
        if not live:  # every split read to its end: all of it has been seen
            return overall
        active = [k for k in live if not idle_ms or now - seen[k] < idle_ms]
        if not active:  # every live split idle: the watermark stays
            return previous
        low = min(tops.get(k, WM_MIN + node.delay_ms) for k in active) - node.delay_ms
        return max(previous, low)
    return per_split
