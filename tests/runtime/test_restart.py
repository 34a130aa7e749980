"""Restart strategies (sqlengine/runtime/restart.py): a streaming job that fails at run time
restarts inside its JobManager from its last checkpoint, as Flink's restart strategy
allows, and its committed output stays exact; RESTARTING and the restart count show in
SHOW JOBS and the job's exception history; a job whose strategy gives up fails with the
path to restore it from.

The failures are injected in this process (``SQLENGINE_FAULT_ACTION=raise:<folder>``,
sqlengine/faults.py) at the epoch driver's points: each raises once, as a task or an epoch
fails on a real error, and the replayed epoch goes on."""
from __future__ import annotations

import time
from collections import Counter

import pytest

from sqlengine.errors import ExecutionError, ValidationError
from sqlengine.runtime.restart import RestartStrategy, restart_strategy
from tests import fault_cells
from tests.runtime.window_job import output, submit, window_input, window_script
from tests.runtime.window_job import session as new_session

N, PER_EPOCH = 120, 40  # 3 epochs of input


# --- the strategies' arithmetic (Flink's RestartBackoffTimeStrategy implementations) ---------

def test_default_is_none_without_checkpoint_interval_and_exponential_with_it():
    assert restart_strategy({}).kind == "none"
    assert restart_strategy({}).on_failure(0.0) is None
    s = restart_strategy({"execution.checkpointing.interval": "10 s"})
    assert s.kind == "exponential-delay"
    assert (s.initial_s, s.max_s, s.multiplier, s.reset_s, s.jitter, s.max_attempts) == \
        (1.0, 60.0, 1.5, 3600.0, 0.1, 2147483647)  # Flink 2.3's defaults
    assert restart_strategy({"restart-strategy.type": "off", "execution.checkpointing.interval": "1 s"}).kind == "none"


def test_fixed_delay_restarts_as_often_as_its_attempts():
    s = restart_strategy({"restart-strategy.type": "fixeddelay", "restart-strategy.fixed-delay.attempts": "2",
                          "restart-strategy.fixed-delay.delay": "250 ms"})
    assert [s.on_failure(t) for t in (0.0, 100.0, 200.0)] == [0.25, 0.25, None]
    assert s.restarts == 2
    assert restart_strategy({"restart-strategy.type": "fixed-delay"}).on_failure(0.0) == 1.0  # 1 attempt, 1 s


def test_failure_rate_counts_the_failures_within_its_interval():
    s = restart_strategy({"restart-strategy.type": "failure-rate",
                          "restart-strategy.failure-rate.max-failures-per-interval": "2",
                          "restart-strategy.failure-rate.failure-rate-interval": "10 s",
                          "restart-strategy.failure-rate.delay": "0 s"})
    assert s.on_failure(0.0) == 0.0 and s.on_failure(5.0) == 0.0
    assert s.on_failure(9.0) is None  # a third failure within 10 s
    s = restart_strategy({"restart-strategy.type": "failure-rate",
                          "restart-strategy.failure-rate.max-failures-per-interval": "2",
                          "restart-strategy.failure-rate.failure-rate-interval": "10 s"})
    assert [s.on_failure(t) for t in (0.0, 5.0, 16.0, 30.0)] == [1.0, 1.0, 1.0, 1.0]  # never 3 within 10 s


def test_exponential_delay_grows_to_its_maximum_and_resets_after_a_quiet_period():
    s = restart_strategy({"restart-strategy.type": "exponential-delay",
                          "restart-strategy.exponential-delay.initial-backoff": "1 s",
                          "restart-strategy.exponential-delay.max-backoff": "5 s",
                          "restart-strategy.exponential-delay.backoff-multiplier": "2",
                          "restart-strategy.exponential-delay.reset-backoff-threshold": "1 min",
                          "restart-strategy.exponential-delay.jitter-factor": "0"})
    assert [s.on_failure(t) for t in (0.0, 2.0, 5.0, 10.0, 16.0)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert s.on_failure(16.0 + 60.0 + 5.0) == 1.0  # a minute (plus the backoff) without failing
    jittered = RestartStrategy("exponential-delay", initial_s=10.0, max_s=10.0, jitter=0.5)
    assert all(5.0 <= jittered.on_failure(float(t)) <= 15.0 for t in range(20))
    capped = restart_strategy({"restart-strategy.type": "exponential-delay",
                               "restart-strategy.exponential-delay.attempts-before-reset-backoff": "1"})
    assert capped.on_failure(0.0) is not None and capped.on_failure(1.0) is None


@pytest.mark.parametrize("conf, message", [
    ({"restart-strategy.type": "sometimes"}, "Unknown restart strategy 'sometimes' in 'restart-strategy.type'"),
    ({"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.delay": "soon"},
     "'restart-strategy.fixed-delay.delay': 'soon' is not a duration"),
    ({"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": "-1"},
     "'restart-strategy.fixed-delay.attempts': '-1'"),
    ({"restart-strategy.type": "exponential-delay", "restart-strategy.exponential-delay.jitter-factor": "2"},
     "'restart-strategy.exponential-delay.jitter-factor': '2' (a number between 0 and 1)"),
    ({"restart-strategy.type": "exponential-delay", "restart-strategy.exponential-delay.initial-backoff": "2 min"},
     "must not be larger than 'restart-strategy.exponential-delay.max-backoff'"),
])
def test_invalid_settings_name_their_key(conf, message):
    with pytest.raises(ValidationError) as err:
        restart_strategy(conf)
    assert message in str(err.value)


# --- jobs that fail and restart ------------------------------------------------------------

@pytest.fixture
def windows(tmp_path):
    return window_script(tmp_path, "out"), window_input(tmp_path, N)


def _session(spark, tmp_path, **conf):
    return new_session(spark, tmp_path, "restarting", PER_EPOCH, **conf)


def _output(tmp_path) -> Counter:
    return output(tmp_path / "out")


def _inject(monkeypatch, tmp_path, point: str) -> None:
    folder = tmp_path / "faults"
    folder.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", point)
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"raise:{folder}")


