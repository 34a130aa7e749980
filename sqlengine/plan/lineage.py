"""Column lineage through the plan: where a column of a node comes from."""
from __future__ import annotations

from typing import Optional

from sqlengine.plan import nodes as P

WINDOW_PROPS = ("window_start", "window_end", "window_time")


def window_prop(node: P.Node, idx: int) -> Optional[str]:
    """``window_start``/``window_end``/``window_time`` when column ``idx`` of ``node`` is that
    property of a window TVF or window aggregate below (through projections)."""
    if isinstance(node, P.WindowTableFunction):
        n = len(node.input.schema)
        return WINDOW_PROPS[idx - n] if idx >= n else window_prop(node.input, idx)
    if isinstance(node, P.WindowAggregate):
        nk = len(node.keys)
        return node.props[idx - nk] if nk <= idx < nk + len(node.props) else None
    if isinstance(node, P.Calc):
        e = node.projections[idx]
        return window_prop(node.input, e.index) if isinstance(e, P.ColRef) else None
    if isinstance(node, (P.Over, P.Rank, P.Unnest, P.WatermarkAssigner, P.Sort)):
        return window_prop(node.input, idx) if idx < len(node.input.schema) else None
    if isinstance(node, P.Join):
        nl = len(node.left.schema)
        return window_prop(node.left, idx) if idx < nl else window_prop(node.right, idx - nl)
    return None
