"""The Catalog contract, run against InMemoryCatalog and FileCatalog alike."""
from __future__ import annotations

import pytest

from catalog.objects import CatalogFunction, CatalogTable, CatalogView, Column, TableSchema
from sqlengine.errors import CatalogError
from sqlengine.types import INT


# -- databases ---------------------------------------------------------------------
def test_default_database_exists_from_the_start(cat):
    assert cat.list_databases() == ["default_database"]
    assert cat.database_exists("default_database")
    assert cat.default_database == "default_database"


def test_create_and_drop_database(cat):
    cat.create_database("db1", False, comment="first", properties={"k": "v"})
    assert cat.list_databases() == ["db1", "default_database"]
    spec = cat.get_database("db1")
    assert spec.comment == "first" and spec.properties == (("k", "v"),)
    cat.drop_database("db1", False)
    assert not cat.database_exists("db1")


def test_create_existing_database_fails_unless_ignored(cat):
    cat.create_database("db1", False)
    with pytest.raises(CatalogError, match="Database db1 already exists in Catalog c"):
        cat.create_database("db1", False)
    cat.create_database("db1", True)
    assert cat.list_databases().count("db1") == 1


def test_drop_missing_database(cat):
    with pytest.raises(CatalogError, match="Database nope does not exist in Catalog c"):
        cat.drop_database("nope", False)
    cat.drop_database("nope", True)


def test_drop_non_empty_database_needs_cascade(cat, table, function):
    cat.create_database("db1", False)
    cat.create_table("db1", "t", table, False)
    with pytest.raises(CatalogError, match="Database db1 in catalog c is not empty"):
        cat.drop_database("db1", False)
    cat.drop_database("db1", False, cascade=True)
    assert not cat.database_exists("db1")
    cat.create_database("db1", False)
    assert cat.list_tables("db1") == []


def test_database_with_only_functions_is_not_empty(cat, function):
    cat.create_database("db1", False)
    cat.create_function("db1", "f", function, False)
    with pytest.raises(CatalogError, match="not empty"):
        cat.drop_database("db1", False)


# -- tables and views ------------------------------------------------------------------
def test_create_get_list_table(cat, table, view):
    cat.create_table("default_database", "t", table, False)
    cat.create_table("default_database", "v", view, False)
    assert cat.list_tables("default_database") == ["t", "v"]
    assert cat.list_views("default_database") == ["v"]
    assert cat.get_table("default_database", "t") == table
    assert cat.get_table("default_database", "v") == view
    assert cat.table_exists("default_database", "t")
    assert not cat.table_exists("default_database", "T")


def test_table_names_are_case_sensitive(cat, table, view):
    cat.create_table("default_database", "t", table, False)
    cat.create_table("default_database", "T", view, False)
    assert cat.list_tables("default_database") == ["T", "t"]
    assert isinstance(cat.get_table("default_database", "T"), CatalogView)
    assert isinstance(cat.get_table("default_database", "t"), CatalogTable)


def test_create_existing_table_fails_unless_ignored(cat, table, view):
    cat.create_table("default_database", "t", table, False)
    with pytest.raises(CatalogError, match=r"Table \(or view\) default_database.t already exists in Catalog c\."):
        cat.create_table("default_database", "t", view, False)
    cat.create_table("default_database", "t", view, True)
    assert cat.get_table("default_database", "t") == table  # the original is kept


def test_get_missing_table(cat):
    with pytest.raises(CatalogError, match=r"Table \(or view\) `c`.`default_database`.`x` does not exist"):
        cat.get_table("default_database", "x")
    with pytest.raises(CatalogError, match=r"`c`.`nodb`.`x` does not exist"):
        cat.get_table("nodb", "x")


def test_create_table_in_missing_database(cat, table):
    with pytest.raises(CatalogError, match="Database nodb does not exist in Catalog c"):
        cat.create_table("nodb", "t", table, False)


def test_list_tables_of_missing_database(cat):
    with pytest.raises(CatalogError, match="Database nodb does not exist"):
        cat.list_tables("nodb")


