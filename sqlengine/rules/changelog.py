"""Changelog-mode inference: which nodes produce updates, and whether a sink accepts them."""
from __future__ import annotations

from sqlengine.errors import ValidationError
from sqlengine.plan import nodes as P


def updating_node(node: P.Node, streaming: bool):
    """The first node (bottom-up) that turns an insert-only stream into an updating one."""
    if not streaming:
        return None
    for child in node.children():
        found = updating_node(child, streaming)
        if found is not None:
            return found
    if isinstance(node, P.Aggregate):
        return node
    if isinstance(node, P.Sort) and node.limit is not None and node.keys:
        return node
    # A regular outer join retracts its NULL-padded rows, an anti join a row whose first
    # match arrives; inner/semi joins, interval, window and temporal joins, OVER and
    # UNNEST are insert-only over insert-only inputs.
    if type(node) is P.Join and node.kind in ("LEFT", "RIGHT", "FULL", "ANTI"):
        return node
    if isinstance(node, P.Rank) and not is_window_rank(node):
        return node
    return None


def is_window_rank(node: P.Rank) -> bool:
    """Window Top-N / dedup: partitioned by window_start and window_end of a window TVF or
    window aggregate, so each window's result is final when the watermark passes it."""
    from sqlengine.plan.lineage import window_prop
    props = {window_prop(node.input, k) for k in node.partition_keys}
    return {"window_start", "window_end"} <= props


def changelog_mode(node: P.Node, streaming: bool) -> str:
    """Flink's ``changelogMode=[...]`` of a node: ``I`` (insert-only), ``I,UB,UA`` (a
    GroupAggregate over insert-only input: keys are never deleted) or ``I,UB,UA,D``."""
    kinds = _kinds(node, streaming)
    return ",".join(k for k in ("I", "UB", "UA", "D") if k in kinds)


def _kinds(node: P.Node, streaming: bool) -> set[str]:
    inner = set().union(*[_kinds(c, streaming) for c in node.children()]) if node.children() else {"I"}
    if not streaming:
        return {"I"}
    if isinstance(node, P.Aggregate):
        return {"I", "UB", "UA"} | ({"D"} if inner != {"I"} else set())
    if updating_node(node, streaming) is node or (inner != {"I"} and isinstance(node, (P.Join, P.Rank))):
        return {"I", "UB", "UA", "D"}
    return inner


INSERT_ONLY_INPUTS = {P.Over: "StreamPhysicalOverAggregate", P.IntervalJoin: "StreamPhysicalIntervalJoin",
                      P.WindowJoin: "StreamPhysicalWindowJoin", P.TemporalJoin: "StreamPhysicalTemporalJoin"}


def check_insert_only_inputs(node: P.Node, streaming: bool) -> None:
    """Operators that accept only insert-only inputs (Flink's message when they do not)."""
    if not streaming:
        return
    for n in P.walk(node):
        label = INSERT_ONLY_INPUTS.get(type(n))
        inputs = n.children()[:1] if isinstance(n, P.TemporalJoin) else n.children()
        for child in inputs if label else ():
            found = updating_node(child, streaming)
            if found is not None:
                raise ValidationError(f"{label} doesn't support consuming update and delete changes "
                                      f"which is produced by node {found.explain()}")


def check_sink_changelog(sink: P.Sink, factory, streaming: bool) -> None:
    """Flink's planning error when an updating result goes into an append-only sink."""
    check_insert_only_inputs(sink.input, streaming)
    node = updating_node(sink.input, streaming)
    if node is not None and not factory.accepts_updates:
        raise ValidationError(
            f"Table sink '{sink.table}' doesn't support consuming update changes which is "
            f"produced by node {node.explain()}")
