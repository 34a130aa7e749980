"""Writing lines to part files with a two-phase commit (DESIGN.md, "Exactly once").

Each task writes its lines to a hidden staged file under ``<path>/.staging/`` and
returns its name in a commit message; the driver's ``commit`` publishes the staged
files by renaming them to their visible names, ``abort`` deletes them. Visible
names are deterministic, so publishing an epoch again (a micro-batch replayed after
a crash between our commit and Spark's commit log) is a no-op:

* an epoch of a streaming job (``write_epoch``): ``part-<uuid>-<partition>-<epoch>``,
  Flink's ``part-<uuid>-<subtask>-<n>`` where the uuid is derived from Spark's query id
  (which a restart from the checkpoint keeps) and the sink's operator id (so two sinks
  of one query differ);
* batch: ``part-<write id>-task-<partition>-file-0`` (Flink's batch naming).

Empty task outputs create no file. Readers skip names starting with '.' or '_'.

A streaming sink's commit is atomic per epoch through its marker, ``.staging/_committed-
<uuid>.json``: the driver first writes the epoch and its renames there (write, then
rename: the marker is whole or absent), then renames. A crash in between leaves a
marker that recovery (``recover``, at the next start) rolls forward, after which it
removes the sink's other staged files (epochs not committed). A replayed epoch that the
marker shows committed publishes nothing: its rows may have gone to other tasks than the
first time, and the files are already there.
"""
from __future__ import annotations

import json
import posixpath
import re
import uuid
from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from connectors.filesystem import files as FS
from sqlengine.faults import reached

STAGING = ".staging"
_EMPTY = pa.scalar("", pa.large_string())
_NEWLINE = pa.scalar("\n", pa.large_string())


@dataclass
class StagedFile(WriterCommitMessage):
    staged: Optional[str]  # None: the task wrote no line
    final: str
    rows: int
    group: str = ""  # regex of the staged names of this (sink, epoch), failed attempts included


def _line_bytes(batches: Iterator[pa.RecordBatch], counter: list[int]) -> Iterator[bytes]:
    """The lines of the batches' first column, each followed by a newline."""
    for batch in batches:
        if batch.num_rows == 0:
            continue
        counter[0] += batch.num_rows
        lines = pc.binary_join_element_wise(batch.column(0).cast(pa.large_string()), _EMPTY, _NEWLINE)
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset:lines.offset + len(lines) + 1]
        yield lines.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]


def _write_task(root: str, staged_name: str, final_name: str, batches: Iterator[pa.RecordBatch],
                group: str = "") -> StagedFile:
    fs, base = FS.resolve(root)
    staged = posixpath.join(base, STAGING, staged_name)
    counter = [0]
    written = FS.write_bytes(fs, staged, _line_bytes(batches, counter))
    return StagedFile(staged if written else None, posixpath.join(base, final_name), counter[0], group)


def part_uuid(query_id: str, sink_id: str) -> uuid.UUID:
    """A stable uuid for one sink of one streaming query (restarts keep the query id)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"sqlengine:{query_id}/{sink_id}")


def marker_path(base: str, part_uuid: str) -> str:
    return posixpath.join(base, STAGING, f"_committed-{part_uuid}.json")


def read_marker(fs, base: str, part_uuid: str) -> Optional[dict]:
    """The sink's last committed epoch and its renames (None before its first commit)."""
    path = marker_path(base, part_uuid)
    if not FS.exists(fs, path):
        return None
    with fs.open_input_stream(path) as f:
        return json.loads(f.read().decode())


def commit_epoch(root: str, part_uuid: str, epoch: int, messages: list[Optional[StagedFile]]) -> None:
    """Publish one epoch of a streaming sink (see the module docstring); a no-op for an
    epoch the marker shows committed (the replay's staged files are discarded)."""
    fs, base = FS.resolve(root)
    marker = read_marker(fs, base, part_uuid)
    if marker is not None and marker["epoch"] >= epoch:
        if marker["epoch"] == epoch:
            _roll_forward(fs, marker)
        discard_all(root, messages)
        return
    moves = [[m.staged, m.final] for m in messages if m is not None and m.staged is not None]
    write_marker(fs, base, part_uuid, epoch, moves)
    reached("file-marked")
    _roll_forward(fs, {"moves": moves})
    _sweep(fs, root, messages)


