"""IntervalJoin: rows of both sides within a time bound of each other (insert-only
inputs); per epoch (``runtime/streaming/join``), rows leave state when the watermark
passes their bound."""
from __future__ import annotations

from sqlengine.physical.node import register
from sqlengine.physical.operators.join import JoinBase
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered


@register(P.IntervalJoin)
class IntervalJoin(JoinBase):
    def reads_watermark(self, node) -> bool:
        return True

    def lower_epoch(self, lw, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
        if lw.idle(node, (left, right), on_watermark=True):
            return lw.nothing(node, updating=False)
        from sqlengine.runtime.streaming.join import epoch_interval_join
        return epoch_interval_join(lw, node, left, right)
