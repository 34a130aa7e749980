"""CatalogManager: current catalog/database, qualification, temporary objects."""
from __future__ import annotations

import pytest

from catalog.factory import create_catalog
from catalog.manager import CatalogManager
from catalog.memory import InMemoryCatalog
from catalog.objects import CatalogFunction, CatalogTable, ObjectPath
from sqlengine.errors import CatalogError


@pytest.fixture
def mgr() -> CatalogManager:
    return CatalogManager()


def p(name: str, db: str = "default_database", cat: str = "default_catalog") -> ObjectPath:
    return ObjectPath(cat, db, name)


def test_starts_with_flinks_default_catalog(mgr):
    assert mgr.list_catalogs() == ["default_catalog"]
    assert (mgr.current_catalog, mgr.current_database) == ("default_catalog", "default_database")
    assert mgr.list_databases() == ["default_database"]
    assert isinstance(mgr.get_catalog("default_catalog"), InMemoryCatalog)


def test_qualify(mgr):
    assert mgr.qualify(["t"]) == p("t")
    assert mgr.qualify(["db", "t"]) == p("t", "db")
    assert mgr.qualify(["c", "db", "t"]) == ObjectPath("c", "db", "t")
    mgr.register_catalog("c2", InMemoryCatalog("c2", "d2"))
    mgr.use_catalog("c2")
    assert mgr.qualify(["t"]) == ObjectPath("c2", "d2", "t")
    assert mgr.qualify(("x", "t")) == ObjectPath("c2", "x", "t")
    for bad in ([], ["a", "b", "c", "d"], ["", "t"]):
        with pytest.raises(CatalogError, match="Invalid object name"):
            mgr.qualify(bad)


def test_register_use_and_unregister_catalogs(mgr):
    mgr.register_catalog("mine", create_catalog("mine", {"type": "generic_in_memory",
                                                          "default-database": "db"}))
    with pytest.raises(CatalogError, match="Catalog mine already exists."):
        mgr.register_catalog("mine", InMemoryCatalog("mine"))
    mgr.register_catalog("mine", InMemoryCatalog("mine"), ignore_if_exists=True)
    assert mgr.list_catalogs() == ["default_catalog", "mine"]
    mgr.use_catalog("mine")
    assert (mgr.current_catalog, mgr.current_database) == ("mine", "db")
    with pytest.raises(CatalogError, match="Cannot drop a catalog which is currently in use."):
        mgr.unregister_catalog("mine")
    mgr.use_catalog("default_catalog")
    mgr.unregister_catalog("mine")
    assert mgr.list_catalogs() == ["default_catalog"]
    with pytest.raises(CatalogError, match="Catalog mine does not exist."):
        mgr.unregister_catalog("mine")
    mgr.unregister_catalog("mine", ignore_if_not_exists=True)


def test_use_missing_catalog_or_database(mgr):
    with pytest.raises(CatalogError, match=r"A catalog with name \[nope\] does not exist."):
        mgr.use_catalog("nope")
    with pytest.raises(CatalogError, match=r"A database with name \[nodb\] does not exist in "
                                           r"the catalog: \[default_catalog\]."):
        mgr.use_database("nodb")
    assert mgr.current_database == "default_database"
    mgr.create_database("db1", False)
    mgr.use_database("db1")
    assert mgr.current_database == "db1"
    assert mgr.qualify(["t"]) == p("t", "db1")


def test_drop_current_database_is_refused(mgr):
    mgr.create_database("db1", False, comment="x")
    mgr.use_database("db1")
    with pytest.raises(CatalogError, match="Cannot drop a database which is currently in use."):
        mgr.drop_database("db1", False)
    mgr.use_database("default_database")
    mgr.drop_database("db1", False)
    assert mgr.list_databases() == ["default_database"]


def test_create_get_and_list_tables(mgr, table, view):
    mgr.create_table(p("t"), table, False)
    mgr.create_table(p("v"), view, False)
    assert mgr.get_table(p("t")) == table
    assert mgr.list_tables() == ["t", "v"]
    assert mgr.list_views() == ["v"]
    assert mgr.table_exists(p("v")) and not mgr.is_temporary(p("v"))


