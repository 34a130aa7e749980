"""``CREATE CATALOG c WITH ('type' = ..., ...)``: options in, Catalog out.

Options are popped one by one; whatever is left over is an error naming the unknown keys
and the valid ones, so a typo (``'default_database'``) never silently falls back to a
default.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from sqlengine.errors import CatalogError

from catalog.base import Catalog
from catalog.file import FileCatalog
from catalog.memory import InMemoryCatalog

DEFAULT_DATABASE = "default_database"
IN_MEMORY_DEFAULT_DATABASE = "default"  # Flink's GenericInMemoryCatalogFactoryOptions.DEFAULT_DATABASE


@dataclass(frozen=True)
class CatalogType:
    """One catalog type: its option keys and how to build it from them."""

    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    build: Callable[[str, dict[str, str]], Catalog]

    def valid_keys(self) -> list[str]:
        return sorted(("type",) + self.required + self.optional)


def _in_memory(name: str, opts: dict[str, str]) -> Catalog:
    return InMemoryCatalog(name, opts.pop("default-database", IN_MEMORY_DEFAULT_DATABASE))


def _file(name: str, opts: dict[str, str]) -> Catalog:
    return FileCatalog(name, opts.pop("path"), opts.pop("default-database", DEFAULT_DATABASE))


CATALOG_TYPES: dict[str, CatalogType] = {
    t.name: t for t in (
        CatalogType("generic_in_memory", (), ("default-database", "property-version"), _in_memory),
        CatalogType("file", ("path",), ("default-database", "property-version"), _file),
    )
}


def create_catalog(name: str, options: Mapping[str, str]) -> Catalog:
    """Build the catalog ``CREATE CATALOG name WITH (options)`` describes."""
    opts = dict(options)
    type_name = opts.pop("type", None)
    if type_name is None:
        raise CatalogError(
            f"Missing required option 'type' for catalog {name}.",
            hint=f"known types: {', '.join(sorted(CATALOG_TYPES))}")
    ctype = CATALOG_TYPES.get(type_name)
    if ctype is None:
        raise CatalogError(
            f"Could not find any factory for identifier '{type_name}' that implements "
            f"'org.apache.flink.table.factories.CatalogFactory' in the classpath.\n\n"
            f"Available factory identifiers are:\n\n" + "\n".join(sorted(CATALOG_TYPES)))
    _check_keys(ctype, name, opts)
    opts.pop("property-version", None)
    catalog = ctype.build(name, opts)
    assert not opts, f"catalog type {ctype.name} left options unconsumed: {opts}"
    return catalog


def _check_keys(ctype: CatalogType, name: str, opts: dict[str, str]) -> None:
    unknown = sorted(set(opts) - set(ctype.valid_keys()))
    if unknown:
        supported = [k for k in ctype.valid_keys() if k != "type"]
        raise CatalogError(
            f"Unsupported options found for '{ctype.name}'.\n\nUnsupported options:\n\n" + "\n".join(unknown)
            + "\n\nSupported options:\n\n" + "\n".join(supported))
    missing = [k for k in ctype.required if not opts.get(k)]
    if missing:
        raise CatalogError(
            f"Missing required option(s) for catalog {name} of type '{ctype.name}': "
            f"{', '.join(missing)}. Supported options: {', '.join(ctype.valid_keys())}")
