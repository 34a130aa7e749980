"""Streaming ORDER BY / LIMIT at planning: what Flink's streaming planner refuses, with the
place of the key it refuses (tests/runtime/test_streaming_sort_limit.py runs the rest)."""
from __future__ import annotations

import pytest

from sqlengine.errors import UnsupportedError
from tests.binder.helpers import bind, run_ddl, session

DDL = """CREATE TABLE t (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'datagen')"""


@pytest.mark.parametrize("sql,key", [
    ("SELECT id, v FROM t ORDER BY v", "v"),
    ("SELECT id, ts FROM t ORDER BY ts DESC", "ts"),
    ("SELECT id FROM t ORDER BY ts DESC", "ts"),  # a key the SELECT list lacks
    ("SELECT id FROM t ORDER BY v, ts", "v"),
    ("SELECT id FROM t ORDER BY v + 1, ts", "v"),  # an expression: at its start, as Calcite places one
])
def test_a_sort_without_a_limit_must_start_with_a_time_attribute_ascending(sql, key):
    s = session()
    run_ddl(s, DDL)
    with pytest.raises(UnsupportedError, match="Sort on a non-time-attribute field is not supported") as info:
        bind(s, sql)
    span = info.value.diagnostic.span
    assert span.start == sql.rindex("ORDER BY ") + len("ORDER BY ") and sql[span.start:span.end] == key


@pytest.mark.parametrize("sql", [
    "SELECT id FROM t ORDER BY v DESC LIMIT 3",
    "SELECT id FROM t ORDER BY ts, v DESC",
    "SELECT id FROM t LIMIT 3",
    "SELECT id FROM t OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
])
def test_what_flinks_streaming_planner_takes(sql):
    s = session()
    run_ddl(s, DDL)
    bind(s, sql)


def test_offset_without_fetch_is_refused():
    s = session()
    run_ddl(s, DDL)
    with pytest.raises(UnsupportedError, match="FETCH is missed, which on streaming table is not supported currently"):
        bind(s, "SELECT id FROM t OFFSET 2 ROWS")