def test_drop_table_checks_kind(cat, table, view):
    cat.create_table("default_database", "t", table, False)
    cat.create_table("default_database", "v", view, False)
    with pytest.raises(CatalogError, match="Table with identifier 'c.default_database.v' does not exist") as err:
        cat.drop_table("default_database", "v", False, is_view=False)
    assert "is a view" in err.value.render()
    with pytest.raises(CatalogError, match="View with identifier 'c.default_database.t' does not exist"):
        cat.drop_table("default_database", "t", False, is_view=True)
    assert cat.list_tables("default_database") == ["t", "v"]
    cat.drop_table("default_database", "v", False, is_view=True)
    cat.drop_table("default_database", "t", False, is_view=False)
    assert cat.list_tables("default_database") == []


def test_drop_missing_table(cat):
    with pytest.raises(CatalogError, match="does not exist"):
        cat.drop_table("default_database", "x", False, None)
    cat.drop_table("default_database", "x", True, None)
    cat.drop_table("nodb", "x", True, None)


def test_alter_table_replaces_definition_but_not_kind(cat, table, view):
    cat.create_table("default_database", "t", table, False)
    altered = CatalogTable(table.schema, (("connector", "print"),))
    cat.alter_table("default_database", "t", altered)
    assert cat.get_table("default_database", "t").options_dict() == {"connector": "print"}
    with pytest.raises(CatalogError, match="Table types don't match"):
        cat.alter_table("default_database", "t", view)
    with pytest.raises(CatalogError, match="does not exist"):
        cat.alter_table("default_database", "missing", altered)


def test_rename_table(cat, table, view):
    cat.create_table("default_database", "t", table, False)
    cat.create_table("default_database", "v", view, False)
    cat.rename_table("default_database", "t", "t2")
    assert cat.list_tables("default_database") == ["t2", "v"]
    assert cat.get_table("default_database", "t2") == table
    with pytest.raises(CatalogError, match="`v` already exists"):
        cat.rename_table("default_database", "t2", "v")
    assert cat.get_table("default_database", "t2") == table
    with pytest.raises(CatalogError, match="does not exist"):
        cat.rename_table("default_database", "t", "t3")


def test_only_tables_and_views_are_stored_as_tables(cat, function):
    with pytest.raises(CatalogError, match="Expected a CatalogTable or CatalogView"):
        cat.create_table("default_database", "f", function, False)


# -- functions ---------------------------------------------------------------------------
def test_functions_are_case_insensitive(cat, function):
    cat.create_function("default_database", "PlusOne", function, False)
    assert cat.list_functions("default_database") == ["plusone"]
    assert cat.get_function("default_database", "PLUSONE") == function
    assert cat.function_exists("default_database", "plusone")
    with pytest.raises(CatalogError, match="Function default_database.plusone already exists in Catalog c."):
        cat.create_function("default_database", "plusONE", function, False)
    cat.create_function("default_database", "plusONE", function, True)


def test_alter_and_drop_function(cat, function):
    cat.create_function("default_database", "f", function, False)
    java = CatalogFunction("com.example.F", "JAVA")
    cat.alter_function("default_database", "F", java)
    assert cat.get_function("default_database", "f") == java
    cat.drop_function("default_database", "F", False)
    assert cat.list_functions("default_database") == []
    with pytest.raises(CatalogError, match="Function default_database.f does not exist in Catalog c."):
        cat.drop_function("default_database", "f", False)
    cat.drop_function("default_database", "f", True)
    with pytest.raises(CatalogError, match="does not exist"):
        cat.get_function("default_database", "f")


def test_tables_and_functions_have_separate_namespaces(cat, table, function):
    cat.create_table("default_database", "x", table, False)
    cat.create_function("default_database", "x", function, False)
    assert cat.list_tables("default_database") == ["x"]
    assert cat.list_functions("default_database") == ["x"]


def test_schema_round_trips_through_catalog(cat):
    schema = TableSchema((Column("a", INT(False), comment="c'a"),
                          Column("m", INT(), "metadata", metadata_key="offset", virtual=True)))
    t = CatalogTable(schema, {"connector": "kafka"}, comment="tbl")
    cat.create_table("default_database", "t", t, False)
    assert cat.get_table("default_database", "t") == t
