"""Checkpoints, operator state and savepoints on a real HDFS (a NameNode and a DataNode,
``tests/hdfs.py``): every file of them goes through Hadoop's FileSystem API
(``sqlengine/runtime/fs.py``), and nothing of them lands on the local disk.

The job is the TUMBLE job of ``window_job.py``. On HDFS it is stopped with a savepoint into
HDFS, and the savepoint restores twice to the same result, exactly the rest of the
uninterrupted run's. (A kill and an in-process restart with the checkpoint on HDFS are
cells of tests/connectors/kafka/test_fault_matrix.py; the worker kill on a standalone
cluster is tests/connectors/kafka/test_standalone_cluster.py.)"""
from __future__ import annotations

import json
import uuid

import pytest

from sqlengine.runtime import fs
from tests.runtime.test_savepoints import N, PER_EPOCH, _stop_midway
from tests.runtime.window_job import output, submit, window_input, window_script
from tests.runtime.window_job import session as new_session


@pytest.fixture
def base(hdfs, spark) -> str:
    """A fresh folder on HDFS for the test."""
    return f"{hdfs.url}/t-{uuid.uuid4().hex[:8]}"


def _state_versions(root: str) -> list[str]:
    """The state tables' version folders under the job checkpoint ``root``."""
    (query,) = fs.subdirs(root)
    return [rel for rel, _ in fs.files(f"{root}/{query}/state") if rel.endswith("/_SUCCESS")]


def test_a_savepoint_on_hdfs_restores_twice_to_the_same_result(spark, tmp_path, monkeypatch, base):
    from sqlengine.runtime.savepoint import METADATA
    expected = window_input(tmp_path, N)
    path = _stop_midway(spark, tmp_path, monkeypatch, savepoints=f"{base}/savepoints",
                        **{"execution.checkpointing.dir": f"{base}/ckpt"})
    assert path.startswith(f"{base}/savepoints/savepoint-first-")
    meta = json.loads(fs.read_text(f"{path}/{METADATA}"))
    assert meta["format-version"] == 1 and [q["epoch"] for q in meta["queries"].values()] == [2]
    assert _state_versions(path), "the savepoint holds its own copy of the state"
    before = sorted(fs.files(path))
    first = output(tmp_path / "out-first")
    assert 0 < sum(first.values()) < sum(expected.values()), "stopped midway"
    results = []
    for n in (1, 2):  # NO_CLAIM: each restore copies the savepoint into its own folder on HDFS
        session = new_session(spark, tmp_path, f"restored-{n}", PER_EPOCH, **{
            "execution.checkpointing.dir": f"{base}/ckpt", "execution.state-recovery.path": path})
        job = submit(session, window_script(tmp_path, f"out-{n}")).wait(300)
        assert job.checkpoint_root == f"{base}/ckpt/restored-{n}" and _state_versions(job.checkpoint_root)
        results.append(output(tmp_path / f"out-{n}"))
    assert results[0] == results[1], "one savepoint, two identical results"
    assert first + results[0] == expected, "nothing lost, nothing duplicated across the stop"
    assert sorted(fs.files(path)) == before, "a savepoint is immutable"
    assert not (tmp_path / "ckpt").exists() and not (tmp_path / "savepoints").exists()


def test_a_restore_path_on_hdfs_without_a_checkpoint_is_an_error(spark, tmp_path, base):
    from sqlengine.errors import ExecutionError
    window_input(tmp_path, N)
    fs.makedirs(f"{base}/empty")
    session = new_session(spark, tmp_path, "nothing", PER_EPOCH, **{
        "execution.checkpointing.dir": f"{base}/ckpt", "execution.state-recovery.path": f"{base}/empty"})
    with pytest.raises(ExecutionError, match=f"Cannot restore from '{base}/empty': it holds no checkpoint"):
        submit(session, window_script(tmp_path, "out"))
    assert not fs.exists(f"{base}/ckpt/nothing")


def test_an_unreachable_file_system_is_one_error_naming_the_path(spark):
    from tests.connectors.kafka.broker import _free_port
    path = f"hdfs://127.0.0.1:{_free_port()}/ckpt/job"  # nothing listens there
    hadoop = spark._jsc.hadoopConfiguration()
    hadoop.setInt("ipc.client.connect.max.retries", 0)  # (the client retries 10 times, a second apart)
    try:
        with pytest.raises(fs.FileSystemError) as err:
            fs.listdir(path)
    finally:
        hadoop.unset("ipc.client.connect.max.retries")
    assert str(err.value) == f"Cannot use '{path}': ConnectException: Connection refused"
    assert isinstance(err.value, OSError)
