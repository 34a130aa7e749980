"""Inputs of the conformance cases as Spark DataFrames typed like the cases' DDL."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fnhelpers import BID, PEOPLE, E, case_dir, col  # noqa: E402
from sqlengine import types as T  # noqa: E402


def _schema(columns: dict[str, T.DataType]):
    from pyspark.sql import types as st
    return st.StructType([st.StructField(n, t.to_spark(), True) for n, t in columns.items()])


@pytest.fixture(scope="session")
def people(spark):
    """people.jsonl (shared by the function cases) with the cases' column types."""
    path = case_dir("functions_case_string") / "input" / "people.jsonl"
    return spark.read.schema(_schema(PEOPLE)).option(
        "timestampFormat", "yyyy-MM-dd HH:mm:ss[.SSS]").json(str(path)).cache()


@pytest.fixture(scope="session")
def p() -> dict[str, E]:
    """The people columns as typed expressions."""
    return {name: col(name, t) for name, t in PEOPLE.items()}


@pytest.fixture(scope="session")
def bids(spark):
    """The bid view of the Nexmark event stream (event_type = 2)."""
    from pyspark.sql import types as st
    schema = st.StructType([st.StructField("event_type", st.IntegerType()),
                            st.StructField("bid", _schema(BID))])
    path = case_dir("nexmark_q21").parent / "_data" / "nexmark_events.jsonl"
    events = spark.read.schema(schema).option(
        "timestampFormat", "yyyy-MM-dd HH:mm:ss[.SSS]").json(str(path))
    return events.where("event_type = 2").select("bid.*").cache()


@pytest.fixture(scope="session")
def b() -> dict[str, E]:
    return {name: col(name, t) for name, t in BID.items()}
