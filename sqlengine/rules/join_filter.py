"""Filter push-down into regular joins (Flink's ``FilterIntoJoinRule`` and
``JoinConditionPushRule``): a conjunct that reads only one input of a join is evaluated
below the join, so the join keeps fewer rows in its state and shuffles fewer.

Where a conjunct may go depends on the join kind, so that the output stays the same:

- a WHERE conjunct (a Calc's condition above the join) over the left columns moves into
  the left input of an INNER, LEFT, SEMI or ANTI join, one over the right columns into
  the right input of an INNER or RIGHT join (the side that is not null-extended);
- an ON conjunct over the right columns moves into the right input of an INNER, LEFT,
  SEMI or ANTI join, one over the left columns into the left input of an INNER, RIGHT or
  SEMI join (a row of the preserved side is output whatever the ON condition says of it).

Only deterministic conjuncts move (no ``RAND()``, ``NOW()``, ``PROCTIME()``, no Python
function declared non-deterministic, no processing-time column), and only across a plain
``Join``: interval, window and temporal joins keep their conditions. The pushed filter is
a Calc with the input's columns unchanged, merged into a Calc below when there is one.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.rules.calc_merge import over

# Flink's non-deterministic and dynamic (per-evaluation) built-in functions
NONDETERMINISTIC = frozenset({
    "RAND", "RAND_INTEGER", "UUID", "NOW", "CURRENT_TIMESTAMP", "CURRENT_ROW_TIMESTAMP",
    "LOCALTIMESTAMP", "LOCALTIME", "CURRENT_DATE", "CURRENT_TIME", "UNIX_TIMESTAMP", "PROCTIME",
})

WHERE_SIDES = {"INNER": (True, True), "LEFT": (True, False), "RIGHT": (False, True),
               "FULL": (False, False), "SEMI": (True, False), "ANTI": (True, False)}
ON_SIDES = {"INNER": (True, True), "LEFT": (False, True), "RIGHT": (True, False),
            "FULL": (False, False), "SEMI": (True, True), "ANTI": (False, True)}


def deterministic(e: P.Expr) -> bool:
    if isinstance(e, P.ColRef):
        return (e.type.time_attr or "").upper() != "PROCTIME"
    if isinstance(e, P.PyCall):
        if not getattr(e.function, "deterministic", True):
            return False
    elif isinstance(e, P.Call) and e.name.upper() in NONDETERMINISTIC:
        return False
    return all(deterministic(c) for c in e.children())


def join_filter(node: P.Node) -> Optional[P.Node]:
    if isinstance(node, P.Calc) and node.condition is not None and type(node.input) is P.Join:
        join = node.input
        keep, pushed = _split(node.condition, join, WHERE_SIDES[join.kind])
        if pushed is None:
            return None
        return replace(node, input=pushed, condition=P.conjoin(keep))
    if type(node) is P.Join and node.condition is not None:
        keep, pushed = _split(node.condition, node, ON_SIDES[node.kind])
        if pushed is None:
            return None
        return replace(pushed, condition=P.conjoin(keep))
    return None


def _split(cond: P.Expr, join: P.Join, sides: tuple[bool, bool]):
    """(the conjuncts that stay, the join with the others below it; None if none moves)."""
    nl = len(join.left.schema)
    keep, left, right = [], [], []
    for c in P.conjuncts(cond):
        r = P.refs(c)
        if not r or not deterministic(c):
            keep.append(c)
        elif max(r) < nl and sides[0]:
            left.append(c)
        elif min(r) >= nl and sides[1]:
            right.append(P.shift_refs(c, -nl))
        else:
            keep.append(c)
    if not left and not right:
        return keep, None
    return keep, replace(join, left=_filter(join.left, left), right=_filter(join.right, right))


def _filter(node: P.Node, conds: list[P.Expr]) -> P.Node:
    """``node`` filtered by ``conds`` (over its columns), its columns unchanged."""
    if not conds:
        return node
    sch = node.schema
    # the references take the input's types (a join above materializes time attributes)
    cond = P.conjoin([P.map_refs(c, lambda r: P.ColRef(sch[r.index].type, r.index, sch[r.index].name))
                     for c in conds])
    return over(node, range(len(sch)), cond)


