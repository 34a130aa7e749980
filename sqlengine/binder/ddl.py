"""CREATE TABLE / VIEW statements -> catalog objects, validated as Flink does."""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from catalog.objects import CatalogTable, Column, TableSchema, WatermarkSpec
from sqlengine.binder.types import column_type
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import generate, span_of
from sqlengine.errors import ValidationError


def options_of(props: Optional[exp.Properties]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in (props.expressions if props is not None else []):
        if type(p) is exp.Property:
            key = p.this.name if isinstance(p.this, (exp.Literal, exp.Identifier, exp.Var)) else p.name
            value = p.args.get("value")
            out[key] = value.name if isinstance(value, exp.Literal) else generate(value)
    return out


def _column(cd: exp.ColumnDef) -> Column:
    constraints = cd.args.get("constraints") or []
    kinds = [c.args.get("kind") for c in constraints]
    comment = next((k.name for k in kinds if isinstance(k, exp.CommentColumnConstraint)), None)
    computed = next((k for k in kinds if isinstance(k, exp.ComputedColumnConstraint)), None)
    if computed is not None:
        from sqlengine.types import NULLTYPE
        return Column(cd.name, NULLTYPE(), "computed", expr_sql=generate(computed.this), comment=comment)
    meta = next((k for k in kinds if isinstance(k, dn.MetadataColumnConstraint)), None)
    if meta is not None:
        key = meta.this.name if meta.this is not None else None
        return Column(cd.name, column_type(cd), "metadata", metadata_key=key,
                      virtual=bool(meta.args.get("virtual")), comment=comment)
    return Column(cd.name, column_type(cd), comment=comment)


def _primary_key(schema: exp.Schema, inline: list[str]) -> tuple[Optional[tuple[str, ...]], Optional[str]]:
    for item in schema.expressions:
        pk = item
        name = None
        if isinstance(item, exp.Constraint):
            name = item.name
            pk = next((e for e in item.expressions if isinstance(e, exp.PrimaryKey)), None)
        if isinstance(pk, exp.PrimaryKey):
            cols = tuple(c.name for c in pk.expressions)
            return cols, name
    return (tuple(inline), None) if inline else (None, None)


def table_from_create(node: exp.Create, source: str) -> CatalogTable:
    """Build the catalog table of ``CREATE TABLE``; watermark types are checked here (as Flink)."""
    schema = node.this if isinstance(node.this, exp.Schema) else None
    if schema is None:
        raise ValidationError("CREATE TABLE needs a column list", span_of(node, source))
    columns, watermarks, inline_pk = [], [], []
    for item in schema.expressions:
        if isinstance(item, exp.ColumnDef):
            columns.append(_column(item))
            kinds = [c.args.get("kind") for c in item.args.get("constraints") or []]
            if any(isinstance(k, exp.PrimaryKeyColumnConstraint) for k in kinds):
                inline_pk.append(item.name)
        elif isinstance(item, exp.WatermarkColumnConstraint):
            watermarks.append(WatermarkSpec(item.this.name, generate(item.expression)))
    pk, pk_name = _primary_key(schema, inline_pk)
    props = node.args.get("properties")
    options = options_of(props)
    partition: tuple[str, ...] = ()
    for p in (props.expressions if props is not None else []):
        if isinstance(p, exp.PartitionedByProperty):
            target = p.this
            partition = tuple(e.name for e in (target.expressions if hasattr(target, "expressions") else [target]))
    _check_watermarks(columns, watermarks, node, source)
    if pk:
        columns = [Column(c.name, c.type.with_nullable(False), c.kind, c.expr_sql, c.metadata_key,
                          c.virtual, c.comment) if c.name in pk else c for c in columns]
    comment = next((p.this.name for p in (props.expressions if props is not None else [])
                    if isinstance(p, exp.SchemaCommentProperty)), None)
    return CatalogTable(TableSchema(tuple(columns), tuple(watermarks), pk, pk_name),
                        tuple(options.items()), partition, comment)


def _check_watermarks(columns: list[Column], watermarks: list[WatermarkSpec], node, source) -> None:
    by_name = {c.name: c for c in columns}
    for wm in watermarks:
        col = by_name.get(wm.column)
        if col is None:
            raise ValidationError(
                f"The rowtime attribute field '{wm.column}' is not defined in the table schema, "
                f"at line {span_of(node, source).line if span_of(node, source) else '?'}. "
                f"Available fields: [{', '.join(by_name)}]", span_of(node, source))
        if col.kind == "computed":
            continue  # checked when the computed column's type is known (binder)
        check_rowtime_type(col.name, col.type, span_of(node, source))


def check_rowtime_type(name: str, dtype, span) -> None:
    if dtype.root not in ("TIMESTAMP", "TIMESTAMP_LTZ") or (dtype.precision or 0) > 3:
        raise ValidationError(
            "Invalid data type of time field for watermark definition. The field must be of type "
            "TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the "
            f"time field type is {dtype.sql(False)}", span)