def write_marker(fs, base: str, part_uuid: str, epoch: int, moves: list) -> None:
    """Record ``epoch`` as committed with its renames (written aside, then renamed over the
    old marker, so a crash leaves the old or the new one whole)."""
    path = marker_path(base, part_uuid)
    FS.write_bytes(fs, path + ".tmp", iter([json.dumps({"epoch": epoch, "moves": moves}).encode()]))
    fs.move(path + ".tmp", path)


def _roll_forward(fs, marker: dict) -> None:
    for staged, final in marker["moves"]:
        FS.publish(fs, staged, final)


def recover(root: str, part_uuid: str) -> None:
    """At job start: finish the renames of the last committed epoch, then remove the
    sink's staged files of epochs that were not committed (they are replayed)."""
    fs, base = FS.resolve(root)
    marker = read_marker(fs, base, part_uuid)
    if marker is not None:
        _roll_forward(fs, marker)
    reached("recovering")  # the last committed epoch published, its leftovers not yet removed
    mine = re.compile(rf"part-{re.escape(part_uuid)}-\d+-\d+\.\d+\.inprogress")
    for path in FS.list_names(fs, posixpath.join(base, STAGING)):
        if mine.fullmatch(posixpath.basename(path)):
            FS.delete(fs, path)


def publish_all(root: str, messages: list[Optional[StagedFile]]) -> None:
    fs, _ = FS.resolve(root)
    for m in messages:
        if m is not None and m.staged is not None:
            FS.publish(fs, m.staged, m.final)
    _sweep(fs, root, messages)


def discard_all(root: str, messages: list[Optional[StagedFile]]) -> None:
    fs, _ = FS.resolve(root)
    for m in messages:
        if m is not None and m.staged is not None:
            FS.delete(fs, m.staged)
    _sweep(fs, root, messages)


def _sweep(fs, root: str, messages: list[Optional[StagedFile]]) -> None:
    """Delete what failed task attempts of the same (sink, epoch) left in the staging folder."""
    groups = {m.group for m in messages if m is not None and m.group}
    if not groups:
        return
    folder = posixpath.join(FS.resolve(root)[1], STAGING)
    for path in FS.list_names(fs, folder):
        if any(re.fullmatch(g, posixpath.basename(path)) for g in groups):
            FS.delete(fs, path)


class LinesBatchWriter(DataSourceArrowWriter):
    """Batch: one staged file per task, published together when the job succeeds.

    With the options ``epoch`` and ``part_uuid`` (one epoch of a streaming query
    written by ``foreachBatch``) the files get the streaming names, so publishing a
    replayed epoch again is a no-op.
    """

    def __init__(self, options) -> None:
        self.root = options["path"]
        self.write_id = options.get("write_id") or uuid.uuid4().hex  # fixed on the driver
        self.epoch = options.get("epoch")
        self.part_uuid = options.get("part_uuid")

    def write(self, iterator: Iterator[pa.RecordBatch]) -> StagedFile:
        tc = TaskContext.get()
        pid, attempt = tc.partitionId(), tc.attemptNumber()
        if self.epoch is not None and self.part_uuid:
            name = f"part-{self.part_uuid}-{pid}-{self.epoch}"
            return _write_task(self.root, f"{name}.{attempt}.inprogress", name, iterator,
                               rf"part-{self.part_uuid}-\d+-{self.epoch}\.\d+\.inprogress")
        return _write_task(self.root, f"part-{self.write_id}-task-{pid}.{attempt}.inprogress",
                           f"part-{self.write_id}-task-{pid}-file-0", iterator,
                           rf"part-{self.write_id}-task-\d+\.\d+\.inprogress")

    def commit(self, messages: list[Optional[StagedFile]]) -> None:
        if self.epoch is not None and self.part_uuid:
            commit_epoch(self.root, self.part_uuid, int(self.epoch), messages)
        else:
            publish_all(self.root, messages)

    def abort(self, messages: list[Optional[StagedFile]]) -> None:
        discard_all(self.root, messages)
