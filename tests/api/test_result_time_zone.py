"""TIMESTAMP_LTZ values are printed in ``table.local-time-zone`` wherever a result is
printed (issue 25): the batch tableau, the streaming changelog, the shell's ``table``
mode, the SQL Gateway's PLAIN_TEXT rows and the Python API's ``print``; TIMESTAMP values
(wall clocks) are not moved. The collected values stay the instants."""
from __future__ import annotations

import datetime as dt
import io

import pytest

from sqlengine.api.result import Materialized, _cell, zone_of
from sqlengine.api.session import Session
from sqlengine.service.gateway import Operation
from sqlengine.types import TIMESTAMP, TIMESTAMP_LTZ

# 2024-07-01 10:00:00 UTC (summer: Berlin is UTC+2); the TIMESTAMP column is its wall clock in UTC.
QUERY = ("SELECT TO_TIMESTAMP_LTZ(1719828000000, 3) AS ltz, TIMESTAMP '2024-07-01 10:00:00' AS ts, "
         "ARRAY[TO_TIMESTAMP_LTZ(1719828000, 0)] AS arr")


@pytest.fixture(scope="module")
def berlin(spark):
    return Session({"table.local-time-zone": "Europe/Berlin", "execution.runtime-mode": "batch"}, spark=spark)


def test_batch_tableau_and_print_use_the_session_zone(berlin):
    result = berlin.execute_sql(QUERY)
    assert result.collect()[0][0] == dt.datetime(2024, 7, 1, 10, 0)  # the instant, collected as UTC
    out = io.StringIO()
    result.print(out)
    row = out.getvalue().splitlines()[3]
    assert row.split("|")[1:4] == [" 2024-07-01 12:00:00.000 ", " 2024-07-01 10:00:00 ", " [2024-07-01 12:00:00.000] "]


def test_streaming_changelog_and_table_mode(spark, tmp_path):
    s = Session({"table.local-time-zone": "+05:30", "execution.checkpointing.dir": str(tmp_path)}, spark=spark)
    s.execute_sql("CREATE TABLE src (id INT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 0)) "
                  "WITH ('connector' = 'datagen', 'number-of-rows' = '1', 'fields.id.kind' = 'sequence', "
                  "'fields.id.start' = '0', 'fields.id.end' = '0')")
    result = s.execute_sql("SELECT id, ts FROM src")
    assert result.changelog
    assert "| +I |           0 | 1970-01-01 05:30:00.000 |" in result.render()
    table = Materialized(result.header, result.types, changelog=False, time_zone=result.time_zone)
    table.apply(result.rows)
    assert table.cells() == [["0", "1970-01-01 05:30:00.000"]]


def test_gateway_plain_text_rows(berlin):
    result = berlin.execute_sql(QUERY)
    row = Operation._row(result.rows[0], result, result.types, "PLAIN_TEXT")
    assert row["fields"] == ["2024-07-01 12:00:00.000", "2024-07-01 10:00:00", "[2024-07-01 12:00:00.000]"]


@pytest.mark.parametrize("zone,expected", [
    ("UTC", "2024-01-01 00:00:00"), ("Europe/Berlin", "2024-01-01 01:00:00"),
    ("GMT+08:00", "2024-01-01 08:00:00"), ("-03:30", "2023-12-31 20:30:00"), ("America/New_York", "2023-12-31 19:00:00"),
])
def test_zones(zone, expected):
    assert _cell(dt.datetime(2024, 1, 1), TIMESTAMP_LTZ(0), zone_of(zone)) == expected
    assert _cell(dt.datetime(2024, 1, 1), TIMESTAMP(0), zone_of(zone)) == "2024-01-01 00:00:00"
