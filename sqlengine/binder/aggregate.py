"""GROUP BY binding: unbounded aggregates, window-TVF aggregates and legacy group windows.

A window TVF followed by GROUP BY window_start, window_end becomes one
``WindowAggregate`` (Flink's window aggregation: insert-only, fires on watermark);
``GROUP BY TUMBLE(ts, ...)`` (legacy group window) becomes the same node. Any other
GROUP BY is a ``GroupAggregate``, which in streaming mode produces updates.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from sqlengine.binder.expressions import (ExprBinder, Scope, ScopeColumn, bind_aggregate_call)
from sqlengine.errors import UnsupportedError, ValidationError
from sqlengine.functions.registry import lookup_aggregate, lookup_scalar
from sqlengine.plan import nodes as P

WINDOW_PROPS = ("window_start", "window_end", "window_time")
LEGACY = ("TUMBLE", "HOP", "SESSION")


def _fname(node: exp.Expression) -> Optional[str]:
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    if isinstance(node, exp.Func):
        from sqlengine.binder.expressions import RENAMES
        return RENAMES.get(type(node).__name__, node.sql_name().upper())
    return None


def _is_agg(node: exp.Expression) -> bool:
    if isinstance(node, exp.Filter):
        return True
    if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)):
        return _is_agg(node.this)
    name = _fname(node)
    if name is None:
        return False
    if lookup_aggregate(name) is not None and lookup_scalar(name) is None:
        return True
    from sqlengine.functions.python_udf import find_aggregate
    return find_aggregate(name, [node.name if isinstance(node, exp.Anonymous) else name]) is not None


def _walk_outside_windows(node: exp.Expression):
    """Nodes of ``node``, not entering OVER windows or subqueries."""
    yield node
    if isinstance(node, (exp.Window, exp.Subquery, exp.Select)):
        return
    for child in node.iter_expressions():
        yield from _walk_outside_windows(child)


def needs_aggregation(qb, select: exp.Select) -> bool:
    if select.args.get("group") is not None or select.args.get("having") is not None:
        return True  # HAVING alone makes an aggregate query of one group (SQL's rule)
    items = list(select.expressions) + ([select.args["having"]] if select.args.get("having") else [])
    return any(_is_agg(n) for item in items for n in _walk_outside_windows(item))


def _grouping_sets(qb, group: exp.Group) -> tuple[list[exp.Expression], Optional[list[list[int]]]]:
    """GROUP BY items -> (distinct key expressions, grouping sets as positions into them);
    sets is None for a plain GROUP BY. ROLLUP(a, b) = (a, b), (a), (); CUBE = all subsets;
    several items combine as a cross product (SQL's rule)."""
    from itertools import combinations
    keys: list[exp.Expression] = []

    def pos(e: exp.Expression) -> int:
        while isinstance(e, exp.Paren):
            e = e.this
        for i, k in enumerate(keys):
            if k == e:
                return i
        keys.append(e)
        return len(keys) - 1

    def items(e: exp.Expression) -> list[exp.Expression]:
        if isinstance(e, exp.Tuple):
            return list(e.expressions)
        return [e]

    components: list[list[list[int]]] = []
    special = False
    for g in list(group.expressions) + [x for k in ("grouping_sets", "rollup", "cube")
                                        for x in (group.args.get(k) or [])]:
        if isinstance(g, exp.GroupingSets):
            special = True
            components.append([[pos(x) for x in items(s)] for s in g.expressions])
        elif isinstance(g, exp.Rollup):
            special = True
            cols = [[pos(x) for x in items(s)] for s in g.expressions]
            components.append([sum(cols[:n], []) for n in range(len(cols), -1, -1)])
        elif isinstance(g, exp.Cube):
            special = True
            cols = [[pos(x) for x in items(s)] for s in g.expressions]
            subsets = [sum((cols[i] for i in c), []) for n in range(len(cols), -1, -1)
                       for c in combinations(range(len(cols)), n)]
            components.append(subsets)
        else:
            components.append([[pos(g)]])
    if not special:
        return keys, None
    sets: list[list[int]] = [[]]
    for comp in components:
        sets = [s + [x for x in c if x not in s] for s in sets for c in comp]
    return keys, sets


def bind_aggregation(qb, select: exp.Select, rel) -> P.Node:
    """Bind GROUP BY + aggregates + HAVING + the select list; returns the projected plan."""
    group = select.args.get("group")
    gexprs, sets = _grouping_sets(qb, group) if group is not None else ([], None)
    in_scope = rel.scope(qb.source)
    binder = ExprBinder(in_scope)
    legacy = [g for g in gexprs if _fname(g) in LEGACY]
    windowed = _below_window(qb, rel.node, in_scope) if not legacy else None
    window = None
    width = len(rel.node.schema)
    base = rel.node
    if sets is not None and legacy:
        raise UnsupportedError("GROUPING SETS, ROLLUP and CUBE over group windows are not supported",
                               qb.span(group))
    if legacy:
        window = _legacy_window(qb, legacy[0], binder)
        gexprs = [g for g in gexprs if g is not legacy[0]]
    elif windowed is not None:
        w_base, w_scope, w_window = windowed
        w_width = len(w_base.schema)
        bound = [ExprBinder(w_scope).bind(g) for g in gexprs]
        prop = [WINDOW_PROPS[b.index - w_width] if isinstance(b, P.ColRef) and b.index >= w_width else None
                for b in bound]
        # window_start and window_end in every grouping set (GROUP BY window_start,
        # window_end, GROUPING SETS (...)): Flink's window aggregation
        if all({"window_start", "window_end"} <= {prop[i] for i in s} for s in (sets or [range(len(prop))])):
            window, base, width, in_scope = w_window, w_base, w_width, w_scope
            binder = ExprBinder(in_scope)
            keep = [i for i, p in enumerate(prop) if p is None]
            if sets is not None:
                sets = [[keep.index(i) for i in s if i in keep] for s in sets]
            gexprs = [gexprs[i] for i in keep]
    key_exprs = [binder.bind(g) for g in gexprs]
    extras = [e for e in key_exprs if not isinstance(e, P.ColRef)]
    if extras:
        projs = tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(base.schema)) + tuple(extras)
        names = tuple(base.names()) + tuple(f"$f{width + i}" for i in range(len(extras)))
        base = P.Calc(base, projs, names)
    keys, k_extra = [], width
    for e in key_exprs:
        if isinstance(e, P.ColRef):
            keys.append(e.index)
        else:
            keys.append(k_extra)
            k_extra += 1
    nprops = 3 if window is not None else 0
    aggs: list[P.AggCall] = []
    # GROUPING SETS in streaming mode or over a window: Flink's Expand below the aggregate
    expand = P.Expand(base, tuple(keys), tuple(tuple(keys[i] for i in s) for s in sets)) \
        if sets is not None and (window is not None or qb.streaming) else None

    def on_aggregate(node: exp.Expression) -> P.Expr:
        if isinstance(node, (exp.Grouping, exp.GroupingId)):
            call = _grouping_call(qb, node, ExprBinder(agg_in_scope), keys, key_exprs)
        else:
            call = bind_aggregate_call(ExprBinder(agg_in_scope), node)
        if call not in aggs:
            aggs.append(call)
        return P.ColRef(call.type, len(keys) + nprops + aggs.index(call), "agg")

    agg_in_scope = Scope([c for c in in_scope.columns if c.index < width], qb.source) \
        if window is not None and not legacy else in_scope
    if expand is not None:
        copies = [len(base.schema) + j for j in range(len(keys))]
        post = _post_scope(qb, expand, copies, key_exprs, gexprs, window, in_scope, nprops, width)
    else:
        post = _post_scope(qb, base, keys, key_exprs, gexprs, window, in_scope, nprops, width)
    post.on_aggregate = on_aggregate
    having = select.args.get("having")
    if having is not None and not having.find(exp.Select):
        # Calcite validates HAVING before the select list (which then numbers the aggregates)
        _check_having(qb, ExprBinder(post).bind(having.this), having)
        aggs.clear()
    projs, names = _bind_select_list(select, post)
    cond = _check_having(qb, ExprBinder(post).bind(having.this), having) if having is not None else None
    agg_names = _agg_names(select, projs, names, len(keys) + nprops, len(aggs))
    if expand is not None:
        agg_node = _expanded(qb, expand, window, aggs, agg_names)
    elif window is not None:
        agg_node: P.Node = P.WindowAggregate(base, window, tuple(keys), tuple(aggs), agg_names,
                                             WINDOW_PROPS, WINDOW_PROPS, qb.streaming)
    else:
        gsets = tuple(tuple(keys[i] for i in s) for s in sets) if sets is not None else None
        agg_node = P.Aggregate(base, tuple(keys), tuple(aggs), agg_names, gsets)
    projs = [_fix(p, agg_node) for p in projs]
    cond = _fix(cond, agg_node) if cond is not None else None
    return P.Calc(agg_node, tuple(projs), tuple(names), cond)


