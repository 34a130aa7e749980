"""ALTER TABLE / VIEW / DATABASE: a changed catalog object replaces the old one (catalog
objects are frozen; Flink's ``AlterTableChangeOperation`` does the same with its
``TableChange`` list). Flink's messages: a failing change is ``Failed to execute ALTER TABLE
statement.`` and, on the next line, what failed."""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from sqlglot import exp

from catalog.objects import CatalogTable, CatalogView, Column, TableSchema, WatermarkSpec
from sqlengine.api.result import TableResult
from sqlengine.api.state import SessionState
from sqlengine.dialect import nodes as dn
from sqlengine.errors import UnsupportedError, ValidationError

OK = "[INFO] Execute statement succeeded."
FAILED = "Failed to execute ALTER TABLE statement.\n"


def _path(session: SessionState, target: exp.Expression):
    return session.catalogs.qualify([p.name for p in target.parts])


def alter_table(session: SessionState, node: dn.AlterTableFlink, stmt) -> TableResult:
    path = _path(session, node.this)
    table = session.catalogs.find_table(path)
    if table is None or session.catalogs.is_temporary(path) or not isinstance(table, CatalogTable):
        if node.args.get("exists") and table is None:
            return TableResult("OK", text=OK)
        raise ValidationError(f"Table {path.quoted()} doesn't exist or is a temporary table.", stmt.span)
    action = node.args["action"]
    if action == "RENAME":
        new = _path(session, node.args["rename"])
        session.catalogs.rename_table(path, new.name)
        return TableResult("OK", text=OK)
    change = ACTIONS.get(action)
    if change is None:
        raise UnsupportedError(f"ALTER TABLE ... {action} is not supported", stmt.span)
    session.catalogs.alter_table(path, change(session, table, node, stmt))
    return TableResult("OK", text=OK)


def _set(session, table: CatalogTable, node, stmt) -> CatalogTable:
    from sqlengine.binder.ddl import options_of
    options = dict(table.options)
    options.update(options_of(node.args.get("properties")))
    return dataclasses.replace(table, options=tuple(options.items()))


def _reset(session, table: CatalogTable, node, stmt) -> CatalogTable:
    keys = {k.name for k in node.args.get("keys") or []}
    if "connector" in keys:
        raise ValidationError("ALTER TABLE RESET does not support changing 'connector'", stmt.span)
    return dataclasses.replace(table, options=tuple((k, v) for k, v in table.options if k not in keys))


def _items(session, node, stmt) -> tuple[list[tuple[Column, Optional[exp.Expression]]], list, Optional[tuple]]:
    """The new columns (each with its FIRST / AFTER position), watermarks and primary key of
    an ADD or MODIFY, each read as CREATE TABLE reads it."""
    from sqlengine.binder.ddl import _column, _primary_key
    from sqlengine.dialect.script import generate
    items = node.args.get("columns") or []
    columns = [(_column(i), i.args.get("position")) for i in items if isinstance(i, exp.ColumnDef)]
    watermarks = [WatermarkSpec(i.this.name, generate(i.expression)) for i in items
                  if isinstance(i, exp.WatermarkColumnConstraint)]
    inline = [i.name for i in items if isinstance(i, exp.ColumnDef) and any(
        isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint) for c in i.args.get("constraints") or [])]
    key, name = _primary_key(exp.Schema(expressions=items), inline)
    return columns, watermarks, (key, name) if key is not None else None


def _add_or_modify(modify: bool) -> Callable:
    def change(session, table: CatalogTable, node, stmt) -> CatalogTable:
        schema = table.schema
        columns, watermarks, key = _items(session, node, stmt)
        cols = list(schema.columns)
        for col, position in columns:
            exists = schema.column(col.name) is not None
            if exists and not modify:
                raise ValidationError(FAILED + f"Column `{col.name}` already exists in the table.", stmt.span)
            if not exists and modify:
                raise ValidationError(FAILED + f"Column `{col.name}` does not exist in the table.", stmt.span)
            cols = _place(cols, col, position, stmt)
        wms = list(schema.watermarks)
        if watermarks:
            if not modify and wms:
                raise ValidationError(FAILED + "The current table has already defined the watermark strategy "
                                      f"`{wms[0].column}` AS {wms[0].expr_sql}. You might want to drop it before "
                                      "adding a new one.", stmt.span)
            if modify and not wms:
                raise ValidationError(FAILED + "The current table does not define any watermark. You might "
                                      "want to add a new one.", stmt.span)
            wms = watermarks
        pk, pk_name = schema.primary_key, schema.primary_key_name
        if key is not None:
            if not modify and pk is not None:
                keys = ", ".join(f"`{k}`" for k in pk)
                raise ValidationError(FAILED + f"The current table has already defined the primary key constraint "
                                      f"[{keys}]. You might want to drop it before adding a new one.", stmt.span)
            pk, pk_name = key
        return _rebuilt(table, cols, wms, pk, pk_name, stmt)
    return change


def _place(cols: list[Column], col: Column, position: Optional[exp.Expression], stmt) -> list[Column]:
    old = next((i for i, c in enumerate(cols) if c.name == col.name), None)
    if old is not None and position is None:
        return cols[:old] + [col] + cols[old + 1:]
    rest = [c for c in cols if c.name != col.name]
    if position is None:
        return rest + [col]
    if position.args.get("position") == "FIRST":
        return [col] + rest
    anchor = position.this.name if position.this is not None else None
    at = next((i for i, c in enumerate(rest) if c.name == anchor), None)
    if at is None:
        raise ValidationError(FAILED + f"Referenced column `{anchor}` by 'AFTER' does not exist in the table.",
                              stmt.span)
    return rest[:at + 1] + [col] + rest[at + 1:]


