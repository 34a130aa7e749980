"""WindowAggregate: GROUP BY window_start, window_end (+ keys) over a window TVF, hashed on
the keys in streaming (one task without keys), as Flink's. Batch (``batch.py``): every
window at once; per epoch (``epoch.py``): the windows the epoch's watermark closes fire
in that epoch, insert-only."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.window_aggregate.batch import batch_window_aggregate
from sqlengine.physical.operators.window_aggregate.epoch import epoch_window_aggregate
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.WindowAggregate)
class WindowAggregate(Operator):
    stateful = True

    def materializes(self, node: P.Node) -> bool:
        """Per epoch rows wait in a persisted pending frame (sliced, session, or per row) and the windows fire from it."""
        return True

    def explain(self, node: P.WindowAggregate) -> str:
        names = node.input.names()
        keys = ", ".join(names[k] for k in node.keys)
        sel = ", ".join([names[k] for k in node.keys] + [f"{a} AS {n}" for a, n in zip(node.aggs, node.agg_names)]
                        + [f"{p.replace('window_', '')}('w$) AS {n}" for p, n in zip(node.props, node.prop_names)])
        return (f"WindowAggregate(groupBy=[{keys}], window=[{node.window.describe(names)}], "
                f"select=[{sel}])")

    def reads_watermark(self, node: P.WindowAggregate) -> bool:
        return True

    def edges(self, node: P.WindowAggregate, streaming: bool) -> list[Edge]:
        """Streaming: by the keys (a window's state lives with its key, as in Flink). Batch:
        by the keys and the window, so that windows spread over the tasks."""
        spec = node.window
        if spec.kind == "SESSION" and spec.attached is None:  # sessions are found per key, then aggregated
            return [hash_edge(node.input, spec.partition_keys or node.keys)]
        return [hash_edge(node.input, node.keys, () if streaming else ("window_start", "window_end"))]

    def lower(self, ctx: BatchContext, node: P.WindowAggregate, child: Lowered) -> Lowered:
        return Lowered(batch_window_aggregate(ctx, node, drop_eoi(child).df))

    def lower_epoch(self, ctx: EpochContext, node: P.WindowAggregate, child: Lowered) -> Lowered:
        if ctx.idle((child,), on_watermark=True):
            return ctx.nothing(updating=False)
        return epoch_window_aggregate(ctx, node, child)
