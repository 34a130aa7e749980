"""DESCRIBE and SHOW CREATE output, exactly as Flink 2.x produces it.

Pure functions from catalog objects to rows or text; the session turns rows into a
result and the shell renders them with :func:`render_show_result`. Flink prints the
*resolved* expressions of computed columns and watermarks (identifiers back-quoted,
keywords upper-cased: ``ts - INTERVAL '1' SECONDS`` shows as
``\\`ts\\` - INTERVAL '1' SECOND``); :func:`flink_expression` does that normalization on
the expression text the catalog stores.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

from sqlengine.secrets import MASK, is_secret_key  # noqa: F401 - the catalog's printing masks secrets
from sqlengine.types import MAX_VARCHAR, DataType

from catalog.base import Catalog
from catalog.objects import (
    CatalogTable,
    CatalogView,
    Column,
    ObjectPath,
    TableSchema,
    escape_identifier,
)
from catalog.tableau import (  # noqa: F401  (re-exported: SHOW/DESCRIBE rendering)
    render_show_result,
    render_tableau,
)

DESCRIBE_HEADER = ["name", "type", "null", "key", "extras", "watermark"]
INDENT = "  "
Row = list[Optional[str]]


# -- DESCRIBE -------------------------------------------------------------------------
def describe_rows(table: Union[CatalogTable, CatalogView]) -> tuple[list[str], list[Row]]:
    """Header and rows of ``DESCRIBE t``: name, type, null, key, extras, watermark, plus
    a ``comment`` column only when some column has a comment (as Flink does)."""
    schema = table.schema
    with_comment = any(c.comment is not None for c in schema.columns)
    header = DESCRIBE_HEADER + (["comment"] if with_comment else [])
    rows = [_describe_row(c, schema, with_comment) for c in schema.columns]
    return header, rows


def _describe_row(col: Column, schema: TableSchema, with_comment: bool) -> Row:
    names = schema.names()
    wm = schema.watermark_for(col.name)
    row: Row = [
        col.name,
        _summary_type(col, schema),
        "TRUE" if col.type.nullable else "FALSE",
        _key_text(col.name, schema),
        column_extras(col, names),
        flink_expression(wm.expr_sql, names) if wm else None,
    ]
    return row + [col.comment] if with_comment else row


def _summary_type(col: Column, schema: TableSchema) -> str:
    text = col.type.summary()
    if col.type.time_attr:
        return text
    if schema.watermark_for(col.name) is not None:
        return text + " *ROWTIME*"
    if col.kind == "computed" and _is_proctime(col.expr_sql or ""):
        return text + " *PROCTIME*"
    return text


def _key_text(name: str, schema: TableSchema) -> Optional[str]:
    key = schema.primary_key or ()
    return f"PRI({', '.join(key)})" if name in key else None


def column_extras(col: Column, column_names: Sequence[str]) -> Optional[str]:
    """Flink's ``Column.explainExtras``: ``AS expr`` / ``METADATA FROM 'k' VIRTUAL``."""
    if col.kind == "computed":
        return "AS " + flink_expression(col.expr_sql or "", column_names)
    if col.kind == "metadata":
        text = "METADATA"
        if col.metadata_key is not None:
            text += f" FROM '{_escape_quotes(col.metadata_key)}'"
        return text + (" VIRTUAL" if col.virtual else "")
    return None


def _is_proctime(expr: str) -> bool:
    return re.fullmatch(r"\s*PROCTIME\s*\(\s*\)\s*", expr, re.IGNORECASE) is not None


def describe_catalog_rows(catalog: Catalog,
                          extended: bool = False) -> tuple[list[str], list[Row]]:
    """``DESCRIBE CATALOG [EXTENDED] c``: name, type, comment; EXTENDED adds the options."""
    rows: list[Row] = [["name", catalog.name], ["type", catalog.catalog_type], ["comment", None]]
    if extended:
        options = mask_options(sorted(catalog.descriptor_options().items()))
        rows += [[f"option:{k}", v] for k, v in options if k != "type"]
    return ["info name", "info value"], rows


