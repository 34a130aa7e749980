"""Top-N / deduplication: a filter on the only (ranking) call of an ``Over`` is a ``Rank``.

``SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) AS rn FROM x)
WHERE rn <= N`` keeps the N first rows per partition. The bound may be ``rn <= N``,
``rn < N``, ``rn = N``, ``rn BETWEEN a AND b`` (or the flipped comparisons); other
conjuncts stay in a Calc above. The rank column stays at the same position (last),
and is an output column only when the Calc above reads it (``output_rank``).
"""
from __future__ import annotations

from typing import Optional

from sqlengine.plan import nodes as P

RANKING = ("ROW_NUMBER", "RANK", "DENSE_RANK")
FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


def _int(e: P.Expr) -> Optional[int]:
    while isinstance(e, P.Cast):
        e = e.arg
    if isinstance(e, P.Lit) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    return None


def _is_rank(e: P.Expr, pos: int) -> bool:
    while isinstance(e, P.Cast):
        e = e.arg
    return isinstance(e, P.ColRef) and e.index == pos


def rank_bounds(cond: Optional[P.Expr], pos: int) -> Optional[tuple[int, Optional[int], list[P.Expr]]]:
    """(start, end, other conjuncts) of the bounds on column ``pos``; None if unusable."""
    lo, hi, rest = 1, None, []
    for c in P.conjuncts(cond):
        bound = _bound(c, pos)
        if bound is None:
            if pos in P.refs(c):
                return None
            rest.append(c)
            continue
        op, n = bound
        if op in ("<=", "<", "="):
            end = n - 1 if op == "<" else n
            hi = end if hi is None else min(hi, end)
        if op in (">=", ">", "="):
            start = n + 1 if op == ">" else n
            lo = max(lo, start)
    return lo, hi, rest


def _bound(c: P.Expr, pos: int) -> Optional[tuple[str, int]]:
    if not isinstance(c, P.Call):
        return None
    if c.name == "BETWEEN" and len(c.args) == 3 and _is_rank(c.args[0], pos):
        lo, hi = _int(c.args[1]), _int(c.args[2])
        return None if lo is None or hi is None else ("BETWEEN", lo, hi)  # type: ignore[return-value]
    if c.name in FLIP and len(c.args) == 2:
        a, b = c.args
        if _is_rank(a, pos) and _int(b) is not None:
            return c.name, _int(b)
        if _is_rank(b, pos) and _int(a) is not None:
            return FLIP[c.name], _int(a)
    return None


def rank(node: P.Node) -> Optional[P.Node]:
    """Calc(filter on rn) over Over(one ranking call) -> Calc over Rank."""
    if not (isinstance(node, P.Calc) and node.condition is not None and isinstance(node.input, P.Over)):
        return None
    over = node.input
    if len(over.calls) != 1 or over.calls[0].name not in RANKING:
        return None
    pos = len(over.input.schema)
    parts = []
    for c in P.conjuncts(node.condition):  # expand BETWEEN into two bounds
        b = _bound(c, pos)
        if b is not None and b[0] == "BETWEEN":
            parts += [P.Call(c.type, ">=", (c.args[0], c.args[1])), P.Call(c.type, "<=", (c.args[0], c.args[2]))]
        else:
            parts.append(c)
    found = rank_bounds(_and(parts), pos)
    if found is None or found[1] is None:
        return None
    lo, hi, rest = found
    output = any(pos in P.refs(e) for e in node.projections) or any(pos in P.refs(e) for e in rest)
    name = next((n for e, n in zip(node.projections, node.out_names)
                 if isinstance(e, P.ColRef) and e.index == pos), over.call_names[0])
    out = P.Rank(over.input, over.partition_keys, over.order_keys, over.calls[0].name, lo, hi, output, name)
    return P.Calc(out, node.projections, node.out_names, _and(rest))


def _and(parts: list[P.Expr]) -> Optional[P.Expr]:
    out = None
    for p in parts:
        out = p if out is None else P.Call(p.type, "AND", (out, p))
    return out


def rank_prune(node: P.Node) -> Optional[P.Node]:
    """Calc over Rank that does not read the rank column: the Rank stops outputting it
    (Flink's Deduplicate / Top-N without rank number)."""
    if not (isinstance(node, P.Calc) and isinstance(node.input, P.Rank) and node.input.output_rank):
        return None
    pos = len(node.input.input.schema)
    used = set().union(*(P.refs(e) for e in node.projections), P.refs(node.condition) if node.condition else set())
    if pos in used:
        return None
    from dataclasses import replace
    return replace(node, input=replace(node.input, output_rank=False))
