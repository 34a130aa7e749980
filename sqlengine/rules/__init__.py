"""Plan rewrites, one per module; ``optimize`` applies them bottom-up to a fixpoint."""
from __future__ import annotations

from typing import Callable, Optional

from sqlengine.plan import nodes as P
from sqlengine.rules.calc_merge import calc_merge
from sqlengine.rules.rank import rank, rank_prune
from sqlengine.rules.window_cascade import window_cascade

Rule = Callable[[P.Node], Optional[P.Node]]
RULES: tuple[Rule, ...] = (calc_merge, rank, rank_prune, window_cascade)


def optimize(node: P.Node, rules: tuple[Rule, ...] = RULES) -> P.Node:
    children = tuple(optimize(c, rules) for c in node.children())
    if children != node.children():
        node = node.with_children(children)
    changed = True
    while changed:
        changed = False
        for rule in rules:
            out = rule(node)
            if out is not None:
                node, changed = out, True
    return node
