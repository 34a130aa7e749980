"""The filesystem sink: two-phase commit of part files, batch writes and epochs of a streaming job."""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from connectors.base import Options, SinkContext, factory_for
from connectors.filesystem import writer as W
from sqlengine import types as T
from sqlengine.errors import ConnectorError

COLS = [("id", T.INT()), ("name", T.STRING()), ("price", T.DECIMAL(10, 2)), ("ts", T.TIMESTAMP(3))]


def visible(root: Path) -> dict[str, list[str]]:
    """Visible part files and their lines (what Flink's readers and compare.py see)."""
    return {p.name: p.read_text().splitlines() for p in sorted(root.iterdir())
            if p.is_file() and not p.name.startswith((".", "_"))} if root.exists() else {}


def staged(root: Path) -> list[str]:
    """Staged part files (the sinks' markers of their last committed epoch aside)."""
    folder = root / W.STAGING
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".inprogress")) if folder.exists() else []


def task(root: Path, name: str, lines: list[str]) -> W.StagedFile:
    batches = [pa.record_batch([pa.array(lines, pa.string())], names=["line"])]
    return W._write_task(str(root), name + ".0.inprogress", name, iter(batches))


def test_commit_publishes_idempotently(tmp_path):
    root = tmp_path / "out"
    messages = [task(root, "part-q-0-7", ["a", "b"]), task(root, "part-q-1-7", []), None]
    assert visible(root) == {} and staged(root) == ["part-q-0-7.0.inprogress"]
    assert messages[1].staged is None and messages[0].rows == 2
    sink = W.LinesBatchWriter({"path": str(root), "epoch": "7", "part_uuid": "q"})
    sink.commit(messages)
    assert visible(root) == {"part-q-0-7": ["a", "b"]} and staged(root) == []
    sink.commit(messages)  # a replayed commit of the same epoch
    assert visible(root) == {"part-q-0-7": ["a", "b"]}
    replay = [task(root, "part-q-0-7", ["a", "b"])]  # the epoch re-executed after a crash
    sink.commit(replay)
    assert visible(root) == {"part-q-0-7": ["a", "b"]} and staged(root) == []


def test_epoch_cut_short_is_rolled_forward_and_its_replay_adds_nothing(tmp_path):
    """A crash after the driver decided an epoch (its marker) but before every rename: the
    next start's recovery publishes the rest; the replayed epoch, whose rows now fall on
    other tasks, publishes nothing (publishing it file by file would duplicate row b)."""
    root = tmp_path / "out"
    first = [task(root, "part-q-0-3", ["a", "b"]), task(root, "part-q-1-3", ["c"])]
    W.write_marker(*W.FS.resolve(str(root)), "q", 3, [[m.staged, m.final] for m in first])
    W.FS.publish(W.FS.resolve(str(root))[0], first[0].staged, first[0].final)  # killed here
    assert visible(root) == {"part-q-0-3": ["a", "b"]}
    W.recover(str(root), "q")
    assert visible(root) == {"part-q-0-3": ["a", "b"], "part-q-1-3": ["c"]} and staged(root) == []
    replay = [task(root, "part-q-0-3", ["a"]), task(root, "part-q-1-3", ["b", "c"]), task(root, "part-q-2-3", ["d"])]
    W.LinesBatchWriter({"path": str(root), "epoch": "3", "part_uuid": "q"}).commit(replay)
    assert visible(root) == {"part-q-0-3": ["a", "b"], "part-q-1-3": ["c"]} and staged(root) == []
    W.LinesBatchWriter({"path": str(root), "epoch": "4", "part_uuid": "q"}).commit([task(root, "part-q-0-4", ["e"])])
    assert visible(root)["part-q-0-4"] == ["e"]


def test_recovery_removes_uncommitted_epochs_of_its_sink_only(tmp_path):
    root = tmp_path / "out"
    ok = [task(root, "part-q-0-1", ["a"])]
    W.LinesBatchWriter({"path": str(root), "epoch": "1", "part_uuid": "q"}).commit(ok)
    task(root, "part-q-0-2", ["b"])  # epoch 2 prepared, never committed: it is replayed
    task(root, "part-r-0-2", ["x"])  # another sink's
    W.recover(str(root), "q")
    assert staged(root) == ["part-r-0-2.0.inprogress"]
    assert visible(root) == {"part-q-0-1": ["a"]}
    W.LinesBatchWriter({"path": str(root), "epoch": "1", "part_uuid": "q"}).commit(
        [task(root, "part-q-0-1", ["a"])])  # an older epoch replayed: the marker is at 1
    assert visible(root) == {"part-q-0-1": ["a"]} and staged(root) == ["part-r-0-2.0.inprogress"]


def test_failed_attempts_are_swept(tmp_path):
    root = tmp_path / "out"
    group = r"part-q-\d+-5\.\d+\.inprogress"
    batches = [pa.record_batch([pa.array(["x"], pa.string())], names=["line"])]
    W._write_task(str(root), "part-q-1-5.0.inprogress", "part-q-1-5", iter(batches), group)  # attempt 0 died
    ok = W._write_task(str(root), "part-q-1-5.1.inprogress", "part-q-1-5", iter(batches), group)
    other = W._write_task(str(root), "part-q-1-6.0.inprogress", "part-q-1-6", iter(batches), "other")
    W.LinesBatchWriter({"path": str(root)}).commit([ok])
    assert visible(root) == {"part-q-1-5": ["x"]} and staged(root) == ["part-q-1-6.0.inprogress"]
    assert other.staged is not None


