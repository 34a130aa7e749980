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

A partitioned table (``partition_keys``): the rows arrive with their partition values
after the line, sorted by them within each task (``FilesystemSink.finish``); a task writes
one staged file per partition it sees (``.staging/<name>.<attempt>.<n>.inprogress``),
published to ``<path>/<k1=v1/...>/<name>`` (partitions.py). A task's message is then a
``TaskFiles``.

A streaming sink's commit is atomic per epoch through its marker, ``.staging/_committed-
<uuid>.json``: the driver first writes the epoch and its renames there (write, then
rename: the marker is whole or absent), then renames. A crash in between leaves a
marker that recovery (``recover``, at the next start) rolls forward, after which it
removes the sink's other staged files (epochs not committed). A replayed epoch that the
marker shows committed publishes nothing: its rows may have gone to other tasks than the
first time, and the files are already there.

Partition commit (a partitioned streaming sink with a success-file policy, partitions.py):
the marker also holds the partitions pending commit (``pending``: folder -> when its first
file was published), and the last partition step (``committed``: its epoch, ``success``:
the success files it decided). ``commit_epoch`` adds an epoch's partitions to ``pending``
in the same marker write that commits its files, so which partitions are pending survives
a restart; ``commit_partitions`` (the driver, after the epoch) moves those whose trigger
fired to ``success``, writes the marker, then the success files. Recovery and a replayed
step write the recorded success files again (an empty file: idempotent).
"""
from __future__ import annotations

import json
import posixpath
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from connectors.filesystem import files as FS
from connectors.filesystem.partitions import CommitOptions, partition_dir
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
    partition: str = ""  # the partition's folder relative to the path ("" unpartitioned)


@dataclass
class TaskFiles(WriterCommitMessage):
    """A partitioned write's task: its staged files, one per partition it wrote."""

    files: list[StagedFile] = field(default_factory=list)
    group: str = ""


def files_of(messages: list[Any]) -> list[StagedFile]:
    """The staged files of the tasks' messages (``StagedFile`` or ``TaskFiles``)."""
    out: list[StagedFile] = []
    for m in messages:
        if isinstance(m, TaskFiles):
            out.extend(m.files)
        elif m is not None:
            out.append(m)
    return out


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
    if written:
        reached("file-staged")  # a task's file staged, the epoch not committed
    return StagedFile(staged if written else None, posixpath.join(base, final_name), counter[0], group)


class _Output:
    """One staged file of a partitioned task, opened at its first bytes."""

    def __init__(self, fs, staged: str, final: str, partition: str, group: str):
        self.fs, self.file = fs, StagedFile(None, final, 0, group, partition)
        self.path, self.stream = staged, None

    def write(self, piece: pa.RecordBatch) -> None:
        counter = [0]
        for data in _line_bytes(iter([piece]), counter):
            if self.stream is None:
                self.fs.create_dir(posixpath.dirname(self.path), recursive=True)
                self.stream = self.fs.open_output_stream(self.path)
                self.file.staged = self.path
            self.stream.write(data)
        self.file.rows += counter[0]

    def close(self) -> StagedFile:
        if self.stream is not None:
            self.stream.close()
            self.stream = None
        return self.file


