"""IntervalJoin: ``l.time + lower <= r.time <= l.time + upper`` on event time, hashed on
the equi keys. Batch: one Spark join; per epoch (``epoch.py``): the inner part by the
delta rule, null-padded rows once no partner can arrive, state cleaned by time."""
from __future__ import annotations

from sqlengine.hidden import Lowered
from sqlengine.physical.operator import register
from sqlengine.physical.operators.interval_join.epoch import epoch_interval_join
from sqlengine.physical.shared.joins import JoinOperator
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext


@register(P.IntervalJoin)
class IntervalJoin(JoinOperator):
    insert_only_inputs = "StreamPhysicalIntervalJoin"

    def explain(self, node: P.IntervalJoin) -> str:
        return (f"IntervalJoin(joinType=[{node.join_type()}], windowBounds=[isRowTime=true, "
                f"leftLowerBound={-node.upper_ms}, leftUpperBound={-node.lower_ms}], "
                f"where=[{node.condition}], select=[{', '.join(node.names())}])")

    def reads_watermark(self, node: P.IntervalJoin) -> bool:
        return True

    def lower_epoch(self, ctx: EpochContext, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
        if ctx.idle((left, right), on_watermark=True):
            return ctx.nothing(updating=False)
        return epoch_interval_join(ctx, node, left, right)
