"""Projection pruning into regular joins (Flink's ``ProjectJoinTransposeRule``): a join
keeps in its state and shuffles only the columns that something above it reads, its keys
and its condition's columns.

- A Calc over a ``Join`` reads some of the join's columns: each input of the join gets a
  Calc below it that keeps only the columns read (merged into a Calc there is, so the
  fields not read are never even extracted), and the join and the Calc above are
  renumbered.
- An Aggregate over a ``Join`` gets a Calc between them that keeps the columns its keys
  and aggregates read, so the rule above applies.

The output of the node above is unchanged: a join's rows are a multiset, and rows that
differed only in columns nobody reads are counted as the same number of rows. Only a plain
``Join`` (interval, window and temporal joins keep their columns); an input keeps at least
one column.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.rules.calc_merge import over


def join_prune(node: P.Node) -> Optional[P.Node]:
    if isinstance(node, P.Calc) and type(node.input) is P.Join:
        return _prune_calc(node)
    if type(node) is P.Aggregate and type(node.input) is P.Join:
        return _prune_aggregate(node)
    return None


def _prune_calc(node: P.Calc) -> Optional[P.Node]:
    j = node.input
    nl, nr = len(j.left.schema), len(j.right.schema)
    used: set[int] = set(j.left_keys) | {nl + k for k in j.right_keys}
    for e in node.projections + ((node.condition,) if node.condition is not None else ()) \
            + ((j.condition,) if j.condition is not None else ()):
        used |= P.refs(e)
    lu = sorted(i for i in used if i < nl) or [0]
    ru = sorted(i - nl for i in used if i >= nl) or [0]
    if len(lu) == nl and len(ru) == nr:
        return None
    lmap = {o: n for n, o in enumerate(lu)}
    rmap = {o: n for n, o in enumerate(ru)}

    def inside(r: P.ColRef) -> P.Expr:  # a reference over left + right
        return replace(r, index=lmap[r.index] if r.index < nl else len(lu) + rmap[r.index - nl])

    cond = P.map_refs(j.condition, inside) if j.condition is not None else None
    join = replace(j, left=_keep(j.left, lu), right=_keep(j.right, ru), condition=cond,
                   left_keys=tuple(lmap[k] for k in j.left_keys),
                   right_keys=tuple(rmap[k] for k in j.right_keys))
    return replace(node, input=join, projections=tuple(P.map_refs(e, inside) for e in node.projections),
                   condition=P.map_refs(node.condition, inside) if node.condition is not None else None)


def _prune_aggregate(node: P.Aggregate) -> Optional[P.Node]:
    sch = node.input.schema
    used: set[int] = set(node.keys)
    for a in node.aggs:
        for e in a.args + ((a.filter,) if a.filter is not None else ()):
            used |= P.refs(e)
    cols = sorted(used) or [0]
    if len(cols) == len(sch):
        return None
    pos = {o: n for n, o in enumerate(cols)}

    def moved(r: P.ColRef) -> P.Expr:
        return replace(r, index=pos[r.index])

    aggs = tuple(replace(a, args=tuple(P.map_refs(e, moved) for e in a.args),
                         filter=P.map_refs(a.filter, moved) if a.filter is not None else None)
                 for a in node.aggs)
    sets = None if node.grouping_sets is None else tuple(tuple(pos[k] for k in s) for s in node.grouping_sets)
    return replace(node, input=_keep(node.input, cols), keys=tuple(pos[k] for k in node.keys), aggs=aggs,
                   grouping_sets=sets)


def _keep(node: P.Node, cols: list[int]) -> P.Node:
    """``node``'s columns ``cols`` (in order), by a Calc merged into one below."""
    return node if len(cols) == len(node.schema) else over(node, cols)
