"""Rank / Deduplicate (Top-N, first/last row) and their window forms, hashed on the
partition keys. Per epoch (``runtime/streaming/rank``): the partitions an epoch
touched are re-ranked; a window rank fires when the watermark closes the window."""
from __future__ import annotations

from sqlengine.physical.node import ALL_KINDS, INSERT_ONLY, Edge, Operator, hash_edge, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


def is_window_rank(node: P.Rank) -> bool:
    """Window Top-N / dedup: partitioned by window_start and window_end of a window TVF or
    window aggregate, so each window's result is final when the watermark passes it."""
    from sqlengine.plan.lineage import window_prop
    props = {window_prop(node.input, k) for k in node.partition_keys}
    return {"window_start", "window_end"} <= props


@register(P.Rank)
class Rank(Operator):
    stateful = True

    def label(self, node: P.Rank) -> str:
        base = "Deduplicate" if node.is_deduplicate() else "Rank"
        return f"Window{base}" if is_window_rank(node) else base

    def reads_watermark(self, node: P.Rank) -> bool:
        return is_window_rank(node)

    def edges(self, node: P.Rank, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.partition_keys)]

    def changelog(self, node: P.Rank, inputs: list[frozenset]) -> frozenset:
        """A Top-N retracts rows that leave the top; a window rank emits final rows."""
        if is_window_rank(node) and inputs[0] == INSERT_ONLY:
            return INSERT_ONLY
        return ALL_KINDS

    def lower(self, lw, node: P.Rank, child: Lowered) -> Lowered:
        from sqlengine.runtime.ops.rank import batch_rank
        lw.batch_only(node)
        return Lowered(batch_rank(lw, node, drop_eoi(child).df))

    def lower_epoch(self, lw, node: P.Rank, child: Lowered) -> Lowered:
        window = is_window_rank(node) and not child.updating
        if lw.idle(node, (child,), on_watermark=window):
            return lw.nothing(node, updating=not window)
        from sqlengine.runtime.streaming.rank import epoch_rank
        return epoch_rank(lw, node, child)
