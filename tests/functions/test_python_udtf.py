"""User-defined Python table functions (``sqlengine.udf.udtf``, PyFlink's): ``LATERAL
TABLE(f(x)) AS T(a, b)`` after a comma or CROSS JOIN (a row the function gives nothing for
is gone), LEFT JOIN ... ON TRUE (kept, with NULLs), generator functions and TableFunction
classes, default column names, in batch and streaming, and errors naming the function."""
from __future__ import annotations

import pytest

from sqlengine.api.session import Session

LINES = '{"k": 1, "s": "ab,c"}\n{"k": 2, "s": ""}\n{"k": 3, "s": "xyz"}\n'


def _session(spark, tmp_path, mode):
    (tmp_path / "t.json").write_text(LINES)
    s = Session({"execution.runtime-mode": mode, "parallelism.default": "2",
                 "execution.checkpointing.dir": str(tmp_path / "ck")}, spark=spark)
    s.execute_sql(f"CREATE TABLE t (k INT, s STRING) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path / 't.json'}', 'format' = 'json')")
    s.execute_sql("CREATE TEMPORARY FUNCTION split_words AS 'tests.functions.sample_udfs.split_words' "
                  "LANGUAGE PYTHON")
    return s


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_lateral_table_inner_and_left(spark, tmp_path, mode):
    s = _session(spark, tmp_path, mode)

    def rows(sql):
        out = [tuple(r) for r in s.execute_sql(sql).collect()]
        return sorted(r[1:] if mode == "streaming" else r for r in out)
    assert rows("SELECT k, word, n FROM t, LATERAL TABLE(split_words(s)) AS T(word, n)") == [
        (1, "ab", 2), (1, "c", 1), (3, "xyz", 3)]
    assert rows("SELECT k, word FROM t CROSS JOIN LATERAL TABLE(split_words(s)) AS T(word, n) WHERE n > 1") == [
        (1, "ab"), (3, "xyz")]
    assert rows("SELECT k, word, n FROM t LEFT JOIN LATERAL TABLE(split_words(s)) AS T(word, n) ON TRUE") == [
        (1, "ab", 2), (1, "c", 1), (2, None, None), (3, "xyz", 3)]


def test_class_based_default_names_and_errors(spark, tmp_path):
    s = _session(spark, tmp_path, "batch")
    s.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION rep AS 'tests.functions.sample_udfs.repeat' LANGUAGE PYTHON")
    r = s.execute_sql("SELECT k, f0 FROM t, LATERAL TABLE(rep(s, k)) WHERE k < 3")
    assert sorted(tuple(x) for x in r.collect()) == [(1, "ab,c"), (2, ""), (2, "")]
    with pytest.raises(Exception, match="is a table function"):
        s.execute_sql("SELECT split_words(s) FROM t").collect()
    s.execute_sql("CREATE TEMPORARY FUNCTION bad AS 'tests.functions.sample_udfs.fails_on_three' LANGUAGE PYTHON")
    with pytest.raises(Exception, match=r"Python table function 'bad' failed on the row with arguments \(3,\)"):
        s.execute_sql("SELECT k, f0 FROM t, LATERAL TABLE(bad(k))").collect()
