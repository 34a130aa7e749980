"""A session's state: its configuration, catalogs, jobs and SparkSession, and how it plans
and runs (``Session`` in ``session.py`` adds statement execution on top)."""
from __future__ import annotations

from typing import Optional

import connectors  # noqa: F401  (connector packages load on first use: connectors.base.BUILTIN)
from catalog.manager import CatalogManager
from sqlengine.binder.query import QueryBinder
from sqlengine.config import streaming as is_streaming
from sqlengine.functions.registry import LowerContext
from sqlengine.planner import Planner
from sqlengine.runtime.job import JobRunner

SESSION_DEFAULTS = {
    "execution.runtime-mode": "streaming",
    "table.local-time-zone": "UTC",
    "parallelism.default": "2",
}


class SessionState:
    """One catalog manager, one configuration, one SparkSession."""

    def __init__(self, conf: Optional[dict[str, str]] = None, spark=None):
        self.conf = dict(SESSION_DEFAULTS)
        self.conf.update(conf or {})
        self._initial = dict(self.conf)
        self.catalogs = CatalogManager()
        self._spark = spark
        self.jobs: dict[str, object] = {}  # INSERT jobs of this session (SHOW JOBS, STOP JOB)
        # The SQL Client's session state (sqlengine/api/client.py): the INSERTs typed after
        # BEGIN STATEMENT SET; (None: no set open), the modules ([name, used] in resolution
        # order), and what CREATE CATALOG said (SHOW CREATE CATALOG, DESCRIBE CATALOG).
        self.statement_set: Optional[list] = None
        self.modules: list[list] = [["core", True]]
        self.catalog_comments: dict[str, str] = {}
        self.catalog_options: dict[str, dict[str, str]] = {}

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
        return is_streaming(self.conf)

    def lower_context(self) -> LowerContext:
        return LowerContext(self.conf.get("table.local-time-zone", "UTC"), self.streaming)

    # -- planning and running -----------------------------------------------------------
    def planner(self, conf: Optional[dict[str, str]] = None) -> Planner:
        """The one plan path (``sqlengine/planner``) over this session's catalog."""
        return Planner(self.catalogs, self.conf if conf is None else conf)

    def binder(self, source: str) -> QueryBinder:
        return self.planner().binder(source)

    def runner(self, conf: Optional[dict[str, str]] = None) -> JobRunner:
        conf = self.conf if conf is None else conf
        return JobRunner(self.spark, conf, LowerContext(conf.get("table.local-time-zone", "UTC"),
                                                        is_streaming(conf)))