def _check_having(qb, cond: P.Expr, having: exp.Having) -> P.Expr:
    from sqlengine.binder.expressions import condition
    return condition(cond, "HAVING", qb.span(having.this))


def _agg_names(select: exp.Select, projs: list, names, first: int, count: int) -> tuple[str, ...]:
    """Calcite's names of the aggregate calls: the alias of a select item that is just the
    call (``MAX(price) AS price``), else ``EXPR$<position>``."""
    out = [f"EXPR${first + j}" for j in range(count)]
    items = select.expressions
    if len(items) != len(projs):
        return tuple(out)
    for item, proj, name in zip(items, projs, names):
        if isinstance(item, exp.Alias) and isinstance(proj, P.ColRef) and proj.index >= first \
                and out[proj.index - first].startswith("EXPR$") and list(names).count(name) == 1:
            out[proj.index - first] = name
    return tuple(out)


def _expanded(qb, expand: P.Expand, window, aggs: list[P.AggCall], agg_names) -> P.Node:
    """The aggregate over ``expand`` (grouped by the key copies and ``$e``), then a Calc
    giving the layout the select list is bound against: keys, window properties,
    aggregates, GROUPING()/GROUPING_ID() computed from ``$e``."""
    from sqlengine import types as T
    width, nk = len(expand.input.schema), len(expand.keys)
    by = tuple(range(width, width + nk + 1))  # the copies, then $e
    real = [a for a in aggs if a.name not in ("GROUPING", "GROUPING_ID")]
    names = tuple(n for a, n in zip(aggs, agg_names) if a in real)
    if window is not None:
        inner: P.Node = P.WindowAggregate(expand, window, by, tuple(real), names, WINDOW_PROPS, WINDOW_PROPS,
                                          qb.streaming)
    else:
        inner = P.Aggregate(expand, by, tuple(real), names)
    out = inner.schema
    nprops = len(WINDOW_PROPS) if window is not None else 0
    e = P.ColRef(out[nk].type, nk, "$e")
    projs: list[P.Expr] = [P.ColRef(out[i].type, i, out[i].name) for i in range(nk)]
    projs += [P.ColRef(out[nk + 1 + i].type, nk + 1 + i, out[nk + 1 + i].name) for i in range(nprops)]
    for a in aggs:
        if a in real:
            i = nk + 1 + nprops + real.index(a)
            projs.append(P.ColRef(out[i].type, i, out[i].name))
            continue
        values = []
        for s in expand.sets:
            v = 0
            for arg in a.args:  # GROUPING_ID: bit 1 = aggregated away, first argument most significant
                v = v * 2 + (0 if arg.index in s else 1)
            values.append(v)
        value: P.Expr = P.Lit(T.BIGINT(False), values[-1])
        for g in range(len(values) - 2, -1, -1):
            if values[g] != values[-1]:
                cond = P.Call(T.BOOLEAN(False), "=", (e, P.Lit(T.INT(False), g)))
                value = P.Call(T.BIGINT(False), "CASE", (cond, P.Lit(T.BIGINT(False), values[g]), value))
        projs.append(value)
    return P.Calc(inner, tuple(projs), tuple([f.name for f in out[:nk]] + list(WINDOW_PROPS[:nprops]) +
                                             list(agg_names)))


