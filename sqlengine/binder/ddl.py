"""CREATE TABLE / VIEW statements -> catalog objects, validated as Flink does."""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from catalog.objects import CatalogTable, Column, TableSchema, WatermarkSpec, escape_identifier
from sqlengine.binder.types import column_type
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import generate, span_of
from sqlengine.errors import UnsupportedError, ValidationError


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


def _check_key_columns(schema: exp.Schema, columns: list[Column], source: str) -> None:
    """A PRIMARY KEY (...) names columns of the table (Flink's words, with the key's place)."""
    names = {c.name for c in columns}
    for item in schema.expressions:
        pk = next((e for e in item.expressions if isinstance(e, exp.PrimaryKey)), None) \
            if isinstance(item, exp.Constraint) else item
        for ident in (pk.expressions if isinstance(pk, exp.PrimaryKey) else []):
            if ident.name not in names:
                span = span_of(ident, source)
                where = f" at line {span.line}, column {span.column}" if span else ""
                raise ValidationError(f"Primary key column '{ident.name}' is not defined in the schema{where}", span)


def table_from_create(node: exp.Create, source: str, lookup=None) -> CatalogTable:
    """Build the catalog table of ``CREATE TABLE``; watermark types are checked here (as Flink).
    ``lookup(parts)``: the catalog table a ``LIKE`` clause names."""
    schema = node.this if isinstance(node.this, exp.Schema) else None
    props = node.args.get("properties")
    like = next((p for p in (props.expressions if props is not None else []) if isinstance(p, exp.LikeProperty)), None)
    if schema is None and like is None:
        raise ValidationError("CREATE TABLE needs a column list", span_of(node, source))
    columns, watermarks, inline_pk = [], [], []
    for item in (schema.expressions if schema is not None else []):
        if isinstance(item, exp.ColumnDef):
            columns.append(_column(item))
            kinds = [c.args.get("kind") for c in item.args.get("constraints") or []]
            if any(isinstance(k, exp.PrimaryKeyColumnConstraint) for k in kinds):
                inline_pk.append(item.name)
        elif isinstance(item, exp.WatermarkColumnConstraint):
            watermarks.append(WatermarkSpec(item.this.name, generate(item.expression)))
    _check_enforced(schema)
    pk, pk_name = _primary_key(schema, inline_pk) if schema is not None else (None, None)
    if like is None:
        _check_key_columns(schema, columns, source)
    options = options_of(props)
    partition: tuple[str, ...] = ()
    for p in (props.expressions if props is not None else []):
        if isinstance(p, exp.PartitionedByProperty):
            target = p.this
            partition = tuple(e.name for e in (target.expressions if hasattr(target, "expressions") else [target]))
    if like is not None:
        if lookup is None:
            raise UnsupportedError("CREATE TABLE ... LIKE needs a catalog", span_of(like, source))
        columns, watermarks, pk, pk_name, options, partition = _merge_like(
            lookup([p.name for p in like.this.parts]), like, columns, watermarks, pk, pk_name, options, partition,
            span_of(like, source))
    _check_watermarks(columns, watermarks, node, source)
    if pk:
        columns = [Column(c.name, c.type.with_nullable(False), c.kind, c.expr_sql, c.metadata_key,
                          c.virtual, c.comment) if c.name in pk else c for c in columns]
    comment = next((p.this.name for p in (props.expressions if props is not None else [])
                    if isinstance(p, exp.SchemaCommentProperty)), None)
    distribution = next((_distribution_text(p) for p in (props.expressions if props is not None else [])
                         if isinstance(p, dn.DistributionProperty)), None)
    return CatalogTable(TableSchema(tuple(columns), tuple(watermarks), pk, pk_name),
                        tuple(options.items()), partition, comment, distribution)


def _distribution_text(node: dn.DistributionProperty) -> str:
    """``DISTRIBUTED BY HASH(`a`) INTO 4 BUCKETS`` as Flink's SHOW CREATE TABLE prints it."""
    text = "DISTRIBUTED"
    keys = [e.name for e in node.expressions or []]
    if keys:
        text += f" BY {node.args.get('kind') or ''}(" + ", ".join(escape_identifier(k) for k in keys) + ")"
    if node.args.get("buckets") is not None:
        text += f" INTO {node.args['buckets'].name} BUCKETS"
    return text


