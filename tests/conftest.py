"""Shared fixtures: one local SparkSession for the whole test session."""
from __future__ import annotations

import os
import sys

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def spark():
    from sqlengine.runtime.spark import get_spark

    session = get_spark({"spark.sql.shuffle.partitions": "2"})
    yield session


# The longest test files, first: under pytest-xdist (test.sh runs two workers, whole files
# each) a long file that starts last keeps one worker busy while the other idles.
LONGEST_FIRST = ("tests/connectors/kafka/test_fault_matrix.py", "tests/e2e/test_kill_restart.py",
                 "tests/connectors/kafka/test_outages.py", "tests/connectors/kafka/test_standalone_cluster.py",
                 "tests/e2e/test_stop_signal.py", "tests/e2e/test_cli.py")


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        path = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)  # stable: the order within and among the other files is kept
