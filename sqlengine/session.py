"""The public API: ``Session.execute_sql(sql) -> TableResult`` (PyFlink's TableEnvironment).

The CLI, the shell and notebooks go through this module only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from sqlglot import exp

import connectors  # noqa: F401  (connector packages load on first use: connectors.base.BUILTIN)
from catalog.manager import CatalogManager
from catalog.tableau import render_show_result, render_tableau
from sqlengine.binder.query import QueryBinder
from sqlengine.dialect.script import Statement, parse_script
from sqlengine.errors import SqlEngineError
from sqlengine.functions.registry import LowerContext
from sqlengine.plan import nodes as P
from sqlengine.physical.changelog import check_sink_changelog

SESSION_DEFAULTS = {
    "execution.runtime-mode": "streaming",
    "table.local-time-zone": "UTC",
    "parallelism.default": "2",
}


@dataclass
class TableResult:
    """What a statement returned: OK, rows (SHOW/DESCRIBE/SELECT), or a submitted job."""

    kind: str  # "OK" | "ROWS" | "JOB"
    header: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    job: Any = None
    text: Optional[str] = None
    changelog: bool = False
    show: bool = False  # SHOW/DESCRIBE (Flink prints NULL as empty, no width limit)
    types: Optional[list[Any]] = None  # Flink types of the columns (query results), for printing
    messages: list[str] = field(default_factory=list)

    def collect(self) -> list[list[Any]]:
        return self.rows

    def wait(self) -> "TableResult":
        return self

    def get_job_client(self):
        return self.job

    def to_pandas(self):
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.header)

    def render(self) -> str:
        if self.text is not None:
            return self.text
        if self.kind == "OK":
            return "[INFO] Execute statement succeeded."
        if self.kind == "JOB":
            return f"[INFO] Submitting SQL update statement to the cluster...\n" \
                   f"[INFO] SQL update statement has been successfully submitted to the cluster:\n" \
                   f"Job ID: {self.job.job_id}\n"
        if not self.rows:
            return "Empty set"
        types = self.types or [None] * len(self.header)
        cells = [[_cell(v, t) for v, t in zip(r, types)] for r in self.rows]
        if self.show:
            return render_show_result(self.header, cells)
        body = render_tableau(self.header, cells, max_column_width=30)
        if self.changelog:
            body = body.rsplit("\n", 1)[0] + f"\nReceived a total of {len(self.rows)} rows"
        return body

    def print(self) -> None:
        print(self.render())
        for m in self.messages:
            print(f"[INFO] {m}")


def _cell(v: Any, t: Any = None) -> Optional[str]:
    """A value as Flink's tableau prints it; ``t`` (its Flink type, if known) sets the
    fraction digits of TIMESTAMP/TIME values and types nested values."""
    import datetime as dt
    if v is None:
        return None
    root = getattr(t, "root", None)
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (bytes, bytearray)):  # BINARY/VARBINARY: Flink prints x'<hex>'
        return f"x'{bytes(v).hex()}'"
    if isinstance(v, dt.datetime):
        digits = t.precision if root in ("TIMESTAMP", "TIMESTAMP_LTZ") and t.precision is not None else 3
        return v.strftime("%Y-%m-%d %H:%M:%S") + _fraction(v.microsecond, digits)
    if root == "TIME" and isinstance(v, int):  # milliseconds of the day
        seconds, millis = divmod(v, 1000)
        text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        if not t.precision:
            return text
        # As CAST(TIME AS STRING): at most the precision's digits, trailing zeros dropped.
        return text + "." + (_fraction(millis * 1000, min(t.precision, 3))[1:].rstrip("0") or "0")
    if isinstance(v, (list, tuple)) and not hasattr(v, "__fields__"):
        element = getattr(t, "element", None)
        return "[" + ", ".join(_cell(x, element) or "NULL" for x in v) + "]"
    if isinstance(v, tuple):  # a ROW (pyspark Row)
        fields = [f.type for f in getattr(t, "fields", ())] or [None] * len(v)
        return "(" + ", ".join(_cell(x, ft) or "NULL" for x, ft in zip(v, fields)) + ")"
    if isinstance(v, dict):
        key, value = getattr(t, "key", None), getattr(t, "value", None)
        return "{" + ", ".join(f"{_cell(k, key)}={_cell(x, value)}" for k, x in v.items()) + "}"
    return str(v)


def _fraction(micros: int, digits: int) -> str:
    """``.fff`` with exactly ``digits`` digits (none for 0), as Flink pads its fractions."""
    if digits <= 0:
        return ""
    text = f"{micros:06d}" + "0" * max(0, digits - 6)
    return "." + text[:digits]


class Session:
    """One catalog manager, one configuration, one SparkSession."""

    def __init__(self, conf: Optional[dict[str, str]] = None, spark=None):
        self.conf = dict(SESSION_DEFAULTS)
        self.conf.update(conf or {})
        self._initial = dict(self.conf)
        self.catalogs = CatalogManager()
        self._spark = spark

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
        """Run every statement of ``sql``; returns the last statement's result."""
        result = TableResult("OK")
        for stmt in parse_script(sql):
            result = self.execute_statement(stmt)
        return result

    def execute_statement(self, stmt: Statement) -> TableResult:
        """Run one statement; every failure is a ``SqlEngineError`` (Spark's is its cause)."""
        from sqlengine.runtime.failure import to_engine_error
        from sqlengine.statements import dispatch
        try:
            return dispatch(self, stmt)
        except Exception as exc:  # Spark, Py4J, a dead driver: one reason, the rest logged
            raise to_engine_error(exc).with_span(stmt.span)

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
