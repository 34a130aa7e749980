"""DELETE FROM / UPDATE / TRUNCATE TABLE, validated as Flink's validator does.

``DELETE FROM t [WHERE c]`` and ``UPDATE t SET col = e, ... [WHERE c]`` are bound over a
scan of ``t`` (Flink converts them to a query over the table, so its source is created
and checked first): the condition and the new values are plan expressions over the
table's columns. Whether the table's connector can then delete or update rows, and in
which runtime mode, is the statement handler's business (sqlengine/api/modify.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

from catalog.objects import CatalogBaseTable, ObjectPath
from sqlengine import types as T
from sqlengine.binder.expressions import ExprBinder, condition
from sqlengine.binder.names import lookup_sink, lookup_table
from sqlengine.binder.query import check_sources
from sqlengine.errors import ValidationError
from sqlengine.functions.base import calcite_name
from sqlengine.plan import nodes as P


@dataclass(frozen=True)
class RowLevelModify:
    """A bound DELETE or UPDATE: the rows ``condition`` holds for (all rows when None),
    over the table's columns ``fields``; an UPDATE's new values by column name."""

    kind: str  # "DELETE" | "UPDATE"
    path: ObjectPath
    table: CatalogBaseTable
    fields: tuple[P.Field, ...]
    condition: Optional[P.Expr]
    assignments: tuple[tuple[str, P.Expr], ...] = ()


def bind_delete(qb, node: exp.Delete) -> RowLevelModify:
    path, table, binder, scan = _target(qb, node.this)
    where = _where(qb, node, binder)
    check_sources(scan)  # after validation, as Flink creates the source converting the statement
    return RowLevelModify("DELETE", path, table, _fields(binder), where)


def bind_update(qb, node: exp.Update) -> RowLevelModify:
    path, table, binder, scan = _target(qb, node.this)
    names = [c.name for c in binder.scope.columns]
    assignments, seen = [], set()
    for item in node.expressions:  # SET col = value (sqlglot: EQ)
        target, value = item.this, item.expression
        name = target.name
        if name not in names:
            raise ValidationError(f"Unknown target column '{name}'", qb.span(target))
        if name in seen:
            raise ValidationError(f"Target column '{name}' is assigned more than once", qb.span(target))
        seen.add(name)
        bound = binder.bind(value)
        column = binder.scope.columns[names.index(name)]
        if bound.type.root != "NULL" and not T.implicitly_castable(bound.type, column.type):
            raise ValidationError(
                f"Cannot assign to target field '{name}' of type {calcite_name(column.type)} from source field "
                f"'EXPR${len(assignments)}' of type {calcite_name(bound.type)}", qb.span(value))
        assignments.append((name, bound))
    where = _where(qb, node, binder)
    check_sources(scan)
    return RowLevelModify("UPDATE", path, table, _fields(binder), where, tuple(assignments))


def lookup_truncated(qb, node: exp.TruncateTable) -> tuple[ObjectPath, CatalogBaseTable]:
    """The table of TRUNCATE TABLE: Flink looks it up as a sink's."""
    target = node.expressions[0]
    return lookup_sink(qb.catalogs, [p.name for p in target.parts], qb.name_span(target))


def _target(qb, target: exp.Table) -> tuple[ObjectPath, CatalogBaseTable, ExprBinder, P.Node]:
    path, table = lookup_table(qb.catalogs, [p.name for p in target.parts], qb.name_span(target))
    relation = qb.bind_table(target)
    return path, table, ExprBinder(relation.scope(qb.source)), relation.node


def _where(qb, node: exp.Expression, binder: ExprBinder) -> Optional[P.Expr]:
    where = node.args.get("where")
    if where is None:
        return None
    return condition(binder.bind(where.this), "WHERE", qb.span(where.this))


def _fields(binder: ExprBinder) -> tuple[P.Field, ...]:
    return tuple(P.Field(c.name, c.type) for c in binder.scope.columns)
