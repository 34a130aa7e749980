"""The driver's heap in local mode: a JVM's default (a quarter of the machine's memory,
as Flink's local cluster has), not Spark's 1 GB for a driver that runs no task; what
the user sets, or a cluster's driver, keeps Spark's rules."""
from __future__ import annotations

import os

from sqlengine.runtime.spark import driver_conf


def quarter_of_memory_mb() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2 ** 20


def test_local_mode_gives_the_driver_a_quarter_of_the_machine():
    assert driver_conf({})["spark.driver.memory"] == f"{max(1024, quarter_of_memory_mb())}m"
    assert driver_conf({"spark.driver.memory": "512m"})["spark.driver.memory"] == "512m"
    assert "spark.driver.memory" not in driver_conf({"spark.master": "spark://127.0.0.1:7077"})


def test_the_running_driver_has_that_heap(spark):
    """The test session's JVM was started through ``driver_conf`` (tests/conftest.py)."""
    heap_mb = spark._jvm.java.lang.Runtime.getRuntime().maxMemory() / 2 ** 20
    want = max(1024, quarter_of_memory_mb())
    assert abs(heap_mb - want) < 0.15 * want, (heap_mb, want)  # less a survivor space, rounded up
