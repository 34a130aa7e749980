"""Binding queries (SELECT, UNION, VALUES, INSERT) into the logical plan."""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Optional

from sqlglot import exp

from catalog.objects import CatalogTable, CatalogView
from sqlengine import types as T
from sqlengine.binder.ddl import check_rowtime_type
from sqlengine.binder.expressions import ExprBinder, Scope, ScopeColumn, bind_aggregate_call, condition
from sqlengine.binder.names import lookup_sink, lookup_table
from sqlengine.binder.relation import Relation, dedupe as _dedupe
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import parse_one, span_covering, span_of
from sqlengine.errors import Span, UnsupportedError, ValidationError
from sqlengine.plan import nodes as P

_DEPTH: ContextVar[int] = ContextVar("query_binding_depth", default=0)  # nested binders share it
LEGACY_WINDOWS = {"TUMBLE": "TUMBLE", "HOP": "HOP", "SESSION": "SESSION"}
LEGACY_PROPS = {"_START": "window_start", "_END": "window_end", "_ROWTIME": "window_time",
                "_PROCTIME": "window_time"}


class QueryBinder:
    """Turns one query AST into a plan; ``catalogs`` is the session's CatalogManager."""

    def __init__(self, catalogs, source: str, streaming: bool, ctes: Optional[dict] = None,
                 conf: Optional[dict] = None):
        self.catalogs = catalogs
        self.source = source
        self.streaming = streaming
        self.conf = conf or {}
        self.ctes: dict[str, exp.Expression] = dict(ctes or {})  # WITH name -> query (lower-case)

    def is_cte(self, parts: list[str]) -> bool:
        return len(parts) == 1 and parts[0].lower() in self.ctes

    def span(self, node) -> Optional[Span]:
        return span_of(node, self.source)

    def name_span(self, table: exp.Table) -> Optional[Span]:
        """A table reference's dotted name, all its parts (Calcite's place for it)."""
        return span_covering(table.parts, self.source) or self.span(table)

    # -- queries ---------------------------------------------------------------------
    def bind_query(self, node: exp.Expression) -> P.Node:
        """The plan of a query. Its tables' sources are checked once the whole statement is
        validated (Flink creates them while converting the validated query, so a validation
        error anywhere in it comes first)."""
        depth = _DEPTH.set(_DEPTH.get() + 1)
        try:
            plan = self._bind_query(node)
        finally:
            _DEPTH.reset(depth)
        if _DEPTH.get() == 0:
            check_sources(plan)
        return plan

    def _bind_query(self, node: exp.Expression) -> P.Node:
        from sqlengine.functions.python_udf import USER_FUNCTIONS, resolving
        if USER_FUNCTIONS.get() is not self.catalogs:
            with resolving(self.catalogs):
                return self._bind_query(node)
        with_ = node.args.get("with_") if isinstance(node, exp.Query) else None
        if with_ is not None:
            return self.bind_with(node, with_)
        if isinstance(node, exp.Subquery):
            return self.bind_query(node.this)
        if isinstance(node, exp.Union):
            return self.order_limit(node, self.bind_union(node))
        if isinstance(node, exp.Select):
            return self.bind_select_ordered(node)
        if isinstance(node, exp.Values):
            return self.bind_values(node)
        if isinstance(node, (exp.Intersect, exp.Except)):
            from sqlengine.binder.subquery import bind_set_operation
            return self.order_limit(node, bind_set_operation(self, node))
        raise UnsupportedError(f"Unsupported query: {node.sql()[:60]}", self.span(node))

    def bind_with(self, node: exp.Expression, with_: exp.With) -> P.Node:
        """CTEs are inlined like views; each may reference the ones before it."""
        if with_.args.get("recursive"):
            raise UnsupportedError("WITH RECURSIVE is not supported", self.span(with_))
        inner = QueryBinder(self.catalogs, self.source, self.streaming, self.ctes, self.conf)
        for cte in with_.expressions:
            inner.ctes[cte.alias.lower()] = cte
        body = node.copy()
        body.set("with_", None)
        return inner.bind_query(body)

    def bind_union(self, node: exp.Union) -> P.Node:
        left, right = self.bind_query(node.this), self.bind_query(node.expression)
        inputs = [*(left.inputs if isinstance(left, P.Union) else (left,)),
                  *(right.inputs if isinstance(right, P.Union) else (right,))]
        width = len(inputs[0].schema)
        if any(len(i.schema) != width for i in inputs):
            raise ValidationError(f"Column count mismatch in {'UNION' if node.args.get('distinct') else 'UNION ALL'}",
                                  self.span(node))
        types = []
        for col in range(width):
            t = inputs[0].schema[col].type
            for other in inputs[1:]:
                common = T.common_type(t, other.schema[col].type)
                if common is None:
                    raise ValidationError(f"Type mismatch in UNION: {t} and {other.schema[col].type}",
                                          self.span(node))
                t = common
            types.append(t.with_time_attr(None) if any(i.schema[col].type.time_attr is None for i in inputs) else t)
        names = [f.name for f in inputs[0].schema]
        inputs = [self.coerce(i, types, names) for i in inputs]
        out: P.Node = P.Union(tuple(inputs))
        if node.args.get("distinct"):
            out = P.Aggregate(out, tuple(range(width)), (), ())
        return out

    def coerce(self, node: P.Node, types: list[T.DataType], names: list[str]) -> P.Node:
        if all(f.type == t and f.name == n for f, t, n in zip(node.schema, types, names)):
            return node
        projs = tuple(_ref(node, i) if f.type == t else P.Cast(t, _ref(node, i))
                      for i, (f, t) in enumerate(zip(node.schema, types)))
        return P.Calc(node, projs, tuple(names))

    def bind_values(self, node: exp.Values, alias: Optional[exp.TableAlias] = None) -> P.Node:
        binder = ExprBinder(Scope([], self.source))
        rows = [tuple(binder.bind(e) for e in (t.expressions if isinstance(t, exp.Tuple) else [t]))
                for t in node.expressions]
        width = len(rows[0])
        types = []
        for c in range(width):
            t = rows[0][c].type
            for r in rows[1:]:
                t = T.common_type(t, r[c].type) or t
            types.append(_varchar(t))
        cols = [c.name for c in (alias.columns if alias is not None else [])] or [f"EXPR${i}" for i in range(width)]
        rows = [tuple(e if e.type == t else P.Cast(t, e) for e, t in zip(r, types)) for r in rows]
        return P.Values(tuple(rows), tuple(P.Field(n, t) for n, t in zip(cols, types)))

    # -- FROM ------------------------------------------------------------------------
    def bind_from(self, node: exp.Expression) -> Relation:
        if isinstance(node, exp.Table):
            return self.bind_table(node)
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Table) and node.this.args.get("joins"):
            return self.bind_nested_join(node.this)
        if isinstance(node, exp.Subquery):
            inner = node.this
            alias = node.alias or None
            if isinstance(inner, exp.Values):
                plan = self.bind_values(inner, node.args.get("alias"))
            else:
                plan = self.bind_query(inner)
            plan = self.rename(plan, node.args.get("alias"))
            return Relation(plan, [alias] * len(plan.schema))
        if isinstance(node, exp.Values):
            plan = self.bind_values(node, node.args.get("alias"))
            return Relation(plan, [node.alias or None] * len(plan.schema))
        if isinstance(node, dn.WindowTVF):
            return self.bind_window_tvf(node)
        raise UnsupportedError(f"Unsupported FROM item: {node.sql()[:60]}", self.span(node))

    def bind_nested_join(self, table: exp.Table) -> Relation:
        """``a JOIN (b JOIN c ON ..) ON ..``: the parenthesized joins keep their qualifiers."""
        from sqlengine.binder import joins as J
        base = table.copy()
        base.set("joins", None)
        rel = self.bind_from(base)
        for j in table.args["joins"]:
            rel = J.bind_join(self, rel, j)
        return Relation(J.finalize_joins(self, rel.node), rel.qualifiers, rel.hidden)

    def rename(self, plan: P.Node, alias: Optional[exp.TableAlias]) -> P.Node:
        cols = [c.name for c in alias.columns] if alias is not None and alias.columns else []
        if not cols:
            return plan
        return P.Calc(plan, tuple(_ref(plan, i) for i in range(len(cols))), tuple(cols))

    def bind_table(self, node: exp.Table) -> Relation:
        if node.args.get("version") is not None:
            raise ValidationError("FOR SYSTEM_TIME AS OF is allowed only on the right side of a join "
                                  "(a temporal join)", self.span(node))
        parts = [p.name for p in node.parts]
        if self.is_cte(parts):
            return self.bind_cte(parts[0], node)
        path, obj = lookup_table(self.catalogs, parts, self.name_span(node))
        alias = node.alias or parts[-1]
        if isinstance(obj, CatalogView):
            sub = QueryBinder(self.catalogs, obj.query_sql, self.streaming, conf=self.conf)
            plan = sub.bind_query(parse_one(obj.query_sql))
            return Relation(plan, [alias] * len(plan.schema))
        plan = self.scan(str(path), obj, node)
        return Relation(plan, [alias] * len(plan.schema))

    def bind_cte(self, name: str, node: exp.Table) -> Relation:
        cte = self.ctes[name.lower()]
        earlier = {}
        for k, v in self.ctes.items():  # a CTE sees only the CTEs defined before it
            if v is cte:
                break
            earlier[k] = v
        plan = QueryBinder(self.catalogs, self.source, self.streaming, earlier, self.conf).bind_query(cte.this)
        plan = self.rename(plan, cte.args.get("alias"))
        alias = node.alias or name
        return Relation(plan, [alias] * len(plan.schema))

    def scan(self, name: str, table: CatalogTable, node) -> P.Node:
        """Source -> computed columns -> watermark assigner, as Flink's scan pipeline."""
        schema = table.schema
        # Flink's scan: the physical columns, then the metadata columns the connector reads.
        physical = [c for c in schema.columns if c.kind == "physical"] + \
            [c for c in schema.columns if c.kind == "metadata"]
        metadata = tuple((c.name, c.metadata_key or c.name) for c in schema.columns if c.kind == "metadata")
        options = table.options_dict()
        wm = {w.column: w for w in schema.watermarks}
        rowtime = "ROWTIME" if self.streaming else None
        changelog = source_changelog(options)
        if changelog and not self.streaming:
            raise ValidationError(
                f"Querying a table in batch mode is currently only possible for INSERT-only table sources. "
                f"But the source for table '{name}' produces other changelog messages than just INSERT.",
                self.span(node))
        scan = P.TableScan(name, tuple(P.Field(c.name, c.type.with_time_attr(rowtime if c.name in wm else None))
                                       for c in physical), table.options, options.get("connector", ""),
                           metadata, tuple(schema.primary_key or ()), changelog,
                           self.streaming and bool(schema.watermarks), tuple(table.partition_keys))
        scope = Scope([ScopeColumn(None, c.name, c.type, i) for i, c in enumerate(physical)], "",
                      computed_column=True)
        projs, names = [], []
        pindex = {c.name: i for i, c in enumerate(physical)}
        for col in schema.columns:
            if col.kind in ("physical", "metadata"):
                e: P.Expr = P.ColRef(scan.fields[pindex[col.name]].type, pindex[col.name], col.name)
            else:
                expr_ast = parse_one(f"SELECT {col.expr_sql}").expressions[0]
                e = ExprBinder(scope).bind(expr_ast)
                if self.streaming and isinstance(e, P.Call) and e.name.upper() == "PROCTIME":
                    e = _with_time_attr(e, "PROCTIME")
            if col.name in wm:
                check_rowtime_type(col.name, e.type, self.span(node))
                if self.streaming and not isinstance(e, P.ColRef):
                    e = _with_time_attr(e, "ROWTIME")
            projs.append(e)
            names.append(col.name)
        plan: P.Node = scan
        duplicates = changelog == "all" and \
            str(self.conf.get(CDC_DUPLICATE, "false")).strip().lower() == "true"
        if duplicates and not schema.primary_key:
            raise ValidationError(
                f"Configuration '{CDC_DUPLICATE}' is enabled which requires the changelog sources to define a "
                f"PRIMARY KEY. However, table '{name}' doesn't have a primary key.", self.span(node))
        if changelog == "upsert" or duplicates:  # Flink's planner normalizes the stream by its key
            pk = [c.name for c in physical]
            plan = P.ChangelogNormalize(scan, tuple(pk.index(k) for k in schema.primary_key or ()))
        if names != [c.name for c in physical] or any(not isinstance(p, P.ColRef) for p in projs):
            plan = P.Calc(plan, tuple(projs), tuple(names))
        if self.streaming:
            for w in schema.watermarks:
                plan = P.WatermarkAssigner(plan, names.index(w.column), self.watermark_delay(w, name))
        return plan

    def watermark_delay(self, wm, table: str) -> int:
        ast = parse_one(f"SELECT {wm.expr_sql}").expressions[0]
        while isinstance(ast, exp.Paren):
            ast = ast.this
        if isinstance(ast, exp.Column) and ast.name == wm.column:
            return 0
        if isinstance(ast, exp.Sub) and isinstance(ast.this, exp.Column) and ast.this.name == wm.column:
            lit = ExprBinder(Scope([], "")).bind(ast.expression)
            if isinstance(lit, P.Lit) and lit.type.root == "INTERVAL_DAY_TIME":
                return int(lit.value)
        raise UnsupportedError(
            f"Unsupported watermark expression '{wm.expr_sql}' on table {table}: only "
            f"`{wm.column}` or `{wm.column}` - INTERVAL '...' <unit> can run on Spark.")

    def bind_window_tvf(self, node: dn.WindowTVF) -> Relation:
        call = node.this
        kind = call.name.upper() if isinstance(call, exp.Anonymous) else call.sql_name().upper()
        if kind not in ("TUMBLE", "HOP", "CUMULATE", "SESSION"):
            raise UnsupportedError(f"Unsupported table function {kind}", self.span(node))
        args = list(call.expressions) if isinstance(call, exp.Anonymous) else []
        named = {a.this.name.upper(): a.expression for a in args if isinstance(a, exp.Kwarg)}
        positional = [a for a in args if not isinstance(a, exp.Kwarg)]
        data = named.get("DATA", positional[0] if positional else None)
        timecol = named.get("TIMECOL", positional[1] if len(positional) > 1 else None)
        rest = positional[2:]
        if isinstance(data, dn.TableArg):
            data = data.this
        inner = self.bind_from(data)
        desc = timecol.expressions[0] if isinstance(timecol, dn.Descriptor) else timecol
        scope = inner.scope(self.source)
        tref = ExprBinder(scope).bind(desc)
        if not isinstance(tref, P.ColRef):
            raise ValidationError("The window function requires a column in DESCRIPTOR", self.span(desc))
        if self.streaming and tref.type.time_attr is None:
            raise ValidationError(
                "The window function requires the timecol is a time attribute type, but is "
                f"{tref.type.sql(False)}.", self.span(desc))
        ms = [self.interval_ms(e) for e in rest]
        for key in ("SIZE", "SLIDE", "STEP", "GAP", "MAX_SIZE", "OFFSET"):
            if key in named:
                named[key] = self.interval_ms(named[key])
        spec = self.window_spec(kind, tref.index, ms, named, node)
        tvf = P.WindowTableFunction(inner.node, spec, self.streaming)
        alias = node.alias or None
        quals = [alias or q for q in inner.qualifiers] + [alias] * 3
        return Relation(tvf, quals)

    def window_spec(self, kind: str, tcol: int, ms: list[int], named: dict, node) -> P.WindowSpec:
        if kind == "TUMBLE":
            return P.WindowSpec("TUMBLE", tcol, named.get("SIZE", ms[0] if ms else None),
                                offset_ms=named.get("OFFSET", ms[1] if len(ms) > 1 else 0))
        if kind == "HOP":
            slide = named.get("SLIDE", ms[0] if ms else None)
            size = named.get("SIZE", ms[1] if len(ms) > 1 else None)
            if size is None or slide is None or size % slide != 0:
                raise ValidationError("HOP table function based aggregate requires size must be an "
                                      "integral multiple of slide", self.span(node))
            return P.WindowSpec("HOP", tcol, size, slide_ms=slide, offset_ms=named.get("OFFSET", ms[2] if len(ms) > 2 else 0))
        if kind == "CUMULATE":
            step = named.get("STEP", ms[0] if ms else None)
            size = named.get("SIZE", named.get("MAX_SIZE", ms[1] if len(ms) > 1 else None))
            if size is None or step is None or size % step != 0:
                raise ValidationError("CUMULATE table function based aggregate requires maxSize must be "
                                      "an integral multiple of step", self.span(node))
            return P.WindowSpec("CUMULATE", tcol, size, slide_ms=step, offset_ms=named.get("OFFSET", ms[2] if len(ms) > 2 else 0))
        return P.WindowSpec("SESSION", tcol, 0, gap_ms=named.get("GAP", ms[-1] if ms else None))

    def interval_ms(self, e: exp.Expression) -> int:
        lit = ExprBinder(Scope([], self.source)).bind(e)
        if not isinstance(lit, P.Lit) or lit.type.root != "INTERVAL_DAY_TIME":
            raise ValidationError("Expected an INTERVAL literal (day-time)", self.span(e))
        return int(lit.value)

    # -- SELECT -------------------------------------------------------------------------
    def bind_select(self, node: exp.Select) -> P.Node:
        from sqlengine.binder import joins as J
        from sqlengine.binder.subquery import SubqueryBinder
        from_ = node.args.get("from_")
        rel = self.bind_from(from_.this) if from_ is not None else \
            Relation(P.Values(((),), ()), [])
        if node.args.get("match") is not None:
            from sqlengine.binder.match import bind_match
            rel = bind_match(self, rel, node.args["match"])
        for j in node.args.get("joins") or []:
            rel = J.bind_join(self, rel, j)
        where = node.args.get("where")
        conds: list[P.Expr] = []
        subs = SubqueryBinder(self, rel, where.this if where is not None else None)
        if where is not None:
            scope = rel.scope(self.source)
            scope.on_subquery = subs.bind
            bound = condition(ExprBinder(scope).bind(where.this), "WHERE", self.span(where.this))
            conds = [c for c in J.conjuncts(bound) if not J.is_true(c)]
        node_, conds = J.push_into_joins(rel.node, conds)
        rel = Relation(J.finalize_joins(self, node_), rel.qualifiers, rel.hidden)
        rel = subs.apply(rel)
        if conds:
            rel = Relation(P.Calc(rel.node, _identity(rel.node), tuple(rel.node.names()), J.conjoin(conds)),
                           rel.qualifiers, rel.hidden)
        from sqlengine.binder.aggregate import bind_aggregation, needs_aggregation
        from sqlengine.binder.over import bind_over, has_over
        if needs_aggregation(self, node):
            if has_over(node):
                raise UnsupportedError("OVER aggregates over a GROUP BY result are not supported",
                                       self.span(node))
            plan = bind_aggregation(self, node, rel)
        else:
            replacements: list = []
            if has_over(node):
                rel, replacements = bind_over(self, node, rel)
            plan = self.project(node, rel, replacements)
        if node.args.get("distinct"):
            if node.args["distinct"].args.get("on"):
                raise UnsupportedError("SELECT DISTINCT ON is not supported", self.span(node))
            plan = P.Aggregate(plan, tuple(range(len(plan.schema))), (), ())
        return plan

    def project(self, node: exp.Select, rel: Relation, replacements: list = ()) -> P.Node:
        from sqlengine.binder.subquery import scalar_hook
        scope = rel.scope(self.source)
        scope.replacements = list(replacements)
        holder = [rel.node]
        scope.on_subquery = scalar_hook(self, holder, rel.scope(self.source))
        binder = ExprBinder(scope)
        projs, names = [], []
        for i, item in enumerate(node.expressions):
            if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
                qual = item.table if isinstance(item, exp.Column) else None
                if qual and not scope.has_qualifier(qual):
                    raise ValidationError(f"Unknown identifier '{qual}'", self.span(item))
                for c in scope.columns:
                    if qual and (c.qualifier or "").lower() != qual.lower():
                        continue
                    if not qual and c.hidden:
                        continue
                    projs.append(P.ColRef(c.type, c.index, c.name))
                    names.append(c.name)
                continue
            inner = item.this if isinstance(item, exp.Alias) else item
            bound = binder.bind(inner)
            if self.streaming and isinstance(bound, P.Call) and bound.name == "PROCTIME":
                bound = _with_time_attr(bound, "PROCTIME")  # a processing-time attribute, as in DDL
            projs.append(bound)
            names.append(item.alias if isinstance(item, exp.Alias) else
                         inner.name if isinstance(inner, (exp.Column, exp.Dot)) else f"EXPR${i}")
        names = _dedupe(names)
        plan = holder[0]
        if list(projs) != list(_identity(plan)) or names != plan.names():
            return P.Calc(plan, tuple(projs), tuple(names))
        return plan

    def bind_select_ordered(self, node: exp.Select) -> P.Node:
        """A SELECT whose ORDER BY may name more than its output columns: an expression, or
        a column of the FROM clause (qualified or not selected). As in Calcite, such keys
        are computed as extra columns of the select list, sorted on, then projected away
        (not with SELECT DISTINCT, whose rows they would change)."""
        order = node.args.get("order")
        if order is None or not order.expressions:
            return self.order_limit(node, self.bind_select(node))
        plan = self.bind_select(node)
        extra = [o for o in order.expressions if self._output_key(o.this, plan) is None]
        if not extra:
            return self.order_limit(node, plan)
        if node.args.get("distinct"):
            raise ValidationError(f"Expression '{_expr_text(extra[0].this)}' is not in the select clause",
                                  self.span(extra[0]))
        width = len(plan.schema)
        wider = node.copy()
        hidden = {id(o): f"$order{i}" for i, o in enumerate(extra)}  # the extra select items' names
        for o in extra:
            wider.append("expressions", exp.alias_(o.this.copy(), hidden[id(o)], quoted=True))
        wider.set("order", exp.Order(expressions=[
            exp.Ordered(this=_placed(exp.column(hidden[id(o)], quoted=True), o.this) if id(o) in hidden
                        else o.this.copy(), desc=o.args.get("desc"), nulls_first=o.args.get("nulls_first"))
            for o in order.expressions]))
        sorted_ = self.order_limit(wider, self.bind_select(wider))
        return P.Calc(sorted_, tuple(_ref(sorted_, i) for i in range(width)), tuple(plan.names()))

    def _output_key(self, e: exp.Expression, plan: P.Node) -> Optional[int]:
        """The output column an ORDER BY key names (an ordinal, or an unqualified output
        column name), else None."""
        if isinstance(e, exp.Literal) and not e.is_string and e.name.isdigit():
            n = int(e.name)
            if not 1 <= n <= len(plan.schema):
                raise ValidationError(f"Ordinal out of range: {n} (the SELECT list has {len(plan.schema)} columns)",
                                      self.span(e))
            return n - 1
        if isinstance(e, exp.Column) and not e.table:
            scope = Scope([ScopeColumn(None, f.name, f.type, i) for i, f in enumerate(plan.schema)], self.source)
            found = scope.lookup(None, e.name)
            if found:
                return found[0].index
        return None

    def order_limit(self, node: exp.Expression, plan: P.Node) -> P.Node:
        order = node.args.get("order")
        limit = node.args.get("limit")
        offset = node.args.get("offset")
        if order is None and limit is None and offset is None:
            return plan
        keys = []
        if order is not None:
            for o in order.expressions:
                index = self._output_key(o.this, plan)
                if index is None:
                    raise UnsupportedError("ORDER BY of a set operation supports its output columns only",
                                           self.span(o))
                keys.append(P.SortKey(index, not o.args.get("desc"), o.args.get("nulls_first")))
            # Flink's streaming sort without a limit is its TemporalSort: a time attribute,
            # ascending, first (with a limit it is a Top-N over any keys).
            if self.streaming and limit is None and (
                    not keys or keys[0].index < 0 or not keys[0].ascending or
                    plan.schema[keys[0].index].type.time_attr is None):
                raise UnsupportedError(
                    "Sort on a non-time-attribute field is not supported.",
                    self.span(order.expressions[0].this) or self.span(order))
        if isinstance(limit, exp.Fetch):  # FETCH FIRST|NEXT [n] ROW[S] ONLY
            options = limit.args.get("limit_options")
            if options is not None and (options.args.get("with_ties") or options.args.get("percent")):
                raise UnsupportedError("FETCH ... WITH TIES / PERCENT is not supported", self.span(limit))
            count = limit.args.get("count")
            n = int(count.name) if count is not None else 1
        else:  # LIMIT ALL: no limit
            n = int(limit.expression.name) if limit is not None and limit.expression.name != "ALL" else None
        off = int(offset.expression.name) if offset is not None else 0
        return P.Sort(plan, tuple(keys), n, off)

    # -- INSERT -----------------------------------------------------------------------
    def bind_insert(self, node: exp.Insert) -> P.Sink:
        target = node.this
        columns = None
        if isinstance(target, exp.Schema):
            columns = [c.name for c in target.expressions]
            target = target.this
        parts = [p.name for p in target.parts]
        path, table = lookup_sink(self.catalogs, parts, self.name_span(target))
        if isinstance(table, CatalogView):
            raise ValidationError(f"Cannot insert into view {path}", self.span(node))
        depth = _DEPTH.set(_DEPTH.get() + 1)  # the sources are checked after the target columns
        try:
            query = self.bind_query(node.expression)
        finally:
            _DEPTH.reset(depth)
        sink_cols = [c for c in table.schema.columns if c.kind == "physical" or
                     (c.kind == "metadata" and not c.virtual)]
        if columns:
            sink_cols = _target_columns(sink_cols, columns, node.this, self.source)
        if _DEPTH.get() == 0:
            check_sources(query)
        if node.args.get("overwrite"):
            check_overwrite(str(path), table.options_dict(), self.span(node))
        return self.sink(str(path), table, sink_cols, query, node)

    def sink(self, name: str, table, sink_cols, query: P.Node, node) -> P.Sink:
        qs = query.schema
        problem = None
        if len(qs) != len(sink_cols):
            problem = f"Different number of columns."
        else:
            for i, (q, s) in enumerate(zip(qs, sink_cols)):
                if not T.implicitly_castable(q.type, s.type):
                    problem = f"Incompatible types for sink column '{s.name}' at position {i}."
                    break
        if problem:
            qtext = ", ".join(f"{f.name}: {f.type.sql()}" for f in qs)
            stext = ", ".join(f"{c.name}: {c.type.sql()}" for c in sink_cols)
            raise ValidationError(
                f"Column types of query result and sink for '{name}' do not match.\n"
                f"Cause: {problem}\n\nQuery schema: [{qtext}]\nSink schema:  [{stext}]", self.span(node))
        fields = tuple(P.Field(c.name, c.type) for c in sink_cols)
        projs = tuple(_ref(query, i) if _same_type(q.type, c.type) else P.Cast(c.type, _ref(query, i))
                      for i, (q, c) in enumerate(zip(qs, sink_cols)))
        if any(isinstance(p, P.Cast) for p in projs) or [f.name for f in qs] != [c.name for c in sink_cols]:
            query = P.Calc(query, projs, tuple(c.name for c in sink_cols))
        options = table.options_dict()
        metadata = tuple((c.name, c.metadata_key or c.name) for c in sink_cols if c.kind == "metadata")
        return P.Sink(query, name, fields, table.options, options.get("connector", ""),
                      bool(node.args.get("overwrite")), span=self.span(node), metadata=metadata,
                      primary_key=tuple(table.schema.primary_key or ()),
                      partition_keys=tuple(table.partition_keys))


