"""Binding FROM clauses with joins: regular, interval, window and temporal joins, UNNEST.

The FROM items bind into a left-deep tree of ``Join`` nodes (``a, b`` is an INNER
join without condition). WHERE conjuncts that reference the right side of an inner
join move into that join's condition (so ``FROM a, b WHERE a.k = b.k`` is an equi
join), then each join is classified as Flink's planner does: equi keys are extracted
into ``left_keys``/``right_keys``; in streaming mode a join of two window TVF outputs on
equal windows is a ``WindowJoin`` and a join bounding one rowtime by the other is an
``IntervalJoin``. ``FOR SYSTEM_TIME AS OF`` is a ``TemporalJoin``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from sqlglot import exp

from sqlengine import types as T
from sqlengine.binder.expressions import ExprBinder
from sqlengine.errors import Span, UnsupportedError, ValidationError
from sqlengine.plan import nodes as P
from sqlengine.plan.lineage import WINDOW_PROPS, window_prop

JOIN_NEEDS_CONDITION = ("INNER, LEFT, RIGHT or FULL join requires a condition "
                        "(NATURAL keyword or ON or USING clause)")


# -- expression helpers --------------------------------------------------------------------
conjuncts = P.conjuncts
conjoin = P.conjoin


def is_true(e: Optional[P.Expr]) -> bool:
    return isinstance(e, P.Lit) and e.value is True


# -- binding the FROM clause ----------------------------------------------------------------
def bind_join(qb, left, j: exp.Join):
    """One ``JOIN`` item of a FROM clause on top of ``left`` (a Relation)."""
    from sqlengine.binder.relation import Relation
    item = j.this
    side = (j.side or "").upper()
    kind = (j.kind or "").upper()
    if (j.args.get("method") or "").upper() == "NATURAL":
        raise UnsupportedError("NATURAL JOIN is not supported", qb.span(j))
    if _lacks_condition(j):
        raise ValidationError(JOIN_NEEDS_CONDITION, _join_span(qb, j))
    if isinstance(item, exp.Unnest):
        return bind_unnest(qb, left, item, side, j.args.get("on"))
    if isinstance(item, exp.Lateral):
        return bind_lateral_table(qb, left, item, side, j.args.get("on"))
    jkind = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FULL": "FULL"}.get(side, "INNER")
    if kind in ("SEMI", "ANTI"):
        jkind = kind
    if isinstance(item, exp.Table) and item.args.get("version") is not None:
        return bind_temporal(qb, left, j, jkind)
    right = qb.bind_from(item)
    quals = left.qualifiers + right.qualifiers
    nl = len(left.node.schema)
    hidden = set(left.hidden) | {nl + h for h in right.hidden}
    if j.args.get("using"):
        return bind_using(qb, left, right, jkind, j)
    on = j.args.get("on")
    cond = None
    if on is not None:
        scope_rel = Relation(P.Join(left.node, right.node, jkind, None), quals, hidden)
        cond = _bind_condition(qb, scope_rel, on)
    return Relation(P.Join(left.node, right.node, jkind, None if is_true(cond) else cond), quals, hidden)


def _lacks_condition(j: exp.Join) -> bool:
    """``a JOIN b`` (INNER, LEFT, RIGHT or FULL) without ON or USING; ``a, b`` and
    ``a CROSS JOIN b`` need none."""
    return not (j.meta.get("comma") or j.args.get("on") or j.args.get("using")
                or (j.kind or "").upper() in ("CROSS", "SEMI", "ANTI"))


def _join_span(qb, j: exp.Join) -> Optional[Span]:
    """Flink's place for a join: its JOIN keyword."""
    where = j.meta.get("join_token")
    return Span(qb.source, *where) if where and qb.source else qb.span(j)


def _bind_condition(qb, rel, on: exp.Expression) -> P.Expr:
    scope = rel.scope(qb.source)
    scope.join_split = len(rel.node.left.schema)
    from sqlengine.binder.expressions import condition
    return condition(ExprBinder(scope).bind(on), "ON", qb.span(on))


