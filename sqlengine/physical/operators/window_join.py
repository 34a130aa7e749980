"""WindowJoin: two window TVF outputs joined per window (and keys); a window's rows
join when the watermark closes it."""
from __future__ import annotations

from sqlengine.physical.node import Edge, hash_edge, register
from sqlengine.physical.operators.join import JoinBase
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered


@register(P.WindowJoin)
class WindowJoin(JoinBase):
    def reads_watermark(self, node) -> bool:
        return True

    def edges(self, node: P.WindowJoin, streaming: bool) -> list[Edge]:
        return [hash_edge(node.left, node.left_keys + node.left_window),
                hash_edge(node.right, node.right_keys + node.right_window)]

    def lower_epoch(self, lw, node: P.WindowJoin, left: Lowered, right: Lowered) -> Lowered:
        if lw.idle(node, (left, right), on_watermark=True):
            return lw.nothing(node, updating=False)
        from sqlengine.runtime.streaming.join import epoch_window_join
        return epoch_window_join(lw, node, left, right)
