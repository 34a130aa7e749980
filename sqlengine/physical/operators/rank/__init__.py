"""Rank / Deduplicate (Top-N, first/last row) and their window forms, hashed on the
partition keys. Batch (``batch.py``): a ranking window function, filtered; per epoch
(``epoch.py``): the partitions an epoch touched are re-ranked; a window rank fires when
the watermark closes the window."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.rank.batch import batch_rank
from sqlengine.physical.shared.rank_epoch import epoch_rank, is_window_rank
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, INSERT_ONLY, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.Rank)
class Rank(Operator):
    stateful = True

    def materializes(self, node: P.Node) -> bool:
        """Per epoch the routed delta (or the window's pending rows) is persisted and the changes come from it."""
        return True

    def label(self, node: P.Rank) -> str:
        base = "Deduplicate" if node.is_deduplicate() else "Rank"
        return f"Window{base}" if is_window_rank(node) else base

    def explain(self, node: P.Rank) -> str:
        names = node.input.names()
        part = ", ".join(names[k] for k in node.partition_keys)
        if node.is_deduplicate():
            keep = "LastRow" if not node.order_keys[0].ascending else "FirstRow"
            return f"Deduplicate(keep=[{keep}], key=[{part}], order=[{names[node.order_keys[0].index]}])"
        order = ", ".join(f"{names[k.index]} {'ASC' if k.ascending else 'DESC'}" for k in node.order_keys)
        return (f"Rank(strategy=[AppendFastStrategy], rankType=[{node.rank_fn}], "
                f"rankRange=[rankStart={node.rank_start}, rankEnd={node.rank_end}], "
                f"partitionBy=[{part}], orderBy=[{order}], select=[{', '.join(node.names())}])")

    def reads_watermark(self, node: P.Rank) -> bool:
        return is_window_rank(node)

    def edges(self, node: P.Rank, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.partition_keys)]

    def changelog(self, node: P.Rank, inputs: list[frozenset]) -> frozenset:
        """A Top-N retracts rows that leave the top; a window rank emits final rows."""
        if is_window_rank(node) and inputs[0] == INSERT_ONLY:
            return INSERT_ONLY
        return ALL_KINDS

    def lower(self, ctx: BatchContext, node: P.Rank, child: Lowered) -> Lowered:
        return Lowered(batch_rank(node, drop_eoi(child).df))

    def lower_epoch(self, ctx: EpochContext, node: P.Rank, child: Lowered) -> Lowered:
        window = is_window_rank(node) and not child.updating
        if ctx.idle((child,), on_watermark=window):
            return ctx.nothing(updating=not window)
        return epoch_rank(ctx, node, child)
