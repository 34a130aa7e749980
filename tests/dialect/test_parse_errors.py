"""Syntax errors in Flink's words, at Flink's place.

Every expected message below was measured with Apache Flink 2.3.0 (nothing is read from
elsewhere at test time):

* ``PROBES``: scripts run with Flink's SQL Client (``sql-client.sh -f``); the expected text
  is what the client prints after ``[ERROR] Could not execute SQL statement. Reason:`` and
  the Java class of the root cause. Line numbers count from the line after the one where
  the previous statement ended, columns are physical -- as the SQL Client counts them.
* ``fixtures/flink_parse_errors.sql`` and ``MULTILINE``: statements given to Flink 2.3.0's
  parser (``FlinkSqlParserImpl`` with the planner's parser config) as the SQL Client gives
  them to it.

sqlengine prints ``SQL parse failed.`` before Flink's message, as Flink's TableEnvironment
does (``SqlParserException``).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from sqlengine.dialect import parse_script
from sqlengine.errors import SqlSyntaxError

FIXTURE = Path(__file__).parent / "fixtures" / "flink_parse_errors.sql"

PROBES = [
    ('p01', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a,\n  FROM FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 2, column 3."),
    ('p01b', 'SELECT a,\n  FROM FROM t;\n',
     "Incorrect syntax near the keyword 'FROM' at line 2, column 3."),
    ('p02', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a + FROM t;\n",
     'Encountered "+ FROM" at line 1, column 10.'),
    ('p03', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT * FROM t WHERE;\n",
     'Encountered ";" at line 1, column 22.'),
    ('p04', 'SELEC 1;\n',
     'Non-query expression encountered in illegal context'),
    ('p05', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT * FROM t GROUP a;\n",
     'Encountered "a" at line 1, column 23.'),
    ('p06', "CREATE TABLE t2 (a INT,) WITH ('connector' = 'datagen');\n",
     'Encountered ")" at line 1, column 24.'),
    ('p07', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nINSERT INTO t VALUES (1,;\n",
     'Encountered ";" at line 1, column 25.'),
    ('p09', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT * FROM t WHERE a = ;\n",
     'Encountered "= ;" at line 1, column 25.'),
    ('p10', 'SELECT (1 + 2;\n',
     'Encountered ";" at line 1, column 14.'),
    ('p11', 'SELECT * FROM;\n',
     'Encountered ";" at line 1, column 14.'),
    ('p12', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a FROM t ORDER;\n",
     'Encountered ";" at line 1, column 22.'),
    ('p13', "CREATE TABLE t3 (a INT) WITH ('connector' = 'datagen';\n",
     'Encountered ";" at line 1, column 54.'),
    ('p14', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT CAST(a AS) FROM t;\n",
     'Encountered ")" at line 1, column 17.'),
    ('p15', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a b c FROM t;\n",
     'Encountered "c" at line 1, column 12.'),
    ('p16', 'DROP TABLE;\n',
     'Encountered ";" at line 1, column 11.'),
    ('p17', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\n\n-- a comment\nSELECT a,\n  FROM FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 4, column 3."),
    ('p17b', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\n/* block\n   comment */ SELECT a,\n  FROM FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 3, column 3."),
    ('p18', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a FROM t WHERE a IN ();\n",
     'Encountered ")" at line 1, column 29.'),
    ('p19', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\n    SELECT a, FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 1, column 15."),
    ('p20', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT * FROM t LIMIT;\n",
     'Encountered ";" at line 1, column 22.'),
    ('p22', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT COUNT( FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 1, column 15."),
    ('p23', 'SELECT 1 1;\n',
     'Encountered "1" at line 1, column 10.'),
    ('p24', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a FROM t WHERE a > 1 AND;\n",
     "Incorrect syntax near the keyword 'AND' at line 1, column 29."),
    ('p25', "CREATE TABLE t4 (a INT WITH ('connector' = 'datagen');\n",
     'Encountered "WITH" at line 1, column 24.'),
    ('p26', 'SELECT "abc";\n',
     'Encountered "\\"" at line 1, column 8.'),
    ('p27', 'SELECT @;\n',
     'Lexical error at line 1, column 8.  Encountered: "@" (64), after : ""'),
    ('p28', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELECT a FROM t; SELECT a FROM FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 1, column 32."),
    ('p28c', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nCREATE TABLE t5 (x INT) WITH ('connector' = 'datagen'); SELECT a FROM FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 1, column 71."),
    ('p29', 'SELEC 1',
     'Non-query expression encountered in illegal context'),
    ('p29b', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nSELEC 1",
     'Non-query expression encountered in illegal context'),
    ('p30', "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nINSERT INTO t SELECT a, b FROM t WHERE;\n",
     'Encountered ";" at line 1, column 39.'),
]

# Also run with the SQL Client: it trims the file (so the first statement's line and column
# count from its first character), and a comment after a ';' keeps the statement open.
PROBES += [
    ("leading_whitespace", "\n\n    SELECT a, FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 1, column 11."),
    ("comment_after_semicolon", "SELECT 1; -- x\nSELECT a,\n  FROM t;\n",
     "Incorrect syntax near the keyword 'FROM' at line 3, column 3."),
]

# A line with two statements is one input for the SQL Client: both parse, so it fails with
# 'java.lang.IllegalArgumentException: only single statement supported'. sqlengine runs
# such lines statement by statement (the API runs several statements of one string).
SINGLE_STATEMENT_LINE = (
    "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3'); "
    "SET 'sql-client.execution.result-mode' = 'tableau';\nSELECT a FROM t; SELECT a FROM FROM t;\n")

MULTILINE = [
    ('EXECUTE STATEMENT SET BEGIN\nINSERT INTO t SELECT 1;\nINSERT INTO t SELECT a, FROM t;\nEND;',
     "Incorrect syntax near the keyword 'FROM' at line 3, column 25."),
    ("CREATE TABLE t2 (a INT, b STRING,\n  PRIMARY KEY (a) NOT ENFORCED,\n) WITH ('connector' = 'datagen');",
     'Encountered ")" at line 3, column 1.'),
    ('SELECT a,b,\nFROM t;',
     "Incorrect syntax near the keyword 'FROM' at line 2, column 1."),
    ('SELECT\n  a,\n  b,\nFROM t\nWHERE a > 1;',
     "Incorrect syntax near the keyword 'FROM' at line 4, column 1."),
    ('SELECT a FROM t WHERE a IN (\n);',
     'Encountered ")" at line 2, column 1.'),
    ("CREATE TABLE x (\n  a INT,\n  b STRING,\n) WITH ('connector' = 'datagen');",
     'Encountered ")" at line 4, column 1.'),
    ("CREATE TABLE x (a INT, b STRING) WITH (\n  'connector' = 'datagen',\n  'number-of-rows' = '10',\n);",
     'Encountered ")" at line 4, column 1.'),
    ('SELECT * FROM t WHERE\n;',
     'Encountered ";" at line 2, column 1.'),
    ('SELECT * FROM t WHERE a > 1 AND\n  ORDER BY a;',
     "Incorrect syntax near the keyword 'AND' at line 1, column 29."),
    ('SELECT a FROM\n;',
     'Encountered ";" at line 2, column 1.'),
    ('SELECT a FROM t WHERE a = 1 -- trailing comment\nAND;',
     "Incorrect syntax near the keyword 'AND' at line 2, column 1."),
    ('SELECT a, -- c\nFROM t;',
     "Incorrect syntax near the keyword 'FROM' at line 2, column 1."),
]


def _fixture() -> list[tuple[str, str]]:
    lines = [line for line in FIXTURE.read_text().splitlines() if line and not line.startswith("--")]
    assert all(b.startswith("==> ") for b in lines[1::2]), "every statement needs a ==> line"
    return [(a, b[4:]) for a, b in zip(lines[::2], lines[1::2])]


def first_line(script: str) -> str:
    """The first line of sqlengine's error for ``script`` (``OK`` when it parses)."""
    try:
        parse_script(script)
    except SqlSyntaxError as err:
        return err.message.splitlines()[0]
    return "OK"


