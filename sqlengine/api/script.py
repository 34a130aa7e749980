"""SQL scripts as a client sees them: split into statements (with their places in the
text), whether a text ends a statement, and whether a statement runs a Spark job."""
from __future__ import annotations

from sqlglot import exp

from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import Statement, is_complete, parse_each, parse_script  # noqa: F401 - the API


def runs_query(stmt: Statement) -> bool:
    """Whether the statement reads or writes tables (a query, an INSERT, a statement set)."""
    return isinstance(stmt.node, (exp.Query, exp.Insert, exp.Values, dn.StatementSet))


def is_client_statement_set(stmt: Statement) -> bool:
    """Whether ``stmt`` is the SQL Client's ``BEGIN STATEMENT SET; ...; END;`` read as one."""
    return isinstance(stmt.node, dn.StatementSet) and stmt.text.lstrip()[:5].upper() == "BEGIN"
