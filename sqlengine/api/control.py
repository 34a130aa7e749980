"""What a client process (the CLI, the shell, a notebook) controls beyond statements: its
log file, stopping its jobs at an epoch boundary, starting Spark and its Python workers
ahead of the first statement, and crash-test fault points. Every import is deferred, so
importing this module costs nothing."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

# The Spark key that turns the Python workers' start-ahead off (runtime/warmup.py).
WARMUP_CONF = "spark.sqlengine.prestartPythonWorkers"


def setup_logging(pyspark: bool = True) -> Path:
    """Send warnings, Spark's driver log and the JVM's output to the log file (first);
    ``pyspark`` false: a client of a cluster, which runs no Spark."""
    from sqlengine.logs import setup
    return setup(pyspark)


def log_path() -> Path:
    from sqlengine.logs import log_path as path
    return path()


def request_stop() -> None:
    """Stop the running streaming jobs at an epoch boundary (SIGTERM, Ctrl-C)."""
    from sqlengine.runtime.job import request_stop as stop
    stop()


def stop_requested() -> bool:
    from sqlengine.runtime.job import stop_requested as requested
    return requested()


def prestart(spark_conf: dict[str, str]) -> None:
    """Start the JVM and the SparkSession in the background, now."""
    from sqlengine.runtime.spark import prestart as start
    start(spark_conf)


def warm_workers_at_start(on: bool) -> None:
    """Whether a new SparkSession starts Spark's Python workers ahead at once (the API and
    notebooks) or not (a script: no idle time; the shell starts them when idle)."""
    from sqlengine.runtime import warmup
    warmup.AT_START = on


def warm_workers(conf: Optional[dict[str, str]] = None) -> bool:
    """Start Spark's Python workers ahead now, unless started already or turned off."""
    from sqlengine.runtime import warmup
    from sqlengine.runtime.spark import started_session
    if warmup._thread is not None or str((conf or {}).get(WARMUP_CONF, "true")).lower() == "false":
        return False
    warmup.start(session=started_session)
    return True


def workers_warming() -> bool:
    from sqlengine.runtime import warmup
    return warmup._thread is not None


def arm_faults() -> None:
    """Crash tests only: a no-op unless ``SQLENGINE_FAULT`` is set (sqlengine/faults.py)."""
    from sqlengine.faults import arm
    arm()


def duration_ms(raw: str) -> Optional[int]:
    """A Flink duration (``10 min``, ``500ms``, ``30 s``) in milliseconds; None if malformed."""
    from sqlengine.config import duration_ms as parse
    return parse(raw)


def state_home():
    """sqlengine's state folder (``$XDG_STATE_HOME/sqlengine``)."""
    from sqlengine.logs import state_home as home
    return home()


def setting_warning(key: str):
    """The one-line warning for a configuration key sqlengine does not use (None if it does):
    sqlengine/settings.py."""
    from sqlengine.settings import warning
    return warning(key)
