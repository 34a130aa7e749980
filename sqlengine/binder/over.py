"""OVER windows: ``agg(...) OVER (PARTITION BY .. ORDER BY .. frame)`` and named windows.

Calls that share a partition and order become one ``Over`` node (each call keeps its
own frame); several distinct windows stack ``Over`` nodes. Partition and order
expressions that are not plain columns are computed by a Calc below. In streaming
mode Flink allows only one window per SELECT, ordered ascending by a time attribute,
with frames ending at CURRENT ROW; ranking functions are left to the Top-N rule.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from sqlengine import types as T
from sqlengine.binder.expressions import ExprBinder, bind_aggregate_call
from sqlengine.errors import UnsupportedError, ValidationError
from sqlengine.plan import nodes as P

RANKING = ("ROW_NUMBER", "RANK", "DENSE_RANK")
# Ranking functions Flink runs in batch mode only, and their result types.
BATCH_RANKING = {"PERCENT_RANK": T.DOUBLE(False), "CUME_DIST": T.DOUBLE(False), "NTILE": T.BIGINT(False)}
OFFSET_FNS = ("LAG", "LEAD")


def _windows(select: exp.Select) -> list[exp.Window]:
    out = []

    def visit(n: exp.Expression):
        if isinstance(n, exp.Window):
            out.append(n)
            return
        if isinstance(n, (exp.Subquery, exp.Select)) and n is not select:
            return
        for child in n.iter_expressions():
            visit(child)
    for item in select.expressions:
        visit(item)
    return out


def has_over(select: exp.Select) -> bool:
    return bool(_windows(select))


def _resolve(qb, w: exp.Window, named: dict) -> exp.Window:
    """A window referencing a named window (``OVER w``) takes its definition."""
    ref = w.args.get("alias")  # sqlglot keeps ``OVER w`` as the window's alias
    if ref is None:
        return w
    spec = named.get(ref.name.lower())
    if spec is None:
        raise ValidationError(f"Window '{ref.name}' not found", qb.span(w))
    return spec


def bind_over(qb, select: exp.Select, rel):
    """Returns the relation with the Over nodes and (window AST, bound column) pairs."""
    from sqlengine.binder.relation import Relation
    named = {w.this.name.lower(): w for w in select.args.get("windows") or []}
    windows = _windows(select)
    scope = rel.scope(qb.source)
    binder = ExprBinder(scope)
    base = rel.node
    width = len(base.schema)
    extra: list[P.Expr] = []  # computed partition/order expressions

    def position(e: exp.Expression) -> int:
        bound = binder.bind(e)
        if isinstance(bound, P.ColRef):
            return bound.index
        if bound not in extra:
            extra.append(bound)
        return width + extra.index(bound)

    specs = []
    for w in windows:
        d = _resolve(qb, w, named)
        part = tuple(position(e) for e in d.args.get("partition_by") or [])
        order = tuple(P.SortKey(position(o.this), not o.args.get("desc"), _nulls(o))
                      for o in (d.args["order"].expressions if d.args.get("order") else []))
        specs.append((w, part, order, d.args.get("spec")))
    if extra:
        projs = tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(base.schema)) + tuple(extra)
        names = tuple(base.names()) + tuple(f"$f{width + i}" for i in range(len(extra)))
        base = P.Calc(base, projs, names)
    in_schema = base.schema
    groups: dict[tuple, list] = {}
    for w, part, order, spec in specs:
        call = _bind_call(qb, w.this, binder, order, in_schema, spec, w)
        groups.setdefault((part, order), []).append((w, call))
    if qb.streaming and len(groups) > 1:
        raise UnsupportedError("Over Agg: Unsupported use of OVER windows. All aggregates must be computed "
                               "on the same window. please re-check the over window statement.",
                               qb.span(select))
    aliases = {id(item.this): item.alias for item in select.expressions
               if isinstance(item, exp.Alias) and isinstance(item.this, exp.Window)}
    replacements = []
    node = base
    for (part, order), calls in groups.items():
        uniq: list[P.OverCall] = []
        for _, c in calls:
            if c not in uniq:
                uniq.append(c)
        start = len(node.schema)
        names = tuple(next((aliases[id(w)] for w, c2 in calls if c2 == c and id(w) in aliases),
                           f"w{len(replacements)}$o{i}") for i, c in enumerate(uniq))
        node = P.Over(node, part, order, tuple(uniq), names)
        for w, c in calls:
            replacements.append((w, P.ColRef(c.type, start + uniq.index(c), names[uniq.index(c)])))
    quals = list(rel.qualifiers) + [None] * (len(node.schema) - len(rel.qualifiers))
    return Relation(node, quals, set(rel.hidden) | set(range(width, len(node.schema)))), replacements


def _nulls(o: exp.Ordered) -> Optional[bool]:
    nf = o.args.get("nulls_first")
    return None if nf is None else bool(nf)


def _fname(node: exp.Expression) -> str:
    from sqlengine.binder.expressions import RENAMES
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    return RENAMES.get(type(node).__name__, node.sql_name().upper())


def _bind_call(qb, fn: exp.Expression, binder: ExprBinder, order, schema, spec, w) -> P.OverCall:
    name = _fname(fn)
    if name in BATCH_RANKING and qb.streaming:
        raise UnsupportedError(f"{name} Function is not supported in stream mode.", qb.span(fn))
    if name in RANKING or name in BATCH_RANKING:
        if not order:
            raise ValidationError(f"{name}() requires an ORDER BY in its OVER clause", qb.span(w))
        args = _ntile_buckets(qb, fn, binder) if name == "NTILE" else ()
        return P.OverCall(name, args, BATCH_RANKING.get(name, T.BIGINT(False)), P.Frame("ROWS", None, 0))
    frame = _frame(qb, spec, order, schema, w)
    _check_streaming(qb, order, schema, frame, w)
    if name in OFFSET_FNS:
        args = tuple(binder.bind(a) for a in [fn.this] + list(fn.expressions or [])
                     + [fn.args[k] for k in ("offset", "default") if fn.args.get(k) is not None])
        return P.OverCall(name, args, args[0].type.with_nullable(True), frame)
    call = bind_aggregate_call(binder, fn)
    if call.filter is not None:
        raise UnsupportedError("FILTER in OVER aggregates is not supported", qb.span(fn))
    return P.OverCall(call.name, call.args, call.type, frame, call.distinct, call.function)


def _ntile_buckets(qb, fn: exp.Expression, binder: ExprBinder) -> tuple[P.Expr, ...]:
    """NTILE's one argument: a positive integer literal (its number of buckets)."""
    args = [fn.this] + list(fn.expressions or []) if fn.this is not None else list(fn.expressions or [])
    bound = [binder.bind(a) for a in args]
    if len(bound) != 1 or not isinstance(bound[0], P.Lit) or not isinstance(bound[0].value, int) \
            or bound[0].value <= 0:
        raise ValidationError("NTILE takes one argument, a positive integer literal (its number of buckets)",
                              qb.span(fn))
    return tuple(bound)


