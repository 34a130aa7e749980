"""OverAggregate: OVER windows, hashed on the partition keys. Batch (``batch.py``): Spark
window functions, one per call; per epoch (``epoch.py``): Flink's event-time
OverAggregate, rows emitted once the watermark passes them, insert-only."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.over.batch import batch_over
from sqlengine.physical.operators.over.epoch import epoch_over
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.Over)
class OverAggregate(Operator):
    stateful = True
    insert_only_inputs = "StreamPhysicalOverAggregate"

    def materializes(self, node: P.Node) -> bool:
        """Per epoch the pending rows are persisted and the output is computed from them."""
        return True

    def explain(self, node: P.Over) -> str:
        names = node.input.names()
        order = ", ".join(f"{names[k.index]} {'ASC' if k.ascending else 'DESC'}" for k in node.order_keys)
        calls = ", ".join(f"{c} AS {n}" for c, n in zip(node.calls, node.call_names))
        return (f"OverAggregate(partitionBy=[{', '.join(names[k] for k in node.partition_keys)}], "
                f"orderBy=[{order}], select=[{', '.join(names)}, {calls}])")

    def reads_watermark(self, node: P.Over) -> bool:
        return True

    def edges(self, node: P.Over, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.partition_keys)]

    def lower(self, ctx: BatchContext, node: P.Over, child: Lowered) -> Lowered:
        return Lowered(batch_over(ctx, node, drop_eoi(child).df))

    def lower_epoch(self, ctx: EpochContext, node: P.Over, child: Lowered) -> Lowered:
        if ctx.idle((child,), on_watermark=True):
            return ctx.nothing(updating=False)
        return epoch_over(ctx, node, child)