def _drop(session, table: CatalogTable, node, stmt) -> CatalogTable:
    schema = table.schema
    names = [c.name for c in node.args.get("columns") or []]
    for name in names:
        if schema.column(name) is None:
            raise ValidationError(FAILED + f"The column `{name}` does not exist in the base table.", stmt.span)
        if schema.primary_key and name in schema.primary_key:
            raise ValidationError(FAILED + f"The column `{name}` is used as the primary key.", stmt.span)
        if any(w.column == name for w in schema.watermarks):
            raise ValidationError(FAILED + f"The column `{name}` is referenced by watermark expression.", stmt.span)
    cols = [c for c in schema.columns if c.name not in names]
    return _rebuilt(table, cols, list(schema.watermarks), schema.primary_key, schema.primary_key_name, stmt)


def _drop_watermark(session, table: CatalogTable, node, stmt) -> CatalogTable:
    if not table.schema.watermarks:
        raise ValidationError(FAILED + "The current table does not define any watermark strategy.", stmt.span)
    return _rebuilt(table, list(table.schema.columns), [], table.schema.primary_key,
                    table.schema.primary_key_name, stmt)


def _drop_primary_key(session, table: CatalogTable, node, stmt) -> CatalogTable:
    schema = table.schema
    if schema.primary_key is None:
        raise ValidationError(FAILED + "The current table does not define any primary key.", stmt.span)
    if node.args["action"] == "DROP CONSTRAINT":
        name = node.args["keys"][0].name
        if name != schema.primary_key_constraint_name():
            raise ValidationError(FAILED + f"The current table does not define a primary key constraint named "
                                  f"`{name}`. Available constraint name: [`{schema.primary_key_constraint_name()}`].",
                                  stmt.span)
    return _rebuilt(table, list(schema.columns), list(schema.watermarks), None, None, stmt)


def _rename_column(session, table: CatalogTable, node, stmt) -> CatalogTable:
    schema = table.schema
    old, new = node.args["columns"][0].name, node.args["rename"].name
    if schema.column(old) is None:
        raise ValidationError(FAILED + f"The column `{old}` does not exist in the base table.", stmt.span)
    if schema.column(new) is not None:
        raise ValidationError(FAILED + f"The column `{new}` already existed in table schema.", stmt.span)
    cols = [dataclasses.replace(c, name=new) if c.name == old else c for c in schema.columns]
    wms = [WatermarkSpec(new if w.column == old else w.column, w.expr_sql) for w in schema.watermarks]
    pk = tuple(new if k == old else k for k in schema.primary_key) if schema.primary_key else None
    return _rebuilt(table, cols, wms, pk, schema.primary_key_name, stmt)


def _rebuilt(table: CatalogTable, cols, wms, pk, pk_name, stmt) -> CatalogTable:
    from sqlengine.errors import CatalogError
    try:
        schema = TableSchema(tuple(cols), tuple(wms), pk, pk_name)
        return dataclasses.replace(table, schema=schema)
    except CatalogError as err:
        raise ValidationError(FAILED + err.message, stmt.span) from None


ACTIONS = {
    "SET": _set,
    "RESET": _reset,
    "ADD": _add_or_modify(False),
    "MODIFY": _add_or_modify(True),
    "DROP": _drop,
    "DROP WATERMARK": _drop_watermark,
    "DROP PRIMARY KEY": _drop_primary_key,
    "DROP CONSTRAINT": _drop_primary_key,
    "RENAME COLUMN": _rename_column,
}


def alter_view(session: SessionState, node: dn.AlterView, stmt) -> TableResult:
    path = _path(session, node.this)
    view = session.catalogs.find_table(path)
    if not isinstance(view, CatalogView) or session.catalogs.is_temporary(path):
        raise ValidationError(f"View {path.quoted()} doesn't exist or is a temporary view.", stmt.span)
    if node.args.get("rename") is not None:
        session.catalogs.rename_table(path, _path(session, node.args["rename"]).name)
        return TableResult("OK", text=OK)
    from sqlengine.dialect.script import generate
    query = node.args["expression"]
    from sqlengine.api.views import view_binder, view_expansion
    plan = view_binder(session, stmt.span.source).bind_query(query)
    schema = TableSchema(tuple(Column(n, f.type.with_time_attr(None)) for n, f in zip(plan.names(), plan.schema)))
    session.catalogs.alter_table(path, CatalogView(generate(query), schema, view.comment,
                                                   view_expansion(session, query)))
    return TableResult("OK", text=OK)


def alter_database(session: SessionState, node: dn.AlterDatabase, stmt) -> TableResult:
    from sqlengine.binder.ddl import options_of
    parts = [p.name for p in node.this.parts]
    catalog = session.catalogs.get_catalog(parts[0] if len(parts) > 1 else session.catalogs.current_catalog)
    db = catalog.get_database(parts[-1])
    props = dict(db.properties)
    props.update(options_of(node.args.get("properties")))
    catalog.alter_database(parts[-1], dataclasses.replace(db, properties=tuple(props.items())))
    return TableResult("OK", text=OK)
