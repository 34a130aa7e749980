"""DELETE FROM / UPDATE / TRUNCATE TABLE of a jdbc table, done by PostgreSQL itself.

The statement's condition and new values (plan expressions over the table's columns)
become one PostgreSQL ``DELETE`` / ``UPDATE`` (values as query parameters), run in one
transaction; TRUNCATE TABLE is PostgreSQL's ``TRUNCATE``. An expression PostgreSQL has
no translation for here (a Python function, a Flink-only function) is refused with
its name, before anything changes.
"""
from __future__ import annotations

import datetime
import decimal
from typing import Any, Optional, Sequence

from connectors.jdbc import options as JO
from connectors.jdbc.pg import PostgresError, connect, error_text, quote_ident, quote_table
from sqlengine.errors import ConnectorError
from sqlengine.plan.nodes import Call, Cast, ColRef, Expr, Field, Lit

# Flink calls with the same meaning in PostgreSQL, written infix (binary) or as a function.
INFIX = {"=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "AND": "AND", "OR": "OR",
         "+": "+", "-": "-", "*": "*", "/": "/", "%": "%%", "MOD": "%%", "||": "||", "LIKE": "LIKE",
         "NOT LIKE": "NOT LIKE", "IS DISTINCT FROM": "IS DISTINCT FROM",
         "IS NOT DISTINCT FROM": "IS NOT DISTINCT FROM"}
POSTFIX = ("IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN",
           "IS NOT UNKNOWN")
FUNCTIONS = {"UPPER": "upper", "LOWER": "lower", "ABS": "abs", "COALESCE": "coalesce", "CHAR_LENGTH": "char_length",
             "TRIM": "trim", "CONCAT": "concat", "NULLIF": "nullif", "GREATEST": "greatest", "LEAST": "least",
             "ROUND": "round", "FLOOR": "floor", "CEIL": "ceil", "SUBSTRING": "substring", "REPLACE": "replace"}
PG_TYPES = {"BOOLEAN": "boolean", "TINYINT": "smallint", "SMALLINT": "smallint", "INT": "integer",
            "BIGINT": "bigint", "FLOAT": "real", "DOUBLE": "double precision", "CHAR": "text", "VARCHAR": "text",
            "DATE": "date", "TIME": "time", "TIMESTAMP": "timestamp", "TIMESTAMP_LTZ": "timestamptz"}


class _Untranslatable(Exception):
    pass


class _Sql:
    """One expression as PostgreSQL text with ``%s`` parameters."""

    def __init__(self, fields: Sequence[Field], columns: set[str]):
        self.fields, self.columns, self.params = fields, columns, []

    def expr(self, e: Expr) -> str:
        if isinstance(e, ColRef):
            name = self.fields[e.index].name
            if name not in self.columns:
                raise _Untranslatable(f"column '{name}' is not a column of the PostgreSQL table")
            return quote_ident(name)
        if isinstance(e, Lit):
            return self.literal(e.value)
        if isinstance(e, Cast):
            pg = PG_TYPES.get(e.type.root) or (f"numeric({e.type.precision}, {e.type.scale})"
                                                if e.type.root == "DECIMAL" else None)
            if pg is None:
                raise _Untranslatable(f"CAST to {e.type.sql(False)}")
            return f"CAST({self.expr(e.arg)} AS {pg})"
        if isinstance(e, Call):
            return self.call(e)
        raise _Untranslatable(str(e))

    def call(self, e: Call) -> str:
        if e.name not in INFIX and e.name not in POSTFIX and e.name not in FUNCTIONS and \
                e.name not in ("AND", "OR", "NOT", "NEG", "IN", "NOT IN", "BETWEEN", "NOT BETWEEN"):
            raise _Untranslatable(f"function {e.name}")
        args = [self.expr(a) for a in e.args]
        if e.name in INFIX and len(e.args) == 2:
            return f"({args[0]} {INFIX[e.name]} {args[1]})"
        if e.name in ("AND", "OR"):
            return "(" + f" {e.name} ".join(args) + ")"
        if e.name in POSTFIX:
            return f"({args[0]} {e.name})"
        if e.name == "NOT":
            return f"(NOT {args[0]})"
        if e.name == "NEG":
            return f"(- {args[0]})"
        if e.name in ("IN", "NOT IN"):
            return f"({args[0]} {e.name} ({', '.join(args[1:])}))"
        if e.name in ("BETWEEN", "NOT BETWEEN"):
            return f"({args[0]} {e.name} {args[1]} AND {args[2]})"
        return f"{FUNCTIONS[e.name]}({', '.join(args)})"

    def literal(self, value: Any) -> str:
        if value is None:
            return "NULL"
        if isinstance(value, (bool, int, float, decimal.Decimal, str, datetime.date, datetime.time, bytes)):
            self.params.append(value)
            return "%s"
        raise _Untranslatable(f"literal {value!r}")