def bind_using(qb, left, right, jkind: str, j: exp.Join):
    """``JOIN r USING (k)``: the common columns once (first), then the other columns;
    each side's copy stays reachable through its qualifier (``l.k``)."""
    from sqlengine.binder.relation import Relation
    names = [i.name for i in j.args["using"]]
    nl = len(left.node.schema)
    lnames, rnames = left.node.names(), right.node.names()
    pairs = []
    for n in names:
        li = [i for i, x in enumerate(lnames) if x.lower() == n.lower() and i not in left.hidden]
        ri = [i for i, x in enumerate(rnames) if x.lower() == n.lower() and i not in right.hidden]
        if not li or not ri:
            raise ValidationError(f"Column '{n}' not found in {'left' if not li else 'right'} table of USING",
                                  qb.span(j))
        pairs.append((li[0], ri[0]))
    join = P.Join(left.node, right.node, jkind, None)
    sch = join.schema
    eqs = [P.Call(T.BOOLEAN(), "=", (P.ColRef(sch[l].type, l, sch[l].name),
                                     P.ColRef(sch[nl + r].type, nl + r, sch[nl + r].name))) for l, r in pairs]
    join = classify(qb, P.Join(left.node, right.node, jkind, conjoin(eqs)))
    projs: list[P.Expr] = []
    for l, r in pairs:
        lref = P.ColRef(sch[l].type, l, sch[l].name)
        rref = P.ColRef(sch[nl + r].type, nl + r, sch[nl + r].name)
        if jkind == "FULL":
            t = T.common_type(lref.type, rref.type) or lref.type
            projs.append(P.Call(t.with_nullable(True), "COALESCE", (lref, rref)))
        else:
            projs.append(rref if jkind == "RIGHT" else lref)
    projs += [P.ColRef(f.type, i, f.name) for i, f in enumerate(sch)]
    out_names = tuple(names) + tuple(f.name for f in sch)
    quals = [None] * len(pairs) + left.qualifiers + right.qualifiers
    hidden = {len(pairs) + l for l, _ in pairs} | {len(pairs) + nl + r for _, r in pairs} | \
        {len(pairs) + h for h in left.hidden} | {len(pairs) + nl + h for h in right.hidden}
    return Relation(P.Calc(join, tuple(projs), out_names), quals, hidden)


# -- WHERE pushdown and classification ----------------------------------------------------
def push_into_joins(node: P.Node, conds: list[P.Expr]) -> tuple[P.Node, list[P.Expr]]:
    """Move WHERE conjuncts into the inner joins of a left-deep tree (positions are the
    same at every level of the left spine). Returns the tree and what must stay above."""
    if type(node) is not P.Join or node.kind in ("RIGHT", "FULL", "SEMI", "ANTI"):
        return node, conds
    nl = len(node.left.schema)
    mine, down, above = [], [], []
    for c in conds:
        r = P.refs(c)
        if not r:
            above.append(c)
        elif max(r) < nl:
            down.append(c)
        elif node.kind == "INNER":
            mine.append(c)
        else:
            above.append(c)
    left, leftover = push_into_joins(node.left, down)
    cond = conjoin(conjuncts(node.condition) + mine)
    return replace(node, left=left, condition=cond), leftover + above


def finalize_joins(qb, node: P.Node) -> P.Node:
    """Classify every plain join of the left spine (bottom-up)."""
    if type(node) is not P.Join:
        return node
    node = replace(node, left=finalize_joins(qb, node.left))
    return classify(qb, node)


def equi_pairs(cond: Optional[P.Expr], nl: int, width: int) -> list[tuple[int, int, P.Expr]]:
    """(left position, right position, conjunct) for each ``l.col = r.col`` conjunct."""
    out = []
    for c in conjuncts(cond):
        if isinstance(c, P.Call) and c.name == "=":
            a, b = (_strip(x) for x in c.args)
            if isinstance(a, P.ColRef) and isinstance(b, P.ColRef):
                if a.index < nl <= b.index < width:
                    out.append((a.index, b.index - nl, c))
                elif b.index < nl <= a.index < width:
                    out.append((b.index, a.index - nl, c))
    return out


