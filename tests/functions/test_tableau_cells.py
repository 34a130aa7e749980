"""Query results as the SQL client prints them: the column's Flink type sets the digits."""
from __future__ import annotations

import datetime as dt

from pyspark.sql import Row

from sqlengine import types as T
from sqlengine.api.session import TableResult, _cell

TS = dt.datetime(2020, 4, 15, 8, 5, 0, 120000)


def test_timestamp_fraction_follows_the_precision():
    assert _cell(TS, T.TIMESTAMP(0)) == "2020-04-15 08:05:00"
    assert _cell(TS, T.TIMESTAMP(2)) == "2020-04-15 08:05:00.12"
    assert _cell(TS, T.TIMESTAMP(3)) == "2020-04-15 08:05:00.120"
    assert _cell(TS, T.TIMESTAMP(6)) == "2020-04-15 08:05:00.120000"
    assert _cell(TS, T.TIMESTAMP(9)) == "2020-04-15 08:05:00.120000000"
    assert _cell(TS) == "2020-04-15 08:05:00.120"  # type unknown: milliseconds


def test_time_is_printed_as_a_time_of_day():
    ms = (10 * 3600 + 1 * 60 + 2) * 1000 + 500
    assert _cell(ms, T.TIME(0)) == "10:01:02"
    assert _cell(ms, T.TIME(3)) == "10:01:02.5"
    assert _cell(ms - 500, T.TIME(3)) == "10:01:02.0"


def test_nested_values_use_their_element_types():
    row_type = T.DataType("ROW", fields=(T.RowField("a", T.INT()), T.RowField("t", T.TIMESTAMP(0))))
    assert _cell(Row(a=1, t=TS), row_type) == "(1, 2020-04-15 08:05:00)"
    assert _cell([TS, None], T.DataType("ARRAY", element=T.TIMESTAMP(1))) == "[2020-04-15 08:05:00.1, NULL]"
    assert _cell({"k": TS}, T.DataType("MAP", key=T.STRING(), value=T.TIMESTAMP(0))) == \
        "{k=2020-04-15 08:05:00}"
    assert _cell({"a": 2, "z": None}, T.DataType("MAP", key=T.STRING(), value=T.INT())) == "{a=2, z=NULL}"
    assert _cell(True, T.BOOLEAN()) == "TRUE"


def test_rendered_table_uses_the_types():
    result = TableResult("ROWS", ["t", "n"], [[TS, None]], types=[T.TIMESTAMP(0), T.INT()])
    assert "| 2020-04-15 08:05:00 | <NULL> |" in result.render()
