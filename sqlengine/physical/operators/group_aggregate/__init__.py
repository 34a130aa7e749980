"""GroupAggregate: unbounded GROUP BY, hashed on its keys (one task for a global
aggregate). Batch: Spark's partial aggregation, the exchange on the keys, the final
aggregation. Per epoch (``epoch.py``): retractions, state per key."""
from __future__ import annotations

from sqlengine.errors import UnsupportedError
from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.group_aggregate.epoch import epoch_group_aggregate
from sqlengine.physical.shared.aggregates import batch_aggregate
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import INSERT_ONLY, RETRACT, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.Aggregate)
class GroupAggregate(Operator):
    stateful = True

    def materializes(self, node: P.Node) -> bool:
        """Per epoch the netted delta (or, merging, the joined results) is persisted and the changes come from it."""
        return True

    def explain(self, node: P.Aggregate) -> str:
        names = node.input.names()
        keys = ", ".join(names[k] for k in node.keys)
        sel = ", ".join([names[k] for k in node.keys] + [f"{a} AS {n}" for a, n in zip(node.aggs, node.agg_names)])
        return f"GroupAggregate(groupBy=[{keys}], select=[{sel}])"

    def validate(self, node: P.Aggregate, unbounded: bool) -> None:
        if unbounded and node.grouping_sets is not None:
            raise UnsupportedError("GROUPING SETS / ROLLUP / CUBE are not supported in streaming mode yet")

    def edges(self, node: P.Aggregate, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.keys)]

    def changelog(self, node: P.Aggregate, inputs: list[frozenset]) -> frozenset:
        """Keys of an insert-only input are never deleted; over updates they can be."""
        return RETRACT if inputs[0] == INSERT_ONLY else RETRACT | {"D"}

    def lower(self, ctx: BatchContext, node: P.Aggregate, child: Lowered) -> Lowered:
        return Lowered(batch_aggregate(ctx, node, drop_eoi(child).df))

    def lower_epoch(self, ctx: EpochContext, node: P.Aggregate, child: Lowered) -> Lowered:
        if ctx.idle((child,), on_watermark=False):
            return ctx.nothing(updating=True)
        return epoch_group_aggregate(ctx, node, child)