def _strip(e: P.Expr) -> P.Expr:
    while isinstance(e, P.Cast):
        e = e.arg
    return e


def classify(qb, join: P.Join) -> P.Node:
    """The join's kind (regular / window / interval) and its equi keys. Equalities of
    expressions (``mod(l.a, 10) = r.k``) get their operands computed by a Calc below the
    join (as Flink does), a Calc above removes them again."""
    computed = _compute_key_expressions(qb, join)
    if computed is not None:
        return computed
    nl = len(join.left.schema)
    width = nl + len(join.right.schema)
    pairs = equi_pairs(join.condition, nl, width)
    if qb.streaming:
        win = _window_join(join, pairs, nl)
        if win is not None:
            return win
    if qb.streaming and join.kind in ("INNER", "LEFT", "RIGHT", "FULL"):
        interval = _interval_join(join, pairs, nl, width)
        if interval is not None:
            return interval
    return replace(join, left_keys=tuple(p[0] for p in pairs), right_keys=tuple(p[1] for p in pairs))


def _compute_key_expressions(qb, join: P.Join) -> Optional[P.Node]:
    nl, nr = len(join.left.schema), len(join.right.schema)
    lx: list[P.Expr] = []
    rx: list[P.Expr] = []
    found = []  # (conjunct, left expr, right expr over right.schema)
    for c in conjuncts(join.condition):
        if not (isinstance(c, P.Call) and c.name == "=" and len(c.args) == 2):
            continue
        a, b = c.args
        if isinstance(_strip(a), P.ColRef) and isinstance(_strip(b), P.ColRef):
            continue
        ra, rb = P.refs(a), P.refs(b)
        if not ra or not rb:
            continue
        if max(ra) < nl <= min(rb):
            found.append((c, a, P.shift_refs(b, -nl)))
        elif max(rb) < nl <= min(ra):
            found.append((c, b, P.shift_refs(a, -nl)))
    if not found:
        return None
    for _, le, re_ in found:
        if not isinstance(le, P.ColRef) and le not in lx:
            lx.append(le)
        if not isinstance(re_, P.ColRef) and re_ not in rx:
            rx.append(re_)
    left = _extend(join.left, lx)
    right = _extend(join.right, rx)
    nl2 = len(left.schema)
    by = len(lx)

    def key_ref(e: P.Expr, node: P.Node, extra: list, base: int, offset: int) -> P.ColRef:
        i = e.index if isinstance(e, P.ColRef) else base + extra.index(e)
        return P.ColRef(node.schema[i].type, offset + i, node.schema[i].name)
    parts = []
    for c in conjuncts(join.condition):
        hit = next((f for f in found if f[0] is c), None)
        if hit is None:
            parts.append(P.shift_refs(c, by, start=nl))
        else:
            parts.append(replace(c, args=(key_ref(hit[1], left, lx, nl, 0), key_ref(hit[2], right, rx, nr, nl2))))
    inner = classify(qb, replace(join, left=left, right=right, condition=conjoin(parts)))
    keep = list(range(nl)) + ([] if join.kind in ("SEMI", "ANTI") else [nl2 + j for j in range(nr)])
    sch = inner.schema
    return P.Calc(inner, tuple(P.ColRef(sch[i].type, i, sch[i].name) for i in keep),
                  tuple(sch[i].name for i in keep))


def _extend(node: P.Node, extra: list[P.Expr]) -> P.Node:
    if not extra:
        return node
    n = len(node.schema)
    projs = tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(node.schema)) + tuple(extra)
    return P.Calc(node, projs, tuple(node.names()) + tuple(f"$f{n + i}" for i in range(len(extra))))


