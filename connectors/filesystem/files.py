"""File access for the filesystem connector: listing, line-aligned reading, publishing.

Paths go through ``pyarrow.fs`` so that local paths, ``file://``, ``hdfs://`` and
``s3://`` URIs work the same way on the driver and on executors (DESIGN.md: the path
must be reachable by both). Nothing here keeps state between calls: the reader's
offset calls and tasks run in separate Python worker processes.
"""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import fs as pafs

CHUNK = 16 << 20  # bytes read at a time when splitting lines (NativeFile.read_at returns bytes)
COUNT_CHUNK = 8 << 20


@dataclass(frozen=True)
class FileEntry:
    path: str  # file-system path (no scheme), what the offsets and partitions carry
    size: int


def absolute(path: str) -> str:
    """A local path made absolute (on the driver, before tasks see it); URIs unchanged."""
    return path if "://" in path else os.path.abspath(path)


def resolve(path: str) -> tuple[pafs.FileSystem, str]:
    """The file system of ``path`` and the path inside it (local paths made absolute)."""
    if "://" not in path:
        return pafs.LocalFileSystem(), os.path.abspath(path)
    return pafs.FileSystem.from_uri(path)


def is_hidden(name: str) -> bool:
    """Flink's rule: files and folders whose names start with '.' or '_' are not data."""
    return name.startswith(".") or name.startswith("_")


def list_files(fs: pafs.FileSystem, root: str) -> list[FileEntry]:
    """The data files at ``root`` (a file, or a folder read recursively), sorted by path."""
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.NotFound:
        return []
    if info.type == pafs.FileType.File:
        return [FileEntry(root, info.size)]
    out = []
    for item in fs.get_file_info(pafs.FileSelector(root, recursive=True)):
        rel = posixpath.relpath(item.path, root)
        if item.type == pafs.FileType.File and not any(is_hidden(p) for p in rel.split("/")):
            out.append(FileEntry(item.path, item.size))
    return sorted(out, key=lambda e: e.path)


def count_newlines(f: pafs.NativeFile, start: int, end: int) -> int:
    total, pos = 0, start
    while pos < end:
        n = min(COUNT_CHUNK, end - pos)
        total += f.read_at(n, pos).count(b"\n")
        pos += n
    return total


def align(f: pafs.NativeFile, pos: int, limit: int) -> int:
    """The first line start at or after ``pos`` (``limit`` if none before it)."""
    if pos <= 0:
        return 0
    cur = pos - 1
    while cur < limit:
        data = f.read_at(min(1 << 16, limit - cur), cur)
        i = data.find(b"\n")
        if i >= 0:
            return cur + i + 1
        cur += len(data)
        if not data:
            break
    return limit


def advance_lines(f: pafs.NativeFile, pos: int, size: int, n: int) -> tuple[int, int]:
    """Skip up to ``n`` lines from ``pos``: (new position, lines skipped).

    A last line without a trailing newline counts as a line.
    """
    done = 0
    while done < n and pos < size:
        data = f.read_at(min(COUNT_CHUNK, size - pos), pos)
        need = n - done
        if data.count(b"\n") >= need:
            idx = -1
            for _ in range(need):
                idx = data.find(b"\n", idx + 1)
            return pos + idx + 1, n
        done += data.count(b"\n")
        pos += len(data)
        if not data:
            break
        if pos >= size and not data.endswith(b"\n"):
            done += 1
    return min(pos, size), done


def read_lines(f: pafs.NativeFile, path: str, start: int, end: int, first_line: int) -> Iterator[pa.RecordBatch]:
    """RecordBatches (__file, __line, __text, __eoi) of the lines starting in [start, end).

    ``start`` must be a line start; ``first_line`` is its 1-based number. Blank lines
    are skipped (but counted); a trailing ``\\r`` is dropped.
    """
    pos, line = start, first_line
    while pos < end:
        size = CHUNK
        while True:
            data = f.read_at(min(size, end - pos), pos)
            if not data:  # the file shrank since planning
                return
            cut = len(data) if pos + len(data) >= end else data.rfind(b"\n") + 1
            if cut > 0:
                break
            size *= 2
        chunk = data[:cut]
        batch, count = _batch(chunk, path, line)
        if batch is not None:
            yield batch
        pos += cut
        line += count


def _batch(chunk: bytes, path: str, first_line: int) -> tuple[Optional[pa.RecordBatch], int]:
    parts = pc.split_pattern(pa.array([chunk], pa.large_binary()), pattern=b"\n").flatten()
    if chunk.endswith(b"\n"):
        parts = parts.slice(0, len(parts) - 1)
    count = len(parts)
    text = _to_text(parts)
    if b"\r" in chunk:
        text = pc.utf8_rtrim(text, characters="\r")
    keep = pc.invert(pc.or_(pc.equal(pc.utf8_length(text), 0), pc.utf8_is_space(text)))
    numbers = pa.array(np.arange(first_line, first_line + count, dtype=np.int64))
    text, numbers = text.filter(keep), numbers.filter(keep)
    n = len(text)
    if n == 0:
        return None, count
    batch = pa.RecordBatch.from_arrays(
        [pa.repeat(pa.scalar(path, pa.string()), n), numbers, text.cast(pa.string()),
         pa.repeat(pa.scalar(False), n)],
        names=["__file", "__line", "__text", "__eoi"])
    return batch, count


def _to_text(parts: pa.Array) -> pa.Array:
    try:
        return parts.cast(pa.large_string())
    except pa.ArrowInvalid:  # invalid UTF-8: replace bad bytes, as Java's new String() does
        return pa.array([b.decode("utf-8", "replace") for b in parts.to_pylist()], pa.large_string())


def eoi_batch() -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [pa.array([None], pa.string()), pa.array([None], pa.int64()), pa.array([None], pa.string()),
         pa.array([True])], names=["__file", "__line", "__text", "__eoi"])


# -- writing ----------------------------------------------------------------------------------
def write_bytes(fs: pafs.FileSystem, path: str, chunks: Iterator[bytes]) -> int:
    """Write the chunks to ``path`` (parents created); returns the bytes written, 0 = no file."""
    out, written = None, 0
    try:
        for data in chunks:
            if not data:
                continue
            if out is None:
                fs.create_dir(posixpath.dirname(path), recursive=True)
                out = fs.open_output_stream(path)
            out.write(data)
            written += len(data)
    finally:
        if out is not None:
            out.close()
    return written


def list_names(fs: pafs.FileSystem, folder: str) -> list[str]:
    """The files directly in ``folder`` (none if it does not exist)."""
    try:
        infos = fs.get_file_info(pafs.FileSelector(folder, allow_not_found=True))
    except FileNotFoundError:
        return []
    return [i.path for i in infos if i.type == pafs.FileType.File]


def exists(fs: pafs.FileSystem, path: str) -> bool:
    return fs.get_file_info(path).type != pafs.FileType.NotFound


def publish(fs: pafs.FileSystem, staged: str, final: str) -> None:
    """Make a staged file visible under its final name; a no-op if already published."""
    if exists(fs, final):
        delete(fs, staged)
        return
    if exists(fs, staged):
        fs.create_dir(posixpath.dirname(final), recursive=True)  # a partition's folder
        fs.move(staged, final)


def delete(fs: pafs.FileSystem, path: str) -> None:
    try:
        fs.delete_file(path)
    except FileNotFoundError:
        pass