def _runs(batch: pa.RecordBatch, n_keys: int) -> Iterator[tuple[tuple, pa.RecordBatch]]:
    """The batch cut where its partition values (columns 1..n_keys) change: (values, rows)."""
    n = batch.num_rows
    if n == 0:
        return
    keys = [batch.column(1 + i) for i in range(n_keys)]
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for col in keys:
        change |= pc.not_equal(col.slice(1), col.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    cuts = [0, *(np.flatnonzero(change) + 1).tolist(), n]
    for a, b in zip(cuts, cuts[1:]):
        yield tuple(k[a].as_py() for k in keys), batch.slice(a, b - a)


def _write_partitioned(root: str, keys: list[str], batches: Iterator[pa.RecordBatch], staged_name,
                       final_name, group: str) -> TaskFiles:
    """Write a task's rows (sorted by partition) into one staged file per partition run;
    ``staged_name(n)``/``final_name(n, repeat)`` name the task's n-th file."""
    fs, base = FS.resolve(root)
    done: list[StagedFile] = []
    seen: dict[str, int] = {}
    out: Optional[_Output] = None
    try:
        for batch in batches:
            for values, piece in _runs(batch, len(keys)):
                folder = partition_dir(keys, [str(v) for v in values])
                if out is None or out.file.partition != folder:
                    if out is not None:
                        done.append(out.close())
                    n, repeat = len(done), seen.get(folder, 0)
                    seen[folder] = repeat + 1
                    out = _Output(fs, posixpath.join(base, STAGING, staged_name(n)),
                                  posixpath.join(base, folder, final_name(n, repeat)), folder, group)
                out.write(piece.select([0]))
    finally:
        if out is not None:
            done.append(out.close())
    return TaskFiles([f for f in done if f.staged is not None], group)


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


def commit_epoch(root: str, part_uuid: str, epoch: int, messages: list[Any], track: bool = False) -> None:
    """Publish one epoch of a streaming sink (see the module docstring); a no-op for an
    epoch the marker shows committed (the replay's staged files are discarded). ``track``:
    the epoch's partitions become pending commit."""
    fs, base = FS.resolve(root)
    marker = read_marker(fs, base, part_uuid)
    if marker is not None and marker["epoch"] >= epoch:
        if marker["epoch"] == epoch:
            _roll_forward(fs, marker)
        discard_all(root, messages)
        return
    files = [m for m in files_of(messages) if m.staged is not None]
    moves = [[m.staged, m.final] for m in files]
    kept = {k: marker[k] for k in ("pending", "committed", "success") if marker and k in marker}
    if track:
        pending = dict(kept.get("pending", {}))
        now = int(time.time() * 1000)
        for m in files:
            pending.setdefault(m.partition, now)
        kept["pending"] = pending
    write_marker(fs, base, part_uuid, epoch, moves, **kept)
    reached("file-marked")
    _roll_forward(fs, {"moves": moves})
    _sweep(fs, root, messages)


def commit_partitions(root: str, part_uuid: str, epoch: int, keys: list[str], commit: CommitOptions,
                      watermark: int, ended: bool) -> list[str]:
    """After ``epoch`` (its files committed): commit the pending partitions whose trigger
    fires (all of them once the input ended); returns their folders. Idempotent per epoch."""
    fs, base = FS.resolve(root)
    marker = read_marker(fs, base, part_uuid)
    if marker is None or marker.get("committed", -1) >= epoch:
        if marker is not None and marker.get("committed") == epoch:
            _write_success(fs, marker.get("success", []))
        return []
    pending = marker.get("pending", {})
    ready = commit.ready(keys, pending, watermark, int(time.time() * 1000), ended) if pending else []
    if not ready:
        return []
    reached("partition-commit")  # the files are published, the partitions not committed
    success = [posixpath.join(base, p, commit.success_file) for p in ready]
    rest = {p: t for p, t in pending.items() if p not in ready}
    write_marker(fs, base, part_uuid, marker["epoch"], marker["moves"], pending=rest, committed=epoch,
                 success=success)
    _write_success(fs, success)
    return ready


def _write_success(fs, paths: list[str]) -> None:
    """Flink's SuccessFileCommitPolicy: an empty file, overwritten if there."""
    for path in paths:
        fs.create_dir(posixpath.dirname(path), recursive=True)
        fs.open_output_stream(path).close()


def write_marker(fs, base: str, part_uuid: str, epoch: int, moves: list, **partitions: Any) -> None:
    """Record ``epoch`` as committed with its renames and the partition state (written
    aside, then renamed over the old marker, so a crash leaves the old or the new one whole)."""
    path = marker_path(base, part_uuid)
    body = {"epoch": epoch, "moves": moves, **partitions}
    FS.write_bytes(fs, path + ".tmp", iter([json.dumps(body).encode()]))
    fs.move(path + ".tmp", path)


def _roll_forward(fs, marker: dict) -> None:
    for staged, final in marker["moves"]:
        FS.publish(fs, staged, final)
    _write_success(fs, marker.get("success", []))


def recover(root: str, part_uuid: str) -> None:
    """At job start: finish the renames of the last committed epoch, then remove the
    sink's staged files of epochs that were not committed (they are replayed)."""
    fs, base = FS.resolve(root)
    marker = read_marker(fs, base, part_uuid)
    if marker is not None:
        _roll_forward(fs, marker)
    reached("recovering")  # the last committed epoch published, its leftovers not yet removed
    mine = re.compile(rf"part-{re.escape(part_uuid)}-\d+-\d+\.\d+(\.\d+)?\.inprogress")
    for path in FS.list_names(fs, posixpath.join(base, STAGING)):
        if mine.fullmatch(posixpath.basename(path)):
            FS.delete(fs, path)


def publish_all(root: str, messages: list[Any], success_file: Optional[str] = None,
                partitioned: bool = False) -> None:
    """A batch write's commit; with a success-file policy, Flink's batch sink writes the
    file in every partition written (a table without partitions: in its path)."""
    fs, base = FS.resolve(root)
    files = files_of(messages)
    for m in files:
        if m.staged is not None:
            FS.publish(fs, m.staged, m.final)
    _sweep(fs, root, messages)
    if success_file:
        folders = sorted({m.partition for m in files if m.staged is not None}) if partitioned else [""]
        _write_success(fs, [posixpath.join(base, f, success_file) for f in folders])


def discard_all(root: str, messages: list[Any]) -> None:
    fs, _ = FS.resolve(root)
    for m in files_of(messages):
        if m.staged is not None:
            FS.delete(fs, m.staged)
    _sweep(fs, root, messages)


def _sweep(fs, root: str, messages: list[Any]) -> None:
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
        self.keys = json.loads(options.get("partition_keys") or "[]")
        self.track = options.get("track_partitions") == "true"
        self.success_file = options.get("success_file") or None

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Any:
        tc = TaskContext.get()
        pid, attempt = tc.partitionId(), tc.attemptNumber()
        if self.epoch is not None and self.part_uuid:
            name = f"part-{self.part_uuid}-{pid}-{self.epoch}"
            group = rf"part-{self.part_uuid}-\d+-{self.epoch}\.\d+(\.\d+)?\.inprogress"
            if self.keys:
                return _write_partitioned(self.root, self.keys, iterator, lambda n: f"{name}.{attempt}.{n}.inprogress",
                                          lambda n, repeat: f"{name}-{repeat}" if repeat else name, group)
            return _write_task(self.root, f"{name}.{attempt}.inprogress", name, iterator, group)
        name = f"part-{self.write_id}-task-{pid}"
        group = rf"part-{self.write_id}-task-\d+\.\d+(\.\d+)?\.inprogress"
        if self.keys:
            return _write_partitioned(self.root, self.keys, iterator, lambda n: f"{name}.{attempt}.{n}.inprogress",
                                      lambda n, repeat: f"{name}-file-{n}", group)
        return _write_task(self.root, f"{name}.{attempt}.inprogress", f"{name}-file-0", iterator, group)

    def commit(self, messages: list[Any]) -> None:
        if self.epoch is not None and self.part_uuid:
            commit_epoch(self.root, self.part_uuid, int(self.epoch), messages, self.track)
        else:
            publish_all(self.root, messages, self.success_file, bool(self.keys))

    def abort(self, messages: list[Optional[StagedFile]]) -> None:
        discard_all(self.root, messages)