def _window_join(join: P.Join, pairs, nl: int) -> Optional[P.Join]:
    found: dict[str, tuple[int, int]] = {}
    keys = []
    for l, r, _ in pairs:
        lp, rp = window_prop(join.left, l), window_prop(join.right, r)
        if lp in ("window_start", "window_end") and lp == rp:
            found[lp] = (l, r)
        else:
            keys.append((l, r))
    if set(found) != {"window_start", "window_end"}:
        return None
    return P.WindowJoin(join.left, join.right, join.kind, join.condition,
                        tuple(k[0] for k in keys), tuple(k[1] for k in keys),
                        left_window=(found["window_start"][0], found["window_end"][0]),
                        right_window=(found["window_start"][1], found["window_end"][1]))


def _time_operand(e: P.Expr) -> Optional[tuple[int, int]]:
    """``col`` / ``col + INTERVAL`` / ``col - INTERVAL`` -> (column, offset ms)."""
    e = _strip(e)
    if isinstance(e, P.ColRef):
        return e.index, 0
    if isinstance(e, P.Call) and e.name in ("+", "-") and len(e.args) == 2:
        base, lit = _strip(e.args[0]), e.args[1]
        if e.name == "+" and isinstance(base, P.Lit):
            base, lit = _strip(e.args[1]), e.args[0]
        if isinstance(base, P.ColRef) and isinstance(lit, P.Lit) and lit.type.root == "INTERVAL_DAY_TIME":
            return base.index, int(lit.value) * (1 if e.name == "+" else -1)
    return None


def _comparisons(cond: Optional[P.Expr]):
    """(conjunct, a, op, b) for each comparison; BETWEEN splits into two."""
    for c in conjuncts(cond):
        if isinstance(c, P.Call) and c.name in ("<", "<=", ">", ">=") and len(c.args) == 2:
            yield c, c.args[0], c.name, c.args[1]
        elif isinstance(c, P.Call) and c.name == "BETWEEN" and len(c.args) == 3:
            yield c, c.args[0], ">=", c.args[1]
            yield c, c.args[0], "<=", c.args[2]


FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _interval_join(join: P.Join, pairs, nl: int, width: int) -> Optional[P.Join]:
    """``left.t + lower <= right.t <= left.t + upper`` from the time predicates."""
    ls, rs = join.left.schema, join.right.schema
    lower = upper = None
    times = None
    for _, a, op, b in _comparisons(join.condition):
        x, y = _time_operand(a), _time_operand(b)
        if x is None or y is None:
            continue
        if x[0] >= nl and y[0] < nl:  # right op left -> left op' right
            x, y, op = y, x, FLIP[op]
        if not (x[0] < nl <= y[0] < width):
            continue
        lt, rt = x[0], y[0] - nl
        if ls[lt].type.time_attr is None or rs[rt].type.time_attr is None:
            continue
        if times is not None and times != (lt, rt):
            continue
        times = (lt, rt)
        # l + ox  op  r + oy   <=>   r - l  op'  ox - oy
        d = x[1] - y[1]
        if op in ("<=", "<"):  # r - l >= d (+1 if strict)
            lo = d + (1 if op == "<" else 0)
            lower = lo if lower is None else max(lower, lo)
        else:  # r - l <= d (-1 if strict)
            hi = d - (1 if op == ">" else 0)
            upper = hi if upper is None else min(upper, hi)
    if times is None or lower is None or upper is None:
        return None
    return P.IntervalJoin(join.left, join.right, join.kind, join.condition,
                          tuple(p[0] for p in pairs), tuple(p[1] for p in pairs),
                          left_time=times[0], right_time=times[1], lower_ms=lower, upper_ms=upper)