def _expr_text(node: exp.Expression) -> str:
    """An expression as Calcite prints one in a message: a column as its dotted parts."""
    if isinstance(node, exp.Column):
        return ".".join(p.name for p in node.parts)
    return node.sql(dialect="flink")


def _target_columns(sink_cols: list, columns: list[str], target: exp.Schema, source: str) -> list:
    """INSERT INTO t (c1, c2, ...): the named columns, each once (Calcite's checks)."""
    by = {c.name: c for c in sink_cols}
    for name, ident in zip(columns, target.expressions):
        if name not in by:
            raise ValidationError(f"Unknown target column '{name}'", span_of(ident, source))
        if columns.count(name) > 1:
            raise ValidationError(f"Target column '{name}' is assigned more than once", span_of(ident, source))
    return [by[c] for c in columns]


def _same_type(src: T.DataType, dst: T.DataType) -> bool:
    """Equal but for nullability and time attributes (no cast needed into the sink)."""
    return src.with_time_attr(None).with_nullable(True) == dst.with_time_attr(None).with_nullable(True)


def _ref(node: P.Node, i: int) -> P.ColRef:
    f = node.schema[i]
    return P.ColRef(f.type, i, f.name)


def _identity(node: P.Node) -> tuple[P.Expr, ...]:
    return tuple(_ref(node, i) for i in range(len(node.schema)))


