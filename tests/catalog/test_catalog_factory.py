"""CREATE CATALOG options."""
from __future__ import annotations

import pytest

from catalog.factory import create_catalog
from catalog.file import FileCatalog
from catalog.memory import InMemoryCatalog
from sqlengine.errors import CatalogError


def test_generic_in_memory():
    cat = create_catalog("m", {"type": "generic_in_memory", "default-database": "db"})
    assert isinstance(cat, InMemoryCatalog)
    assert (cat.name, cat.default_database, cat.list_databases()) == ("m", "db", ["db"])
    assert create_catalog("m", {"type": "generic_in_memory"}).default_database == "default"  # Flink's


def test_file(tmp_path):
    cat = create_catalog("f", {"type": "file", "path": str(tmp_path / "x"),
                               "default-database": "db", "property-version": "1"})
    assert isinstance(cat, FileCatalog)
    assert cat.root == tmp_path / "x"
    assert cat.list_databases() == ["db"]


def test_unknown_type_lists_known_types():
    with pytest.raises(CatalogError) as err:
        create_catalog("h", {"type": "hive"})
    assert err.value.message == (
        "Could not find any factory for identifier 'hive' that implements "
        "'org.apache.flink.table.factories.CatalogFactory' in the classpath.\n\n"
        "Available factory identifiers are:\n\nfile\ngeneric_in_memory")


def test_missing_type():
    with pytest.raises(CatalogError, match="Missing required option 'type' for catalog h") as err:
        create_catalog("h", {})
    assert "file, generic_in_memory" in err.value.render()


def test_unknown_keys_are_named_with_the_valid_ones(tmp_path):
    with pytest.raises(CatalogError) as err:
        create_catalog("f", {"type": "file", "path": str(tmp_path), "default_database": "x",
                             "colour": "red"})
    assert err.value.message == (
        "Unsupported options found for 'file'.\n\nUnsupported options:\n\ncolour\ndefault_database\n\n"
        "Supported options:\n\ndefault-database\npath\nproperty-version")


def test_file_requires_path():
    with pytest.raises(CatalogError, match="Missing required option\\(s\\) for catalog f of "
                                           "type 'file': path"):
        create_catalog("f", {"type": "file"})
    with pytest.raises(CatalogError, match="Unsupported options:\n\npath\n"):
        create_catalog("m", {"type": "generic_in_memory", "path": "/tmp/x"})
