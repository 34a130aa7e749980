"""Operator state versioned by epoch: Parquet tables under the query's checkpoint.

An epoch is one Spark micro-batch (``foreachBatch``'s ``epoch_id``). Spark replays the
last epoch after a crash with the same id and the same offsets, so every read of
state at epoch ``e`` sees exactly the versions written by epochs ``< e``, and a
write at ``e`` replaces whatever a crashed attempt of ``e`` left. Nothing of the
state is held in the driver: tables are read and written by Spark (they spill to
disk), so state may be larger than memory.

Layout, per operator id: ``<root>/<op>/<table>/e=<epoch>/`` Parquet files, each row
with its key group ``__kg`` = ``pmod(hash(keys),
max-parallelism)`` of the operator's key (an operator without a key has one key
group, 0; ``runtime/keygroups.py``). Reading a table gives every row the ``__task`` of
the task that owns its key group at the job's current parallelism, so its rows meet
the epoch's rows of the same keys on that task; a job restored at another parallelism
reads the same files, and each task takes the key-group range it owns now. A version
folder holding ``_BASE`` is a full snapshot; the others are deltas (rows with a signed
count ``__n``) on top of the latest snapshot before them. ``read(e)`` unions
the latest snapshot ``< e`` with the deltas after it; a table whose delta chain
grows past ``COMPACT_EVERY`` is compacted into a snapshot. Versions that no replay
can need any more are deleted.

Small per-epoch facts (each watermark assigner's maximum event time, which bounded
inputs have ended) live in ``<root>/_meta/<epoch>.json`` with the same rule.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Optional, Sequence, Union

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StructField, StructType

from sqlengine.faults import reached
from sqlengine.runtime import fs
from sqlengine.hidden import COUNT, KEY_GROUP, TASK
from sqlengine.runtime.keygroups import key_group, task_of

COMPACT_EVERY = 8


def _epochs(path: str, marker: str = "_SUCCESS") -> list[int]:
    """The epochs whose version folder holds ``marker`` (every complete one: ``_SUCCESS``)."""
    def epochs(name: str) -> set[int]:
        return {int(os.path.basename(os.path.dirname(p))[2:]) for p in fs.glob(path, f"e=*/{name}")}
    found = epochs("_SUCCESS")
    return sorted(found if marker == "_SUCCESS" else found & epochs(marker))


class Table:
    """One versioned state table of one operator (see the module docstring)."""

    def __init__(self, spark, path: str, schema: StructType, keys: Sequence[Union[str, Column]], groups: int,
                 tasks: int, background: Optional[Callable[[Callable[[], None]], None]] = None):
        schema = StructType([f for f in schema.fields if f.name != TASK])  # never stored: it depends on the tasks
        names = schema.fieldNames()
        assert "e" not in names and KEY_GROUP not in names, names  # the folders' partition column, ours
        assert all(k in names for k in keys if isinstance(k, str)), (keys, names)
        self.spark = spark
        self.path = path
        self.schema = schema
        self.keys = list(keys)
        self.groups = groups
        self.tasks = tasks
        self.background = background  # runs a version's write off the caller's thread (EpochRun.background)

    def key_group(self) -> Column:
        """A row's key group: ``pmod(hash(keys), max-parallelism)``, as the exchange computes it."""
        return key_group([F.col(f"`{k}`") if isinstance(k, str) else k for k in self.keys], self.groups)

    def _dir(self, epoch: int) -> str:
        return os.path.join(self.path, f"e={epoch}")

    def versions(self, before: int) -> tuple[Optional[int], list[int]]:
        """The latest snapshot ``< before`` and the deltas after it (both ``< before``)."""
        all_ = [e for e in _epochs(self.path) if e < before]
        bases = [e for e in _epochs(self.path, "_BASE") if e < before]
        base = bases[-1] if bases else None
        return base, [e for e in all_ if base is None or e > base]

    def stored_schema(self) -> StructType:
        return StructType(list(self.schema.fields) + [StructField(KEY_GROUP, IntegerType(), False)])

    def _read_dirs(self, epoch: int) -> list[str]:
        base, deltas = self.versions(epoch)
        return ([self._dir(base)] if base is not None and base not in deltas else []) + \
            [self._dir(e) for e in deltas]

    def size(self, epoch: int) -> int:
        """Bytes on disk of what ``read(epoch)`` reads."""
        return sum(fs.size(d) for d in self._read_dirs(epoch))

    def read(self, epoch: int) -> DataFrame:
        """The table as of the end of epoch ``epoch - 1`` (deltas not yet netted), each row
        with the ``__task`` that owns its key group."""
        dirs = self._read_dirs(epoch)
        if dirs:
            reached("state-read")
            df = self.spark.read.schema(self.stored_schema()).parquet(*dirs)
        else:
            df = self.spark.createDataFrame([], self.stored_schema())
        return df.select(*[F.col(f"`{f.name}`") for f in self.schema.fields],
                         task_of(F.col(KEY_GROUP), self.tasks, self.groups).alias(TASK))

    def write(self, epoch: int, df: DataFrame, snapshot: bool) -> None:
        """Write this epoch's version: a full ``snapshot`` or a delta. With ``background``
        (an epoch's write threads, ``EpochRun.background``) the version's frame is built here
        and written there while the caller goes on; the epoch waits for it before its sinks.
        Retention then deletes only versions older than the snapshot this epoch reads, so a
        job of the same epoch still reading the table never loses a file."""
        target = self._dir(epoch)
        rows = df.select(*[F.col(f"`{f.name}`") for f in self.schema.fields], self.key_group().alias(KEY_GROUP))

        def finish() -> None:
            rows.write.mode("overwrite").parquet(target)
            reached("state-write")
            if snapshot:
                fs.touch(os.path.join(target, "_BASE"))
            self._retain(epoch)
        if self.background is None:
            finish()
        else:
            self.background(finish)

    def chain_length(self, epoch: int) -> int:
        return len(self.versions(epoch)[1])

    def _retain(self, epoch: int) -> None:
        """Delete versions older than the snapshot a replay of ``epoch`` would read."""
        base, _ = self.versions(epoch)
        if base is None:
            return
        for name in fs.listdir(self.path):  # (with crashed attempts of older epochs)
            if name.startswith("e=") and int(name[2:]) < base:
                fs.rmtree(os.path.join(self.path, name))


