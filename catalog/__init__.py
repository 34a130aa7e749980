"""Catalogs: databases, tables, views and functions; in-memory and persistent (file).

Entry points: :class:`CatalogManager` (what a session talks to), :func:`create_catalog`
(``CREATE CATALOG``), the objects in :mod:`catalog.objects`, and the SHOW/DESCRIBE
renderers in :mod:`catalog.show`.
"""
from catalog.base import Catalog
from catalog.factory import CATALOG_TYPES, create_catalog
from catalog.file import FileCatalog
from catalog.manager import CatalogManager
from catalog.memory import InMemoryCatalog
from catalog.objects import (
    CatalogBaseTable,
    CatalogDatabase,
    CatalogFunction,
    CatalogTable,
    CatalogView,
    Column,
    ObjectPath,
    TableSchema,
    WatermarkSpec,
)

__all__ = [
    "CATALOG_TYPES",
    "Catalog",
    "CatalogBaseTable",
    "CatalogDatabase",
    "CatalogFunction",
    "CatalogManager",
    "CatalogTable",
    "CatalogView",
    "Column",
    "FileCatalog",
    "InMemoryCatalog",
    "ObjectPath",
    "TableSchema",
    "WatermarkSpec",
    "create_catalog",
]
