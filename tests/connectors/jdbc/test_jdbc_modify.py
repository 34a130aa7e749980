"""DELETE FROM / UPDATE / TRUNCATE TABLE on a jdbc table, against a real PostgreSQL: done by
PostgreSQL in batch mode, refused in streaming mode with Flink's words; a condition
PostgreSQL cannot evaluate is refused before any row changes."""
from __future__ import annotations

import pytest

from sqlengine.api.session import Session
from sqlengine.errors import SqlEngineError

COLUMNS = "id INT, name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED"


@pytest.fixture
def session(spark, tmp_path):
    s = Session({"execution.checkpointing.dir": str(tmp_path / "ck")}, spark=spark)
    s.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    return s


@pytest.fixture
def items(session, postgres):
    t = postgres.new_table("id int PRIMARY KEY, name text, price numeric(10,2)")
    postgres.run(f"INSERT INTO {t} VALUES (1, 'apple', 1.50), (2, 'pear', 2.25), (3, 'plum', NULL), (4, 'fig', 9.00)")
    session.execute_sql(postgres.ddl("items", t, COLUMNS))
    return t


def rows(postgres, t):
    return postgres.run(f"SELECT id, name, price::text FROM {t} ORDER BY id")


def test_delete_with_a_condition_deletes_those_rows(session, postgres, items):
    result = session.execute_sql("DELETE FROM items WHERE price > 2 AND name <> 'fig' OR price IS NULL")
    assert result.render() == "[INFO] Execute statement succeeded."
    assert rows(postgres, items) == [(1, "apple", "1.50"), (4, "fig", "9.00")]
    session.execute_sql("DELETE FROM items AS i WHERE i.id IN (1, 7) OR UPPER(i.name) LIKE 'F%'")
    assert rows(postgres, items) == []


def test_delete_without_a_condition_empties_the_table(session, postgres, items):
    session.execute_sql("DELETE FROM items")
    assert rows(postgres, items) == []


def test_update_sets_values_computed_from_the_row(session, postgres, items):
    session.execute_sql("UPDATE items SET price = price * 2 + 1, name = name || '!' WHERE id BETWEEN 2 AND 3")
    assert rows(postgres, items) == [(1, "apple", "1.50"), (2, "pear!", "5.50"), (3, "plum!", None),
                                     (4, "fig", "9.00")]
    session.execute_sql("UPDATE items SET price = CAST(NULL AS DECIMAL(10, 2))")
    assert [r[2] for r in rows(postgres, items)] == [None] * 4


def test_truncate_empties_the_table(session, postgres, items):
    assert session.execute_sql("TRUNCATE TABLE items").render() == "[INFO] Execute statement succeeded."
    assert rows(postgres, items) == []


def test_streaming_mode_refuses_them_with_flinks_words(session, postgres, items):
    session.execute_sql("SET 'execution.runtime-mode' = 'streaming'")
    for sql, message in [("DELETE FROM items WHERE id = 1", "DELETE statement is not supported for streaming mode now."),
                         ("UPDATE items SET name = 'x'", "UPDATE statement is not supported for streaming mode now."),
                         ("TRUNCATE TABLE items", "TRUNCATE TABLE statement is not supported in streaming mode.")]:
        with pytest.raises(SqlEngineError) as err:
            session.execute_sql(sql)
        assert err.value.message == message
    assert len(rows(postgres, items)) == 4


def test_what_postgresql_cannot_evaluate_is_refused_before_any_change(session, postgres, items):
    with pytest.raises(SqlEngineError, match=r"PostgreSQL cannot evaluate the WHERE condition \(function MD5\)"):
        session.execute_sql("DELETE FROM items WHERE MD5(name) = 'x'")
    with pytest.raises(SqlEngineError, match="Unknown target column 'nope'"):
        session.execute_sql("UPDATE items SET nope = 1")
    with pytest.raises(SqlEngineError, match="Cannot assign to target field 'id' of type INTEGER from source field "
                                             r"'EXPR\$0' of type CHAR\(1\)"):
        session.execute_sql("UPDATE items SET id = 'x'")
    assert len(rows(postgres, items)) == 4


def test_connectors_without_the_ability_are_refused_as_flink_refuses_them(session, tmp_path):
    session.execute_sql(f"CREATE TABLE fs (id INT, name STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp_path / 'fs'}', 'format' = 'csv')")
    session.execute_sql("CREATE TABLE gen (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    session.execute_sql("CREATE TABLE bh (id INT) WITH ('connector' = 'blackhole')")
    ability = "org.apache.flink.table.connector.sink.abilities."
    cases = [
        ("DELETE FROM fs WHERE id = 1", "Can't perform delete operation of the table default_catalog.default_database.fs "
         f"because the corresponding dynamic table sink has not yet implemented {ability}SupportsRowLevelDelete."),
        ("UPDATE fs SET name = 'x'", "Can't perform update operation of the table default_catalog.default_database.fs "
         f"because the corresponding dynamic table sink has not yet implemented {ability}SupportsRowLevelUpdate."),
        ("TRUNCATE TABLE fs", "TRUNCATE TABLE statement is not supported for the table default_catalog.default_database"
         f".fs since the table hasn't implemented the interface {ability}SupportsTruncate."),
        ("DELETE FROM gen", "Connector 'datagen' can only be used as a source. It cannot be used as a sink."),
        ("DELETE FROM bh", "Connector 'blackhole' can only be used as a sink. It cannot be used as a source."),
        ("DELETE FROM fs WHERE id", "WHERE clause must be a condition"),
        ("DELETE FROM nope", "Object 'nope' not found"),
        ("TRUNCATE TABLE nope", "Cannot find table '`default_catalog`.`default_database`.`nope`' in any of the "
         "catalogs [default_catalog], nor as a temporary table."),
    ]
    for sql, message in cases:
        with pytest.raises(SqlEngineError) as err:
            session.execute_sql(sql)
        assert err.value.message == message, sql
