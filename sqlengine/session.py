"""The public API: ``Session.execute_sql(sql) -> TableResult`` (PyFlink's TableEnvironment).

The CLI, the shell and notebooks go through this module only.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

import connectors  # noqa: F401  (connector packages load on first use: connectors.base.BUILTIN)
from catalog.manager import CatalogManager
from sqlengine.binder.query import QueryBinder
from sqlengine.dialect.script import Statement, parse_script
from sqlengine.errors import SqlEngineError
from sqlengine.functions.registry import LowerContext
from sqlengine.plan import nodes as P
from sqlengine.physical.changelog import check_sink_changelog
from sqlengine.result import JobClient, TableResult, _cell  # noqa: F401  (the public API)

SESSION_DEFAULTS = {
    "execution.runtime-mode": "streaming",
    "table.local-time-zone": "UTC",
    "parallelism.default": "2",
}


class Session:
    """One catalog manager, one configuration, one SparkSession."""

    def __init__(self, conf: Optional[dict[str, str]] = None, spark=None):
        self.conf = dict(SESSION_DEFAULTS)
        self.conf.update(conf or {})
        self._initial = dict(self.conf)
        self.catalogs = CatalogManager()
        self._spark = spark
        self.jobs: dict[str, object] = {}  # INSERT jobs of this session (SHOW JOBS, STOP JOB)

    # Whether INSERT waits for its job by default (``table.dml-sync``): no, as in Flink
    # (``TableResult.wait()`` does); the CLI's scripts wait (their process is the cluster).
    default_dml_sync = False

    @property
    def dml_sync(self) -> bool:
        raw = self.conf.get("table.dml-sync")
        return self.default_dml_sync if raw is None else raw.strip().lower() == "true"

    # -- configuration ---------------------------------------------------------------
    @property
    def spark(self):
        if self._spark is None:
            from sqlengine.runtime.spark import get_spark
            spark_conf = {k: v for k, v in self.conf.items() if k.startswith("spark.")}
            self._spark = get_spark(spark_conf)
        return self._spark

    @property
    def streaming(self) -> bool:
        return self.conf.get("execution.runtime-mode", "streaming").lower() != "batch"

    def lower_context(self) -> LowerContext:
        return LowerContext(self.conf.get("table.local-time-zone", "UTC"), self.streaming)

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
        from sqlengine.runtime.failure import to_engine_error
        from sqlengine.statements import dispatch
        try:
            result = dispatch(self, stmt, live)
        except Exception as exc:  # Spark, Py4J, a dead driver: one reason, the rest logged
            raise to_engine_error(exc).with_span(stmt.span)
        result.span = stmt.span
        return result

    # -- planning -----------------------------------------------------------------------
    def binder(self, source: str) -> QueryBinder:
        return QueryBinder(self.catalogs, source, self.streaming, conf=self.conf)

    def plan_insert(self, node: exp.Insert, source: str) -> P.Sink:
        sink = self.binder(source).bind_insert(node)
        from connectors.base import factory_for
        factory = factory_for(sink.connector or None, sink.table)
        check_sink_changelog(sink, factory, self.streaming)
        factory.validate_sink_options(dict(sink.options))
        return sink

    def runner(self):
        from sqlengine.runtime.job import JobRunner
        return JobRunner(self.spark, self.conf, self.lower_context())