# -- SHOW CREATE ------------------------------------------------------------------------
def show_create_table(path: ObjectPath, table: CatalogTable, is_temporary: bool = False) -> str:
    """``SHOW CREATE TABLE`` text (ends with a newline, as Flink's does). Secret option
    values are masked."""
    names = table.schema.names()
    body = [INDENT + _column_ddl(c, names) for c in table.schema.columns]
    body += [f"{INDENT}WATERMARK FOR {escape_identifier(w.column)} AS "
             f"{flink_expression(w.expr_sql, names)}" for w in table.schema.watermarks]
    if table.schema.primary_key is not None:
        body.append(INDENT + _primary_key_ddl(table.schema))
    text = _create_prefix("TABLE", path, is_temporary) + ",\n".join(body) + "\n)\n"
    if table.comment:
        text += f"COMMENT '{_escape_quotes(table.comment)}'\n"
    if table.distribution:
        text += table.distribution + "\n"
    if table.partition_keys:
        keys = ", ".join(escape_identifier(k) for k in table.partition_keys)
        text += f"PARTITIONED BY ({keys})\n"
    if table.options:
        text += "WITH (\n" + ",\n".join(
            f"{INDENT}'{_escape_quotes(k)}' = '{_escape_quotes(v)}'"
            for k, v in sorted(mask_options(table.options))) + "\n)\n"
    return text


def show_create_view(path: ObjectPath, view: CatalogView, is_temporary: bool = False) -> str:
    """``SHOW CREATE VIEW`` text: column list, optional comment, ``AS <query>``."""
    cols = ",\n".join(INDENT + escape_identifier(n) for n in view.schema.names())
    text = _create_prefix("VIEW", path, is_temporary) + cols + "\n)\n"
    if view.comment:
        text += f"COMMENT '{_escape_quotes(view.comment)}'\n"
    return text + f"AS {view.expanded_sql or view.query_sql}\n"


def _create_prefix(kind: str, path: ObjectPath, is_temporary: bool) -> str:
    return f"CREATE {'TEMPORARY ' if is_temporary else ''}{kind} {path.quoted()} (\n"


def _column_ddl(col: Column, names: Sequence[str]) -> str:
    text = escape_identifier(col.name) + " "
    extras = column_extras(col, names)
    if col.kind == "computed":
        text += extras or ""
    else:
        text += serializable_type(col.type) + (f" {extras}" if extras else "")
    if col.comment:
        text += f" COMMENT '{_escape_quotes(col.comment)}'"
    return text


def _primary_key_ddl(schema: TableSchema) -> str:
    cols = ", ".join(escape_identifier(k) for k in schema.primary_key or ())
    name = escape_identifier(schema.primary_key_constraint_name() or "")
    return f"CONSTRAINT {name} PRIMARY KEY ({cols}) NOT ENFORCED"


# -- secrets -----------------------------------------------------------------------------
def mask_options(options: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k, MASK if is_secret_key(k) else v) for k, v in options]


# -- type and expression text -------------------------------------------------------------
def serializable_type(t: DataType) -> str:
    """Flink's ``LogicalType.asSerializableString`` (the form SHOW CREATE TABLE prints:
    ``VARCHAR(2147483647)`` rather than ``STRING``, ``TIMESTAMP(3) WITH LOCAL TIME ZONE``
    rather than ``TIMESTAMP_LTZ(3)``)."""
    body = _SERIAL.get(t.root, lambda x: x.root)(t)
    return body if t.nullable else body + " NOT NULL"


def _row_serial(t: DataType) -> str:
    fields = []
    for f in t.fields:
        text = f"{escape_identifier(f.name)} {serializable_type(f.type)}"
        if f.description is not None:
            text += f" '{_escape_quotes(f.description)}'"
        fields.append(text)
    return f"ROW<{', '.join(fields)}>"


def _p(t: DataType, default: int) -> int:
    return t.precision if t.precision is not None else default


