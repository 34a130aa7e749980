"""TemporalJoin: each left row with the version of the right table valid at its time
(event time, ``FOR SYSTEM_TIME AS OF``), or the table as it is (lookup)."""
from __future__ import annotations

from sqlengine.physical.node import Edge, hash_edge, register
from sqlengine.physical.operators.join import JoinBase
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.TemporalJoin)
class TemporalJoin(JoinBase):
    def reads_watermark(self, node) -> bool:
        return True

    def edges(self, node: P.TemporalJoin, streaming: bool) -> list[Edge]:
        return [hash_edge(node.left, node.left_keys), hash_edge(node.right, node.right_keys)]

    def lower(self, lw, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
        from sqlengine.runtime.ops.join import batch_temporal_join
        lw.batch_only(node)
        return Lowered(batch_temporal_join(lw, node, drop_eoi(left).df, drop_eoi(right).df))

    def lower_epoch(self, lw, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
        if lw.idle(node, (left, right), on_watermark=True):
            return lw.nothing(node, updating=False)
        from sqlengine.runtime.streaming.temporal_join import epoch_temporal_join
        return epoch_temporal_join(lw, node, left, right)
