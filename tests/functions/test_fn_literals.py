"""Datetime literals and the MAP value constructor, bound from SQL text.

Expected types and strings follow Flink: a datetime literal has the precision of the
fraction as written (``TIMESTAMP '... 08:05:00.12'`` is ``TIMESTAMP(2) NOT NULL``), while
``CAST('...' AS TIMESTAMP)`` is ``TIMESTAMP(6)``; ``MAP[k, v, ...]`` is a
``MAP<K, V> NOT NULL`` whose repeated keys keep their last value (FLINK-25699) and which
the SQL client prints as ``{a=1, b=2}``.
"""
from __future__ import annotations

import pytest

from sqlengine.dialect import parse_script
from sqlengine.errors import SqlEngineError, ValidationError
from sqlengine.api.session import Session


def types_of(sql: str) -> list[str]:
    """The Flink types of a query's columns (binding only, no Spark)."""
    stmt = parse_script(sql)[0]
    plan = Session().binder(stmt.span.source).bind_query(stmt.node)
    return [str(f.type) for f in plan.schema]


@pytest.fixture(scope="module")
def batch(spark) -> Session:
    return Session({"execution.runtime-mode": "batch"}, spark=spark)


def one_row(session: Session, sql: str) -> list:
    result = session.execute_sql(sql)
    assert len(result.rows) == 1, result.rows
    return result.rows[0]


@pytest.mark.parametrize("literal,expected", [
    ("TIMESTAMP '2020-04-15 08:05:00'", "TIMESTAMP(0) NOT NULL"),
    ("TIMESTAMP '2020-04-15 08:05:00.12'", "TIMESTAMP(2) NOT NULL"),
    ("TIMESTAMP '2020-04-15 08:05:00.120'", "TIMESTAMP(3) NOT NULL"),
    ("TIMESTAMP '2020-04-15 08:05:00.123456789'", "TIMESTAMP(9) NOT NULL"),
    ("TIMESTAMP WITH LOCAL TIME ZONE '2020-04-15 08:05:00.1'", "TIMESTAMP_LTZ(1) NOT NULL"),
    ("TIMESTAMP_LTZ '2020-04-15 08:05:00'", "TIMESTAMP_LTZ(0) NOT NULL"),
    ("TIME '10:00:00'", "TIME(0) NOT NULL"),
    ("TIME '10:00:00.5'", "TIME(1) NOT NULL"),
    ("DATE '2020-04-15'", "DATE NOT NULL"),
    # a CAST keeps the default precision of its target
    ("CAST('2020-04-15 08:05:00' AS TIMESTAMP)", "TIMESTAMP(6) NOT NULL"),
    ("CAST('2020-04-15 08:05:00.12' AS TIMESTAMP(3))", "TIMESTAMP(3) NOT NULL"),
])
def test_datetime_literal_types(literal, expected):
    assert types_of(f"SELECT {literal}") == [expected]


def test_literal_precision_carries_into_expressions():
    assert types_of("SELECT COALESCE(TIMESTAMP '2020-04-15 08:05:00', "
                    "TIMESTAMP '2020-04-15 08:05:00.12')") == ["TIMESTAMP(2) NOT NULL"]


@pytest.mark.parametrize("literal,message", [
    ("TIMESTAMP '2020-13-01 00:00:00'", "Illegal TIMESTAMP literal '2020-13-01 00:00:00': "
                                        "not in format 'yyyy-MM-dd HH:mm:ss'"),
    ("TIMESTAMP '2024-02-03 12:12'", "Illegal TIMESTAMP literal '2024-02-03 12:12'"),
    ("TIME '12:12'", "Illegal TIME literal '12:12': not in format 'HH:mm:ss'"),
    ("TIME '25:00:00'", "Illegal TIME literal '25:00:00'"),
    ("DATE '2020-02-30'", "Illegal DATE literal '2020-02-30': not in format 'yyyy-MM-dd'"),
    ("TIMESTAMP_LTZ 'x'", "Illegal TIMESTAMP WITH LOCAL TIME ZONE literal 'x'"),
])
def test_malformed_datetime_literal(literal, message):
    with pytest.raises(ValidationError) as err:
        types_of(f"SELECT {literal}")
    assert message in err.value.message