_SERIAL = {
    "VARCHAR": lambda t: f"VARCHAR({_p(t, MAX_VARCHAR)})",
    "CHAR": lambda t: f"CHAR({_p(t, 1)})",
    "VARBINARY": lambda t: f"VARBINARY({_p(t, MAX_VARCHAR)})",
    "BINARY": lambda t: f"BINARY({_p(t, 1)})",
    "DECIMAL": lambda t: f"DECIMAL({_p(t, 10)}, {t.scale or 0})",
    "TIMESTAMP": lambda t: f"TIMESTAMP({_p(t, 6)})",
    "TIMESTAMP_LTZ": lambda t: f"TIMESTAMP({_p(t, 6)}) WITH LOCAL TIME ZONE",
    "TIME": lambda t: f"TIME({_p(t, 0)})",
    "ROW": _row_serial,
    "ARRAY": lambda t: f"ARRAY<{serializable_type(t.element)}>",
    "MULTISET": lambda t: f"MULTISET<{serializable_type(t.element)}>",
    "MAP": lambda t: f"MAP<{serializable_type(t.key)}, {serializable_type(t.value)}>",
    "INTERVAL_DAY_TIME": lambda t: "INTERVAL DAY(2) TO SECOND(3)",
    "INTERVAL_YEAR_MONTH": lambda t: "INTERVAL YEAR(2) TO MONTH",
}

_TOKEN = re.compile(r"""
    (?P<str>'(?:[^']|'')*')
  | (?P<qid>`(?:[^`]|``)*`)
  | (?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<ws>\s+)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)

_UNITS = {"SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR", "MILLISECOND", "WEEK", "QUARTER"}
_PLURAL_UNITS = {u + "S": u for u in _UNITS}
_KEYWORDS = _UNITS | {
    "INTERVAL", "TO", "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "UNKNOWN", "CASE",
    "WHEN", "THEN", "ELSE", "END", "AS", "IN", "BETWEEN", "SYMMETRIC", "LIKE", "ESCAPE",
    "SIMILAR", "DISTINCT", "FROM", "TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME", "WITH",
    "WITHOUT", "LOCAL", "ZONE", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "STRING",
    "VARCHAR", "CHAR", "DOUBLE", "FLOAT", "DECIMAL", "BOOLEAN", "BYTES", "ARRAY", "MAP",
    "ROW", "LEADING", "TRAILING", "BOTH", "FOR", "DIV",
}


def flink_expression(expr_sql: str, column_names: Sequence[str]) -> str:
    """Expression text the way Flink prints a resolved expression: column references
    back-quoted, keywords and function names upper-cased, plural interval units
    (``SECONDS``) made singular. Quoted identifiers and string literals are kept."""
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(expr_sql.strip())]
    columns = set(column_names)
    out = []
    for i, (kind, text) in enumerate(tokens):
        out.append(_word(tokens, i, columns) if kind == "word" else text)
    return "".join(out)


def _word(tokens: list[tuple[str, str]], i: int, columns: set[str]) -> str:
    text = tokens[i][1]
    upper = text.upper()
    prev, nxt = _neighbour(tokens, i, -1), _neighbour(tokens, i, 1)
    if prev[0] == "str" and (upper in _UNITS or upper in _PLURAL_UNITS):
        return _PLURAL_UNITS.get(upper, upper)
    if nxt[1] == "(":
        return upper
    if prev[1] == "." or text in columns:
        return escape_identifier(text)
    if upper in _PLURAL_UNITS:
        return _PLURAL_UNITS[upper]
    return upper if upper in _KEYWORDS else text


def _neighbour(tokens: list[tuple[str, str]], i: int, step: int) -> tuple[str, str]:
    j = i + step
    while 0 <= j < len(tokens) and tokens[j][0] == "ws":
        j += step
    return tokens[j] if 0 <= j < len(tokens) else ("", "")


def _escape_quotes(text: str) -> str:
    return text.replace("'", "''")
