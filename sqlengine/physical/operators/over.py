"""OverAggregate: aggregates over ROWS/RANGE frames ordered by time, hashed on the
partition keys; per epoch (``runtime/streaming/over``) rows are emitted when the
watermark passes them."""
from __future__ import annotations

from sqlengine.physical.node import Edge, Operator, hash_edge, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.Over)
class OverAggregate(Operator):
    stateful = True

    def reads_watermark(self, node) -> bool:
        return True

    def edges(self, node: P.Over, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.partition_keys)]

    def lower(self, lw, node: P.Over, child: Lowered) -> Lowered:
        from sqlengine.runtime.ops.over import batch_over
        lw.batch_only(node)
        return Lowered(batch_over(lw, node, drop_eoi(child).df))

    def lower_epoch(self, lw, node: P.Over, child: Lowered) -> Lowered:
        if lw.idle(node, (child,), on_watermark=True):
            return lw.nothing(node, updating=False)
        from sqlengine.runtime.streaming.over import epoch_over
        return epoch_over(lw, node, child)
