"""Fixtures for the catalog tests: both catalog implementations, and sample objects."""
from __future__ import annotations

import pytest

from catalog.file import FileCatalog
from catalog.memory import InMemoryCatalog
from catalog.objects import (
    CatalogFunction,
    CatalogTable,
    CatalogView,
    Column,
    TableSchema,
    WatermarkSpec,
)
from sqlengine.types import BIGINT, INT, STRING, TIMESTAMP, DECIMAL


@pytest.fixture(params=["memory", "file"])
def cat(request, tmp_path):
    """The same contract must hold for the in-memory and the persistent catalog."""
    if request.param == "memory":
        return InMemoryCatalog("c")
    return FileCatalog("c", tmp_path / "catalog")


def make_table(connector: str = "datagen") -> CatalogTable:
    schema = TableSchema(
        (Column("id", BIGINT()), Column("name", STRING()), Column("price", DECIMAL(10, 2)),
         Column("ts", TIMESTAMP(3)),
         Column("double_price", DECIMAL(21, 2), "computed", "price * 2")),
        (WatermarkSpec("ts", "`ts` - INTERVAL '1' SECOND"),),
        ("id",),
    )
    return CatalogTable(schema, (("connector", connector), ("rows-per-second", "5")))


def make_view() -> CatalogView:
    return CatalogView("SELECT id, name FROM t", TableSchema((Column("id", BIGINT(False)),
                                                              Column("name", STRING()))))


def make_function() -> CatalogFunction:
    return CatalogFunction("my_udfs.plus_one", "PYTHON")


@pytest.fixture
def table() -> CatalogTable:
    return make_table()


@pytest.fixture
def view() -> CatalogView:
    return make_view()


@pytest.fixture
def function() -> CatalogFunction:
    return make_function()


@pytest.fixture
def int_schema() -> TableSchema:
    return TableSchema((Column("a", INT()),))
