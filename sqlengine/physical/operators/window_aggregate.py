"""WindowAggregate: GROUP BY window_start, window_end (+ keys) over a window TVF.
Batch: every window at once; per epoch (``runtime/streaming/window_aggregate``): the
windows the epoch's watermark closes fire in that epoch."""
from __future__ import annotations

from sqlengine.physical.node import Edge, Operator, hash_edge, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.WindowAggregate)
class WindowAggregate(Operator):
    stateful = True

    def reads_watermark(self, node) -> bool:
        return True

    def edges(self, node: P.WindowAggregate, streaming: bool) -> list[Edge]:
        spec = node.window
        if spec.kind == "SESSION":  # sessions are found per key, then aggregated in place
            return [hash_edge(node.input, spec.partition_keys or node.keys)]
        return [hash_edge(node.input, node.keys, ("window_start", "window_end"))]

    def lower(self, lw, node: P.WindowAggregate, child: Lowered) -> Lowered:
        from sqlengine.runtime.windows import lower_window_aggregate
        return lower_window_aggregate(lw, node, drop_eoi(child))

    def lower_epoch(self, lw, node: P.WindowAggregate, child: Lowered) -> Lowered:
        if lw.idle(node, (child,), on_watermark=True):
            return lw.nothing(node, updating=False)
        from sqlengine.runtime.streaming.window_aggregate import epoch_window_aggregate
        return epoch_window_aggregate(lw, node, child)
