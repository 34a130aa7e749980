"""The Catalog contract (Flink's ``Catalog`` interface, trimmed to what SQL needs).

A catalog owns databases, and in each database tables, views and functions. All
public methods live here, with Flink's checks and messages, and are written against a
handful of storage primitives (``_store_*``). Subclasses implement only storage, so the
in-memory and the persistent catalog cannot drift apart in behaviour.

Names: databases, tables and views are case-sensitive (as in Flink); function names are
case-insensitive and stored lower-cased (Flink normalizes them the same way).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Mapping, Optional

from sqlengine.errors import CatalogError, UnsupportedError

from catalog.objects import (
    CatalogBaseTable,
    CatalogDatabase,
    CatalogFunction,
    CatalogTable,
    CatalogView,
    ObjectPath,
)

TABLES = "tables"
FUNCTIONS = "functions"


class Catalog(ABC):
    """A named store of databases, tables, views and functions."""

    catalog_type: ClassVar[str] = "?"  # the 'type' option of CREATE CATALOG
    # The class Flink's messages name for this catalog (Flink's Catalog interface prints
    # ``getClass()``): Flink's own for a catalog type Flink has, else this Python class.
    implementation: ClassVar[str] = ""

    def __init__(self, name: str, default_database: str = "default_database"):
        if not name:
            raise CatalogError("Catalog name cannot be null or empty.")
        if not default_database:
            raise CatalogError(f"Default database of catalog {name} cannot be null or empty.")
        self.name = name
        self.default_database = default_database

    # -- storage primitives (the only thing a subclass implements) ------------------
    @abstractmethod
    def _store_database_names(self) -> list[str]: ...

    @abstractmethod
    def _store_read_database(self, db: str) -> Optional[CatalogDatabase]: ...

    @abstractmethod
    def _store_create_database(self, db: str, spec: CatalogDatabase) -> bool:
        """Create ``db`` atomically; False if it already existed."""

    @abstractmethod
    def _store_drop_database(self, db: str) -> None:
        """Remove ``db`` and everything in it."""

    @abstractmethod
    def _store_names(self, db: str, space: str) -> list[str]: ...

    @abstractmethod
    def _store_read(self, db: str, space: str, name: str) -> Optional[object]: ...

    @abstractmethod
    def _store_write(self, db: str, space: str, name: str, obj: object, create: bool) -> bool:
        """Write ``obj``. With ``create`` the write is atomic create-if-absent and
        returns False when the name is taken; without it, replaces (returns True)."""

    @abstractmethod
    def _store_delete(self, db: str, space: str, name: str) -> bool:
        """Delete; False if it did not exist."""

    def descriptor_options(self) -> dict[str, str]:
        """The CREATE CATALOG options that rebuild this catalog (DESCRIBE CATALOG EXTENDED)."""
        return {"type": self.catalog_type, "default-database": self.default_database}

    def close(self) -> None:
        """Release resources (nothing to do for the built-in catalogs)."""

    # -- helpers --------------------------------------------------------------------
    def path(self, db: str, name: str) -> ObjectPath:
        return ObjectPath(self.name, db, name)

    def _require_database(self, db: str) -> None:
        if not self.database_exists(db):
            raise CatalogError(f"Database {db} does not exist in Catalog {self.name}.")

    def _table_missing(self, db: str, name: str) -> CatalogError:
        return CatalogError(f"Table (or view) {self.path(db, name).quoted()} does not exist.")

    # -- databases ------------------------------------------------------------------
    def list_databases(self) -> list[str]:
        return sorted(self._store_database_names())

    def database_exists(self, db: str) -> bool:
        return self._store_read_database(db) is not None

    def get_database(self, db: str) -> CatalogDatabase:
        spec = self._store_read_database(db)
        if spec is None:
            raise CatalogError(f"Database {db} does not exist in Catalog {self.name}.")
        return spec

    def create_database(self, db: str, ignore_if_exists: bool, comment: Optional[str] = None,
                        properties: Optional[Mapping[str, str]] = None) -> None:
        spec = CatalogDatabase(comment, tuple((properties or {}).items()))
        if not self._store_create_database(db, spec) and not ignore_if_exists:
            raise CatalogError(f"Database {db} already exists in Catalog {self.name}.")

    def alter_database(self, db: str, spec: CatalogDatabase) -> None:
        """ALTER DATABASE: a new comment and properties for an existing database."""
        self.get_database(db)
        self._store_replace_database(db, spec)

    def _store_replace_database(self, db: str, spec: CatalogDatabase) -> None:
        raise CatalogError(f"Catalog {self.name} of type '{self.catalog_type}' cannot alter databases.")

    def drop_database(self, db: str, ignore_if_not_exists: bool, cascade: bool = False) -> None:
        """Drop ``db``; a non-empty database needs ``cascade`` (Flink's RESTRICT default)."""
        if not self.database_exists(db):
            if ignore_if_not_exists:
                return
            raise CatalogError(f"Database {db} does not exist in Catalog {self.name}.")
        if not cascade and (self._store_names(db, TABLES) or self._store_names(db, FUNCTIONS)):
            raise CatalogError(
                f"Database {db} in catalog {self.name} is not empty.",
                hint="use DROP DATABASE ... CASCADE to drop it with its tables and functions")
        self._store_drop_database(db)

    # -- tables and views -------------------------------------------------------------
    def list_tables(self, db: str) -> list[str]:
        """Names of tables AND views in ``db`` (Flink's ``listTables``), sorted."""
        self._require_database(db)
        return sorted(self._store_names(db, TABLES))

    def list_views(self, db: str) -> list[str]:
        self._require_database(db)
        return sorted(n for n in self._store_names(db, TABLES)
                      if isinstance(self._store_read(db, TABLES, n), CatalogView))

    def table_exists(self, db: str, name: str) -> bool:
        return self.database_exists(db) and self._store_read(db, TABLES, name) is not None

    def get_table(self, db: str, name: str) -> CatalogBaseTable:
        obj = self._store_read(db, TABLES, name) if self.database_exists(db) else None
        if obj is None:
            raise self._table_missing(db, name)
        return obj  # type: ignore[return-value]

    def create_table(self, db: str, name: str, table_or_view: CatalogBaseTable,
                     ignore_if_exists: bool) -> None:
        _check_table_object(table_or_view)
        self._require_database(db)
        created = self._store_write(db, TABLES, name, table_or_view, create=True)
        if not created and not ignore_if_exists:
            raise CatalogError(f"Table (or view) {db}.{name} already exists in Catalog {self.name}.")

    def drop_table(self, db: str, name: str, ignore_if_not_exists: bool,
                   is_view: Optional[bool] = None) -> None:
        """Drop a table (``is_view=False``), a view (``True``) or either (``None``).

        As in Flink, ``DROP TABLE`` does not drop a view and ``DROP VIEW`` not a table.
        """
        obj = self._store_read(db, TABLES, name) if self.database_exists(db) else None
        if obj is None:
            if ignore_if_not_exists:
                return
            raise self._table_missing(db, name)
        _check_kind(self.path(db, name), obj, is_view)
        self._store_delete(db, TABLES, name)

    def alter_table(self, db: str, name: str, new_table: CatalogBaseTable) -> None:
        """Replace a definition; a table stays a table and a view a view (as in Flink)."""
        _check_table_object(new_table)
        old = self.get_table(db, name)
        if old.kind != new_table.kind:
            raise CatalogError(
                f"Table types don't match. Existing table is '{old.kind}' and new table "
                f"is '{new_table.kind}' ({self.path(db, name).quoted()}).")
        self._store_write(db, TABLES, name, new_table, create=False)

    def rename_table(self, db: str, name: str, new_name: str) -> None:
        obj = self.get_table(db, name)
        if not self._store_write(db, TABLES, new_name, obj, create=True):
            raise CatalogError(
                f"Table (or view) {self.path(db, new_name).quoted()} already exists.",
                hint=f"cannot rename {self.path(db, name).quoted()} onto an existing object")
        self._store_delete(db, TABLES, name)

    # -- procedures ---------------------------------------------------------------------
    def list_procedures(self, db: str) -> list[str]:
        """SHOW PROCEDURES: sqlengine has no stored procedures, so no catalog lists any;
        Flink's in-memory catalog fails the same way (its Catalog interface's default)."""
        implementation = self.implementation or f"{type(self).__module__}.{type(self).__qualname__}"
        raise UnsupportedError(f"listProcedures is not implemented for class {implementation}.")

    # -- functions ----------------------------------------------------------------------
    def list_functions(self, db: str) -> list[str]:
        self._require_database(db)
        return sorted(self._store_names(db, FUNCTIONS))

    def function_exists(self, db: str, name: str) -> bool:
        return self.database_exists(db) and \
            self._store_read(db, FUNCTIONS, name.lower()) is not None

    def get_function(self, db: str, name: str) -> CatalogFunction:
        obj = self._store_read(db, FUNCTIONS, name.lower()) if self.database_exists(db) else None
        if obj is None:
            raise CatalogError(
                f"Function {db}.{name.lower()} does not exist in Catalog {self.name}.")
        return obj  # type: ignore[return-value]

    def create_function(self, db: str, name: str, fn: CatalogFunction,
                        ignore_if_exists: bool) -> None:
        if not isinstance(fn, CatalogFunction):
            raise CatalogError(f"Expected a CatalogFunction, got {type(fn).__name__}")
        self._require_database(db)
        created = self._store_write(db, FUNCTIONS, name.lower(), fn, create=True)
        if not created and not ignore_if_exists:
            raise CatalogError(
                f"Function {db}.{name.lower()} already exists in Catalog {self.name}.")

    def alter_function(self, db: str, name: str, fn: CatalogFunction) -> None:
        self.get_function(db, name)
        self._store_write(db, FUNCTIONS, name.lower(), fn, create=False)

    def drop_function(self, db: str, name: str, ignore_if_not_exists: bool) -> None:
        deleted = self.database_exists(db) and self._store_delete(db, FUNCTIONS, name.lower())
        if not deleted and not ignore_if_not_exists:
            raise CatalogError(
                f"Function {db}.{name.lower()} does not exist in Catalog {self.name}.")


def _check_table_object(obj: object) -> None:
    if not isinstance(obj, (CatalogTable, CatalogView)):
        raise CatalogError(f"Expected a CatalogTable or CatalogView, got {type(obj).__name__}")


def _check_kind(path: ObjectPath, obj: CatalogBaseTable, is_view: Optional[bool]) -> None:
    """Flink refuses DROP TABLE on a view and DROP VIEW on a table."""
    if is_view is None or isinstance(obj, CatalogView) == is_view:
        return
    wanted, actual = ("View", "table") if is_view else ("Table", "view")
    raise CatalogError(
        f"{wanted} with identifier '{path}' does not exist.",
        hint=f"{path.quoted()} is a {actual}; use DROP {actual.upper()} to drop it")

