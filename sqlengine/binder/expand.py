"""A view's expanded query, as Flink stores it next to the original (``CatalogView``'s
``getExpandedQuery``, what SHOW CREATE VIEW prints): Calcite's validator rewrites the
query so that it no longer depends on the session it was written in — every table is
named in full with an alias (``catalog.db.t AS t``), every column is qualified with its
table's alias, ``*`` is expanded, a window TVF's ``TABLE t`` becomes a subquery
selecting its columns — and prints it back (sqlengine/dialect/calcite.py).

The query must already be valid (it is bound first): names resolve here as the binder
resolved them, through sqlglot's qualifier given the catalog's columns.
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import NormalizationStrategy
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema

from catalog.objects import CatalogView
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.calcite import calcite_sql
from sqlengine.dialect.flink import Flink

USER_ALIAS = "user_alias"
ORDER_NAME = "order_name"


def expanded_query(query: exp.Expression, catalogs) -> str:
    """The text of ``query`` expanded as Flink's validator expands a view's query."""
    q = query.copy()
    _mark_user_aliases(q)
    _mark_order_names(q)
    ctes = {cte.alias_or_name for cte in q.find_all(exp.CTE)}
    schema: dict = {}
    for table in list(q.find_all(exp.Table)):
        if not table.args.get("db") and table.name in ctes:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            continue
        _qualify_table(table, catalogs, schema)
    tvf_names = _tvf_subqueries(q)
    dialect = Flink(normalization_strategy=NormalizationStrategy.CASE_SENSITIVE)
    q = qualify(q, schema=MappingSchema(schema, dialect=dialect, normalize=False), dialect=dialect,
                expand_alias_refs=False, validate_qualify_columns=False, quote_identifiers=False,
                identify=False)
    _qualify_tvf_columns(q, tvf_names)
    _unqualify_order_names(q)
    _drop_generated_aliases(q)
    return calcite_sql(q)


def _mark_user_aliases(q: exp.Expression) -> None:
    for select in q.find_all(exp.Select):
        for e in select.expressions:
            if isinstance(e, exp.Alias):
                e.meta[USER_ALIAS] = True


def _mark_order_names(q: exp.Expression) -> None:
    for order in q.find_all(exp.Order):
        for col in order.find_all(exp.Column):
            if not col.table:
                col.meta[ORDER_NAME] = True


def _unqualify_order_names(q: exp.Expression) -> None:
    """An ORDER BY name that is a name of the select list stays as written (Calcite
    resolves it against the select list, not a table)."""
    for order in q.find_all(exp.Order):
        select = order.parent
        selects = select.selects if isinstance(select, exp.Query) else []
        names = {e.alias_or_name for e in selects}
        for col in order.find_all(exp.Column):
            if col.meta.get(ORDER_NAME) and col.name in names:
                col.set("table", None)


def _qualify_table(table: exp.Table, catalogs, schema: dict) -> None:
    """``t`` -> ``catalog.db.t AS t``, and the table's columns into ``schema``."""
    path = catalogs.qualify([p.name for p in table.parts])
    found = catalogs.find_table(path)
    if not table.alias:
        table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
    table.set("catalog", exp.to_identifier(path.catalog))
    table.set("db", exp.to_identifier(path.database))
    table.set("this", exp.to_identifier(path.name))
    if found is None:
        return
    cols = found.schema.names() if isinstance(found, CatalogView) else [c.name for c in found.schema.columns]
    schema.setdefault(path.catalog, {}).setdefault(path.database, {})[path.name] = {c: "STRING" for c in cols}


def _tvf_subqueries(q: exp.Expression) -> dict[int, str]:
    """A window TVF's ``TABLE t`` becomes ``(SELECT * FROM t)`` (expanded by the qualifier)
    and the TVF gets Calcite's generated alias ``EXPR$n`` if it has none; returns the TVFs'
    aliases by the id of the SELECT whose FROM they are."""
    names: dict[int, str] = {}
    for n, tvf in enumerate(list(q.find_all(dn.WindowTVF))):
        for arg in tvf.this.expressions:
            if isinstance(arg, dn.TableArg) and isinstance(arg.this, exp.Table):
                arg.set("this", exp.select("*").from_(arg.this.copy()).subquery())
        if not tvf.args.get("alias"):
            tvf.set("alias", exp.TableAlias(this=exp.to_identifier(f"EXPR${n}")))
        select = tvf.find_ancestor(exp.Select)
        if select is not None and not select.args.get("joins"):
            names[id(select)] = tvf.args["alias"].name
    return names


def _qualify_tvf_columns(q: exp.Expression, tvf_names: dict[int, str]) -> None:
    """The columns of a SELECT over one window TVF, qualified with the TVF's alias (the
    qualifier does not know a TVF's columns); DESCRIPTOR arguments name columns as written."""
    for select in q.find_all(exp.Select):
        alias = tvf_names.get(id(select))
        if alias is None:
            continue
        for col in select.find_all(exp.Column):
            if col.table or col.find_ancestor(dn.Descriptor, exp.Order) is not None:
                continue
            if col.find_ancestor(exp.Select) is select:
                col.set("table", exp.to_identifier(alias))


def _drop_generated_aliases(q: exp.Expression) -> None:
    """The qualifier names every projection; Calcite prints only the user's aliases."""
    for select in q.find_all(exp.Select):
        select.set("expressions", [e.this if isinstance(e, exp.Alias) and not e.meta.get(USER_ALIAS) else e
                                   for e in select.expressions])
