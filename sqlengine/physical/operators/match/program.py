"""From a ``Match`` node to what runs: the columns Spark computes on each row (*leaves*),
and the matcher's program over them.

Every part of a DEFINE condition that reads only the row being tested (``price > 10``,
``name LIKE 'a%'``, a UDF call) becomes a leaf, computed by Spark with Flink's functions;
so does every navigation's argument. What reads a run's values (``A.price``,
``LAST(B.price, 1)``, ``AVG(A.price)``) stays a ``Nav`` and is evaluated by the matcher.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlengine.errors import UnsupportedError
from sqlengine.physical.operators.match.automaton import compile_pattern
from sqlengine.physical.operators.match.evaluate import Leaf, residual_functions
from sqlengine.physical.operators.match.matcher import Nav, Program
from sqlengine.plan import nodes as P


@dataclass
class Compiled:
    leaves: list[P.Expr]  # over the Match node's input row
    conditions: tuple[Optional[P.Expr], ...]  # per pattern element
    measures: tuple[Nav, ...]  # per node.navs

    def program(self, node: P.Match, leaf_types) -> Program:
        return Program(compile_pattern(node.pattern), self.conditions, self.measures, node.after, node.after_var,
                       node.within_ms, tuple(leaf_types))


def compile_node(node: P.Match) -> Compiled:
    leaves: list[P.Expr] = []

    def leaf(e: P.Expr) -> int:
        if e not in leaves:
            leaves.append(e)
        return leaves.index(e)

    def nav(n: P.MatchNav) -> Nav:
        if n.kind in ("rowtime", "proctime"):
            return Nav(n.type, n.kind, "*")
        return Nav(n.type, n.kind, n.var, leaf(n.arg) if n.arg is not None else None, n.offset, n.fn)

    def has_nav(e: P.Expr) -> bool:
        return isinstance(e, P.MatchNav) or any(has_nav(c) for c in e.children())

    def residual(e: P.Expr) -> P.Expr:
        if isinstance(e, P.MatchNav):
            return nav(e)
        if not has_nav(e):
            return Leaf(e.type, leaf(e))
        if isinstance(e, P.Call) and (e.name not in residual_functions or isinstance(e, P.PyCall)):
            raise UnsupportedError(f"{e.name} over a navigated value (a pattern variable's row other than the "
                                   f"one being tested, or an aggregate) is not supported in DEFINE: {e}")
        if not isinstance(e, (P.Call, P.Cast)):
            raise UnsupportedError(f"Unsupported expression in DEFINE: {e}")
        return e.with_children(tuple(residual(c) for c in e.children()))

    defines = dict(node.defines)
    conditions = tuple(residual(defines[el.var]) if el.var in defines else None for el in node.pattern)
    measures = tuple(nav(n) for n in node.navs)
    return Compiled(leaves, conditions, measures)
