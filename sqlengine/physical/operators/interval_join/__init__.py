"""IntervalJoin: ``l.time + lower <= r.time <= l.time + upper`` on event time, hashed on
the equi keys. Batch: one Spark join; per epoch (``epoch.py``): the inner part by the
delta rule, null-padded rows once no partner can arrive, state cleaned by time."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.interval_join.epoch import epoch_interval_join
from sqlengine.physical.shared.joins import batch_join
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, BROADCAST, FORWARD, INSERT_ONLY, SINGLE, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.IntervalJoin)
class IntervalJoin(Operator):
    stateful = True
    insert_only_inputs = "StreamPhysicalIntervalJoin"

    def explain(self, node: P.IntervalJoin) -> str:
        return (f"IntervalJoin(joinType=[{node.join_type()}], windowBounds=[isRowTime=true, "
                f"leftLowerBound={-node.upper_ms}, leftUpperBound={-node.lower_ms}], "
                f"where=[{node.condition}], select=[{', '.join(node.names())}])")

    def reads_watermark(self, node: P.IntervalJoin) -> bool:
        return True

    def edges(self, node: P.IntervalJoin, streaming: bool) -> list[Edge]:
        if not node.left_keys:
            return [SINGLE, SINGLE] if streaming else [FORWARD, BROADCAST]
        return [hash_edge(node.left, node.left_keys), hash_edge(node.right, node.right_keys)]

    def changelog(self, node: P.IntervalJoin, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS if any(i != INSERT_ONLY for i in inputs) else INSERT_ONLY

    def lower(self, ctx: BatchContext, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
        return Lowered(batch_join(ctx, node, drop_eoi(left).df, drop_eoi(right).df))

    def lower_epoch(self, ctx: EpochContext, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
        if ctx.idle((left, right), on_watermark=True):
            return ctx.nothing(updating=False)
        return epoch_interval_join(ctx, node, left, right)