# -- temporal joins ------------------------------------------------------------------------
def bind_temporal(qb, left, j: exp.Join, jkind: str):
    """``l [LEFT] JOIN r FOR SYSTEM_TIME AS OF l.t ON l.k = r.pk``."""
    from sqlengine.binder.relation import Relation
    from catalog.objects import CatalogView
    item: exp.Table = j.this
    if jkind not in ("INNER", "LEFT"):
        raise ValidationError("Temporal table join currently only supports INNER JOIN and LEFT JOIN",
                              qb.span(j))
    version = item.args["version"]
    time_ref = ExprBinder(left.scope(qb.source)).bind(version.expression)
    if not isinstance(time_ref, P.ColRef):
        raise ValidationError("FOR SYSTEM_TIME AS OF requires a time attribute column of the left table",
                              qb.span(version))
    plain = item.copy()
    plain.set("version", None)
    right = qb.bind_from(plain)
    parts = [p.name for p in plain.parts]
    obj = qb.catalogs.get_table(qb.catalogs.qualify(parts)) if not qb.is_cte(parts) else None
    proctime = time_ref.type.time_attr == "PROCTIME"
    if proctime:  # a lookup join: the equi keys, no primary key needed
        return _lookup_join(qb, left, right, j, jkind, time_ref)
    versioned = _versioned_view(right.node) if obj is None or isinstance(obj, CatalogView) else None
    if versioned is None and (obj is None or isinstance(obj, CatalogView) or not obj.schema.primary_key):
        raise ValidationError(
            "Temporal Table Join requires primary key in versioned table, but no primary key can be "
            f"found. The versioned table is [{'.'.join(parts)}].", qb.span(item))
    rnames = [n.lower() for n in right.node.names()]
    if versioned is not None:
        right_node, pk_idx, time_idx = versioned
        right = Relation(right_node, right.qualifiers, right.hidden)
        pk = [rnames[i] for i in pk_idx]
    else:
        pk = [n.lower() for n in obj.schema.primary_key]
    quals = left.qualifiers + right.qualifiers
    nl = len(left.node.schema)
    on = j.args.get("on")
    if on is None:
        raise ValidationError("Temporal table join requires an ON condition", qb.span(j))
    cond = _bind_condition(qb, Relation(P.Join(left.node, right.node, jkind, None), quals), on)
    pairs = [(l, r) for l, r, _ in equi_pairs(cond, nl, nl + len(right.node.schema)) if rnames[r] in pk]
    if {rnames[r] for _, r in pairs} != set(pk):
        raise ValidationError(
            "Temporal table join requires an equality condition on fields of table "
            f"[{qb.catalogs.qualify(parts)}].", qb.span(on))
    wms = [rnames[time_idx]] if versioned is not None else [w.column.lower() for w in obj.schema.watermarks]
    if not wms:
        raise ValidationError(
            "Event-Time Temporal Table Join requires both primary key and row time attribute in "
            "versioned table, but no row time attribute can be found.", qb.span(item))
    right_time = rnames.index(wms[0])
    node = P.TemporalJoin(left.node, right.node, jkind, cond, tuple(p[0] for p in pairs),
                          tuple(p[1] for p in pairs), left_time=time_ref.index, right_time=right_time)
    return Relation(node, quals, set(left.hidden))


def _versioned_view(node: P.Node):
    """A versioned view (Flink infers its primary key and time from a deduplication):
    projections over ``ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC) = 1`` over an
    insert-only input with ``t`` its row time. Every input row is then a version of its key
    from its time on, so the join reads the input itself: (the same columns over the
    dedup's input, the key positions, the time position), or None."""
    from sqlengine.rules import optimize
    from sqlengine.rules.calc_merge import peel_calcs
    calc, rank = peel_calcs(optimize(node))  # a filter on ROW_NUMBER() is a Rank once optimized
    if not (isinstance(rank, P.Rank) and rank.rank_fn == "ROW_NUMBER" and rank.rank_start == rank.rank_end == 1
            and len(rank.order_keys) == 1 and not rank.order_keys[0].ascending
            and rank.input.schema[rank.order_keys[0].index].type.time_attr == "ROWTIME"):
        return None
    if calc is None:
        projs = tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(rank.schema))
        names = tuple(rank.names())
    elif calc.condition is not None:
        return None  # a filter over the view's rows: not every row a version
    else:
        projs, names = calc.projections, calc.out_names
    if any(r >= len(rank.input.schema) for e in projs for r in P.refs(e)):
        return None  # the row number is selected
    out = {e.index: i for i, e in enumerate(projs) if isinstance(e, P.ColRef)}
    keys = [out.get(k) for k in rank.partition_keys]
    time = out.get(rank.order_keys[0].index)
    if None in keys or time is None:
        return None
    return P.Calc(rank.input, projs, names), tuple(keys), time


