"""Which rows of each table a job uses: a condition every row some operator of the DAG
uses meets (the filters above a scan, through projections), handed to the connector as
``ScanContext.filter`` (connectors/predicate.py's form). A connector may drop the rows
that fail it where it reads them (the Kafka reader does, after decoding: Nexmark's q3
uses 8% of its events); the filters above the scan stay and decide the answer.

A scan's rows are all used (no condition) when:

* its watermark is read by some operator (the watermark is over every row of the table:
  Flink's DDL watermark, so a dropped row could hold the largest event time);
* it is a changelog (a row's update and delete are one history; ChangelogNormalize);
* some operator other than a filter or projection (``Calc``), a watermark assigner whose
  watermark nobody reads, or a union reads it, or it is a root.

Several consumers of a scan use the rows any of them uses (OR); so do several statements
of a job (``BatchContext.note_filters``).
"""
from __future__ import annotations

from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Dag, PhysicalNode
from sqlengine.types import BOOLEAN, INTEGER_ROOTS

Cond = Optional[P.Expr]  # None: every row


def scan_filters(dag: Dag) -> dict[P.TableScan, Cond]:
    """Per logical table scan of ``dag``: the condition its used rows meet, or None."""
    consumers = dag.consumers()
    watermarked = dag.watermarked()
    asked: dict[str, list[Cond]] = {n.id: [] for n in dag.nodes}
    out: dict[P.TableScan, Cond] = {}
    for n in reversed(dag.nodes):  # consumers before their inputs
        need = None if n in dag.roots or not consumers[n.id] else any_of(asked[n.id])
        if n.op.source and isinstance(n.logical, P.TableScan):
            scan = n.logical
            if scan.changelog or n in watermarked:
                need = None
            out[scan] = any_of([out[scan], need]) if scan in out else need
        for child, cond in zip(n.children, _inputs(n, need, n in watermarked)):
            asked[child.id].append(cond)
    return out


def any_of(conds: list[Cond]) -> Cond:
    """The rows any of ``conds`` uses (None if one of them uses every row)."""
    if not conds or any(c is None for c in conds):
        return None
    out = conds[0]
    for c in conds[1:]:
        if c != out:
            out = P.Call(BOOLEAN(), "OR", (out, c))
    return out


def _all_of(a: Cond, b: Cond) -> Cond:
    if a is None or b is None:
        return b if a is None else a
    return P.Call(BOOLEAN(), "AND", (a, b))


def _inputs(n: PhysicalNode, need: Cond, watermarked: bool) -> list[Cond]:
    """The condition ``n`` needs of each input's rows when ``need`` is asked of its output."""
    node = n.logical
    if isinstance(node, P.Calc):
        below = None
        if need is not None:
            below = need.transform(lambda e: node.projections[e.index] if isinstance(e, P.ColRef) else None)
        return [_all_of(node.condition, below)]
    if isinstance(node, P.WatermarkAssigner):
        return [None if watermarked else need]
    if isinstance(node, P.Union):
        return [need for _ in n.children]
    return [None for _ in n.children]


# -- as a connector reads it (connectors/predicate.py) -----------------------------------------
def to_predicate(cond: Cond, fields: tuple[P.Field, ...]) -> Optional[list]:
    """``cond`` (over a scan's columns ``fields``) in connectors/predicate.py's form, made
    weaker where a part has no such form (a function call, a conversion, a comparison of
    two columns): every row meeting ``cond`` meets the result. None: no condition."""
    return None if cond is None else _form(cond, fields)[0]


def _form(e: P.Expr, fields) -> tuple[Optional[list], bool]:
    """(the form, or None for TRUE; whether it is exactly ``e``)."""
    if isinstance(e, P.Call) and type(e) is P.Call:
        if e.name in ("AND", "OR"):
            parts = [_form(a, fields) for a in e.args]
            kept = [p for p, _ in parts if p is not None]
            exact = all(x for _, x in parts)
            if not kept or (e.name == "OR" and len(kept) < len(parts)):
                return None, False
            op = e.name.lower()
            flat = [x for p in kept for x in (p[1:] if p[0] == op else [p])]
            return (flat[0] if len(flat) == 1 else [op, *flat]), exact
        if e.name == "NOT" and len(e.args) == 1:
            inner, exact = _form(e.args[0], fields)
            return (["not", inner], True) if exact and inner is not None else (None, False)
        if e.name in ("IS NULL", "IS NOT NULL") and len(e.args) == 1:
            path = _path(e.args[0], fields)
            if path is not None:
                return ["null" if e.name == "IS NULL" else "notnull", path[0]], True
        if e.name in ("=", "<>", "<", "<=", ">", ">=") and len(e.args) == 2:
            return _comparison(e.name, e.args[0], e.args[1], fields)
        if e.name in ("IN", "NOT IN") and 1 < len(e.args) <= 33:
            parts = [_comparison("=", e.args[0], v, fields)[0] for v in e.args[1:]]
            if all(p is not None for p in parts):
                form = parts[0] if len(parts) == 1 else ["or", *parts]
                return (form if e.name == "IN" else ["not", form]), True
        if e.name in ("BETWEEN", "BETWEEN ASYMMETRIC", "NOT BETWEEN", "NOT BETWEEN ASYMMETRIC") and len(e.args) == 3:
            negated = e.name.startswith("NOT")
            (lo, _), (hi, _) = (_comparison("<" if negated else ">=", e.args[0], e.args[1], fields),
                                _comparison(">" if negated else "<=", e.args[0], e.args[2], fields))
            if lo is not None and hi is not None:
                return ["or" if negated else "and", lo, hi], True
    return None, False


_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _comparison(op: str, a: P.Expr, b: P.Expr, fields) -> tuple[Optional[list], bool]:
    if isinstance(a, P.Lit):
        a, b, op = b, a, _FLIP[op]
    path = _path(a, fields)
    if path is None or not isinstance(b, P.Lit) or b.value is None:
        return None, False
    names, t = path
    v = b.value
    same = (t.is_integer and b.type.is_integer and isinstance(v, int) and not isinstance(v, bool)) \
        or (t.root in ("VARCHAR", "STRING") and b.type.is_string and isinstance(v, str)) \
        or (t.root == "BOOLEAN" and b.type.root == "BOOLEAN" and isinstance(v, bool))
    return (["cmp", op, names, v], True) if same else (None, False)


def _path(e: P.Expr, fields) -> Optional[tuple[list, object]]:
    """(a column's name then ROW member names, the value's type) when ``e`` reads a
    scan column or a member of one (an integer widened to a larger integer included)."""
    if isinstance(e, P.Cast) and not e.safe and e.type.is_integer and e.arg.type.is_integer \
            and INTEGER_ROOTS.index(e.arg.type.root) <= INTEGER_ROOTS.index(e.type.root):
        inner = _path(e.arg, fields)
        return inner if inner is None else (inner[0], e.arg.type)
    if isinstance(e, P.ColRef) and e.index < len(fields):
        return [fields[e.index].name], fields[e.index].type
    if isinstance(e, P.Call) and type(e) is P.Call and e.name == "FIELD" and len(e.args) == 2 \
            and isinstance(e.args[1], P.Lit) and isinstance(e.args[1].value, str):
        inner = _path(e.args[0], fields)
        if inner is not None and inner[1].root == "ROW":
            member = next((f for f in inner[1].fields if f.name == e.args[1].value), None)
            if member is not None:
                return inner[0] + [member.name], member.type
    return None