_LIKE_FEATURES = ("CONSTRAINTS", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS", "DISTRIBUTION")


def _merge_like(base, like: exp.LikeProperty, columns, watermarks, pk, pk_name, options, partition, span):
    """Flink's ``CREATE TABLE ... LIKE base (options)`` (MergeTableLikeUtil): the base's
    physical columns first, then the new ones; each feature INCLUDING (a clash is an
    error), EXCLUDING (the base's is dropped) or OVERWRITING (the new one wins). Default:
    INCLUDING ALL OVERWRITING OPTIONS."""
    if not isinstance(base, CatalogTable):
        raise ValidationError(f"Source table '{like.this.sql()}' of the LIKE clause can not be a VIEW", span)
    mode = {f: "INCLUDING" for f in _LIKE_FEATURES}
    mode["OPTIONS"] = "OVERWRITING"
    for opt in like.expressions:
        how, what = opt.this.name.upper(), opt.args["value"].name.upper()
        if what == "ALL":
            for f in _LIKE_FEATURES:
                mode[f] = how
            if how == "INCLUDING":
                mode["OPTIONS"] = "INCLUDING"
        else:
            mode[what] = how
    bs = base.schema
    new_names = {c.name for c in columns}
    merged: list[Column] = []
    for c in bs.columns:
        feature = {"computed": "GENERATED", "metadata": "METADATA"}.get(c.kind)
        if feature is not None and mode[feature] == "EXCLUDING":
            continue
        if c.name in new_names:
            if feature is not None and mode[feature] == "OVERWRITING":
                continue
            kind = {"computed": "computed column", "metadata": "metadata column"}.get(c.kind, "column")
            raise ValidationError(f"A {kind} named '{c.name}' already exists in the base table.", span)
        merged.append(c)
    merged += columns
    wms = [] if mode["WATERMARKS"] == "EXCLUDING" else list(bs.watermarks)
    for wm in watermarks:
        if any(w.column == wm.column for w in wms):
            if mode["WATERMARKS"] != "OVERWRITING":
                raise ValidationError(
                    f"There already exists a watermark spec for column '{wm.column}' in the base table. You might "
                    f"want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.", span)
            wms = [w for w in wms if w.column != wm.column]
        wms.append(wm)
    if mode["CONSTRAINTS"] != "EXCLUDING" and bs.primary_key:
        if pk:
            raise ValidationError("The base table already has a primary key. You might want to specify "
                                  "EXCLUDING CONSTRAINTS.", span)
        pk, pk_name = bs.primary_key, bs.primary_key_name
    merged_options = dict(options)
    if mode["OPTIONS"] != "EXCLUDING":
        merged_options = dict(base.options)
        for k, v in options.items():
            if k in merged_options and mode["OPTIONS"] == "INCLUDING":
                raise ValidationError(
                    f"There already exists an option ['{k}' -> '{merged_options[k]}']  in the base table. You "
                    f"might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.", span)
            merged_options[k] = v
    if mode["PARTITIONS"] != "EXCLUDING" and base.partition_keys:
        if partition:
            raise ValidationError("The base table already has partitions defined. You might want to specify "
                                  "EXCLUDING PARTITIONS.", span)
        partition = base.partition_keys
    return merged, wms, pk, pk_name, merged_options, partition


def _check_watermarks(columns: list[Column], watermarks: list[WatermarkSpec], node, source) -> None:
    by_name = {c.name: c for c in columns}
    for wm in watermarks:
        col = by_name.get(wm.column)
        if col is None:
            span = _watermark_span(node, wm.column, source) or span_of(node, source)
            where = f"at line {span.line}, column {span.column}" if span else "at line ?"
            raise ValidationError(
                f"The rowtime attribute field '{wm.column}' is not defined in the table schema, {where}\n"
                f"Available fields: [{', '.join(repr(n) for n in by_name)}]", span)
        if col.kind == "computed":
            continue  # checked when the computed column's type is known (binder)
        check_rowtime_type(col.name, col.type, span_of(node, source))


def _watermark_span(node, column: str, source: str):
    """Where the WATERMARK FOR names ``column`` (Flink's message points there)."""
    schema = node.this if isinstance(node.this, exp.Schema) else None
    for item in (schema.expressions if schema is not None else []):
        if isinstance(item, exp.WatermarkColumnConstraint) and item.this.name == column:
            return span_of(item.this, source)
    return None


def _check_enforced(schema) -> None:
    """Flink takes a primary key only as NOT ENFORCED (it does not own the data)."""
    for item in (schema.expressions if schema is not None else []):
        pks = [item] if isinstance(item, exp.PrimaryKey) else \
            [e for e in item.expressions if isinstance(e, exp.PrimaryKey)] if isinstance(item, exp.Constraint) else \
            [c.args.get("kind") for c in item.args.get("constraints") or []
             if isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint)] if isinstance(item, exp.ColumnDef) else []
        for pk in pks:
            if not any("NOT ENFORCED" in str(o).upper() for o in pk.args.get("options") or []):
                raise ValidationError(
                    "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls "
                    "if the constraint checks are performed on the incoming/outgoing data. Flink does not own the data "
                    "therefore the only supported mode is the NOT ENFORCED mode")


def check_rowtime_type(name: str, dtype, span) -> None:
    if dtype.root not in ("TIMESTAMP", "TIMESTAMP_LTZ") or (dtype.precision or 0) > 3:
        raise ValidationError(
            "Invalid data type of time field for watermark definition. The field must be of type "
            "TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the "
            f"time field type is {dtype.sql(False)}", span)
