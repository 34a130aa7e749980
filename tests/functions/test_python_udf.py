"""User-defined Python scalar functions (sqlengine/udf.py, sqlengine/functions/python_udf.py):
registered by name in SQL or as objects through the Python API, row by row or vectorized,
in batch and streaming, with Flink's resolution order and errors that name the function."""
from __future__ import annotations

import pytest

from sqlengine.api.session import Session
from sqlengine.udf import DataTypes, udf

ROWS = """CREATE TABLE t (k INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"""
LINES = '{"k": 1, "s": "banana"}\n{"k": 2, "s": "cherry"}\n{"k": 3, "s": null}\n{"k": 4, "s": "apple"}\n'


@pytest.fixture
def session(spark, tmp_path):
    (tmp_path / "t.json").write_text(LINES)
    s = Session({"execution.runtime-mode": "batch", "parallelism.default": "2"}, spark=spark)
    s.execute_sql(ROWS.format(path=tmp_path / "t.json"))
    return s


def _rows(s, sql):
    return sorted(tuple(r) for r in s.execute_sql(sql).collect())


def test_functions_named_in_sql_row_by_row_vectorized_and_class_based(session):
    session.execute_sql("CREATE TEMPORARY FUNCTION count_char AS 'tests.functions.sample_udfs.count_char' "
                        "LANGUAGE PYTHON")
    session.execute_sql("CREATE FUNCTION half AS 'tests.functions.sample_udfs.half' LANGUAGE PYTHON")
    session.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION tagged AS 'tests.functions.sample_udfs.tagged' "
                        "LANGUAGE PYTHON")
    assert _rows(session, "SELECT k, count_char(s, 'a'), half(k), tagged(s) FROM t") == [
        (1, 3, 0.5, "tag-banana"), (2, 0, 1.0, "tag-cherry"), (3, None, 1.5, None), (4, 1, 2.0, "tag-apple")]
    got = _rows(session, "SELECT COALESCE(count_char(s, 'a'), -1) AS c, COUNT(*) FROM t WHERE half(k) > 0.5 "
                         "GROUP BY COALESCE(count_char(s, 'a'), -1)")
    assert got == [(-1, 1), (0, 1), (1, 1)]
    assert "count_char(s, 'a')" in session.execute_sql("EXPLAIN SELECT count_char(s, 'a') FROM t").text
    assert "count_char" in [r[0] for r in session.execute_sql("SHOW USER FUNCTIONS").collect()]


def test_the_python_api_registers_function_objects(session):
    session.create_temporary_system_function("shout", udf(lambda x: None if x is None else x.upper() + "!",
                                                          result_type=DataTypes.STRING()))
    session.create_temporary_function("plus_one", udf(lambda x: x + 1, result_type="BIGINT", func_type="pandas"))
    assert _rows(session, "SELECT shout(s), plus_one(k) FROM t WHERE k < 3") == [("BANANA!", 2), ("CHERRY!", 3)]
    # a temporary system function comes before the built-in of the same name, as in Flink
    session.create_temporary_system_function("upper", udf(lambda x: "mine", result_type=DataTypes.STRING()))
    assert _rows(session, "SELECT UPPER(s) FROM t WHERE k = 1") == [("mine",)]
    assert session.drop_temporary_system_function("upper") and not session.drop_temporary_system_function("upper")
    assert _rows(session, "SELECT UPPER(s) FROM t WHERE k = 1") == [("BANANA",)]


def test_input_types_cast_the_arguments(session):
    session.execute_sql("CREATE TEMPORARY FUNCTION len_of AS 'tests.functions.sample_udfs.length_of_text' "
                        "LANGUAGE PYTHON")
    assert _rows(session, "SELECT k, len_of(k * 100) FROM t") == [(1, 3), (2, 3), (3, 3), (4, 3)]
    with pytest.raises(Exception, match="Function 'len_of' takes 1 argument"):
        session.execute_sql("SELECT len_of(s, s) FROM t")


def test_streaming_jobs_call_them_too(spark, tmp_path):
    (tmp_path / "t.json").write_text(LINES)
    s = Session({"parallelism.default": "2", "execution.checkpointing.dir": str(tmp_path / "ck")}, spark=spark)
    s.execute_sql(ROWS.format(path=tmp_path / "t.json"))
    s.execute_sql("CREATE TEMPORARY FUNCTION count_char AS 'tests.functions.sample_udfs.count_char' LANGUAGE PYTHON")
    changes = s.execute_sql("SELECT SUM(count_char(s, 'a')) AS n FROM t").collect()
    assert changes[-1][0] in ("+I", "+U") and changes[-1][1] == 4


def test_errors_name_the_function(session):
    session.execute_sql("CREATE TEMPORARY FUNCTION ten_by AS 'tests.functions.sample_udfs.ten_by' LANGUAGE PYTHON")
    with pytest.raises(Exception, match=r"Python function 'ten_by' failed on the row with arguments \(0,\): "
                                        r"ZeroDivisionError"):
        session.execute_sql("SELECT ten_by(k - 3) FROM t").collect()
    session.execute_sql("CREATE TEMPORARY FUNCTION j AS 'com.example.Upper'")
    with pytest.raises(Exception, match="Function 'j' is a Java function .*: sqlengine runs Python functions only"):
        session.execute_sql("SELECT j(s) FROM t")
    session.execute_sql("CREATE TEMPORARY FUNCTION p AS 'tests.functions.sample_udfs.plain' LANGUAGE PYTHON")
    with pytest.raises(Exception, match="is not a user-defined function: wrap it with sqlengine.udf.udf"):
        session.execute_sql("SELECT p(s) FROM t")
    session.execute_sql("CREATE TEMPORARY FUNCTION m AS 'tests.functions.no_such_module.f' LANGUAGE PYTHON")
    with pytest.raises(Exception, match="Function 'm': cannot load Python object 'tests.functions.no_such_module.f'"):
        session.execute_sql("SELECT m(s) FROM t")