def _grouping_call(qb, node: exp.Expression, binder: ExprBinder, keys: list[int],
                   key_exprs: list[P.Expr] = ()) -> P.AggCall:
    """``GROUPING(k)`` (1 when ``k`` is aggregated away in this row's grouping set) and
    ``GROUPING_ID(k1, .., kn)`` (those bits, k1 most significant): BIGINT NOT NULL.
    Represented as an ``AggCall`` named GROUPING / GROUPING_ID over the key columns."""
    from sqlengine import types as T
    name = "GROUPING" if isinstance(node, exp.Grouping) else "GROUPING_ID"
    args = tuple(binder.bind(a) for a in node.expressions)
    # an argument that is a grouped expression (GROUP BY CUBE (a, MOD(b, 2))): its key column
    args = tuple(P.ColRef(a.type, keys[key_exprs.index(a)], "key") if a in key_exprs else a for a in args)
    if not args or any(not isinstance(a, P.ColRef) or a.index not in keys for a in args):
        raise ValidationError(f"Argument to {name} operator must be a grouped expression", qb.span(node))
    return P.AggCall(name, args, T.BIGINT(False))


def _fix(e: P.Expr, node: P.Node) -> P.Expr:
    """Give agg ColRefs their final names (the Aggregate's output names)."""
    from dataclasses import replace
    return P.map_refs(e, lambda r: replace(r, name=node.schema[r.index].name))


