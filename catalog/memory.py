"""Flink's ``generic_in_memory`` catalog: everything lives in this process and dies with it."""
from __future__ import annotations

import threading
from typing import Optional

from catalog.base import FUNCTIONS, TABLES, Catalog
from catalog.objects import CatalogDatabase


class InMemoryCatalog(Catalog):
    """Dictionaries behind a lock; the default database exists from the start (as in Flink)."""

    catalog_type = "generic_in_memory"
    implementation = "org.apache.flink.table.catalog.GenericInMemoryCatalog"

    def __init__(self, name: str, default_database: str = "default_database"):
        super().__init__(name, default_database)
        self._lock = threading.RLock()
        self._databases: dict[str, CatalogDatabase] = {}
        self._objects: dict[str, dict[str, dict[str, object]]] = {}
        self._store_create_database(default_database, CatalogDatabase())

    def _store_database_names(self) -> list[str]:
        with self._lock:
            return list(self._databases)

    def _store_read_database(self, db: str) -> Optional[CatalogDatabase]:
        with self._lock:
            return self._databases.get(db)

    def _store_create_database(self, db: str, spec: CatalogDatabase) -> bool:
        with self._lock:
            if db in self._databases:
                return False
            self._databases[db] = spec
            self._objects[db] = {TABLES: {}, FUNCTIONS: {}}
            return True

    def _store_replace_database(self, db: str, spec: CatalogDatabase) -> None:
        with self._lock:
            self._databases[db] = spec

    def _store_drop_database(self, db: str) -> None:
        with self._lock:
            self._databases.pop(db, None)
            self._objects.pop(db, None)

    def _space(self, db: str, space: str) -> dict[str, object]:
        return self._objects.get(db, {}).get(space, {})

    def _store_names(self, db: str, space: str) -> list[str]:
        with self._lock:
            return list(self._space(db, space))

    def _store_read(self, db: str, space: str, name: str) -> Optional[object]:
        with self._lock:
            return self._space(db, space).get(name)

    def _store_write(self, db: str, space: str, name: str, obj: object, create: bool) -> bool:
        with self._lock:
            objects = self._objects[db][space]
            if create and name in objects:
                return False
            objects[name] = obj
            return True

    def _store_delete(self, db: str, space: str, name: str) -> bool:
        with self._lock:
            return self._space(db, space).pop(name, None) is not None