def test_abort_leaves_no_visible_file(tmp_path):
    root = tmp_path / "out"
    messages = [task(root, "part-q-0-3", ["x"]), task(root, "part-q-1-3", ["y"])]
    W.LinesBatchWriter({"path": str(root)}).abort(messages)
    assert visible(root) == {} and staged(root) == []
    W.LinesBatchWriter({"path": str(root)}).abort([None])


def test_nothing_is_created_without_rows(tmp_path):
    root = tmp_path / "out"
    W.LinesBatchWriter({"path": str(root)}).commit([task(root, "part-q-0-0", [])])
    assert not root.exists()


def sink(spark, path, streaming, columns=COLS, updating=False, **options):
    ctx = SinkContext(spark, streaming, 2, "default_catalog.default_database.out", columns,
                      Options("filesystem", {"path": str(path), "format": "json", **options}), updating)
    return factory_for("filesystem", "out").sink(ctx)


ROWS = [(1, "a b", Decimal("4.00"), dt.datetime(2020, 4, 15, 8, 5)),
        (2, None, Decimal("640.00"), dt.datetime(2020, 4, 15, 8, 9, 59, 999000))]
LINES = ['{"id":1,"name":"a b","price":4,"ts":"2020-04-15 08:05:00"}',
         '{"id":2,"name":null,"price":6.4E+2,"ts":"2020-04-15 08:09:59.999"}']


def test_batch_write(spark, tmp_path):
    df = spark.createDataFrame(ROWS, "id int, name string, price decimal(10,2), ts timestamp").repartition(2, "id")
    root = tmp_path / "out"
    sink(spark, root, False).write_batch(df)
    files = visible(root)
    assert all(name.startswith("part-") and "-task-" in name and name.endswith("-file-0") for name in files)
    assert sorted(sum(files.values(), [])) == LINES and staged(root) == []
    sink(spark, root, False).write_batch(df)  # a second job appends new files
    assert len(visible(root)) == 2 * len(files)


def test_epoch_write_is_idempotent(spark, tmp_path):
    """``write_epoch`` (a statement set's foreachBatch): a replayed epoch adds nothing."""
    df = spark.createDataFrame(ROWS, "id int, name string, price decimal(10,2), ts timestamp").repartition(2, "id")
    root = tmp_path / "out"
    sink(spark, root, True).write_epoch(df, 4, "q1")
    files = visible(root)
    uid = W.part_uuid("q1", "sink")
    assert sorted(files) == sorted(f"part-{uid}-{p}-4" for p in range(2)) and staged(root) == []
    assert sorted(sum(files.values(), [])) == LINES
    sink(spark, root, True).write_epoch(df, 4, "q1")  # replayed after a crash
    assert visible(root) == files and staged(root) == []
    sink(spark, root, True).write_epoch(df, 5, "q1")  # the next epoch
    assert len(visible(root)) == 2 * len(files)


def test_updating_input_is_rejected(spark, tmp_path):
    with pytest.raises(ConnectorError, match="doesn't support consuming update and delete changes"):
        sink(spark, tmp_path, True, updating=True)
    assert factory_for("filesystem", "x").accepts_updates is False


def test_validate_sink_options_has_no_side_effects(tmp_path):
    factory = factory_for("filesystem", "x")
    target = tmp_path / "never"
    factory.validate_sink_options({"connector": "filesystem", "path": str(target), "format": "csv",
                                   "csv.field-delimiter": ";", "sink.rolling-policy.file-size": "128MB",
                                   "sink.partition-commit.trigger": "process-time"})
    assert not target.exists()
    with pytest.raises(ConnectorError, match="Unsupported options found for 'filesystem'"):
        factory.validate_sink_options({"connector": "filesystem", "path": "p", "format": "json", "sink.parallelism": "2"})
    with pytest.raises(ConnectorError, match="Missing required option 'path'"):
        factory.validate_sink_options({"connector": "filesystem", "format": "json"})


def test_csv_sink_lines(spark, tmp_path):
    df = spark.createDataFrame(ROWS, "id int, name string, price decimal(10,2), ts timestamp").coalesce(1)
    root = tmp_path / "out"
    sink(spark, root, False, format="csv").write_batch(df)
    assert sorted(sum(visible(root).values(), [])) == [
        '1,"a b",4,"2020-04-15 08:05:00"', '2,,6.4E+2,"2020-04-15 08:09:59.999"']


def test_sink_output_is_valid_json(spark, tmp_path):
    df = spark.createDataFrame(ROWS, "id int, name string, price decimal(10,2), ts timestamp")
    root = tmp_path / "out"
    sink(spark, root, False).write_batch(df)
    assert sorted(json.loads(line)["id"] for line in sum(visible(root).values(), [])) == [1, 2]