def delete_rows(options: dict[str, str], fields: Sequence[Field], condition: Optional[Expr]) -> int:
    o = _parse(options)
    sql = _Sql(fields, _columns(o))
    where = _where(sql, condition, f"DELETE FROM jdbc table '{o.table}'")
    return _run(o, f"DELETE FROM {quote_table(o.table)}{where}", sql.params)


def update_rows(options: dict[str, str], fields: Sequence[Field], assignments: Sequence[tuple[str, Expr]],
                condition: Optional[Expr]) -> int:
    o = _parse(options)
    sql = _Sql(fields, _columns(o))
    try:
        sets = ", ".join(f"{quote_ident(name)} = {sql.expr(value)}" for name, value in assignments)
    except _Untranslatable as why:
        raise ConnectorError(f"UPDATE of jdbc table '{o.table}': PostgreSQL cannot compute the new value "
                             f"({why}).") from None
    where = _where(sql, condition, f"UPDATE of jdbc table '{o.table}'")
    return _run(o, f"UPDATE {quote_table(o.table)} SET {sets}{where}", sql.params)


def truncate(options: dict[str, str]) -> None:
    o = _parse(options)
    _run(o, f"TRUNCATE TABLE {quote_table(o.table)}", [])


def _parse(options: dict[str, str]) -> JO.JdbcOptions:
    from connectors.base import Options
    return JO.parse(Options("jdbc", options), "")


def _where(sql: _Sql, condition: Optional[Expr], what: str) -> str:
    if condition is None:
        return ""
    try:
        return f" WHERE {sql.expr(condition)}"
    except _Untranslatable as why:
        raise ConnectorError(f"{what}: PostgreSQL cannot evaluate the WHERE condition ({why}).") from None


def _columns(o: JO.JdbcOptions) -> set[str]:
    """The PostgreSQL table's columns (the Flink table's columns are its own, by name)."""
    schema, _, table = o.table.rpartition(".")
    query = ("SELECT column_name FROM information_schema.columns WHERE table_name = %s"
             + (" AND table_schema = %s" if schema else " AND table_schema = ANY (current_schemas(false))"))
    rows = _query(o, query, [table, schema] if schema else [table])
    if not rows:
        raise ConnectorError(f"PostgreSQL table '{o.table}' does not exist at {o.url}.")
    return {r[0] for r in rows}


def _options_dict(o: JO.JdbcOptions) -> dict:
    import json
    return {"connect_json": json.dumps(o.connect_kwargs()), "url": o.url, "table": o.table}


def _query(o: JO.JdbcOptions, sql: str, params: list) -> list[tuple]:
    try:
        with connect(_options_dict(o), autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()
    except PostgresError as e:
        raise ConnectorError(str(e)) from None


def _run(o: JO.JdbcOptions, sql: str, params: list) -> int:
    """One statement in one transaction; the number of rows it changed."""
    import psycopg
    try:
        with connect(_options_dict(o)) as conn:
            with conn.transaction():
                return conn.execute(sql, params).rowcount
    except PostgresError as e:
        raise ConnectorError(str(e)) from None
    except psycopg.Error as e:
        raise ConnectorError(f"PostgreSQL refused the statement on table '{o.table}': {error_text(e)}") from None
