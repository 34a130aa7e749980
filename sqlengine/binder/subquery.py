"""Subqueries as joins: IN / EXISTS (SEMI), NOT IN / NOT EXISTS (ANTI), scalar subqueries
(a LEFT join with a one-row result), and INTERSECT / EXCEPT.

An IN/EXISTS predicate must be a conjunct of WHERE (as in Flink, where the others
fail to decorrelate). ``x NOT IN (SELECT y ...)`` keeps SQL's three-valued logic: the
anti-join condition is ``x = y OR x IS NULL OR y IS NULL``, so a NULL on either side
removes the row unless the subquery is empty.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from sqlglot import exp

from sqlengine import types as T
from sqlengine.binder import joins as J
from sqlengine.binder.expressions import ExprBinder, Scope
from sqlengine.errors import SqlEngineError, UnsupportedError, ValidationError
from sqlengine.plan import nodes as P


def _bool(name: str, *args: P.Expr) -> P.Expr:
    return P.Call(T.BOOLEAN(), name, tuple(args))


def _top_conjuncts(where: Optional[exp.Expression]) -> list[exp.Expression]:
    if where is None:
        return []
    while isinstance(where, exp.Paren):
        where = where.this
    if isinstance(where, exp.And):
        return _top_conjuncts(where.this) + _top_conjuncts(where.expression)
    return [where]


class SubqueryBinder:
    """Collects the joins that the subqueries of one WHERE clause turn into."""

    def __init__(self, qb, rel, where: Optional[exp.Expression]):
        self.qb = qb
        self.width = len(rel.node.schema)
        self.rel = rel
        self.allowed = set()
        for c in _top_conjuncts(where):
            self.allowed.add(id(c))
            if isinstance(c, exp.Not):
                self.allowed.add(id(c.this))
        self.semis: list[tuple[str, P.Node, Optional[P.Expr]]] = []  # right at offset self.width
        self.scalars: list[tuple[P.Node, Optional[P.Expr]]] = []

    def bind(self, node: exp.Expression, negate: bool) -> P.Expr:
        if isinstance(node, exp.Subquery):
            return self.scalar(node)
        if id(node) not in self.allowed:
            raise UnsupportedError("IN / EXISTS subqueries are supported only as conditions of WHERE "
                                   "combined with AND", self.qb.span(node))
        if isinstance(node, exp.In):
            self.bind_in(node, negate)
        else:
            self.bind_exists(node, negate)
        return P.Lit(T.BOOLEAN(False), True)

    def bind_in(self, node: exp.In, negate: bool) -> None:
        query = node.args["query"]
        query = query.this if isinstance(query, exp.Subquery) else query
        corr: Optional[P.Expr] = None
        try:
            sub = self.qb.bind_query(query)
            items: list[P.Expr] = [P.ColRef(f.type, self.width + i, f.name) for i, f in enumerate(sub.schema)]
        except ValidationError as err:  # correlated: WHERE refers to the outer query
            found = self.correlated(query, node)
            if found is None:
                raise err
            sub, corr, irel = found
            binder = ExprBinder(irel.scope(self.qb.source))
            items = [P.shift_refs(binder.bind(e.this if isinstance(e, exp.Alias) else e), self.width)
                     for e in query.expressions]
        lhs = node.this.expressions if isinstance(node.this, exp.Tuple) else [node.this]
        if len(items) != len(lhs):
            raise ValidationError("Values passed to IN operator must have the same number of columns as "
                                  f"the subquery ({len(lhs)} vs {len(items)})", self.qb.span(node))
        scope = self.rel.scope(self.qb.source)
        parts = []
        for e, right in zip(lhs, items):
            left = ExprBinder(scope).bind(e)
            eq = _bool("=", left, right)
            if negate:
                eq = _bool("OR", _bool("OR", eq, _bool("IS NULL", left)), _bool("IS NULL", right))
            parts.append(eq)
        self.semis.append(("ANTI" if negate else "SEMI", sub, J.conjoin(parts + J.conjuncts(corr))))

    def bind_exists(self, node: exp.Exists, negate: bool) -> None:
        query = node.this
        while isinstance(query, exp.Subquery):
            query = query.this
        kind = "ANTI" if negate else "SEMI"
        try:  # uncorrelated
            sub = self.qb.bind_query(query)
            self.semis.append((kind, sub, None))
            return
        except ValidationError as err:
            found = self.correlated(query, node)
            if found is None:
                raise err
            self.semis.append((kind, found[0], found[1]))

    def correlated(self, query: exp.Expression, node: exp.Expression):
        """(inner plan, correlation condition over outer + inner, inner relation) of a
        subquery whose WHERE conjuncts refer to the outer query; None if not that shape."""
        if not isinstance(query, exp.Select) or any(query.args.get(k) for k in ("group", "having", "limit")):
            raise UnsupportedError("Correlated subqueries with GROUP BY, HAVING or LIMIT are not "
                                   "supported", self.qb.span(node))
        where = query.args.get("where")
        from_ = query.args.get("from_")
        if where is None or from_ is None:
            return None
        irel = self.qb.bind_from(from_.this)
        for j in query.args.get("joins") or []:
            irel = J.bind_join(self.qb, irel, j)
        local, corr = [], []
        outer = self.rel.scope(self.qb.source)
        for c in _top_conjuncts(where.this):
            try:
                local.append(ExprBinder(irel.scope(self.qb.source)).bind(c))
                continue
            except ValidationError:
                pass
            cols = [replace(sc, index=sc.index + self.width) for sc in irel.scope("").columns]
            both = Scope(outer.columns + cols, self.qb.source)
            corr.append(ExprBinder(both).bind(c))
        right = irel.node
        if local:
            right = P.Calc(right, tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(right.schema)),
                           tuple(right.names()), J.conjoin(local))
        return right, J.conjoin(corr), irel

    def scalar(self, node: exp.Subquery) -> P.Expr:
        pos = self.width + sum(len(sub.schema) for sub, _ in self.scalars)
        sub, cond, value = bind_scalar(self.qb, self.rel.scope(self.qb.source), node, pos)
        self.scalars.append((sub, cond))
        return value

    def apply(self, rel):
        """Append the scalar joins (hidden columns), then the SEMI/ANTI joins."""
        from sqlengine.binder.relation import Relation
        node, quals, hidden = rel.node, list(rel.qualifiers), set(rel.hidden)
        for sub, cond in self.scalars:
            hidden |= set(range(len(node.schema), len(node.schema) + len(sub.schema)))
            node = J.classify(self.qb, P.Join(node, sub, "LEFT", cond))
            quals += [None] * len(sub.schema)
        delta = len(node.schema) - self.width
        for kind, sub, cond in self.semis:
            if cond is not None and delta:
                cond = P.shift_refs(cond, delta, start=self.width)
            join = P.Join(node, sub, kind, cond)
            node = J.classify(self.qb, join)
        return Relation(node, quals, hidden)


def scalar_hook(qb, holder: list, scope: Scope):
    """Scalar subqueries in a SELECT list: each one LEFT-joins its one-row result."""
    def bind(node: exp.Expression, negate: bool) -> P.Expr:
        if not isinstance(node, exp.Subquery):
            raise UnsupportedError("IN / EXISTS subqueries are supported only in WHERE", qb.span(node))
        sub, cond, value = bind_scalar(qb, scope, node, len(holder[0].schema))
        holder[0] = J.classify(qb, P.Join(holder[0], sub, "LEFT", cond))
        return value
    return bind


def bind_scalar(qb, outer: Scope, node: exp.Subquery, pos: int):
    """(plan, join condition, value) of a scalar subquery whose columns start at ``pos``.

    Uncorrelated: the one-row result, joined without condition. Correlated by
    equalities (``WHERE inner.k = outer.k``) with an aggregate select: grouped by the
    inner keys and LEFT-joined on them (COUNT of no rows is 0, not NULL)."""
    try:
        sub = qb.bind_query(node.this)
        if len(sub.schema) != 1:
            raise ValidationError("A scalar subquery must return exactly one column", qb.span(node))
        f = sub.schema[0]
        return sub, None, P.ColRef(f.type.with_nullable(True), pos, f.name)
    except ValidationError as err:
        decorrelated = _decorrelate(qb, outer, node.this, pos)
        if decorrelated is None:
            raise err
        return decorrelated


def _decorrelate(qb, outer: Scope, q: exp.Expression, pos: int):
    from sqlengine.binder.aggregate import needs_aggregation
    if not isinstance(q, exp.Select) or len(q.expressions) != 1 or q.args.get("group") \
            or q.args.get("limit") or not needs_aggregation(qb, q) or q.args.get("where") is None:
        return None
    from_ = q.args.get("from_")
    irel = qb.bind_from(from_.this)
    for j in q.args.get("joins") or []:
        irel = J.bind_join(qb, irel, j)
    inner = ExprBinder(irel.scope(qb.source))
    local, corr = [], []
    for c in _top_conjuncts(q.args["where"].this):
        try:
            inner.bind(c)
            local.append(c)
            continue
        except ValidationError:
            pass
        if not isinstance(c, exp.EQ):
            return None
        for a, b in ((c.this, c.expression), (c.expression, c.this)):
            try:
                inner.bind(a)
                corr.append((a, ExprBinder(outer).bind(b)))
                break
            except ValidationError:
                continue
        else:
            return None
    new = q.copy()
    new.set("where", exp.Where(this=exp.and_(*[x.copy() for x in local])) if local else None)
    new.set("expressions", [q.expressions[0].copy()] + [a.copy() for a, _ in corr])
    new.set("group", exp.Group(expressions=[a.copy() for a, _ in corr]))
    sub = qb.bind_query(new)
    sch = sub.schema
    cond = J.conjoin([_bool("=", o, P.ColRef(sch[1 + i].type, pos + 1 + i, sch[1 + i].name))
                      for i, (_, o) in enumerate(corr)])
    value: P.Expr = P.ColRef(sch[0].type.with_nullable(True), pos, sch[0].name)
    item = q.expressions[0].this if isinstance(q.expressions[0], exp.Alias) else q.expressions[0]
    if isinstance(item, exp.Count):
        value = P.Call(sch[0].type.with_nullable(False), "COALESCE", (value, P.Lit(sch[0].type.with_nullable(False), 0)))
    return sub, cond, value


def bind_set_operation(qb, node: exp.Expression) -> P.Node:
    """``INTERSECT`` = DISTINCT over a SEMI join on all columns (NULLs equal), ``EXCEPT``
    the ANTI join. The ALL forms (batch only) number the duplicates of each row on both
    sides (ROW_NUMBER over all columns) and join on the number too: the n-th copy of a
    row survives INTERSECT ALL when the right side has n copies, EXCEPT ALL when not."""
    name = "INTERSECT" if isinstance(node, exp.Intersect) else "EXCEPT"
    every = node.args.get("distinct") is False
    if every and qb.streaming:
        raise UnsupportedError(f"{name} ALL is not supported in streaming mode", qb.span(node))
    left, right = qb.bind_query(node.this), qb.bind_query(node.expression)
    if len(left.schema) != len(right.schema):
        raise ValidationError(f"Column count mismatch in {name}", qb.span(node))
    n = len(left.schema)
    if every:
        left, right = _numbered(left), _numbered(right)
    width = len(left.schema)
    parts = [_bool("IS NOT DISTINCT FROM", P.ColRef(f.type, i, f.name), P.ColRef(g.type, width + i, g.name))
             for i, (f, g) in enumerate(zip(left.schema, right.schema))]
    join = P.Join(left, right, "SEMI" if name == "INTERSECT" else "ANTI", J.conjoin(parts))
    if every:
        return P.Calc(join, tuple(P.ColRef(f.type, i, f.name) for i, f in enumerate(join.schema[:n])),
                      tuple(f.name for f in join.schema[:n]))
    return P.Aggregate(join, tuple(range(n)), (), ())


def _numbered(node: P.Node) -> P.Node:
    cols = tuple(range(len(node.schema)))
    call = P.OverCall("ROW_NUMBER", (), T.BIGINT(False), P.Frame("ROWS", None, 0))
    return P.Over(node, cols, tuple(P.SortKey(i) for i in cols), (call,), ("$rn",))
