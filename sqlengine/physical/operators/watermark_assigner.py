"""WatermarkAssigner: per epoch, the watermark is the largest event time seen so far
minus the delay (Flink's bounded out-of-orderness); batch needs no watermark, and
neither does a stream whose consumers never fire on time (no pass over the epoch)."""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.WatermarkAssigner)
class WatermarkAssigner(Operator):
    def lower(self, lw, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        return drop_eoi(child)

    def lower_epoch(self, lw, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        from sqlengine.runtime.streaming.epoch import WM_MAX, WM_MIN
        if node not in lw.watermarked:
            return Lowered(child.df, empty=child.empty)
        oid = lw.ep.ids[node]
        seen = lw.ep.meta_in.get("max", {}).get(oid)
        top = None if child.empty else \
            child.df.agg(F.max(F.unix_millis(F.col(f"f{node.rowtime}")))).collect()[0][0]
        if top is not None:
            seen = top if seen is None else max(seen, top)
        if seen is not None:
            lw.ep.meta_out.setdefault("max", {})[oid] = seen
        upstream = lw.input_wm(node)
        lw.wm[node] = upstream if upstream == WM_MAX else (
            WM_MIN if seen is None else seen - node.delay_ms)
        return Lowered(child.df, empty=child.empty)