@pytest.mark.parametrize("name,script,flink", PROBES, ids=[p[0] for p in PROBES])
def test_probe_scripts_fail_with_flinks_message(name, script, flink):
    assert first_line(script) == f"SQL parse failed. {flink}"


@pytest.mark.parametrize("sql,flink", _fixture())
def test_statement_fails_or_parses_as_in_flink(sql, flink):
    assert first_line(sql) == ("OK" if flink == "OK" else f"SQL parse failed. {flink}")


@pytest.mark.parametrize("sql,flink", MULTILINE)
def test_multiline_statement_fails_as_in_flink(sql, flink):
    assert first_line(sql) == f"SQL parse failed. {flink}"


@pytest.mark.xfail(reason="the SQL Client parses a line of several statements at once", strict=True)
def test_two_statements_on_one_line_are_refused():
    assert first_line(SINGLE_STATEMENT_LINE) == "only single statement supported"


# -- where the error is shown -------------------------------------------------------------------
def render(script: str) -> list[str]:
    with pytest.raises(SqlSyntaxError) as info:
        parse_script(script)
    return info.value.render().splitlines()


def test_a_later_statement_says_which_line_of_the_script_it_is():
    """Flink counts from the line after the previous statement (p17: line 4); the place
    under the message is the script's line, with the caret on the token Flink names."""
    assert render(dict((p[0], p[1]) for p in PROBES)["p17"]) == [
        "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 4, column 3.",
        "  at line 5 of the script, column 3:",
        "    FROM FROM t;",
        "    ^^^^"]