def test_create_existing_table_names_command_and_path(mgr, table):
    mgr.create_table(p("t"), table, False)
    with pytest.raises(CatalogError) as err:
        mgr.create_table(p("t"), table, False)
    assert err.value.message == (
        "Could not execute CreateTable in path `default_catalog`.`default_database`.`t`: "
        "Table (or view) default_database.t already exists in Catalog default_catalog.")
    assert isinstance(err.value.__cause__, CatalogError)
    mgr.create_table(p("t"), table, True)


def test_missing_objects(mgr, table):
    with pytest.raises(CatalogError, match=r"Table \(or view\) `default_catalog`.`default_database`.`x` does not exist."):
        mgr.get_table(p("x"))
    assert mgr.find_table(p("x")) is None
    with pytest.raises(CatalogError, match="Catalog nocat does not exist."):
        mgr.get_table(p("x", cat="nocat"))
    with pytest.raises(CatalogError, match="Catalog nocat does not exist."):
        mgr.create_table(p("x", cat="nocat"), table, False)
    with pytest.raises(CatalogError, match="Could not execute CreateTable .*Database nodb does not exist"):
        mgr.create_table(p("x", db="nodb"), table, False)


def test_temporary_table_shadows_catalog_table(mgr, table):
    permanent = table
    temporary = CatalogTable(table.schema, (("connector", "print"),))
    mgr.create_table(p("t"), permanent, False)
    mgr.create_temporary_table(p("t"), temporary)
    assert mgr.get_table(p("t")) == temporary
    assert mgr.is_temporary(p("t"))
    # the catalog itself is untouched: temporary objects live in the manager
    assert mgr.get_catalog("default_catalog").get_table("default_database", "t") == permanent
    assert mgr.list_tables() == ["t"]
    assert mgr.list_temporary_tables() == ["t"]
    mgr.drop_temporary_table(p("t"))
    assert mgr.get_table(p("t")) == permanent


def test_show_tables_lists_permanent_and_temporary(mgr, table, view):
    mgr.create_table(p("a"), table, False)
    mgr.create_temporary_table(p("b"), table)
    mgr.create_temporary_view(p("c"), view)
    mgr.create_temporary_view(p("elsewhere", db="other"), view)
    assert mgr.list_tables() == ["a", "b", "c"]
    assert mgr.list_views() == ["c"]
    assert mgr.list_temporary_views() == ["c"]
    assert mgr.get_table(p("elsewhere", db="other")) == view


def test_temporary_objects_are_not_duplicated(mgr, table, view):
    mgr.create_temporary_table(p("t"), table)
    with pytest.raises(CatalogError, match="Temporary table '`default_catalog`.`default_database`.`t`' already exists"):
        mgr.create_temporary_table(p("t"), table)
    mgr.create_temporary_table(p("t"), table, ignore_if_exists=True)
    with pytest.raises(CatalogError, match="Expected a CatalogView"):
        mgr.create_temporary_view(p("v"), table)
    with pytest.raises(CatalogError, match="Catalog nocat does not exist"):
        mgr.create_temporary_table(p("t", cat="nocat"), table)


def test_drop_table_with_temporary_shadow_must_drop_temporary_first(mgr, table):
    mgr.create_table(p("t"), table, False)
    mgr.create_temporary_table(p("t"), table)
    with pytest.raises(CatalogError, match="Temporary table with identifier "
                                           "'`default_catalog`.`default_database`.`t`' exists. "
                                           "Drop it first before removing the permanent table."):
        mgr.drop_table(p("t"), False, is_view=False)
    mgr.drop_temporary_table(p("t"))
    mgr.drop_table(p("t"), False, is_view=False)
    assert mgr.list_tables() == []


