"""Table references resolved as Flink's validator resolves them, and its words when they fail.

A table in FROM is looked up the way Calcite's ``EmptyScope.resolveTable`` does: the name
is tried after each schema path — the current catalog and database, the current catalog,
then the root — walking catalogs, databases and tables. A miss names the first part that
matched nothing and, when some of the user's parts did match, the schema it was missing
from (``Object 'nope' not found within 'default_catalog.default_database'``); a name that
matches only ignoring case gets Calcite's "did you mean" (identifiers are case-sensitive).

An INSERT's (TRUNCATE's, DELETE's, ...) target is Flink's catalog lookup instead, with
its own message naming every catalog (in the order of Java's ``HashSet`` of their names).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from catalog.objects import CatalogBaseTable, ObjectPath
from sqlengine.errors import Span, ValidationError


@dataclass(frozen=True)
class _Resolve:
    path: tuple[str, ...]       # the schema steps (and the table) matched
    remaining: tuple[str, ...]  # the names left over
    table: bool = False


def lookup_table(catalogs, parts: list[str], span: Optional[Span]) -> tuple[ObjectPath, CatalogBaseTable]:
    """The table or view ``parts`` names, or Calcite's ValidationError ("Object 'x' not found")."""
    path, found = _find(catalogs, parts)
    if found is None:
        raise ValidationError(object_not_found(catalogs, parts), span)
    return path, found


def lookup_sink(catalogs, parts: list[str], span: Optional[Span]) -> tuple[ObjectPath, CatalogBaseTable]:
    """The target of an INSERT (or TRUNCATE), or Flink's 'Cannot find table'."""
    path, found = _find(catalogs, parts)
    if path is None:
        raise ValidationError(object_not_found(catalogs, parts), span)
    if found is None:
        raise ValidationError(f"Cannot find table '{path.quoted()}' in any of the catalogs "
                              f"[{', '.join(java_hash_set_order(catalogs.catalog_names()))}], "
                              "nor as a temporary table.", span)
    return path, found


def _find(catalogs, parts: list[str]) -> tuple[Optional[ObjectPath], Optional[CatalogBaseTable]]:
    """The path ``parts`` names (None for more than three parts) and what is there."""
    if not 1 <= len(parts) <= 3:
        return None, None
    path = catalogs.qualify(parts)
    return path, catalogs.find_table(path)


def object_not_found(catalogs, names: list[str]) -> str:
    """Calcite's message for a table reference that resolves to no table."""
    exact = _resolve_all(catalogs, names, lambda a, b: a == b)
    if len(exact) == 1 and not exact[0].remaining:
        raise AssertionError(f"{names} resolves; it is no missing object")
    liberal = _resolve_all(catalogs, names, lambda a, b: a.lower() == b.lower())
    if len(liberal) == 1:
        found, previous = liberal[0], (exact[0] if len(exact) == 1 else None)
        if not found.remaining or previous is None:
            i = len(previous.path) if previous is not None else 0
            offset = len(found.path) + len(found.remaining) - len(names)
            prefix, suggestion = found.path[:offset + i], found.path[offset + i]
            if not prefix:
                return f"Object '{names[i]}' not found; did you mean '{suggestion}'?"
            return f"Object '{names[i]}' not found within '{'.'.join(prefix)}'; did you mean '{suggestion}'?"
        return f"Object '{found.remaining[0]}' not found within '{'.'.join(found.path)}'"
    return f"Object '{names[0]}' not found"


def _resolve_all(catalogs, names: list[str], match: Callable[[str, str], bool]) -> list[_Resolve]:
    """Calcite's resolveTable: each schema path in turn; a full match wins at once, else the
    partial matches of the last path that had any (those of earlier paths otherwise)."""
    imperfect: list[_Resolve] = []
    for schema_path in ([catalogs.current_catalog, catalogs.current_database], [catalogs.current_catalog], []):
        found = _resolve_one(catalogs, [*schema_path, *names], names, match)
        if found is not None and not found.remaining:
            return [found]
        if found is not None:
            imperfect.append(found)
    return imperfect


def _resolve_one(catalogs, concat: list[str], names: list[str],
                 match: Callable[[str, str], bool]) -> Optional[_Resolve]:
    """Walk root -> catalog -> database -> table along ``concat``; a partial match counts
    only when it consumed some of the user's own names (Calcite's rule)."""
    steps: list[str] = []
    for k, name in enumerate(concat):
        children = _children(catalogs, steps)
        hit = next((c for c in children if match(c, name)), None)
        if hit is None:
            remaining = tuple(concat[k:])
            if steps and list(remaining) != names:
                return _Resolve(tuple(steps), remaining)
            return None
        steps.append(hit)
        if len(steps) == 3:
            return _Resolve(tuple(steps), tuple(concat[k + 1:]), table=True)
    return None


def _children(catalogs, steps: list[str]) -> list[str]:
    """The catalogs, a catalog's databases or a database's tables and views (temporary ones too)."""
    if not steps:
        return list(catalogs.catalog_names())
    if len(steps) == 1:
        return list(catalogs.list_databases(steps[0]))
    if steps[1] not in catalogs.list_databases(steps[0]):
        return []
    return list(catalogs.list_tables(steps[0], steps[1]))


def java_hash_set_order(names: list[str]) -> list[str]:
    """The order a Java ``HashSet<String>`` of ``names`` iterates in (Flink prints its
    catalogs from one): by bucket of the spread String hash, then insertion order."""
    capacity = 16
    while len(names) > capacity * 0.75:
        capacity *= 2

    def bucket(s: str) -> int:
        data, h = s.encode("utf-16-be"), 0
        for i in range(0, len(data), 2):  # Java's String.hashCode, over UTF-16 code units
            h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)
    return sorted(dict.fromkeys(names), key=bucket)
