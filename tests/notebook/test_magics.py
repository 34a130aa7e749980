"""The magics in-process: an IPython ``InteractiveShell`` with ``%load_ext sqlengine`` and a
Session on the test session's Spark; the live table and its bounds on a scripted stream."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import PurePosixPath

import pytest

from sqlengine.errors import ValidationError
from sqlengine.notebook import CellOptions, LiveTable, bind_variables, follow, split_line, sql_literal
from sqlengine.types import DataType

CLI_HEADER = "[ERROR] Could not execute SQL statement. Reason:"


# -- the magic line ------------------------------------------------------------------------
@pytest.mark.parametrize("line, tokens, sql", [
    ("-D a=b --max-rows 5 -o out SELECT 'x y' FROM t", ["-D", "a=b", "--max-rows", "5", "-o", "out"],
     "SELECT 'x y' FROM t"),
    ("--timeout=3 -Dk=v SET 'a' = 'b'", ["--timeout=3", "-Dk=v"], "SET 'a' = 'b'"),
    ("-- a comment\nSELECT 1", [], "-- a comment\nSELECT 1"),
    ("SELECT 'it''s", [], "SELECT 'it''s"),
    ("-o df", ["-o", "df"], ""),
])
def test_options_come_before_the_sql_which_is_kept_verbatim(line, tokens, sql):
    assert split_line(line) == (tokens, sql)


# -- Python variables --------------------------------------------------------------------------
@pytest.mark.parametrize("value, literal", [
    (None, "NULL"), (True, "TRUE"), (42, "42"), (1.5, "1.5E0"), (1e-07, "1E-07"),
    (float("nan"), "CAST('NaN' AS DOUBLE)"),
    (float("-inf"), "CAST('-Infinity' AS DOUBLE)"), (Decimal("2.50"), "2.50"), ("O'Brien", "'O''Brien'"),
    (b"\x00\xff", "X'00ff'"), (dt.date(2024, 1, 2), "DATE '2024-01-02'"), (dt.time(3, 4, 5), "TIME '03:04:05'"),
    (dt.datetime(2024, 1, 2, 3, 4, 5, 120000), "TIMESTAMP '2024-01-02 03:04:05.120000'"),
    ([1, "a"], "ARRAY[1, 'a']"), ({"k": None}, "MAP['k', NULL]"), (PurePosixPath("/tmp/x"), "'/tmp/x'"),
])
def test_a_python_value_becomes_a_literal_of_its_type(value, literal):
    assert sql_literal(value) == literal


def test_variables_are_bound_only_outside_literals_identifiers_and_comments():
    sql = "SELECT :n, ':n', `:n`, x::INT, '12:30' -- :n\n/* :n */ FROM t WHERE a = :n AND b IN (:s)"
    assert bind_variables(sql, {"n": 7, "s": "it's"}) == \
        "SELECT 7, ':n', `:n`, x::INT, '12:30' -- :n\n/* :n */ FROM t WHERE a = 7 AND b IN ('it''s')"


def test_a_value_cannot_inject_sql():
    evil = "x'; DROP TABLE t; --"
    assert bind_variables("SELECT * FROM t WHERE a = :v", {"v": evil}) == \
        "SELECT * FROM t WHERE a = 'x''; DROP TABLE t; --'"


def test_an_undefined_variable_is_an_error_at_its_place():
    with pytest.raises(ValidationError) as err:
        bind_variables("SELECT a,\n  :missing FROM t", {})
    assert err.value.render().splitlines()[1:] == ["  at line 2, column 3:", "    :missing FROM t", "    ^^^^^^^^"]


def test_a_value_without_a_literal_is_an_error_naming_its_type():
    with pytest.raises(ValidationError, match="Python variable 'o' cannot be a SQL literal: a value of type object"):
        bind_variables("SELECT :o", {"o": object()})
    with pytest.raises(ValidationError, match="timezone-aware"):
        bind_variables("SELECT :t", {"t": dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)})


# -- the magics in IPython ----------------------------------------------------------------------
@pytest.fixture
def ipython(spark, tmp_path, monkeypatch):
    """An InteractiveShell with the extension loaded and a fresh Session on the test Spark."""
    from IPython.core.interactiveshell import InteractiveShell
    from sqlengine.api.session import Session

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "sqlengine")
    magics = shell.magics_manager.registry["SqlMagic"]
    magics.session = Session({"parallelism.default": "1"}, spark=spark)
    yield shell
    magics.session = None


def run(shell, source: str):
    from IPython.utils.capture import capture_output
    with capture_output() as captured:
        result = shell.run_cell(source)
    return result, captured


def test_variables_in_a_cell_and_html_escaping(ipython):
    ipython.user_ns.update(who="<b>Tom & Jerry</b>", n=41)
    result, out = run(ipython, "%%sql -o df\nSELECT :who AS who, :n + 1 AS `next`, CAST(NULL AS INT) AS nothing")
    assert result.success
    (shown,) = out.outputs
    html = shown.data["text/html"]
    assert "<td>&lt;b&gt;Tom &amp; Jerry&lt;/b&gt;</td><td>42</td><td>&lt;NULL&gt;</td>" in html
    # text/plain: Flink's streaming tableau (the op column, widths from the column types)
    assert shown.data["text/plain"].splitlines()[3] == "| +I |             <b>Tom & Jerry</b> |          42 |      <NULL> |"
    assert ipython.user_ns["df"].to_dict("records") == [{"who": "<b>Tom & Jerry</b>", "next": 42, "nothing": None}]


def test_line_magic_and_defines(ipython):
    result, out = run(ipython, "%sql -D table.local-time-zone=Europe/Paris SET 'x.y' = 'z'")
    assert result.success and out.stdout == ("[WARNING] Unknown configuration key 'x.y': it has no effect.\n"
                                             "[INFO] Execute statement succeeded.\n")
    conf = ipython.magics_manager.registry["SqlMagic"].session.conf
    assert conf["table.local-time-zone"] == "Europe/Paris" and conf["x.y"] == "z"


def test_an_error_is_shown_as_the_cli_prints_it_and_fails_the_cell(ipython):
    result, out = run(ipython, "%%sql\nCREATE TABLE a (x INT) WITH ('connector' = 'datagen');\n"
                               "SELECT x,\n  nope FROM a;\nCREATE TABLE b (x INT) WITH ('connector' = 'datagen');")
    assert isinstance(result.error_in_exec, Exception)
    assert type(result.error_in_exec).__name__ == "SqlError"
    assert str(result.error_in_exec) == \
        "statement 2 of 3 failed (the error is shown above); the 1 after it did not run."
    assert out.stdout.startswith("[INFO] Execute statement succeeded.\n")
    assert "Traceback" not in out.stdout + out.stderr
    (shown,) = out.outputs
    text = shown.data["text/plain"].splitlines()
    assert text[:5] == [CLI_HEADER, "Column 'nope' not found in any table", "  at line 3, column 3:",
                        "    nope FROM a;", "    ^^^^"]
    assert "<pre>Column &#x27;nope&#x27; not found in any table\n  at line 3, column 3:\n    nope FROM a;\n    ^^^^" \
        in shown.data["text/html"]
    session = ipython.magics_manager.registry["SqlMagic"].session
    assert "b" not in session.catalogs.list_tables()


def test_a_syntax_error_and_an_undefined_variable_point_into_the_cell(ipython):
    _, out = run(ipython, "%%sql\nSELECT 1;\nSELEC 2")
    (shown,) = out.outputs
    assert shown.data["text/plain"].splitlines()[:2] == [
        CLI_HEADER, "SQL parse failed. Non-query expression encountered in illegal context"]
    result, out = run(ipython, "%sql SELECT :undefined_here")
    assert str(result.error_in_exec) == "the cell's SQL did not run (the error is shown above)."
    assert out.outputs[0].data["text/plain"].splitlines()[2:5] == [
        "  at line 1, column 8:", "  SELECT :undefined_here", "         ^^^^^^^^^^^^^^^"]


def test_a_terminal_gets_the_final_table_of_a_stream_only(ipython, capsys):
    """Terminal IPython prints each display update anew: only the end is printed there."""
    ipython.run_cell("%%sql\nCREATE TABLE three (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',\n"
                     "  'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '3')")
    capsys.readouterr()
    assert ipython.run_cell("%%sql -o xs\nSELECT x FROM three").success
    printed = capsys.readouterr().out
    assert "Starting" not in printed and "Running" not in printed
    assert printed.rstrip().splitlines()[-1] == "Finished (the query ended): 3 rows in the table, 3 changes received."
    assert sorted(ipython.user_ns["xs"]["x"]) == [1, 2, 3]


def test_an_unknown_result_mode_is_an_error_naming_the_valid_ones(ipython):
    run(ipython, "%sql SET 'sql-client.execution.result-mode' = 'pages'")
    ipython.run_cell("%%sql\nCREATE TABLE g (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    _, out = run(ipython, "%sql SELECT x FROM g")
    assert out.outputs[0].data["text/plain"].splitlines()[1] == \
        "Unknown result mode 'pages' in 'sql-client.execution.result-mode'. Valid values: table, changelog, tableau."


# -- the live table ------------------------------------------------------------------------------
INT, STRING = DataType("INT"), DataType("STRING")


def test_table_mode_applies_retractions_and_changelog_mode_shows_them():
    changes = [["+I", "a", 1], ["+I", "b", 1], ["-U", "a", 1], ["+U", "a", 2], ["-D", "b", 1], ["+I", "c", None]]
    table = LiveTable(["op", "k", "n"], [None, STRING, INT], changelog=False)
    table.apply(changes)
    assert table.header == ["k", "n"] and table.values() == [["a", 2], ["c", None]]
    view = table.view("Finished (the query ended)", limit=10)
    assert view.text.splitlines()[-1] == "Finished (the query ended): 2 rows in the table, 6 changes received."
    assert view.text.splitlines()[4] == "| c | <NULL> |"
    log = LiveTable(["op", "k", "n"], [None, STRING, INT], changelog=True)
    log.apply(changes)
    assert log.values() == changes
    assert log.view("x", limit=2).text.splitlines()[-1] == "x: 6 changes received. The newest 2 rows are shown."
    kept = LiveTable(["op", "k", "n"], [None, STRING, INT], changelog=False, max_rows=2)
    kept.apply(changes)
    kept.apply([["+I", "d", 4], ["-D", "c", None], ["+I", "a", 2]])  # "a" was dropped first, then "c" is deleted
    assert kept.values() == [["d", 4], ["a", 2]]


class ScriptedResult:
    """A streaming result whose batches follow a script (a list, or an exception to raise)."""

    def __init__(self, script):
        self.script, self.cancelled = script, 0

    def batches(self, timeout):
        for step in self.script:
            if isinstance(step, BaseException):
                raise step
            yield step

    def cancel(self):
        self.cancelled += 1


def follow_script(script, options=CellOptions(), times=None, refresh=0.0, progress=True):
    """Follow a scripted stream; the clock reads ``times`` in turn (default 0, 1, 2, ...)."""
    result, shown = ScriptedResult(script), []
    table = LiveTable(["op", "k"], [None, INT], changelog=False)
    ticks = iter(times if times is not None else range(1000))
    ok = follow(result, table, options, shown.append, limit=100, refresh=refresh,
                clock=lambda: float(next(ticks)), progress=progress)
    return ok, result, [s.text.splitlines()[-1] for s in shown]


def test_updates_are_throttled_but_none_is_lost():
    ok, _, statuses = follow_script([[["+I", 1]], [["+I", 2]], [], [["+I", 3]]], times=[0, 1, 2, 11, 12], refresh=10)
    assert statuses == ["Running (interrupt the kernel to cancel): 2 rows in the table, 2 changes received.",
                        "Finished (the query ended): 3 rows in the table, 3 changes received."]
    _, _, statuses = follow_script([[["+I", 1]], [["+I", 2]]], progress=False)  # a terminal: the end only
    assert statuses == ["Finished (the query ended): 2 rows in the table, 2 changes received."]


def test_interrupt_cancels_the_query_and_keeps_the_table():
    ok, result, statuses = follow_script([[["+I", 1]], KeyboardInterrupt()])
    assert not ok and result.cancelled == 1
    assert statuses[-1] == "Cancelled (interrupted): 1 row in the table, 1 change received."


def test_max_rows_and_timeout_stop_the_query_after_whole_epochs():
    ok, result, statuses = follow_script([[["+I", 1], ["+I", 2]], [["+I", 3], ["+I", 4]], [["+I", 5]]],
                                         CellOptions(max_rows=3))
    assert ok and result.cancelled == 1
    assert statuses[-1] == "Stopped (--max-rows 3): 4 rows in the table, 4 changes received."
    ok, result, statuses = follow_script([[["+I", 1]], [], [], []], CellOptions(timeout=2))
    assert statuses[-1] == "Stopped (--timeout 2 s): 1 row in the table, 1 change received."
    ok, result, statuses = follow_script([[["+I", 1]]])
    assert ok and result.cancelled == 0 and statuses[-1].startswith("Finished (the query ended): 1 row")


def test_a_failing_query_leaves_its_table_and_raises():
    with pytest.raises(ValidationError):
        follow_script([[["+I", 1]], ValidationError("boom")])