def test_drop_table_on_a_view_fails_like_flink(mgr, table, view):
    mgr.create_table(p("v"), view, False)
    with pytest.raises(CatalogError, match="Table with identifier 'default_catalog.default_database.v' does not exist."):
        mgr.drop_table(p("v"), False, is_view=False)
    with pytest.raises(CatalogError, match="View with identifier 'default_catalog.default_database.x' does not exist."):
        mgr.drop_table(p("x"), False, is_view=True)
    mgr.drop_table(p("x"), True, is_view=True)
    mgr.drop_table(p("x", cat="nocat"), True, is_view=False)
    mgr.drop_table(p("v"), False, is_view=True)
    assert not mgr.table_exists(p("v"))


def test_drop_temporary_checks_kind(mgr, table, view):
    mgr.create_temporary_view(p("v"), view)
    with pytest.raises(CatalogError, match="Temporary table or view with identifier "
                                           "'default_catalog.default_database.v' does not exist."):
        mgr.drop_temporary_table(p("v"))
    mgr.drop_temporary_table(p("v"), ignore_if_not_exists=True)
    mgr.drop_temporary_view(p("v"))
    assert mgr.list_tables() == []


def test_alter_and_rename(mgr, table):
    mgr.create_table(p("t"), table, False)
    changed = CatalogTable(table.schema, (("connector", "blackhole"),))
    mgr.alter_table(p("t"), changed)
    assert mgr.get_table(p("t")) == changed
    mgr.rename_table(p("t"), "t2")
    assert mgr.list_tables() == ["t2"]
    with pytest.raises(CatalogError, match="Could not execute AlterTable .* does not exist"):
        mgr.alter_table(p("t"), changed)
    mgr.create_temporary_table(p("tmp"), table)
    with pytest.raises(CatalogError, match="cannot be altered"):
        mgr.alter_table(p("tmp"), changed)


def test_functions_and_temporary_functions(mgr, function):
    mgr.create_function(p("F1"), function, False)
    assert mgr.find_function(p("f1")) == function
    tmp = CatalogFunction("other.fn")
    mgr.create_temporary_function(p("f1"), tmp)
    assert mgr.find_function(p("F1")) == CatalogFunction("other.fn", is_temporary=True)
    with pytest.raises(CatalogError, match="Temporary catalog function .*`f1` is already defined"):
        mgr.create_temporary_function(p("F1"), tmp)
    with pytest.raises(CatalogError, match="Please drop the temporary function first"):
        mgr.drop_function(p("f1"), False)
    mgr.create_temporary_system_function("SysFn", tmp)
    assert mgr.find_temporary_system_function("sysfn").is_temporary
    assert mgr.list_user_functions() == ["f1", "sysfn"]
    mgr.drop_temporary_function(p("f1"))
    mgr.drop_function(p("f1"), False)
    mgr.drop_temporary_system_function("SYSFN")
    assert mgr.list_user_functions() == []
    assert mgr.find_function(p("f1")) is None
    with pytest.raises(CatalogError, match="Temporary system function sysfn doesn't exist"):
        mgr.drop_temporary_system_function("sysfn")
    with pytest.raises(CatalogError, match="Function default_database.f1 does not exist"):
        mgr.drop_function(p("f1"), False)


def test_permanent_function_is_stored_non_temporary(mgr):
    mgr.create_function(p("f"), CatalogFunction("m.f", is_temporary=True), False)
    assert mgr.get_catalog("default_catalog").get_function("default_database", "f").is_temporary is False


def test_file_catalog_through_the_manager(mgr, tmp_path, table, view):
    mgr.register_catalog("disk", create_catalog("disk", {"type": "file", "path": str(tmp_path)}))
    mgr.use_catalog("disk")
    mgr.create_table(mgr.qualify(["t"]), table, False)
    mgr.create_table(mgr.qualify(["v"]), view, False)
    fresh = CatalogManager()
    fresh.register_catalog("disk", create_catalog("disk", {"type": "file", "path": str(tmp_path)}))
    assert fresh.list_tables("disk", "default_database") == ["t", "v"]
    assert fresh.get_table(ObjectPath("disk", "default_database", "t")) == table
