"""Creating the one SparkSession a process uses, configured for Flink semantics."""
from __future__ import annotations

import os
import sys
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
    "spark.sql.streaming.stateStore.providerClass":
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "spark.sql.ansi.enabled": "false",
    "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
    "spark.driver.extraJavaOptions": "-Dio.netty.tryReflectionSetAccessible=true",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.python.worker.reuse": "true",
}


def get_spark(conf: Optional[dict[str, str]] = None):
    """The process's SparkSession; created on first use with ``conf`` over the defaults.

    Python workers must run the driver's interpreter, so ``PYSPARK_PYTHON`` is pinned
    to ``sys.executable`` before the JVM starts.
    """
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
