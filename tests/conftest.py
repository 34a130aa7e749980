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
