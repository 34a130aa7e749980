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


def _stop_midway(spark, tmp_path, monkeypatch, savepoints: str = "", sql: bool = False, **conf) -> str:
    """Run the job, stop it with a savepoint (in ``savepoints``, else
    ``<tmp_path>/savepoints``; with ``sql``, by ``STOP JOB ... WITH SAVEPOINT``, where the
    session's settings say) after its third epoch; the savepoint's path."""
    import time

    from sqlengine.api.jobs import stop_job
    pause = tmp_path / "pause"
    pause.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", "after-meta")
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"pause:{pause}")
    monkeypatch.setenv("SQLENGINE_FAULT_SKIP", "2")
    session = _session(spark, tmp_path, "first", **conf)
    job = submit(session, window_script(tmp_path, "out-first"))
    deadline = time.monotonic() + 120
    while not (pause / "reached").exists():  # the third epoch is paused
        assert time.monotonic() < deadline and not job.done.is_set(), "the job never reached its third epoch"
        time.sleep(0.02)
    job.stop_event.set()  # no epoch after this one
    (pause / "resume").touch()
    if sql:
        ((path,),) = session.execute_sql("STOP JOB 'first' WITH SAVEPOINT").collect()
    else:
        path = stop_job(session, "first", savepoints or str(tmp_path / "savepoints"), timeout=120)
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


def test_stop_job_with_savepoint_writes_into_the_configured_savepoint_dir(spark, tmp_path, monkeypatch,
                                                                          expected):
    from sqlengine.runtime.savepoint import METADATA
    configured = tmp_path / "configured"
    path = Path(_stop_midway(spark, tmp_path, monkeypatch, sql=True,
                             **{"execution.checkpointing.savepoint-dir": str(configured)}))
    assert path.parent == configured and path.name.startswith("savepoint-first-")
    assert json.loads((path / METADATA).read_text())["job-id"] == "first"
    assert not (tmp_path / "savepoints").exists() and not (tmp_path / "ckpt" / "savepoints").exists()


AGGREGATE = """SELECT item, window_start, COUNT(*) AS n, SUM(price) AS total
               FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY item, window_start, window_end"""


def _changed(tmp_path, out: str, insert: str) -> list[str]:
    return window_script(tmp_path, out)[:-1] + [insert]


def test_a_changed_query_keeps_the_state_flink_would_match_and_names_what_it_cannot(spark, tmp_path, monkeypatch,
                                                                                     expected):
    path = _stop_midway(spark, tmp_path, monkeypatch)
    first = output(tmp_path / "out-first")
    # Into the folder of a job that ran (the same job id), or with an unknown claim mode: refused.
    with pytest.raises(ExecutionError) as err:
        submit(_session(spark, tmp_path, "first", **{"execution.state-recovery.path": path}),
               window_script(tmp_path, "out-again"))
    assert "the job's checkpoint folder is in use" in str(err.value)
    assert os.listdir(tmp_path / "ckpt" / "first"), "the folder in use is left alone"
    with pytest.raises(Exception) as err:
        submit(_session(spark, tmp_path, "other", **{"execution.state-recovery.path": path,
                                                     "execution.state-recovery.claim-mode": "MINE"}),
               window_script(tmp_path, "out-other"))
    assert "Unknown claim mode 'MINE' in 'execution.state-recovery.claim-mode'" in str(err.value)

    def restore(job_id: str, insert: str, out: str, **conf):
        session = _session(spark, tmp_path, job_id, **{"execution.state-recovery.path": path, **conf})
        return submit(session, _changed(tmp_path, out, insert)).wait(300)

    # A filter and a projection after the window aggregation, into a sink with other options
    # (another path): the aggregation keeps its state.
    restore("filtered", f"INSERT INTO `out` SELECT item, window_start, n, total + 0 FROM ({AGGREGATE}) WHERE n > 0",
            "out-filtered")
    assert first + output(tmp_path / "out-filtered") == expected
    # The aggregation itself changed (its state would not fit): refused, naming it.
    with pytest.raises(ExecutionError) as err:
        restore("changed", "INSERT INTO `out` SELECT item, window_start, COUNT(*), MAX(price) FROM TABLE(TUMBLE("
                           "TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY item, window_start, window_end",
                "out-changed")
    assert "the state of operator" in str(err.value) and "WindowAggregate" in str(err.value)
    assert "cannot be mapped to the changed query" in str(err.value)
    assert not (tmp_path / "ckpt" / "changed").exists(), "the refused restore's copy is removed"
    # No aggregation any more: its state is unclaimed, refused unless told to drop it.
    plain = "INSERT INTO `out` SELECT item, ts, 1, price FROM bids"
    with pytest.raises(ExecutionError) as err:
        restore("plain", plain, "out-plain")
    assert "which the changed query does not have" in str(err.value)
    assert "'execution.state-recovery.ignore-unclaimed-state' = 'true'" in str(err.value)
    restore("plain-2", plain, "out-plain", **{"execution.state-recovery.ignore-unclaimed-state": "true"})
    assert sum(output(tmp_path / "out-plain").values()) == N - 3 * PER_EPOCH, "the bids after the savepoint"
