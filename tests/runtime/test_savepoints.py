"""Savepoints (sqlengine/runtime/savepoint.py): self-contained, immutable copies of a job's
checkpoint with their own metadata. One savepoint restores any number of times to the same
result (``NO_CLAIM``, Flink's default: the restored job copies it into its own checkpoint
folder); ``CLAIM`` runs in it. A job stopped midway with a savepoint and restored from it
commits, across both runs, exactly the result of an uninterrupted run.

The job is stopped at a known epoch: the epoch driver pauses at ``after-meta`` of its third
epoch (``SQLENGINE_FAULT_ACTION=pause:``), the stop is requested while it is paused, and
the epoch completes; no later epoch starts."""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import pytest

from sqlengine.errors import ExecutionError
from tests.runtime.window_job import output, submit, window_input, window_script
from tests.runtime.window_job import session as new_session

N, PER_EPOCH = 240, 40  # 6 epochs of input


@pytest.fixture
def expected(tmp_path) -> Counter:
    return window_input(tmp_path, N)


def _session(spark, tmp_path, job_id: str, **conf):
    return new_session(spark, tmp_path, job_id, PER_EPOCH, **conf)


def _digest(folder: Path) -> str:
    h = hashlib.sha1()
    for f in sorted(folder.rglob("*")):
        h.update(str(f.relative_to(folder)).encode())
        if f.is_file():
            h.update(f.read_bytes())
    return h.hexdigest()


def _stop_midway(spark, tmp_path, monkeypatch) -> str:
    """Run the job, stop it with a savepoint after its third epoch; the savepoint's path."""
    import time

    from sqlengine.api.jobs import stop_job
    pause = tmp_path / "pause"
    pause.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", "after-meta")
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"pause:{pause}")
    monkeypatch.setenv("SQLENGINE_FAULT_SKIP", "2")
    session = _session(spark, tmp_path, "first")
    job = submit(session, window_script(tmp_path, "out-first"))
    deadline = time.monotonic() + 120
    while not (pause / "reached").exists():  # the third epoch is paused
        assert time.monotonic() < deadline and not job.done.is_set(), "the job never reached its third epoch"
        time.sleep(0.02)
    job.stop_event.set()  # no epoch after this one
    (pause / "resume").touch()
    path = stop_job(session, "first", str(tmp_path / "savepoints"), timeout=120)
    monkeypatch.delenv("SQLENGINE_FAULT")
    assert job.status == "STOPPED" and path is not None
    return path


def test_a_savepoint_restores_twice_to_the_same_result_and_stays_as_it_was(spark, tmp_path, monkeypatch, expected):
    from sqlengine.runtime.savepoint import METADATA
    path = Path(_stop_midway(spark, tmp_path, monkeypatch))
    assert path.parent == tmp_path / "savepoints" and path.name.startswith("savepoint-first-")
    meta = json.loads((path / METADATA).read_text())
    assert meta["format-version"] == 1 and meta["job-id"] == "first"
    (query,) = meta["queries"].values()
    assert query["epoch"] == 2 and query["sinks-committed-epoch"] == 2 and query["dag"]
    assert query["sources"] and all(s is not None for s in query["sources"])
    before = _digest(path)
    first = output(tmp_path / "out-first")
    assert 0 < sum(first.values()) < sum(expected.values()), "stopped midway"

    results = []
    for n in (1, 2):  # NO_CLAIM (the default): each restore copies the savepoint
        session = _session(spark, tmp_path, f"restored-{n}", **{"execution.state-recovery.path": str(path)})
        job = submit(session, window_script(tmp_path, f"out-{n}")).wait(300)
        assert job.checkpoint_root == str(tmp_path / "ckpt" / f"restored-{n}")
        results.append(output(tmp_path / f"out-{n}"))
    assert results[0] == results[1], "one savepoint, two identical results"
    assert first + results[0] == expected, "nothing lost, nothing duplicated across the stop"
    assert _digest(path) == before, "a savepoint is immutable"

    # CLAIM: the job runs in the savepoint's folder, which becomes its checkpoint.
    session = _session(spark, tmp_path, "claimed", **{"execution.state-recovery.path": str(path),
                                                      "execution.state-recovery.claim-mode": "CLAIM"})
    job = submit(session, window_script(tmp_path, "out-3")).wait(300)
    assert job.checkpoint_root == str(path) and not (path / METADATA).exists()
    assert output(tmp_path / "out-3") == results[0]
    assert not (tmp_path / "ckpt" / "claimed").exists()


def test_restoring_into_a_folder_in_use_or_with_an_unknown_claim_mode_is_an_error(spark, tmp_path, monkeypatch,
                                                                                  expected):
    path = _stop_midway(spark, tmp_path, monkeypatch)
    session = _session(spark, tmp_path, "first", **{"execution.state-recovery.path": path})
    with pytest.raises(ExecutionError) as err:
        submit(session, window_script(tmp_path, "out-again"))
    assert "the job's checkpoint folder is in use" in str(err.value)
    assert os.listdir(tmp_path / "ckpt" / "first"), "the folder in use is left alone"
    session = _session(spark, tmp_path, "other", **{"execution.state-recovery.path": path,
                                                    "execution.state-recovery.claim-mode": "MINE"})
    with pytest.raises(Exception) as err:
        submit(session, window_script(tmp_path, "out-other"))
    assert "Unknown claim mode 'MINE' in 'execution.state-recovery.claim-mode'" in str(err.value)
