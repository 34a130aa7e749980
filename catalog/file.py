"""A persistent catalog: one JSON file per object under a folder.

Layout (names are file-name encoded, see :func:`encode_name`)::

    <path>/<database>/database.json
    <path>/<database>/tables/<table or view>.json
    <path>/<database>/functions/<function>.json

Nothing is cached: every call reads the folder, so a second process (another shell, a
job submitted later) sees what the first one defined. Every write goes to a temporary
file in the same folder first and is then published in one atomic step: ``os.replace``
to overwrite, or ``os.link`` to create-if-absent, which fails if another process
created the same name first. Readers therefore see either the old or the new complete
document, never a half-written one, and two concurrent ``CREATE TABLE t`` cannot both
succeed.
"""
from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Optional, Union
from urllib.parse import unquote

from sqlengine.errors import CatalogError

from catalog.base import FUNCTIONS, TABLES, Catalog
from catalog.objects import CatalogDatabase, CatalogFunction, CatalogTable, CatalogView
from catalog.serde import object_from_json, object_to_json

DATABASE_FILE = "database.json"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_EXPECTED = {TABLES: (CatalogTable, CatalogView), FUNCTIONS: (CatalogFunction,)}


def encode_name(name: str) -> str:
    """A file name for an object name: lower-case letters, digits, ``_`` and ``-`` stay,
    everything else (upper case included, so ``T`` and ``t`` differ even on
    case-insensitive file systems) becomes ``%XX`` of its UTF-8 bytes."""
    if not name:
        raise CatalogError("Object names cannot be empty")
    return "".join(ch if ch in _SAFE else "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
                   for ch in name)


def decode_name(file_name: str) -> str:
    return unquote(file_name, encoding="utf-8", errors="strict")


class FileCatalog(Catalog):
    """Catalog persisted as JSON files under ``path``; safe to share between processes."""

    catalog_type = "file"

    def __init__(self, name: str, path: Union[str, os.PathLike],
                 default_database: str = "default_database"):
        super().__init__(name, default_database)
        self.root = Path(path).expanduser().absolute()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CatalogError(f"Cannot create catalog folder {self.root} for catalog "
                               f"{name}: {exc}") from exc
        self._store_create_database(default_database, CatalogDatabase())

    def descriptor_options(self) -> dict[str, str]:
        return {**super().descriptor_options(), "path": str(self.root)}

    # -- paths ----------------------------------------------------------------------
    def _db_dir(self, db: str) -> Path:
        return self.root / encode_name(db)

    def _object_file(self, db: str, space: str, name: str) -> Path:
        return self._db_dir(db) / space / (encode_name(name) + ".json")

    # -- databases ------------------------------------------------------------------
    def _store_database_names(self) -> list[str]:
        return [decode_name(d.name) for d in _entries(self.root)
                if (d / DATABASE_FILE).is_file()]

    def _store_read_database(self, db: str) -> Optional[CatalogDatabase]:
        obj = _read_object(self._db_dir(db) / DATABASE_FILE)
        return obj if isinstance(obj, CatalogDatabase) else None

    def _store_create_database(self, db: str, spec: CatalogDatabase) -> bool:
        db_dir = self._db_dir(db)
        for sub in (TABLES, FUNCTIONS):
            (db_dir / sub).mkdir(parents=True, exist_ok=True)
        return _write_object(db_dir / DATABASE_FILE, spec, create=True)

    def _store_drop_database(self, db: str) -> None:
        db_dir = self._db_dir(db)
        # Removing the marker first makes the database disappear in one step.
        (db_dir / DATABASE_FILE).unlink(missing_ok=True)
        shutil.rmtree(db_dir, ignore_errors=True)

    # -- objects --------------------------------------------------------------------
    def _store_names(self, db: str, space: str) -> list[str]:
        folder = self._db_dir(db) / space
        return [decode_name(f.name[:-5]) for f in _entries(folder)
                if f.name.endswith(".json") and _non_empty(f)]

    def _store_read(self, db: str, space: str, name: str) -> Optional[object]:
        file = self._object_file(db, space, name)
        obj = _read_object(file)
        if obj is not None and not isinstance(obj, _EXPECTED[space]):
            raise CatalogError(f"Stored file {file} holds a {type(obj).__name__}, "
                               f"which does not belong in {space}")
        return obj

    def _store_write(self, db: str, space: str, name: str, obj: object, create: bool) -> bool:
        return _write_object(self._object_file(db, space, name), obj, create)

    def _store_delete(self, db: str, space: str, name: str) -> bool:
        try:
            self._object_file(db, space, name).unlink()
            return True
        except FileNotFoundError:
            return False


# -- file helpers ---------------------------------------------------------------------
def _entries(folder: Path) -> list[Path]:
    """Folder entries, without temporary files (which start with a dot)."""
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except FileNotFoundError:
        return []


def _non_empty(file: Path) -> bool:
    """An empty file is a name reserved by a writer that has not published yet."""
    try:
        return file.stat().st_size > 0
    except FileNotFoundError:
        return False


def _read_object(file: Path) -> Optional[object]:
    """The object stored in ``file``; None if absent (or empty: being created)."""
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if not text.strip():
        return None
    try:
        return object_from_json(json.loads(text))
    except (json.JSONDecodeError, CatalogError, KeyError, TypeError, ValueError) as exc:
        raise CatalogError(f"Corrupt catalog file {file}: {exc}") from exc


def _write_object(file: Path, obj: object, create: bool) -> bool:
    """Atomically publish ``obj`` at ``file``; with ``create``, only if absent."""
    text = json.dumps(object_to_json(obj), indent=2, ensure_ascii=False) + "\n"
    tmp = file.parent / f".tmp-{uuid.uuid4().hex}.json"
    try:
        _write_durably(tmp, text)
        if not create:
            os.replace(tmp, file)
            return True
        return _publish_new(tmp, file)
    except FileNotFoundError as exc:
        raise CatalogError(f"Cannot write {file}: its folder disappeared "
                           "(was the database dropped concurrently?)") from exc
    finally:
        tmp.unlink(missing_ok=True)


def _write_durably(file: Path, text: str) -> None:
    with open(file, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())


def _publish_new(tmp: Path, file: Path) -> bool:
    """Create-if-absent: a hard link fails atomically when ``file`` exists. Where hard
    links are unsupported, reserve the name with O_EXCL and then replace it (readers
    treat the empty placeholder as absent)."""
    try:
        os.link(tmp, file)
        return True
    except FileExistsError:
        return False
    except OSError:
        pass
    try:
        os.close(os.open(file, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    os.replace(tmp, file)
    return True
