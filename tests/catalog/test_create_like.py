"""CREATE TABLE ... LIKE (Flink's MergeTableLikeUtil): the expected SHOW CREATE TABLE text and
errors were printed by Flink 2.3.0 for the same statements."""
from __future__ import annotations

import pytest

from sqlengine.errors import ValidationError
from sqlengine.api.session import Session

BASE = ("CREATE TABLE base (id INT, name STRING, ts TIMESTAMP(3), c AS id * 2, PRIMARY KEY (id) NOT ENFORCED, "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        "WITH ('connector' = 'filesystem', 'path' = 'file:///tmp/x', 'format' = 'json')")


@pytest.fixture
def session():
    s = Session({})
    s.execute_sql(BASE)
    return s


def show(session, ddl: str) -> str:
    session.execute_sql(ddl)
    return session.execute_sql(f"SHOW CREATE TABLE {ddl.split()[2]}").collect()[0][0].strip()


def test_like_includes_all_and_overwrites_options(session):
    assert show(session, "CREATE TABLE t1 (extra STRING) WITH ('path' = 'file:///tmp/y') LIKE base") == """\
CREATE TABLE `default_catalog`.`default_database`.`t1` (
  `id` INT NOT NULL,
  `name` VARCHAR(2147483647),
  `ts` TIMESTAMP(3),
  `c` AS `id` * 2,
  `extra` VARCHAR(2147483647),
  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,
  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED
)
WITH (
  'connector' = 'filesystem',
  'format' = 'json',
  'path' = 'file:///tmp/y'
)"""


def test_like_options_exclude_and_overwrite(session):
    assert show(session, "CREATE TABLE t2 WITH ('connector' = 'blackhole') LIKE base (EXCLUDING ALL)") == """\
CREATE TABLE `default_catalog`.`default_database`.`t2` (
  `id` INT NOT NULL,
  `name` VARCHAR(2147483647),
  `ts` TIMESTAMP(3)
)
WITH (
  'connector' = 'blackhole'
)"""
    assert show(session, "CREATE TABLE t3 (WATERMARK FOR ts AS ts) WITH ('format' = 'csv') LIKE base "
                         "(OVERWRITING WATERMARKS EXCLUDING GENERATED EXCLUDING CONSTRAINTS)") == """\
CREATE TABLE `default_catalog`.`default_database`.`t3` (
  `id` INT NOT NULL,
  `name` VARCHAR(2147483647),
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS `ts`
)
WITH (
  'connector' = 'filesystem',
  'format' = 'csv',
  'path' = 'file:///tmp/x'
)"""


@pytest.mark.parametrize("ddl, message", [
    ("CREATE TABLE t4 (WATERMARK FOR ts AS ts) LIKE base",
     "There already exists a watermark spec for column 'ts' in the base table. You might want to specify "
     "EXCLUDING WATERMARKS or OVERWRITING WATERMARKS."),
    ("CREATE TABLE t5 (id BIGINT) LIKE base", "A column named 'id' already exists in the base table."),
    ("CREATE TABLE t6 WITH ('format' = 'csv') LIKE base (INCLUDING OPTIONS)",
     "There already exists an option ['format' -> 'json']  in the base table. You might want to specify "
     "EXCLUDING OPTIONS or OVERWRITING OPTIONS."),
])
def test_like_clashes_are_flinks_errors(session, ddl, message):
    with pytest.raises(ValidationError) as err:
        session.execute_sql(ddl)
    assert message in str(err.value)
