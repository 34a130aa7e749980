"""The session's view of all catalogs: current catalog/database, name qualification and
TEMPORARY objects (Flink's ``CatalogManager`` plus the catalog half of ``FunctionCatalog``).

Temporary tables, views and functions live here, not in a catalog: they belong to the
session, vanish with it, and shadow a permanent object of the same path without
touching it. Lookups therefore check the temporary objects first.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping, Optional, Sequence, TypeVar

from sqlengine.errors import CatalogError

from catalog.base import Catalog
from catalog.memory import InMemoryCatalog
from catalog.objects import (
    CatalogBaseTable,
    CatalogDatabase,
    CatalogFunction,
    CatalogTable,
    CatalogView,
    ObjectPath,
)

DEFAULT_CATALOG = "default_catalog"
DEFAULT_DATABASE = "default_database"
T = TypeVar("T")


class CatalogManager:
    """Catalogs by name, the current catalog and database, and temporary objects."""

    def __init__(self, default_catalog: str = DEFAULT_CATALOG,
                 default_database: str = DEFAULT_DATABASE):
        self._catalogs: dict[str, Catalog] = {
            default_catalog: InMemoryCatalog(default_catalog, default_database)}
        self.builtin_catalog = default_catalog
        self._current_catalog = default_catalog
        self._current_database = default_database
        self._temporary: dict[ObjectPath, CatalogBaseTable] = {}
        self._temporary_functions: dict[ObjectPath, CatalogFunction] = {}
        self._temporary_system_functions: dict[str, CatalogFunction] = {}

    # -- catalogs ----------------------------------------------------------------------
    @property
    def current_catalog(self) -> str:
        return self._current_catalog

    @property
    def current_database(self) -> str:
        return self._current_database

    def register_catalog(self, name: str, catalog: Catalog, ignore_if_exists: bool = False) -> None:
        if name in self._catalogs:
            if ignore_if_exists:
                return
            raise CatalogError(f"Catalog {name} already exists.")
        self._catalogs[name] = catalog

    def unregister_catalog(self, name: str, ignore_if_not_exists: bool = False) -> None:
        if name not in self._catalogs:
            if ignore_if_not_exists:
                return
            raise CatalogError(f"Catalog {name} does not exist.")
        if name == self._current_catalog:
            raise CatalogError("Cannot drop a catalog which is currently in use.")
        self._catalogs.pop(name).close()

    def get_catalog(self, name: str) -> Catalog:
        catalog = self._catalogs.get(name)
        if catalog is None:
            raise CatalogError(f"Catalog {name} does not exist.",
                               hint=f"known catalogs: {', '.join(self.list_catalogs())}")
        return catalog

    def list_catalogs(self) -> list[str]:
        return sorted(self._catalogs)

    def catalog_names(self) -> list[str]:
        """The catalogs in the order they were registered."""
        return list(self._catalogs)

    def use_catalog(self, name: str) -> None:
        """``USE CATALOG``: the current database becomes the catalog's default database."""
        catalog = self._catalogs.get(name)
        if catalog is None:
            raise CatalogError(f"A catalog with name [{name}] does not exist.",
                               hint=f"known catalogs: {', '.join(self.list_catalogs())}")
        if name != self._current_catalog:
            self._current_catalog = name
            self._current_database = catalog.default_database

    def use_database(self, db: str) -> None:
        if not self.get_catalog(self._current_catalog).database_exists(db):
            raise CatalogError(
                f"A database with name [{db}] does not exist in the catalog: "
                f"[{self._current_catalog}].")
        self._current_database = db

    # -- databases ---------------------------------------------------------------------
    def list_databases(self, catalog: Optional[str] = None) -> list[str]:
        return self.get_catalog(catalog or self._current_catalog).list_databases()

    def get_database(self, db: str, catalog: Optional[str] = None) -> CatalogDatabase:
        return self.get_catalog(catalog or self._current_catalog).get_database(db)

    def create_database(self, db: str, ignore_if_exists: bool, comment: Optional[str] = None,
                        properties: Optional[Mapping[str, str]] = None,
                        catalog: Optional[str] = None) -> None:
        cat = self.get_catalog(catalog or self._current_catalog)
        cat.create_database(db, ignore_if_exists, comment, properties)

    def drop_database(self, db: str, ignore_if_not_exists: bool, cascade: bool = False,
                      catalog: Optional[str] = None) -> None:
        name = catalog or self._current_catalog
        if name == self._current_catalog and db == self._current_database:
            raise CatalogError("Cannot drop a database which is currently in use.")
        self.get_catalog(name).drop_database(db, ignore_if_not_exists, cascade)

    # -- names -------------------------------------------------------------------------
    def qualify(self, parts: Sequence[str]) -> ObjectPath:
        """Complete a 1-, 2- or 3-part name with the current catalog and database."""
        parts = list(parts)
        if not 1 <= len(parts) <= 3 or any(not p for p in parts):
            raise CatalogError(
                f"Invalid object name {'.'.join(parts)!r}: expected [catalog.][database.]name "
                "with non-empty parts")
        if len(parts) == 1:
            return ObjectPath(self._current_catalog, self._current_database, parts[0])
        if len(parts) == 2:
            return ObjectPath(self._current_catalog, parts[0], parts[1])
        return ObjectPath(parts[0], parts[1], parts[2])

    # -- tables and views ----------------------------------------------------------------
    def find_table(self, path: ObjectPath) -> Optional[CatalogBaseTable]:
        """The temporary object at ``path`` if any, else the catalog's, else None."""
        if path in self._temporary:
            return self._temporary[path]
        catalog = self._catalogs.get(path.catalog)
        if catalog is None or not catalog.table_exists(path.database, path.name):
            return None
        return catalog.get_table(path.database, path.name)

    def get_table(self, path: ObjectPath) -> CatalogBaseTable:
        found = self.find_table(path)
        if found is None:
            self.get_catalog(path.catalog)
            raise CatalogError(f"Table (or view) {path.quoted()} does not exist.")
        return found

    def table_exists(self, path: ObjectPath) -> bool:
        return self.find_table(path) is not None

    def is_temporary(self, path: ObjectPath) -> bool:
        return path in self._temporary

    def create_table(self, path: ObjectPath, obj: CatalogBaseTable, ignore_if_exists: bool) -> None:
        """CREATE TABLE / CREATE VIEW into the catalog (a temporary object of the same
        name may exist and keeps shadowing it, as in Flink)."""
        self._execute("CreateTable", path, lambda c: c.create_table(
            path.database, path.name, obj, ignore_if_exists))

    def create_temporary_table(self, path: ObjectPath, table: CatalogTable,
                               ignore_if_exists: bool = False) -> None:
        self._create_temporary(path, table, "table", ignore_if_exists)

    def create_temporary_view(self, path: ObjectPath, view: CatalogView,
                              ignore_if_exists: bool = False) -> None:
        self._create_temporary(path, view, "view", ignore_if_exists)

    def _create_temporary(self, path: ObjectPath, obj: CatalogBaseTable, what: str,
                          ignore_if_exists: bool) -> None:
        expected = CatalogView if what == "view" else CatalogTable
        if not isinstance(obj, expected):
            raise CatalogError(f"Expected a {expected.__name__} for temporary {what} "
                               f"{path.quoted()}, got {type(obj).__name__}")
        self.get_catalog(path.catalog)
        if path in self._temporary:
            if ignore_if_exists:
                return
            raise CatalogError(f"Temporary {what} '{path.quoted()}' already exists")
        self._temporary[path] = obj

    def drop_table(self, path: ObjectPath, ignore_if_not_exists: bool,
                   is_view: Optional[bool] = None) -> None:
        """DROP TABLE (``is_view=False``) / DROP VIEW (``True``) of a permanent object.

        As in Flink, a temporary object of that kind at the same path must be dropped
        first (``DROP TEMPORARY TABLE``), and DROP TABLE does not drop a view.
        """
        temp = self._temporary.get(path)
        if temp is not None and (is_view is None or isinstance(temp, CatalogView) == is_view):
            what = "view" if isinstance(temp, CatalogView) else "table"
            raise CatalogError(
                f"Temporary {what} with identifier '{path.quoted()}' exists. "
                f"Drop it first before removing the permanent {what}.",
                hint=f"use DROP TEMPORARY {what.upper()}")
        if path.catalog not in self._catalogs and ignore_if_not_exists:
            return
        catalog = self.get_catalog(path.catalog)
        if not catalog.table_exists(path.database, path.name):
            if ignore_if_not_exists:
                return
            label = {None: "Table or view", True: "View", False: "Table"}[is_view]
            raise CatalogError(f"{label} with identifier '{path}' does not exist.")
        catalog.drop_table(path.database, path.name, ignore_if_not_exists, is_view)

    def drop_temporary_table(self, path: ObjectPath, ignore_if_not_exists: bool = False) -> None:
        self._drop_temporary(path, CatalogTable, ignore_if_not_exists)

    def drop_temporary_view(self, path: ObjectPath, ignore_if_not_exists: bool = False) -> None:
        self._drop_temporary(path, CatalogView, ignore_if_not_exists)

    def _drop_temporary(self, path: ObjectPath, kind: type, ignore_if_not_exists: bool) -> None:
        if isinstance(self._temporary.get(path), kind):
            del self._temporary[path]
        elif not ignore_if_not_exists:
            raise CatalogError(
                f"Temporary table or view with identifier '{path}' does not exist.")

    def alter_table(self, path: ObjectPath, new_obj: CatalogBaseTable) -> None:
        """ALTER TABLE / ALTER VIEW of a permanent object (temporary ones are not
        altered, as in Flink: drop and re-create them)."""
        if path in self._temporary:
            raise CatalogError(f"Temporary table or view {path.quoted()} cannot be altered.",
                               hint="drop and re-create the temporary object")
        self._execute("AlterTable", path, lambda c: c.alter_table(
            path.database, path.name, new_obj))

    def rename_table(self, path: ObjectPath, new_name: str) -> None:
        if path in self._temporary:
            raise CatalogError(f"Temporary table or view {path.quoted()} cannot be renamed.",
                               hint="drop and re-create the temporary object")
        self._execute("RenameTable", path, lambda c: c.rename_table(
            path.database, path.name, new_name))

    def list_tables(self, catalog: Optional[str] = None,
                    database: Optional[str] = None) -> list[str]:
        """SHOW TABLES: tables and views, permanent and temporary, sorted."""
        cat, db = catalog or self._current_catalog, database or self._current_database
        names = set(self._list_catalog(cat, db, lambda c: c.list_tables(db)))
        names.update(p.name for p in self._temporary if (p.catalog, p.database) == (cat, db))
        return sorted(names)

    def list_views(self, catalog: Optional[str] = None,
                   database: Optional[str] = None) -> list[str]:
        cat, db = catalog or self._current_catalog, database or self._current_database
        names = set(self._list_catalog(cat, db, lambda c: c.list_views(db)))
        names.update(p.name for p, o in self._temporary.items()
                     if (p.catalog, p.database) == (cat, db) and isinstance(o, CatalogView))
        return sorted(names)

    def list_temporary_tables(self) -> list[str]:
        return self._temporary_names(CatalogTable)

    def list_temporary_views(self) -> list[str]:
        return self._temporary_names(CatalogView)

    def _temporary_names(self, kind: type) -> list[str]:
        here = (self._current_catalog, self._current_database)
        return sorted(p.name for p, o in self._temporary.items()
                      if (p.catalog, p.database) == here and isinstance(o, kind))

    # -- functions -----------------------------------------------------------------------
    def create_function(self, path: ObjectPath, fn: CatalogFunction,
                        ignore_if_exists: bool) -> None:
        self._execute("CreateCatalogFunction", _fn_path(path), lambda c: c.create_function(
            path.database, path.name, replace(fn, is_temporary=False), ignore_if_exists))

    def create_temporary_function(self, path: ObjectPath, fn: CatalogFunction,
                                  ignore_if_exists: bool = False) -> None:
        key = _fn_path(path)
        self.get_catalog(key.catalog)
        if key in self._temporary_functions:
            if ignore_if_exists:
                return
            raise CatalogError(f"Temporary catalog function {key.quoted()} is already defined")
        self._temporary_functions[key] = replace(fn, is_temporary=True)

    def create_temporary_system_function(self, name: str, fn: CatalogFunction,
                                         ignore_if_exists: bool = False) -> None:
        key = name.lower()
        if key in self._temporary_system_functions:
            if ignore_if_exists:
                return
            raise CatalogError(f"Could not register temporary system function. "
                               f"A function named '{key}' does already exist.")
        self._temporary_system_functions[key] = replace(fn, is_temporary=True)

    def drop_function(self, path: ObjectPath, ignore_if_not_exists: bool) -> None:
        key = _fn_path(path)
        if key in self._temporary_functions:
            raise CatalogError(
                f"Could not drop catalog function. A temporary function '{key.quoted()}' "
                "does already exist. Please drop the temporary function first.")
        if key.catalog not in self._catalogs and ignore_if_not_exists:
            return
        self._execute("DropCatalogFunction", key, lambda c: c.drop_function(
            key.database, key.name, ignore_if_not_exists), wrap=False)

    def drop_temporary_function(self, path: ObjectPath, ignore_if_not_exists: bool = False) -> None:
        key = _fn_path(path)
        if self._temporary_functions.pop(key, None) is None and not ignore_if_not_exists:
            raise CatalogError(f"Temporary catalog function {key.quoted()} doesn't exist")

    def drop_temporary_system_function(self, name: str, ignore_if_not_exists: bool = False) -> None:
        if self._temporary_system_functions.pop(name.lower(), None) is None \
                and not ignore_if_not_exists:
            raise CatalogError(f"Temporary system function {name.lower()} doesn't exist")

    def find_temporary_system_function(self, name: str) -> Optional[CatalogFunction]:
        """Checked first when resolving a 1-part function name (before built-ins)."""
        return self._temporary_system_functions.get(name.lower())

    def find_function(self, path: ObjectPath) -> Optional[CatalogFunction]:
        """A temporary catalog function at ``path``, else the catalog's, else None.
        (Flink's order for a 1-part name: temporary system, built-in, this.)"""
        key = _fn_path(path)
        if key in self._temporary_functions:
            return self._temporary_functions[key]
        catalog = self._catalogs.get(key.catalog)
        if catalog is None or not catalog.function_exists(key.database, key.name):
            return None
        return catalog.get_function(key.database, key.name)

    def list_user_functions(self, catalog: Optional[str] = None,
                            database: Optional[str] = None) -> list[str]:
        """SHOW USER FUNCTIONS: temporary system, temporary catalog and catalog functions."""
        cat, db = catalog or self._current_catalog, database or self._current_database
        names = set(self._temporary_system_functions)
        names.update(p.name for p in self._temporary_functions
                     if (p.catalog, p.database) == (cat, db))
        names.update(self._list_catalog(cat, db, lambda c: c.list_functions(db)))
        return sorted(names)

    # -- helpers -------------------------------------------------------------------------
    def _list_catalog(self, cat: str, db: str,
                      list_fn: Callable[[Catalog], list[str]]) -> list[str]:
        catalog = self.get_catalog(cat)
        if not catalog.database_exists(db):
            raise CatalogError(f"Database {db} does not exist in Catalog {cat}.")
        return list_fn(catalog)

    def _execute(self, command: str, path: ObjectPath, action: Callable[[Catalog], T],
                 wrap: bool = True) -> T:
        """Run ``action`` on the path's catalog; like Flink, errors name the command and
        the path ("Could not execute CreateTable in path `c`.`d`.`t`") with the cause."""
        catalog = self._catalogs.get(path.catalog)
        if catalog is None:
            raise CatalogError(f"Catalog {path.catalog} does not exist.",
                               hint=f"known catalogs: {', '.join(self.list_catalogs())}")
        try:
            return action(catalog)
        except CatalogError as exc:
            if not wrap:
                raise
            raise CatalogError(f"Could not execute {command} in path {path.quoted()}: "
                               f"{exc.message}", hint=exc.diagnostic.hint) from exc


def _fn_path(path: ObjectPath) -> ObjectPath:
    """Function names are case-insensitive in Flink (normalized to lower case)."""
    return path.with_name(path.name.lower())
