"""Which rows of each table a job uses: a condition every row some operator of the DAG
uses meets (the filters above a scan, through projections), handed to the connector as
``ScanContext.filter`` (sqlengine/plan/predicates.py's form). A connector may drop the rows
that fail it where it reads them (the Kafka reader does, after decoding: Nexmark's q3
uses 2% of its events); the filters above the scan stay and decide the answer.

A watermark is over every row of its table (Flink's DDL watermark): where an operator
reads it, a row the filters drop may still hold the largest event time. So the
watermark assigner adds its rowtime expression to the scan's *tops*
(``ScanContext.tops``): per split and batch read, a row with the largest value of each
top is kept too, whatever the condition (the watermark, a per-split maximum, is then
the same; Nexmark's q8 windows 8% of its events).

A scan's rows are all used (no condition) when:

* it is a changelog (a row's update and delete are one history; ChangelogNormalize);
* some operator other than a filter or projection (``Calc``), a watermark assigner or a
  union reads it, or it is a root.

Several consumers of a scan use the rows any of them uses (OR, and every top); so do
several statements of a job (``BatchContext.note_reads``).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Dag, PhysicalNode
from sqlengine.plan.predicates import restrict
from sqlengine.types import BOOLEAN, INTEGER_ROOTS


@dataclass(frozen=True)
class Used:
    """The rows of a node's output its consumers use: those ``cond`` is TRUE for, and per
    split and batch, one with the largest non-NULL value of each of ``tops``."""

    cond: P.Expr
    tops: tuple[P.Expr, ...] = ()


Need = Optional[Used]  # None: every row


def scan_filters(dag: Dag) -> dict[P.TableScan, Need]:
    """Per logical table scan of ``dag``: the rows its operators use (None: all of them)."""
    watermarked = dag.watermarked()
    out = dag.to_scans(any_of, lambda n, need: _inputs(n, need, n in watermarked))
    return {scan: None if scan.changelog else need for scan, need in out.items()}


def any_of(needs: list[Need]) -> Need:
    """The rows any of ``needs`` uses (None if one of them uses every row)."""
    if not needs or any(u is None for u in needs):
        return None
    cond, tops = needs[0].cond, list(needs[0].tops)
    for u in needs[1:]:
        if u.cond != cond:
            cond = P.Call(BOOLEAN(), "OR", (cond, u.cond))
        tops += [t for t in u.tops if t not in tops]
    return Used(cond, tuple(tops))


def _inputs(n: PhysicalNode, need: Need, watermarked: bool) -> list[Need]:
    """What ``n`` uses of each input's rows when ``need`` is asked of its output."""
    node = n.logical
    if isinstance(node, P.Calc):
        cond = node.condition
        if need is None:
            return [None if cond is None else Used(cond)]

        def below(e: P.Expr) -> P.Expr:
            return e.transform(lambda x: node.projections[x.index] if isinstance(x, P.ColRef) else None)
        wanted = below(need.cond) if cond is None else P.Call(BOOLEAN(), "AND", (cond, below(need.cond)))
        # a top over the rows the filter passes: NULL on the others (CASE without ELSE)
        tops = tuple(below(t) if cond is None else P.Call(t.type, "CASE", (cond, below(t))) for t in need.tops)
        return [Used(wanted, tops)]
    if isinstance(node, P.WatermarkAssigner):
        if need is None or not watermarked:
            return [need]
        rowtime = node.input.schema[node.rowtime]
        return [Used(need.cond, need.tops + (P.ColRef(rowtime.type, node.rowtime, rowtime.name),))]
    if isinstance(node, P.Union):
        return [need for _ in n.children]
    return [None for _ in n.children]


# -- as a connector reads it (plan/predicates.py) -----------------------------------------
def to_predicate(cond: Optional[P.Expr], fields: tuple[P.Field, ...]) -> Optional[list]:
    """``cond`` (over a scan's columns ``fields``) in plan/predicates.py's form, made
    weaker where a part has no such form (a function call, a conversion, a comparison of
    two columns): every row meeting ``cond`` meets the result. None: no condition."""
    return None if cond is None else restrict(_form(cond, fields), lambda path: True)


def to_values(tops: tuple[P.Expr, ...], fields: tuple[P.Field, ...]) -> Optional[list]:
    """``tops`` in plan/predicates.py's value form, exactly (None if one has none:
    then no row may be dropped)."""
    out = [_value(t, fields) for t in tops]
    return None if any(v is None for v in out) else out


def _value(e: P.Expr, fields) -> Optional[list]:
    """A column, a ROW member, or a CASE of exact conditions over such values (a computed
    rowtime column's usual form), in the value form; None otherwise."""
    if type(e) is P.Call and e.name == "CASE" and len(e.args) >= 2:
        parts: list = []
        for i, a in enumerate(e.args):
            is_cond = i % 2 == 0 and i < len(e.args) - 1
            if is_cond:
                form = _form(a, fields)  # exact: nothing to weaken away
                part = form if restrict(form, lambda path: True) == form else None
            else:
                part = _value(a, fields)
            if part is None:
                return None
            parts.append(part)
        return ["case", *parts]
    path = _path(e, fields)
    if path is not None and (path[1].root in ("TIMESTAMP", "TIMESTAMP_LTZ") or path[1].is_integer):
        return ["path", path[0]]
    return None