def test_the_first_statement_has_the_plain_place():
    assert render("SELECT a + FROM t;")[1:] == ["  at line 1, column 10:", "  SELECT a + FROM t;", "           ^"]


def test_two_statements_on_one_line_count_columns_of_the_line():
    assert render("SELECT 1;\nSELECT a FROM t; SELECT a FROM FROM t;")[:2] == [
        "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 32.",
        "  at line 2 of the script, column 32:"]


@pytest.mark.parametrize("script", ["SELECT * FROM t WHERE", "SELECT * FROM t WHERE\n\n  "])
def test_a_statement_without_semicolon_at_the_end_of_input_names_eof(script):
    """As Flink's execute_sql(statement): <EOF> at the statement's last character."""
    assert render(script)[:2] == ['SQL parse failed. Encountered "<EOF>" at line 1, column 21.',
                                  "  at line 1, column 21:"]


def test_an_unterminated_string_is_a_lone_quote():
    """Flink's SQL Client waits for the quote to close (the rest of the file is dropped);
    execute_sql reports this (p08)."""
    assert first_line("SELECT 'abc FROM t;\n") == "SQL parse failed. Encountered \"\\'\" at line 1, column 8."
    assert first_line("SELECT a FROM t WHERE a = 'x;") == \
        "SQL parse failed. Encountered \"= \\'\" at line 1, column 25."


def test_valid_flink_sql_still_parses():
    statements = parse_script(
        "SELECT `order`, `value` AS `year`, a AS data FROM t AS `select` ORDER BY 1;\n"
        "SELECT a FROM t WHERE a IN (1, 2) AND b LIKE 'x%' ESCAPE '\\' GROUP BY a HAVING COUNT(*) > 1 "
        "ORDER BY a LIMIT 10 OFFSET 2;\n"
        "SELECT TIMESTAMPDIFF(DAY, ts, ts), EXTRACT(YEAR FROM ts), CURRENT_TIMESTAMP, USER, "
        "CAST(a AS STRING), ARRAY[1, 2], MAP['k', 1], INTERVAL '1' DAY FROM t;\n"
        "CREATE TABLE s (a INT NOT NULL COMMENT 'c', b AS a + 1, ts TIMESTAMP(3), "
        "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) "
        "COMMENT 'x' PARTITIONED BY (a) WITH ();\n"
        "INSERT INTO s SELECT * FROM t t1 JOIN t t2 ON t1.a = t2.a LEFT JOIN t t3 USING (a);\n")
    assert len(statements) == 5
