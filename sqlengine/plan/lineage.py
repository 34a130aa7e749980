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
    if isinstance(node, P.Aggregate) and idx < len(node.keys):
        found = attached_window(node)
        if found is not None and idx in found[:2]:
            return WINDOW_PROPS[found[:2].index(idx)]
    return None


def _window_of(node: P.Node, idx: int) -> Optional[tuple[str, P.WindowSpec, Optional[P.WindowAggregate]]]:
    """(property, window, the streaming window aggregation that computed it) when column
    ``idx`` of ``node`` is window_start or window_end of a streaming window aggregation below
    (through projections, as Flink's window properties metadata follows them); the
    aggregation is None for a GROUP BY not yet rewritten into one (``attached_window``)."""
    if isinstance(node, P.WindowAggregate):
        nk = len(node.keys)
        if node.streaming and nk <= idx < nk + len(node.props):
            return node.props[idx - nk], node.window, node
        return None
    if isinstance(node, P.Calc):
        e = node.projections[idx]
        return _window_of(node.input, e.index) if isinstance(e, P.ColRef) else None
    if isinstance(node, P.Aggregate) and idx < len(node.keys):
        found = attached_window(node)
        if found is not None and idx in found[:2]:
            return WINDOW_PROPS[found[:2].index(idx)], found[2], None
    return None


def attached_window(node: P.Aggregate) -> Optional[tuple[int, int, P.WindowSpec]]:
    """Flink's cascaded window aggregation: a GROUP BY (no grouping sets) whose keys hold
    window_start and window_end of one window aggregation below is itself a window
    aggregation over those windows (``WindowAttachedWindowingStrategy``): insert-only,
    fired by the watermark. Returns the positions, among ``node.keys``, of the start and
    the end key, and the window; None otherwise (a GROUP BY on window_end alone stays a
    GroupAggregate, as in Flink)."""
    if node.grouping_sets is not None:
        return None
    found: dict[str, tuple[int, P.WindowSpec]] = {}
    for pos, k in enumerate(node.keys):
        w = _window_of(node.input, k)
        if w is not None and w[0] in ("window_start", "window_end") and w[0] not in found:
            found[w[0]] = (pos, w[1])
    if set(found) != {"window_start", "window_end"} or found["window_start"][1] != found["window_end"][1]:
        return None
    return found["window_start"][0], found["window_end"][0], found["window_start"][1]


def fired_by(node: P.Node, idx: int) -> Optional[P.WindowAggregate]:
    """The streaming event-time window aggregation whose window_end column ``idx`` of
    ``node`` holds (``_window_of``): such an aggregation emits a window's row only once its
    input watermark has passed the window's end, and watermarks only advance, so every row
    of that column ends at or before the aggregation's input watermark of the current
    epoch. None when the column is no such window_end (a window TVF's rows have windows
    still open; a processing-time window fires on the clock, not on a watermark)."""
    found = _window_of(node, idx)
    if found is None or found[0] != "window_end" or found[2] is None:
        return None
    agg = found[2]
    if (agg.input.schema[agg.window.time_col].type.time_attr or "").upper() == "PROCTIME":
        return None
    return agg
