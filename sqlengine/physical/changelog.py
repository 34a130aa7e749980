"""Changelog modes, from the operators' contracts (``Operator.changelog``): which node
turns a stream into an updating one, and whether a sink or an operator accepts that."""
from __future__ import annotations

from typing import Optional

from sqlengine.errors import ValidationError
from sqlengine.physical.node import INSERT_ONLY, operator_for
from sqlengine.physical.render import changelog_text
from sqlengine.plan import nodes as P


def kinds(node: P.Node, streaming: bool, memo: Optional[dict] = None) -> frozenset:
    """The row kinds ``node`` emits (``I``, ``UB``, ``UA``, ``D``); batch is insert-only."""
    if not streaming:
        return INSERT_ONLY
    memo = {} if memo is None else memo
    if node not in memo:
        inputs = [kinds(c, streaming, memo) for c in node.children()]
        memo[node] = operator_for(node).changelog(node, inputs)
    return memo[node]


def changelog_mode(node: P.Node, streaming: bool) -> str:
    """Flink's ``changelogMode=[...]`` text of a node."""
    return changelog_text(kinds(node, streaming))


def updating_node(node: P.Node, streaming: bool) -> Optional[P.Node]:
    """The first node (bottom-up) that turns an insert-only stream into an updating one."""
    if not streaming:
        return None
    for child in node.children():
        found = updating_node(child, streaming)
        if found is not None:
            return found
    return node if kinds(node, streaming) != INSERT_ONLY else None


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
    if node is not None and not factory.sink_accepts_updates(dict(sink.options)):
        raise ValidationError(
            f"Table sink '{sink.table}' doesn't support consuming update changes which is "
            f"produced by node {node.explain()}")