def _below_window(qb, node: P.Node, in_scope: Scope):
    """The windowing under a GROUP BY input, or None: (the rows before windowing, the
    input's scope over them with the window properties after them, the window).

    A window TVF right below (``FROM TABLE(TUMBLE(...))``) or under filters and
    projections (a WHERE between them, a subquery selecting from the TVF): Flink's window
    aggregation either way, its windowing attached to the aggregate. The filters and
    projections move below the windowing (onto the TVF's input; the time column, and a
    SESSION window's partition keys, carried along), which needs that they use no window
    property themselves, only pass them through (renamed or not)."""
    from dataclasses import replace

    from sqlengine.binder.relation import dedupe as _dedupe
    from sqlengine.rules.calc_merge import peel_calcs
    if isinstance(node, P.WindowTableFunction):
        return node.input, in_scope, node.window
    calc, node = peel_calcs(node)
    if calc is None or not isinstance(node, P.WindowTableFunction):
        return None
    tvf, n_in = node, len(node.input.schema)
    props = {i: e.index - n_in for i, e in enumerate(calc.projections)
             if isinstance(e, P.ColRef) and e.index >= n_in}
    rest = [e for i, e in enumerate(calc.projections) if i not in props]
    if any(r >= n_in for e in rest + [calc.condition] if e is not None for r in P.refs(e)):
        return None
    keep = [i for i in range(len(calc.projections)) if i not in props]
    projs, names = [calc.projections[i] for i in keep], [calc.out_names[i] for i in keep]

    def carried(idx: int) -> int:
        for j, e in enumerate(projs):
            if isinstance(e, P.ColRef) and e.index == idx:
                return j
        f = tvf.input.schema[idx]
        projs.append(P.ColRef(f.type, idx, f.name))
        names.append(f"$window{f.name}")  # not a name a query can refer to
        return len(projs) - 1

    window = replace(tvf.window, time_col=carried(tvf.window.time_col),
                     partition_keys=tuple(carried(k) for k in tvf.window.partition_keys))
    base = P.Calc(tvf.input, tuple(projs), tuple(_dedupe(names)), calc.condition)
    remap = {old: new for new, old in enumerate(keep)}
    width = len(projs)
    cols = [replace(c, index=remap[c.index]) if c.index in remap else replace(c, index=width + props[c.index])
            for c in in_scope.columns]
    return base, Scope(cols, in_scope.source), window


