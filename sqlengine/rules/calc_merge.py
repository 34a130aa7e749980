"""CalcMerge: a Calc over a Calc becomes one Calc (one Spark projection, one task)."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from sqlengine.plan import nodes as P


def substitute(e: P.Expr, inner: tuple[P.Expr, ...]) -> P.Expr:
    """Rewrite ``e`` (over the inner Calc's outputs) onto the inner Calc's input."""
    return P.map_refs(e, lambda r: inner[r.index])


def calc_merge(node: P.Node) -> Optional[P.Node]:
    if not (isinstance(node, P.Calc) and isinstance(node.input, P.Calc)):
        return None
    inner = node.input
    projs = tuple(substitute(e, inner.projections) for e in node.projections)
    cond = substitute(node.condition, inner.projections) if node.condition is not None else None
    if inner.condition is not None and cond is not None:
        from sqlengine import types as T
        cond = P.Call(T.BOOLEAN(), "AND", (inner.condition, cond))
    elif inner.condition is not None:
        cond = inner.condition
    return P.Calc(inner.input, projs, node.out_names, cond)


def peel_calcs(node: P.Node) -> tuple[Optional[P.Calc], P.Node]:
    """The Calcs stacked on ``node`` merged into one (None when there is none), and the
    node under them."""
    calcs = []
    while isinstance(node, P.Calc):
        calcs.append(node)
        node = node.input
    if not calcs:
        return None, node
    calc = calcs[-1]
    for outer in reversed(calcs[:-1]):
        calc = calc_merge(replace(outer, input=calc))
    return calc, node
