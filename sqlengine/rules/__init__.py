"""Plan rewrites, one per module; ``optimize`` applies them bottom-up to a fixpoint
(after a rewrite, the new node's inputs are optimized again)."""
from __future__ import annotations

from typing import Callable, Optional

from sqlengine.plan import nodes as P
from sqlengine.rules.calc_merge import calc_merge
from sqlengine.rules.join_filter import join_filter
from sqlengine.rules.join_prune import join_prune
from sqlengine.rules.rank import rank, rank_prune
from sqlengine.rules.window_cascade import window_cascade

Rule = Callable[[P.Node], Optional[P.Node]]
RULES: tuple[Rule, ...] = (calc_merge, join_filter, join_prune, rank, rank_prune, window_cascade)


def optimize(node: P.Node, rules: tuple[Rule, ...] = RULES) -> P.Node:
    children = tuple(optimize(c, rules) for c in node.children())
    if children != node.children():
        node = node.with_children(children)
    for rule in rules:
        out = rule(node)
        if out is not None:  # the rewrite may open others below it (a filter pushed down)
            return optimize(out, rules)
    return node