def _post_scope(qb, base, keys, key_exprs, gexprs, window, in_scope, nprops, width=None) -> Scope:
    cols = []
    for pos, (k, e) in enumerate(zip(keys, key_exprs)):
        qual = next((c.qualifier for c in in_scope.columns if isinstance(e, P.ColRef) and c.index == e.index), None)
        cols.append(ScopeColumn(qual, base.schema[k].name, base.schema[k].type, pos))
    scope = Scope(cols, qb.source, ungrouped=in_scope)
    if window is not None:
        t = base.schema[window.time_col].type
        for i, p in enumerate(WINDOW_PROPS):
            from sqlengine import types as T
            typ = T.DataType("TIMESTAMP", False, precision=3) if p != "window_time" else \
                T.DataType(t.root, False, precision=t.precision, time_attr="ROWTIME" if qb.streaming else None)
            cols.append(ScopeColumn(None, p, typ, len(keys) + i))
            for prefix in LEGACY:
                suffix = {"window_start": "_START", "window_end": "_END", "window_time": "_ROWTIME"}[p]
                scope.overrides[prefix + suffix] = P.ColRef(typ, len(keys) + i, p)
        # window properties renamed below the aggregate (a subquery's window_start AS ws)
        for c in in_scope.columns:
            if width is not None and c.index >= width and c.name != WINDOW_PROPS[c.index - width]:
                i = c.index - width
                cols.append(ScopeColumn(c.qualifier, c.name, cols[len(keys) + i].type, len(keys) + i))
    for pos, (g, e) in enumerate(zip(gexprs, key_exprs)):
        if not isinstance(e, P.ColRef):
            scope.replacements.append((g, P.ColRef(e.type, pos, base.schema[keys[pos]].name)))
    return scope


def _bind_select_list(select: exp.Select, scope: Scope):
    binder = ExprBinder(scope)
    projs, names = [], []
    for i, item in enumerate(select.expressions):
        if isinstance(item, exp.Star):
            for c in scope.columns:
                projs.append(P.ColRef(c.type, c.index, c.name))
                names.append(c.name)
            continue
        inner = item.this if isinstance(item, exp.Alias) else item
        projs.append(binder.bind(inner))
        names.append(item.alias if isinstance(item, exp.Alias) else
                     inner.name if isinstance(inner, exp.Column) else f"EXPR${i}")
    from sqlengine.binder.relation import dedupe as _dedupe
    return projs, _dedupe(names)


def _legacy_window(qb, call: exp.Expression, binder: ExprBinder) -> P.WindowSpec:
    kind = _fname(call)
    args = list(call.expressions)
    tref = binder.bind(args[0])
    if not isinstance(tref, P.ColRef):
        raise ValidationError("A group window expects a time attribute as first argument", qb.span(call))
    if qb.streaming and tref.type.time_attr is None:
        raise ValidationError(
            f"Window can only be defined on a time attribute column, but is type of {tref.type.sql(False)}",
            qb.span(call))
    ms = [qb.interval_ms(a) for a in args[1:]]
    if kind == "TUMBLE":
        return P.WindowSpec("TUMBLE", tref.index, ms[0])
    if kind == "HOP":
        return P.WindowSpec("HOP", tref.index, ms[1], slide_ms=ms[0])
    return P.WindowSpec("SESSION", tref.index, 0, gap_ms=ms[0])
