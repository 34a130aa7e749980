"""Creating the one SparkSession a process uses, configured for Flink semantics."""
from __future__ import annotations

import os
import sys
import threading
from typing import Optional

_DEFAULTS = {
    "spark.master": "local[*]",
    "spark.app.name": "sqlengine",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    # Time values travel as UTC instants (see sqlengine/types.py).
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "8",
    # The operator DAG decides the exchanges; AQE would rewrite them.
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.ansi.enabled": "false",
    "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
    "spark.driver.extraJavaOptions": "-Dio.netty.tryReflectionSetAccessible=true",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.python.worker.reuse": "true",
}


_prestart: Optional[threading.Thread] = None


def prestart(conf: Optional[dict[str, str]] = None) -> None:
    """Start creating the SparkSession in the background.

    The JVM takes seconds to start, mostly in its own process; the CLI calls this
    first and imports the planner meanwhile. ``get_spark`` waits for it; a failure
    here is raised again, with its real cause, by that call.
    """
    global _prestart
    if _prestart is not None:
        return

    def start() -> None:
        try:
            get_spark(conf)
        except BaseException:  # noqa: BLE001 - get_spark in the caller's thread reports it
            pass

    _prestart = threading.Thread(target=start, name="spark-prestart", daemon=True)
    _prestart.start()


def get_spark(conf: Optional[dict[str, str]] = None):
    """The process's SparkSession; created on first use with ``conf`` over the defaults.

    Python workers must run the driver's interpreter, so ``PYSPARK_PYTHON`` is pinned
    to ``sys.executable`` before the JVM starts.
    """
    if _prestart is not None and _prestart is not threading.current_thread():
        _prestart.join()
        from pyspark.sql import SparkSession
        started = SparkSession._instantiatedSession
        if started is not None and started._sc._jsc is not None:
            # The JVM's active session is per thread: make it this thread's too, or
            # lookups by name (Python data sources) miss the session's registrations.
            started._jvm.SparkSession.setActiveSession(started._jsparkSession)
            return started
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder
    merged = dict(_DEFAULTS)
    merged.update(conf or {})
    for key, value in merged.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