def with_count(schema: StructType) -> StructType:
    return StructType(list(schema.fields) + [StructField(COUNT, LongType(), False)])


class StateStore:
    """All state of one streaming query: tables per operator and per-epoch facts."""

    def __init__(self, spark, root: str, groups: int):
        self.spark = spark
        self.root = root
        self.groups = groups  # key groups (pipeline.max-parallelism)

    def table(self, op_id: str, name: str, schema: StructType, keys: Sequence[Union[str, Column]],
              tasks: int, background: Optional[Callable[[Callable[[], None]], None]] = None) -> Table:
        """An operator's state table; ``keys``: its columns (or expressions over them)
        holding the operator's key, as its exchange hashes it (none: one key group);
        ``tasks``: the operator's tasks (1 behind a ``single`` edge)."""
        return Table(self.spark, os.path.join(self.root, op_id, name), schema, keys, self.groups, tasks, background)

    def written(self, op_id: str, name: str, before: int) -> bool:
        """Whether the operator's table ``name`` has a version from an epoch ``< before``."""
        return any(e < before for e in _epochs(os.path.join(self.root, op_id, name)))

    def operators(self) -> list[str]:
        """The ids of the operators with state tables here."""
        return sorted(n for n in fs.subdirs(self.root) if not n.startswith(("_", ".")))

    def has_state(self) -> bool:
        return bool(self._meta_epochs())

    def _meta_epochs(self) -> list[int]:
        try:
            names = fs.listdir(os.path.join(self.root, "_meta"))
        except FileNotFoundError:
            return []
        return sorted(int(n[:-5]) for n in names if n.endswith(".json") and n[:-5].isdigit())

    def read_meta(self, epoch: int) -> dict[str, Any]:
        before = [e for e in self._meta_epochs() if e < epoch]
        if not before:
            return {}
        return json.loads(fs.read_text(os.path.join(self.root, "_meta", f"{before[-1]}.json")))

    def write_meta(self, epoch: int, meta: dict[str, Any]) -> None:
        d = os.path.join(self.root, "_meta")
        fs.makedirs(d)
        fs.write_text(os.path.join(d, f"{epoch}.json"), json.dumps(meta))
        for e in self._meta_epochs():
            if e < epoch - 2:
                fs.remove(os.path.join(d, f"{e}.json"))
