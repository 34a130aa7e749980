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


def over(node: P.Node, cols, condition: Optional[P.Expr] = None) -> P.Node:
    """A Calc of ``node``'s columns ``cols`` (in order) where ``condition`` (over
    ``node``'s columns) holds, merged into the Calc ``node`` is, if it is one."""
    sch = node.schema
    calc = P.Calc(node, tuple(P.ColRef(sch[i].type, i, sch[i].name) for i in cols),
                  tuple(sch[i].name for i in cols), condition)
    return calc_merge(calc) if isinstance(node, P.Calc) else calc


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
