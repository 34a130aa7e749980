"""The public API: ``Session.execute_sql(sql) -> TableResult`` (PyFlink's TableEnvironment).

The CLI, the shell and notebooks go through this package only.
"""
from __future__ import annotations

from typing import Optional

from sqlengine.api.remote import RemoteSession, is_remote
from sqlengine.api.result import JobClient, TableResult, _cell  # noqa: F401  (the public API)
from sqlengine.api.state import SESSION_DEFAULTS, SessionState  # noqa: F401
from sqlengine.api.statements import dispatch
from sqlengine.dialect.script import Statement, parse_script
from sqlengine.runtime.failure import to_engine_error


class Session(SessionState):
    """Runs statements against its state (catalogs, configuration, jobs, SparkSession).
    With ``execution.target`` = ``remote``, a session on the sqlengine cluster at
    ``rest.address``:``rest.port`` (a ``RemoteSession``, sqlengine/api/remote.py)."""

    def __new__(cls, conf: Optional[dict[str, str]] = None, spark=None):
        if spark is None and is_remote(conf):
            return RemoteSession(conf)
        return super().__new__(cls)

    # -- statements -------------------------------------------------------------------
    def execute_sql(self, sql: str) -> TableResult:
        """Run every statement of ``sql``; returns the last statement's result.

        One INSERT returns at once with its job running (PyFlink's ``execute_sql``;
        ``TableResult.wait()`` waits for it); in a script of several statements each
        INSERT finishes before the next statement runs, as in the CLI (unless
        ``table.dml-sync`` is set)."""
        statements = parse_script(sql)
        result = TableResult("OK")
        default = self.default_dml_sync
        if len(statements) > 1:
            self.default_dml_sync = True
        try:
            for stmt in statements:
                result = self.execute_statement(stmt)
        finally:
            self.default_dml_sync = default
        return result

    def execute_statement(self, stmt: Statement, live: bool = False) -> TableResult:
        """Run one statement; every failure is a ``SqlEngineError`` (Spark's is its cause).
        ``live``: a streaming SELECT returns while it runs, even over bounded input (the
        shell shows its changes as they come)."""
        try:
            result = dispatch(self, stmt, live)
        except Exception as exc:  # Spark, Py4J, a dead driver: one reason, the rest logged
            raise to_engine_error(exc).with_span(stmt.span)
        result.span = stmt.span
        return result
