"""WatermarkAssigner: per epoch, the watermark is the largest event time seen so far
minus the delay (Flink's bounded out-of-orderness); batch needs no watermark, and
neither does a stream whose consumers never fire on time (no pass over the epoch).

The epoch's largest event time is observed on the rows as they flow to the operator
that fires on time (``streaming/epoch.LazyWatermark``): that operator's own pass over
them computes it."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import functions as F

from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.WatermarkAssigner)
class WatermarkAssigner(Operator):
    def lower(self, lw, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        return drop_eoi(child)

    def lower_epoch(self, lw, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        from sqlengine.runtime.streaming.epoch import WM_MAX, WM_MIN, LazyWatermark, as_int
        if node not in lw.watermarked:
            return Lowered(child.df, updating=child.updating, empty=child.empty)
        oid = lw.ep.ids[node]
        before = lw.ep.meta_in.get("max", {}).get(oid)
        upstream = lw.wm[node]

        def finish(top: Optional[int]) -> int:
            seen = before if top is None else top if before is None else max(before, top)
            if seen is not None:
                lw.ep.meta_out.setdefault("max", {})[oid] = seen
            if as_int(upstream) == WM_MAX:  # the input has ended: the final watermark
                return WM_MAX
            return WM_MIN if seen is None else seen - node.delay_ms

        if child.empty:
            lw.wm[node] = finish(None)
            return Lowered(child.df, updating=child.updating, empty=True)
        top = F.max(F.unix_millis(F.col(f"f{node.rowtime}")))
        name = f"watermark_{oid}_{lw.ep.epoch}"
        observed = child.df.observe(name, top.alias("m"))
        lw.wm[node] = LazyWatermark(observed, name, top, finish)
        return Lowered(observed, updating=child.updating)