UNKNOWN = ["?"]  # a part with no connector form (plan/predicates.py)


def _form(e: P.Expr, fields) -> list:
    """``e`` in the connector's form, each part with none as ``UNKNOWN`` (``restrict``
    weakens them away); ANDs and ORs flattened."""
    if type(e) is not P.Call:
        return UNKNOWN
    if e.name in ("AND", "OR"):
        op = e.name.lower()
        parts = [_form(a, fields) for a in e.args]
        return [op, *(x for p in parts for x in (p[1:] if p[0] == op else [p]))]
    if e.name == "NOT" and len(e.args) == 1:
        return ["not", _form(e.args[0], fields)]
    if e.name in ("IS NULL", "IS NOT NULL") and len(e.args) == 1:
        path = _path(e.args[0], fields)
        return UNKNOWN if path is None else ["null" if e.name == "IS NULL" else "notnull", path[0]]
    if e.name in _FLIP and len(e.args) == 2:
        return _comparison(e.name, e.args[0], e.args[1], fields)
    if e.name in ("IN", "NOT IN") and 1 < len(e.args) <= 33:
        parts = [_comparison("=", e.args[0], v, fields) for v in e.args[1:]]
        form = parts[0] if len(parts) == 1 else ["or", *parts]
        return form if e.name == "IN" else ["not", form]
    if e.name in ("BETWEEN", "BETWEEN ASYMMETRIC", "NOT BETWEEN", "NOT BETWEEN ASYMMETRIC") and len(e.args) == 3:
        if e.name.startswith("NOT"):
            return ["or", _comparison("<", e.args[0], e.args[1], fields), _comparison(">", e.args[0], e.args[2], fields)]
        return ["and", _comparison(">=", e.args[0], e.args[1], fields), _comparison("<=", e.args[0], e.args[2], fields)]
    return UNKNOWN


_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _comparison(op: str, a: P.Expr, b: P.Expr, fields) -> list:
    if isinstance(a, P.Lit):
        a, b, op = b, a, _FLIP[op]
    scaled = _scaled(a, b, op, fields)
    if scaled is not None:
        return scaled
    path = _path(a, fields)
    if path is None or not isinstance(b, P.Lit) or b.value is None:
        return UNKNOWN
    names, t = path
    v = b.value
    same = (t.is_integer and b.type.is_integer and isinstance(v, int) and not isinstance(v, bool)) \
        or (t.root in ("VARCHAR", "STRING") and b.type.is_string and isinstance(v, str)) \
        or (t.root == "BOOLEAN" and b.type.root == "BOOLEAN" and isinstance(v, bool))
    return ["cmp", op, names, v] if same else UNKNOWN


def _number(e: P.Expr) -> Optional[Decimal]:
    """A numeric literal's exact value (integer or DECIMAL), else None."""
    if not isinstance(e, P.Lit) or e.value is None or isinstance(e.value, bool):
        return None
    if (e.type.is_integer and isinstance(e.value, int)) or (e.type.root == "DECIMAL" and isinstance(e.value, (int, Decimal))):
        return Decimal(e.value)
    return None


_EXACT = Context(prec=120)
_LIMIT = 1 << 62  # a bound beyond it is not handed on


def _scaled(a: P.Expr, b: P.Expr, op: str, fields) -> Optional[list]:
    """``k * x op v`` (or ``x * k``) for an integer column ``x``, exact numeric literals
    ``k`` (not 0) and ``v``, the product a DECIMAL that cannot overflow: the same rows as
    a bound on ``x`` (Nexmark's q14, ``0.908 * price > 1000000``: ``price > 1101321``).
    Exact, not weaker: an integer ``x`` is above ``v / k`` exactly when it is above its
    floor, at least it exactly when at least its ceiling. (An integer product wraps on
    overflow, as Flink's does: no bound holds for it.)"""
    if not (type(a) is P.Call and a.name == "*" and len(a.args) == 2 and a.type.root == "DECIMAL"
            and op in ("<", "<=", ">", ">=", "=", "<>")):
        return None
    x, k = (a.args[1], _number(a.args[0])) if _number(a.args[0]) is not None else (a.args[0], _number(a.args[1]))
    v = _number(b)
    path = _path(x, fields)
    if k is None or k == 0 or v is None or path is None or not path[1].is_integer:
        return None
    if (a.type.precision or 38) >= 38:  # Flink's product type capped: it could overflow
        return None
    q = _EXACT.divide(v, k)
    if k < 0:
        op = _FLIP[op]
    lo, hi = int(q.to_integral_value(ROUND_FLOOR)), int(q.to_integral_value(ROUND_CEILING))
    if op in ("=", "<>") and lo != hi:  # no integer times k is v
        return UNKNOWN
    value = {">": lo, ">=": hi, "<": hi, "<=": lo, "=": lo, "<>": lo}[op]
    return ["cmp", op, path[0], value] if abs(value) < _LIMIT else UNKNOWN


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
