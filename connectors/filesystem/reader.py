"""Reading the lines of files as a bounded Spark source (batch and streaming).

Rows are ``(__file, __line, __text, __eoi)``: the file, the 1-based line number,
the line's text (blank lines skipped) and the end-of-input flag (connectors/base.py).

Streaming offsets are JSON dicts ``{"src", "file", "pos", "line", "phase"}``:
``file``/``pos`` is the next unread line start (``file`` null once all data is
planned), ``line`` the number of lines before ``pos`` in that file. ``phase`` 0 =
data, 1 = the micro-batch holding the single ``__eoi`` row (with the last lines) has
been planned, 2 = one more (empty) micro-batch has been planned. ``src`` tags the
offsets of one scan so that ``end_check`` recognises its own source in the
progress report. Everything is derived from offsets and options: the offset calls
and the tasks run in different Python worker processes.

A micro-batch's byte range is split into up to ``num_partitions`` pieces; each task
aligns its piece to line starts (Hadoop's rule: a line belongs to the piece where it
starts) and counts the newlines before it to number its lines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Optional

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow

from connectors.filesystem import files as FS

READ_SCHEMA = "__file string, __line bigint, __text string, __eoi boolean"
MIN_SPLIT_BYTES = 4 << 20  # smaller inputs are not split further
DATA, EOI_PLANNED, DONE = 0, 1, 2


@dataclass(frozen=True)
class Piece:
    path: str
    seg_start: int  # a line start with a known line count: ``seg_line`` lines before it
    seg_line: int
    seg_end: int  # a line start or the end of the file
    lo: int  # this piece's byte range within [seg_start, seg_end)
    hi: int


class FilePartition(InputPartition):
    """The pieces one task reads (an empty list for an empty input)."""

    def __init__(self, root: str, pieces: list[Piece]):
        super().__init__(None)
        self.root = root
        self.pieces = pieces


class EoiPartition(InputPartition):
    def __init__(self) -> None:
        super().__init__(None)


@dataclass(frozen=True)
class Settings:
    root: str
    token: str = ""
    max_lines: int = 0
    num_partitions: int = 1
    min_split: int = MIN_SPLIT_BYTES

    @staticmethod
    def of(options) -> "Settings":
        return Settings(options["path"], options.get("source_id", ""),
                        int(options.get("max_lines_per_batch", "0")), max(1, int(options.get("num_partitions", "1"))),
                        max(1, int(options.get("min_split_bytes", str(MIN_SPLIT_BYTES)))))


def offset(s: Settings, file: Optional[str], pos: int = 0, line: int = 0, phase: int = DATA) -> dict:
    return {"src": s.token, "file": file, "pos": pos, "line": line, "phase": phase}


# -- planning ---------------------------------------------------------------------------------
def segments(entries: list[FS.FileEntry], start: dict, end: dict) -> list[Piece]:
    """The byte ranges between two data offsets, one per file (as whole-segment pieces)."""
    out: list[Piece] = []
    if start["file"] is None:
        return out
    for e in entries:
        if e.path < start["file"]:
            continue
        s0, l0 = (start["pos"], start["line"]) if e.path == start["file"] else (0, 0)
        last = end["file"] is not None and e.path >= end["file"]
        s1 = end["pos"] if (last and e.path == end["file"]) else (0 if last else e.size)
        if s1 > s0:
            out.append(Piece(e.path, s0, l0, s1, s0, s1))
        if last:
            break
    return out


def split(segs: list[Piece], parts: int, min_split: int) -> list[list[Piece]]:
    """Cut the segments into ``parts`` groups of about equal bytes."""
    total = sum(p.seg_end - p.seg_start for p in segs)
    parts = max(1, min(parts, math.ceil(total / min_split))) if total else 1
    bounds = [total * k // parts for k in range(parts + 1)]
    groups: list[list[Piece]] = [[] for _ in range(parts)]
    base = 0
    for seg in segs:
        size = seg.seg_end - seg.seg_start
        for k in range(parts):
            lo, hi = max(bounds[k], base), min(bounds[k + 1], base + size)
            if lo < hi:
                groups[k].append(Piece(seg.path, seg.seg_start, seg.seg_line, seg.seg_end,
                                       seg.seg_start + lo - base, seg.seg_start + hi - base))
        base += size
    return groups


def read_piece(fs, p: Piece) -> Iterator[pa.RecordBatch]:
    with fs.open_input_file(p.path) as f:
        a = p.seg_start if p.lo == p.seg_start else FS.align(f, p.lo, p.seg_end)
        b = p.seg_end if p.hi == p.seg_end else FS.align(f, p.hi, p.seg_end)
        if a >= b:
            return
        first = p.seg_line + FS.count_newlines(f, p.seg_start, a) + 1
        yield from FS.read_lines(f, p.path, a, b, first)


def read_partition(partition: InputPartition) -> Iterator[pa.RecordBatch]:
    if isinstance(partition, EoiPartition):
        yield FS.eoi_batch()
        return
    fs, _ = FS.resolve(partition.root)
    for piece in partition.pieces:
        yield from read_piece(fs, piece)


# -- readers ----------------------------------------------------------------------------------
class FilesBatchReader(DataSourceReader):
    """Batch: every line once, no ``__eoi`` row."""

    def __init__(self, options) -> None:
        self.s = Settings.of(options)

    def partitions(self) -> list[InputPartition]:
        fs, root = FS.resolve(self.s.root)
        entries = FS.list_files(fs, root)
        start = offset(self.s, entries[0].path if entries else None)
        groups = split(segments(entries, start, offset(self.s, None)), self.s.num_partitions, self.s.min_split)
        return [FilePartition(self.s.root, g) for g in groups]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return read_partition(partition)


class FilesStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Streaming: the files as they are listed (bounded), then the end-of-input steps."""

    def __init__(self, options) -> None:
        self.s = Settings.of(options)

    def _entries(self) -> tuple[object, list[FS.FileEntry]]:
        fs, root = FS.resolve(self.s.root)
        return fs, FS.list_files(fs, root)

    def initialOffset(self) -> dict:
        _, entries = self._entries()
        return offset(self.s, entries[0].path if entries else None)

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.s.max_lines) if self.s.max_lines > 0 else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """Nothing to record: the input is bounded by the files listed."""

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        phase = start.get("phase", DATA)
        if phase >= DONE:  # re-tag once so that this run's end_check sees the end
            return start if start.get("src") == self.s.token else {**start, "src": self.s.token}
        if phase == EOI_PLANNED:
            return offset(self.s, None, phase=DONE)
        if start.get("file") is None:
            return offset(self.s, None, phase=EOI_PLANNED)
        end = self._advance(start, limit.max_rows) if isinstance(limit, ReadMaxRows) and limit.max_rows > 0 \
            else offset(self.s, None)
        # The micro-batch that reads the last line also carries the end-of-input row, so a
        # bounded job ends in the epoch that reads its last data (no extra epoch).
        return {**end, "phase": EOI_PLANNED} if end["file"] is None else end

    def _advance(self, start: dict, n: int) -> dict:
        fs, entries = self._entries()
        file, pos, line = start["file"], start["pos"], start["line"]
        for e in entries:
            if e.path < file:
                continue
            if e.path != file:
                pos, line = 0, 0
            with fs.open_input_file(e.path) as f:
                pos, done = FS.advance_lines(f, pos, e.size, n)
            n -= done
            line += done
            if pos < e.size:
                return offset(self.s, e.path, pos, line)
            if n <= 0:
                nxt = [x.path for x in entries if x.path > e.path]
                return offset(self.s, nxt[0] if nxt else None)
        return offset(self.s, None)

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        if start.get("phase", DATA) != DATA:
            return []
        eoi = [EoiPartition()] if end.get("phase", DATA) == EOI_PLANNED else []
        if start.get("file") is None:
            return eoi
        _, entries = self._entries()
        groups = split(segments(entries, start, end), self.s.num_partitions, self.s.min_split)
        return [FilePartition(self.s.root, g) for g in groups if g] + eoi

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return read_partition(partition)

    def commit(self, end: dict) -> None:
        """Files are never deleted or moved by the source."""
