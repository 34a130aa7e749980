"""PyFlink's names for the Python API, where they fit: ``TableEnvironment``,
``EnvironmentSettings``, ``Table`` and ``StatementSet``.

    from sqlengine import EnvironmentSettings, TableEnvironment
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql("CREATE TABLE ...")
    t_env.execute_sql("INSERT INTO sink SELECT ...").wait()
    t_env.sql_query("SELECT ...").to_pandas()

``TableEnvironment`` is a ``Session`` (sqlengine/api/session.py): one catalog, one
configuration, one SparkSession.
"""
from __future__ import annotations

from typing import Any, Optional, Union

from sqlengine.api.result import TableResult
from sqlengine.api.session import Session


class EnvironmentSettings:
    def __init__(self, conf: Optional[dict[str, str]] = None):
        self.conf = dict(conf or {})

    @staticmethod
    def in_streaming_mode() -> "EnvironmentSettings":
        return EnvironmentSettings({"execution.runtime-mode": "streaming"})

    @staticmethod
    def in_batch_mode() -> "EnvironmentSettings":
        return EnvironmentSettings({"execution.runtime-mode": "batch"})

    @staticmethod
    def new_instance() -> "EnvironmentSettings":
        return EnvironmentSettings()

    def with_configuration(self, conf: Union[dict[str, str], "TableConfig"]) -> "EnvironmentSettings":
        self.conf.update(conf.to_dict() if isinstance(conf, TableConfig) else conf)
        return self

    def build(self) -> "EnvironmentSettings":
        return self

    def is_streaming_mode(self) -> bool:
        return self.conf.get("execution.runtime-mode", "streaming").lower() != "batch"


class TableConfig:
    """The session's configuration (``SET`` statements change the same map)."""

    def __init__(self, conf: dict[str, str]):
        self._conf = conf

    def set(self, key: str, value: str) -> "TableConfig":
        self._conf[key] = str(value)
        return self

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        return self._conf.get(key, default)

    def to_dict(self) -> dict[str, str]:
        return dict(self._conf)


class TableEnvironment(Session):
    @staticmethod
    def create(settings: Union[EnvironmentSettings, dict[str, str], None] = None, spark: Any = None
               ) -> "TableEnvironment":
        conf = settings.conf if isinstance(settings, EnvironmentSettings) else dict(settings or {})
        return TableEnvironment(conf, spark=spark)

    def get_config(self) -> TableConfig:
        return TableConfig(self.conf)

    def sql_query(self, sql: str) -> "Table":
        """A query as a ``Table`` (planned now: a bad query fails here, as in Flink)."""
        from sqlengine.dialect.script import parse_script
        statements = parse_script(sql)
        if len(statements) != 1:
            from sqlengine.errors import ValidationError
            raise ValidationError(f"sql_query expects exactly one query, got {len(statements)} statements.")
        stmt = statements[0]
        try:
            plan = self.binder(stmt.span.source).bind_query(stmt.node)
        except Exception as exc:  # noqa: BLE001
            from sqlengine.runtime.failure import to_engine_error
            raise to_engine_error(exc).with_span(stmt.span)
        return Table(self, stmt.text, plan)

    def create_statement_set(self) -> "StatementSet":
        return StatementSet(self)

    def list_tables(self) -> list[str]:
        return sorted(self.catalogs.list_tables())

    def list_catalogs(self) -> list[str]:
        return sorted(self.catalogs.list_catalogs())

    def list_databases(self) -> list[str]:
        return sorted(self.catalogs.list_databases())

    def get_current_catalog(self) -> str:
        return self.catalogs.current_catalog

    def get_current_database(self) -> str:
        return self.catalogs.current_database


class Table:
    """A planned query: ``execute()`` runs it (a ``TableResult``), ``to_spark()`` gives it
    as a Spark DataFrame (read as a bounded batch), ``to_pandas()`` its rows."""

    def __init__(self, env: Session, sql: str, plan: Any):
        self._env, self._sql, self._plan = env, sql, plan

    @property
    def columns(self) -> list[str]:
        return list(self._plan.names())

    def get_schema(self) -> list[tuple[str, str]]:
        return [(f.name, str(f.type)) for f in self._plan.schema]

    def print_schema(self) -> None:
        print("(\n" + ",\n".join(f"  `{n}` {t}" for n, t in self.get_schema()) + "\n)")

    def execute(self) -> TableResult:
        return self._env.execute_sql(self._sql)

    def explain(self) -> str:
        return self._env.execute_sql("EXPLAIN " + self._sql).render()

    def to_spark(self):
        """The query as a Spark DataFrame over its tables' current contents (batch
        semantics: a streaming source is read up to its bounded end)."""
        from pyspark.sql import functions as F

        from sqlengine.dialect.script import parse_script
        from sqlengine.hidden import drop_eoi
        from sqlengine.runtime.execute import lower_batch
        conf = {**self._env.conf, "execution.runtime-mode": "batch"}
        stmt = parse_script(self._sql)[0]
        planned = self._env.planner(conf).plan(stmt.node, stmt.span.source)
        ctx = self._env.runner(conf).context("to-spark")
        low = drop_eoi(lower_batch(ctx, planned.dag)[0])
        return low.df.select(*[F.col(f"f{i}").alias(n) for i, n in enumerate(self._plan.names())])

    def to_pandas(self):
        return self.execute().to_pandas()


class StatementSet:
    """INSERTs run as one job (``EXECUTE STATEMENT SET``)."""

    def __init__(self, env: Session):
        self._env = env
        self._inserts: list[str] = []

    def add_insert_sql(self, sql: str) -> "StatementSet":
        self._inserts.append(sql.strip().rstrip(";"))
        return self

    def execute(self) -> TableResult:
        body = "".join(f"{s};\n" for s in self._inserts)
        return self._env.execute_sql(f"EXECUTE STATEMENT SET BEGIN\n{body}END;")
