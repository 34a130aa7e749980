"""Which output columns of a node are window bounds (window_start/window_end/window_time)
of a window TVF or window aggregation, traced through projections.

Window Top-N, window deduplication and window joins are insert-only because each
window's rows are complete once the watermark passes the window's end: the runtime
finds that end column here.
"""
from __future__ import annotations

from sqlengine.plan import nodes as P

PASS_THROUGH = (P.WatermarkAssigner, P.Rank, P.Over, P.Unnest, P.Sort)


def window_columns(node: P.Node) -> dict[int, str]:
    if isinstance(node, P.WindowTableFunction):
        w = len(node.input.schema)
        return {w: "window_start", w + 1: "window_end", w + 2: "window_time"}
    if isinstance(node, P.WindowAggregate):
        nk = len(node.keys)
        return {nk + i: p for i, p in enumerate(node.props)}
    if isinstance(node, P.Calc):
        inner = window_columns(node.input)
        return {i: inner[e.index] for i, e in enumerate(node.projections)
                if isinstance(e, P.ColRef) and e.index in inner}
    if isinstance(node, PASS_THROUGH):
        return window_columns(node.input)
    if isinstance(node, P.WindowJoin):
        left = window_columns(node.left)
        nl = len(node.left.schema)
        right = {} if node.kind in ("SEMI", "ANTI") else \
            {nl + i: p for i, p in window_columns(node.right).items()}
        return {**left, **right}
    return {}


def window_end_of(node: P.Node, positions) -> int | None:
    """The position, among ``positions``, of a window_end column of ``node`` (if both the
    window's start and end are among them, as a window Top-N's partition keys are)."""
    cols = window_columns(node)
    kinds = {cols.get(p): p for p in positions if p in cols}
    if "window_end" in kinds:
        return kinds["window_end"]
    return None