def _lookup_join(qb, left, right, j: exp.Join, jkind: str, time_ref: P.ColRef):
    from sqlengine.binder.relation import Relation
    quals = left.qualifiers + right.qualifiers
    nl = len(left.node.schema)
    cond = _bind_condition(qb, Relation(P.Join(left.node, right.node, jkind, None), quals), j.args["on"])
    probe, cond, computed = _computed_probe_keys(left.node, cond, nl)
    pairs = equi_pairs(cond, len(probe.schema), len(probe.schema) + len(right.node.schema))
    if not pairs:
        raise ValidationError("Temporal table join requires an equality condition on fields of the "
                              "lookup table.", qb.span(j))
    node: P.Node = P.TemporalJoin(probe, right.node, jkind, cond, tuple(p[0] for p in pairs),
                                  tuple(p[1] for p in pairs), left_time=time_ref.index, right_time=-1)
    if computed:  # the probe side's computed keys are not part of the join's output
        keep = list(range(nl)) + [nl + computed + i for i in range(len(right.node.schema))]
        node = P.Calc(node, tuple(P.ColRef(node.schema[i].type, i, node.schema[i].name) for i in keep),
                      tuple(node.schema[i].name for i in keep))
    return Relation(node, quals, set(left.hidden))


def _computed_probe_keys(left: P.Node, cond: P.Expr, nl: int) -> tuple[P.Node, P.Expr, int]:
    """``f(l...) = r.k`` in a lookup join's condition (Nexmark q13: ``mod(B.auction, 10000) =
    S.key``): Flink computes ``f`` on the probe side and looks ``k`` up by its value. Here
    too: ``f`` becomes a column appended to the left input, and the conjunct compares it.
    Returns (the left input, the condition over it and the right side, how many columns)."""
    found = []
    for c in conjuncts(cond):
        if isinstance(c, P.Call) and c.name == "=":
            for a, b in (c.args, c.args[::-1]):
                b0 = _strip(b)
                if isinstance(b0, P.ColRef) and b0.index >= nl and not isinstance(_strip(a), P.ColRef) \
                        and P.refs(a) and max(P.refs(a)) < nl:
                    found.append((c, a, b))
                    break
    if not found:
        return left, cond, 0
    k = len(found)
    names = list(left.names())
    probe = P.Calc(left, tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(left.schema)) +
                   tuple(a for _, a, _ in found), tuple(names + [f"$lookup{i}" for i in range(k)]))
    replaced = {id(c): P.Call(c.type, "=", (P.ColRef(a.type, nl + i, f"$lookup{i}"), P.shift_refs(b, k, nl)))
                for i, (c, a, b) in enumerate(found)}
    parts = [replaced.get(id(c), None) or P.shift_refs(c, k, nl) for c in conjuncts(cond)]
    return probe, conjoin(parts), k