FIXED = {"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.delay": "0 s"}


# (The Kafka and PostgreSQL sinks' driver points fail in tests/connectors/kafka/test_fault_matrix.py.)
@pytest.mark.parametrize("point", ["recovery", "recovering", "epoch-start", "state-read", "state-write",
                                   "before-sink", "file-marked", "after-sink", "after-meta", "end-of-input"])
def test_a_failed_job_restarts_from_its_checkpoint_and_stays_exact(spark, tmp_path, monkeypatch, windows, point,
                                                                   request):
    script, expected = windows
    _inject(monkeypatch, tmp_path, point)
    job = submit(_session(spark, tmp_path, **FIXED), script).wait(300)
    assert (tmp_path / "faults" / f"raised-{point}").exists(), "the failure was injected"
    assert job.status == "FINISHED" and job.restarts == 1
    assert [f[1:] for f in job.failures] == [("sqlengine.faults.InjectedError", f"injected failure at '{point}'")]
    got = _output(tmp_path)
    fault_cells.report(request.node, "restart", point, "file->window->filesystem", expected, got)
    assert got == expected, "nothing lost, nothing duplicated"


def test_without_a_restart_strategy_the_job_fails_with_its_restore_path(spark, tmp_path, monkeypatch, windows):
    script, expected = windows
    _inject(monkeypatch, tmp_path, "after-sink")
    job = submit(_session(spark, tmp_path), script)
    with pytest.raises(ExecutionError) as failed:
        job.wait(300)
    assert "Job restarting failed: injected failure at 'after-sink'" in str(failed.value)
    assert failed.value.diagnostic.hint == \
        f"to resume, SET 'execution.state-recovery.path' = '{tmp_path / 'ckpt' / 'restarting'}'"
    assert job.status == "FAILED" and job.restarts == 0
    # Restored by hand, as the message says: exact.
    monkeypatch.delenv("SQLENGINE_FAULT")
    submit(_session(spark, tmp_path, **{"execution.state-recovery.path": str(tmp_path / "ckpt" / "restarting")}),
            script).wait(300)
    assert _output(tmp_path) == expected


def test_a_job_gives_up_when_its_strategy_does(spark, tmp_path, monkeypatch, windows):
    script, _ = windows
    _inject(monkeypatch, tmp_path, "after-meta")
    job = submit(_session(spark, tmp_path, **{**FIXED, "restart-strategy.fixed-delay.attempts": "0"}), script)
    with pytest.raises(ExecutionError) as failed:
        job.wait(300)
    assert "injected failure at 'after-meta'" in str(failed.value)
    assert job.status == "FAILED" and len(job.failures) == 1


def _until(condition, timeout=120.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)  # polling another thread's state, not waiting for a result


def test_restarting_shows_in_show_jobs_and_a_stop_keeps_the_checkpoint(spark, tmp_path, monkeypatch, windows):
    from sqlengine.api.jobs import job_info
    script, expected = windows
    _inject(monkeypatch, tmp_path, "after-sink")
    session = _session(spark, tmp_path, **{**FIXED, "restart-strategy.fixed-delay.delay": "10 min"})
    job = submit(session, script)
    _until(lambda: job.status == "RESTARTING")
    shown = session.execute_sql("SHOW JOBS").collect()
    assert [row[2:3] + row[4:] for row in shown] == [["RESTARTING", 1]]
    assert job_info(session, "restarting").state == "RESTARTING"
    path = job.stop(timeout=60)  # ends the backoff: the job stops, its checkpoint kept
    assert job.status == "STOPPED" and path == str(tmp_path / "ckpt" / "restarting")
    monkeypatch.delenv("SQLENGINE_FAULT")
    submit(_session(spark, tmp_path, **{"execution.state-recovery.path": path}), script).wait(300)
    assert _output(tmp_path) == expected