def _check_streaming(qb, order, schema, frame: P.Frame, w) -> None:
    if not qb.streaming:
        return
    if len(order) != 1 or schema[order[0].index].type.time_attr is None:
        raise ValidationError("OVER windows' ordering in stream mode must be defined on a time attribute.",
                              qb.span(w))
    if not order[0].ascending:
        raise ValidationError("The window can only be ordered in ASCENDING mode.", qb.span(w))
    if frame.upper != 0:
        raise UnsupportedError("OVER RANGE FOLLOWING windows are not supported yet.", qb.span(w))


def _frame(qb, spec: Optional[exp.WindowSpec], order, schema, w) -> P.Frame:
    """``Frame(kind, lower, upper)``: lower None = UNBOUNDED PRECEDING; upper 0 = CURRENT
    ROW, +n = n FOLLOWING, None = UNBOUNDED FOLLOWING. Without ORDER BY the frame is the
    whole partition (as in SQL)."""
    if spec is None:
        return P.Frame("RANGE", None, 0 if order else None)
    kind = (spec.args.get("kind") or "RANGE").upper()
    lower = _bound(qb, spec.args.get("start"), spec.args.get("start_side"), kind, w)
    upper = _bound(qb, spec.args.get("end"), spec.args.get("end_side"), kind, w) \
        if spec.args.get("end") is not None else 0
    if lower is not None:
        lower = -lower
    if kind == "RANGE" and (lower not in (None,) or upper not in (0, None)) and len(order) != 1:
        raise ValidationError("RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
                              qb.span(w))
    return P.Frame(kind, lower, upper)


def _bound(qb, value, side, kind: str, w) -> Optional[int]:
    """Signed offset: -n PRECEDING, +n FOLLOWING, 0 CURRENT ROW, None UNBOUNDED."""
    text = value.name.upper() if isinstance(value, (exp.Var, exp.Identifier)) else \
        value.upper() if isinstance(value, str) else None
    side = (side or "").upper()
    if text == "UNBOUNDED":
        return None
    if text == "CURRENT ROW":
        return 0
    bound = ExprBinder(qb_scope(qb)).bind(value)
    if not isinstance(bound, P.Lit):
        raise ValidationError("A window frame bound must be a literal", qb.span(w))
    n = int(bound.value)
    return -n if side == "PRECEDING" else n


def qb_scope(qb):
    from sqlengine.binder.expressions import Scope
    return Scope([], qb.source)