# -- LATERAL TABLE (table functions) -----------------------------------------------------------
def bind_lateral_table(qb, left, item: exp.Lateral, side: str, on: Optional[exp.Expression]):
    """``, LATERAL TABLE(f(args)) [AS] T(cols)`` / ``CROSS JOIN LATERAL TABLE(...)`` / ``LEFT
    JOIN LATERAL TABLE(...) ON TRUE``: a Python table function (``sqlengine.udf.udtf``) per
    row of ``left``. Its call gives the list of its rows, which unnest as an array of rows
    does (Flink's Correlate)."""
    from sqlengine.binder.relation import Relation
    from sqlengine.functions import python_udf
    call = item.this
    if not (isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE" and len(call.expressions) == 1):
        raise UnsupportedError("LATERAL supports only TABLE(<table function call>)", qb.span(item))
    inner = call.expressions[0]
    name = inner.name if isinstance(inner, exp.Anonymous) else inner.sql_name()
    if side not in ("", "LEFT"):
        raise UnsupportedError(f"{side} JOIN LATERAL TABLE is not supported", qb.span(item))
    if side == "LEFT" and not (isinstance(on, exp.Boolean) and on.this):
        raise ValidationError("LEFT JOIN LATERAL TABLE supports only ON TRUE", qb.span(on or item))
    fn = python_udf.find_system(name) or python_udf.find_catalog([name])
    if fn is None or getattr(fn, "func_type", "") != "table":
        raise ValidationError(f"No match found for function signature {name}: LATERAL TABLE needs a table "
                              "function (sqlengine.udf.udtf)", qb.span(inner))
    binder = ExprBinder(left.scope(qb.source))
    args = [binder.bind(a) for a in inner.expressions]
    row = fn.result_type
    pycall = binder.python_call(fn, name, args, inner)
    from dataclasses import replace
    pycall = replace(pycall, type=T.ARRAY(row, True))
    alias = item.args.get("alias")
    cols = [c.name for c in alias.columns] if alias is not None else []
    if cols and len(cols) != len(row.fields):
        raise ValidationError(f"List of column aliases must have same degree as table; table has "
                              f"{len(row.fields)} columns, whereas alias list has {len(cols)} columns", qb.span(item))
    out = [P.Field(cols[i] if cols else f.name, f.type.with_nullable(True)) for i, f in enumerate(row.fields)]
    node = P.Unnest(left.node, pycall, tuple(out), False, side == "LEFT")
    tname = alias.name if alias is not None and alias.name else None
    return Relation(node, left.qualifiers + [tname] * len(out), set(left.hidden))


# -- UNNEST ---------------------------------------------------------------------------------
def bind_unnest(qb, left, item: exp.Unnest, side: str, on: Optional[exp.Expression]):
    """``CROSS JOIN UNNEST(expr) [WITH ORDINALITY] AS t(cols)`` (lateral over ``left``)."""
    from sqlengine.binder.relation import Relation
    if side not in ("", "LEFT"):
        raise UnsupportedError(f"{side} JOIN UNNEST is not supported", qb.span(item))
    if side == "LEFT" and on is not None and not (isinstance(on, exp.Boolean) and on.this):
        raise UnsupportedError("LEFT JOIN UNNEST supports only ON TRUE", qb.span(on))
    if len(item.expressions) != 1:
        raise UnsupportedError("UNNEST of several collections is not supported", qb.span(item))
    e = ExprBinder(left.scope(qb.source)).bind(item.expressions[0])
    t = e.type
    if t.root in ("ARRAY", "MULTISET"):
        elem = t.element
        fields = [(f.name, f.type) for f in elem.fields] if elem.root == "ROW" else [("EXPR$0", elem)]
    elif t.root == "MAP":
        fields = [("KEY", t.key), ("VALUE", t.value)]
    else:
        raise ValidationError(f"UNNEST expects an ARRAY, MULTISET or MAP, but got {t}", qb.span(item))
    alias = item.args.get("alias")
    cols = [c.name for c in alias.columns] if alias is not None else []
    offset = item.args.get("offset")
    ordinality = offset is not None and offset is not False
    ord_name = offset.name if isinstance(offset, exp.Expression) and offset.name else "ORDINALITY"
    if ordinality and len(cols) == len(fields) + 1:
        ord_name = cols.pop()
    if cols and len(cols) != len(fields):
        raise ValidationError(f"List of column aliases must have same degree as table; table has "
                              f"{len(fields)} columns, whereas alias list has {len(cols)} columns", qb.span(item))
    out = [P.Field(cols[i] if cols else n, ft) for i, (n, ft) in enumerate(fields)]
    if ordinality:
        out.append(P.Field(ord_name, T.INT(False)))
    if side == "LEFT":
        out = [P.Field(f.name, f.type.with_nullable(True)) for f in out]
    node = P.Unnest(left.node, e, tuple(out), ordinality, side == "LEFT")
    name = alias.name if alias is not None and alias.name else None
    return Relation(node, left.qualifiers + [name] * len(out), set(left.hidden))