def test_datetime_literal_values(batch):
    row = one_row(batch, """SELECT
        CAST(TIMESTAMP '2020-04-15 08:05:00' AS STRING),
        CAST(TIMESTAMP '2020-04-15 08:05:00.12' AS STRING),
        CAST(TIMESTAMP '2020-04-15 08:05:00.123' AS STRING),
        CAST(TIMESTAMP '2020-4-5 8:05:00.1' AS STRING),
        CAST(TIMESTAMP_LTZ '2020-04-15 08:05:00.5' AS STRING),
        CAST(TIME '10:00:00' AS STRING),
        CAST(TIME '10:00:00.5' AS STRING),
        CAST(DATE '2020-4-5' AS STRING),
        TYPEOF(TIMESTAMP '2020-04-15 08:05:00.12'),
        TIMESTAMP '2020-04-15 08:05:00.12' = CAST('2020-04-15 08:05:00.12' AS TIMESTAMP(3))""")
    assert row == ["2020-04-15 08:05:00", "2020-04-15 08:05:00.12", "2020-04-15 08:05:00.123",
                   "2020-04-05 08:05:00.1", "2020-04-15 08:05:00.5", "10:00:00", "10:00:00.5",
                   "2020-04-05", "TIMESTAMP(2) NOT NULL", True]


def test_view_over_literals_describes_their_types(batch):
    batch.execute_sql("CREATE TEMPORARY VIEW literal_view AS SELECT "
                      "TIMESTAMP '2020-04-15 08:05:00' AS a, "
                      "TIMESTAMP '2020-04-15 08:05:00.12' AS b, TIME '10:00:00.123' AS c, "
                      "MAP['a', 1, 'b', 2] AS m")
    described = {r[0]: r[1:3] for r in batch.execute_sql("DESCRIBE literal_view").rows}
    assert described == {"a": ["TIMESTAMP(0)", "FALSE"], "b": ["TIMESTAMP(2)", "FALSE"],
                         "c": ["TIME(3)", "FALSE"], "m": ["MAP<CHAR(1) NOT NULL, INT NOT NULL>", "FALSE"]}


# -- MAP[...] ----------------------------------------------------------------------------
@pytest.mark.parametrize("expr,expected", [
    ("MAP['a', 1, 'b', 2]", "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL"),
    ("MAP['a', 1, 'bb', 2.5]", "MAP<VARCHAR(2) NOT NULL, DECIMAL(11, 1) NOT NULL> NOT NULL"),
    ("MAP[1, 'x', 2, CAST(NULL AS STRING)]", "MAP<INT NOT NULL, STRING> NOT NULL"),
    ("MAP['a', 1, 'b', 2]['a']", "INT"),
    ("CARDINALITY(MAP['a', 1])", "INT NOT NULL"),
    ("MAP['k', ARRAY[1, 2]]", "MAP<CHAR(1) NOT NULL, ARRAY<INT NOT NULL> NOT NULL> NOT NULL"),
])
def test_map_constructor_types(expr, expected):
    assert types_of(f"SELECT {expr}") == [expected]


def test_map_constructor_values(batch):
    result = batch.execute_sql("""SELECT MAP['a', 1, 'b', 2], CARDINALITY(MAP['a', 1, 'b', 2]),
        MAP['a', 1, 'b', 2]['b'], MAP['a', 1, 'b', 2]['z'], MAP[1, 2, 1, 3, 2, 5],
        CAST(MAP['a', 1, 'b', 2] AS STRING)""")
    assert result.rows == [[{"a": 1, "b": 2}, 2, 2, None, {1: 3, 2: 5}, "{a=1, b=2}"]]
    assert "| {a=1, b=2} |" in result.render()


def test_map_with_column_keys_keeps_the_last_value_of_a_repeated_key(batch):
    result = batch.execute_sql("SELECT MAP[k, 1, 'b', 2, k, 3] FROM (VALUES ('a'), ('b')) AS t(k)")
    assert sorted(result.rows, key=str) == [[{"a": 3, "b": 2}], [{"b": 3}]]


def test_map_constructor_errors():
    with pytest.raises(SqlEngineError, match="^Map requires an even number of arguments"):  # Flink 2.3's
        types_of("SELECT MAP['a', 1, 'b']")
    with pytest.raises(ValidationError, match="MAP constructor"):
        types_of("SELECT MAP['a', 1, 2, 2]")


def test_binary_literal():
    """``X'41'`` is a ``BINARY(n) NOT NULL`` of its bytes; an odd number of hex digits is
    Flink's error."""
    assert types_of("SELECT X'41', x'00ff10'") == ["BINARY(1) NOT NULL", "BINARY(3) NOT NULL"]
    with pytest.raises(ValidationError, match="even number of hexits"):
        types_of("SELECT X'411'")


def test_binary_literal_values(batch):
    assert one_row(batch, "SELECT X'41', CAST(x'4142' AS STRING), x'00ff' = CAST(x'00ff' AS BYTES)") == \
        [b"A", "AB", True]


def test_binary_values_print_as_flink_does(batch):
    """Flink's tableau prints BYTES as ``x'<hex>'`` (checked with Flink 2.3)."""
    shown = batch.execute_sql("SELECT X'41', CAST('ab' AS BYTES), CAST(NULL AS BYTES), X'00ff'").render()
    assert "| x'41' | x'6162' | <NULL> | x'00ff' |" in " ".join(shown.split()).replace("| |", "|")
