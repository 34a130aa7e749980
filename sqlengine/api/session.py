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

    # -- user-defined functions (PyFlink's TableEnvironment methods) ---------------------
    def create_temporary_system_function(self, name: str, function) -> None:
        """Register a ``udf(...)`` under ``name``, before the built-ins, for this session."""
        self.catalogs.create_temporary_system_function(name, _function(function))

    def create_temporary_function(self, path: str, function) -> None:
        """Register a ``udf(...)`` as a temporary function of the current (or named) catalog
        and database: ``path`` is ``[catalog.][database.]name``."""
        self.catalogs.create_temporary_function(self.catalogs.qualify(path.split(".")), _function(function))

    def create_function(self, path: str, function_class_name: str, ignore_if_exists: bool = False) -> None:
        """A catalog function from a Python ``module.attribute`` name (CREATE FUNCTION ... LANGUAGE PYTHON)."""
        from catalog.objects import CatalogFunction
        self.catalogs.create_function(self.catalogs.qualify(path.split(".")),
                                      CatalogFunction(function_class_name, "PYTHON"), ignore_if_exists)

    def drop_temporary_system_function(self, name: str) -> bool:
        try:
            self.catalogs.drop_temporary_system_function(name)
        except Exception:  # noqa: BLE001 - PyFlink answers whether it existed
            return False
        return True

    def drop_temporary_function(self, path: str) -> bool:
        try:
            self.catalogs.drop_temporary_function(self.catalogs.qualify(path.split(".")))
        except Exception:  # noqa: BLE001
            return False
        return True


def _function(function):
    from catalog.objects import CatalogFunction
    from sqlengine.udf import UserDefinedAggregateFunction, UserDefinedScalarFunction, UserDefinedTableFunction
    if not isinstance(function, (UserDefinedScalarFunction, UserDefinedTableFunction, UserDefinedAggregateFunction)):
        raise TypeError(f"{function!r} is not a user-defined function: wrap it with "
                        f"sqlengine.udf.udf(..., result_type=...) (udtf, udaf)")
    name = getattr(function.func, "__qualname__", type(function.func).__name__)
    module = getattr(function.func, "__module__", "")
    return CatalogFunction(f"{module}.{name}" if module else name, "PYTHON", instance=function)