CDC_DUPLICATE = "table.exec.source.cdc-events-duplicate"


def source_changelog(options: dict[str, str]) -> str:
    """The changelog a table's connector emits (``ConnectorFactory.source_changelog``); an
    unknown connector is reported where the table is read."""
    from connectors.base import factory_for
    from sqlengine.errors import ConnectorError
    try:
        factory = factory_for(options.get("connector") or None, "")
    except ConnectorError:
        return ""
    return factory.source_changelog(options)


def check_sources(plan: P.Node) -> None:
    """Every table a plan reads needs a connector that reads (Flink creates the sources
    while converting the validated query, before it looks at the sink)."""
    from connectors.base import ConnectorFactory, factory_for
    from sqlengine.errors import ConnectorError
    for node in P.walk(plan):
        if not isinstance(node, P.TableScan):
            continue
        try:
            factory = factory_for(node.connector or None, node.table)
        except ConnectorError:
            continue
        if type(factory).scan is ConnectorFactory.scan:
            raise ValidationError(f"Connector '{factory.identifier}' can only be used as a sink. "
                                  "It cannot be used as a source.")


def check_overwrite(name: str, options: dict[str, str], span: Optional[Span]) -> None:
    """INSERT OVERWRITE needs a sink that replaces what the table holds (Flink's SupportsOverwrite)."""
    from connectors.abilities import SupportsOverwrite
    from connectors.base import factory_for
    from sqlengine.errors import ConnectorError
    try:
        factory = factory_for(options.get("connector") or None, name)
    except ConnectorError:
        return
    if not isinstance(factory, SupportsOverwrite):
        raise ValidationError(f"INSERT OVERWRITE requires that the underlying DynamicTableSink of table '{name}' "
                              "implements the SupportsOverwrite interface.", span)


def _with_time_attr(e: P.Expr, kind: str) -> P.Expr:
    from dataclasses import replace
    return replace(e, type=e.type.with_time_attr(kind))


def _varchar(t: T.DataType) -> T.DataType:
    return T.VARCHAR(t.precision or 1, t.nullable) if t.root == "CHAR" else t


def _placed(e: exp.Expression, at: exp.Expression) -> exp.Expression:
    """``e`` at ``at``'s place in the source (an error about it points there)."""
    for sub in at.walk(bfs=False):
        if "start" in (getattr(sub, "_meta", None) or {}):
            e.meta.update(sub.meta)
            break
    return e
