"""Invariants of the catalog objects."""
from __future__ import annotations

import pytest

from catalog.objects import (
    CatalogDatabase,
    CatalogFunction,
    CatalogTable,
    CatalogView,
    Column,
    ObjectPath,
    TableSchema,
    WatermarkSpec,
)
from sqlengine.errors import CatalogError
from sqlengine.types import BIGINT, INT, STRING, TIMESTAMP


def test_object_path_printing():
    p = ObjectPath("cat", "db", "t")
    assert str(p) == "cat.db.t"
    assert p.quoted() == "`cat`.`db`.`t`"
    assert ObjectPath("c", "d", "we`ird").quoted() == "`c`.`d`.`we``ird`"
    assert p.with_name("u") == ObjectPath("cat", "db", "u")


def test_schema_helpers_are_case_sensitive():
    s = TableSchema((Column("a", INT()), Column("A", STRING()),
                     Column("c", INT(), "computed", "a + 1")))
    assert s.column("A").type == STRING()
    assert s.column("a").type == INT()
    assert s.column("b") is None
    assert s.names() == ("a", "A", "c")
    assert [c.name for c in s.physical_columns()] == ["a", "A"]
    assert str(s.physical_row_type()) == "ROW<`a` INT, `A` STRING> NOT NULL"


def test_duplicate_column_names_are_rejected():
    with pytest.raises(CatalogError, match="A regular Column named 'a' already exists in the table."):
        TableSchema((Column("a", INT()), Column("a", STRING())))


def test_watermark_and_key_must_reference_columns():
    with pytest.raises(CatalogError, match="Watermark column `ts` is not a column"):
        TableSchema((Column("a", INT()),), (WatermarkSpec("ts", "ts"),))
    with pytest.raises(CatalogError, match="Primary key column `id` is not a column"):
        TableSchema((Column("a", INT()),), primary_key=("id",))


def test_primary_key_columns_become_not_null_like_flink():
    s = TableSchema((Column("id", BIGINT()), Column("v", STRING())), primary_key=["id"])
    assert s.primary_key == ("id",)
    assert s.column("id").type.nullable is False
    assert s.column("v").type.nullable is True
    assert s.primary_key_constraint_name() == "PK_id"
    named = TableSchema((Column("a", INT()), Column("b", INT())), primary_key=("a", "b"))
    assert named.primary_key_constraint_name() == "PK_a_b"
    assert TableSchema((Column("a", INT()),), primary_key=("a",),
                       primary_key_name="pk").primary_key_constraint_name() == "pk"


def test_column_kind_rules():
    with pytest.raises(CatalogError, match="Unknown column kind 'virtual'"):
        Column("a", INT(), "virtual")
    with pytest.raises(CatalogError, match="Computed column `a` needs an expression"):
        Column("a", INT(), "computed")
    with pytest.raises(CatalogError, match="only metadata columns"):
        Column("a", INT(), virtual=True)
    assert Column("m", INT(), "metadata", virtual=True).is_persisted is False
    assert Column("m", INT(), "metadata").is_persisted is True


def test_table_options_and_partition_keys():
    s = TableSchema((Column("a", INT()), Column("b", INT(), "computed", "a")))
    t = CatalogTable(s, {"connector": "filesystem", "path": "/x"}, ["a"])
    assert t.options == (("connector", "filesystem"), ("path", "/x"))
    assert t.options_dict() == {"connector": "filesystem", "path": "/x"}
    assert t.partition_keys == ("a",)
    assert t.kind == "TABLE"
    with pytest.raises(CatalogError, match="Partition column 'b' not defined in the table schema"):
        CatalogTable(s, (), ("b",))
    with pytest.raises(CatalogError, match="given more than once: k"):
        CatalogTable(s, (("k", "1"), ("k", "2")))


def test_objects_are_frozen_and_kinds_are_flink_names():
    v = CatalogView("SELECT 1", TableSchema((Column("x", INT()),)))
    assert v.kind == "VIEW"
    with pytest.raises(AttributeError):
        v.query_sql = "SELECT 2"  # type: ignore[misc]


def test_function_language_is_validated():
    assert CatalogFunction("m.f").language == "PYTHON"
    with pytest.raises(CatalogError, match="Unknown function language 'RUST'"):
        CatalogFunction("m.f", "RUST")


def test_database_properties_accept_a_mapping():
    assert CatalogDatabase("c", {"a": "1"}).properties == (("a", "1"),)


def test_timestamp_column_keeps_type():
    s = TableSchema((Column("ts", TIMESTAMP(3)),), (WatermarkSpec("ts", "ts"),))
    assert s.watermark_for("ts").expr_sql == "ts"
    assert s.watermark_for("x") is None
