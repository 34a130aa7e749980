"""SIGTERM or Ctrl-C on ``sqlengine -f`` stops a streaming job at an epoch boundary: the
CLI exits 0 naming the checkpoint to resume from, what it committed is whole, and a run
restored from that checkpoint continues with nothing lost and nothing duplicated."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e.conftest import ROOT, read_rows

SCRIPT = """
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE `out` (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '{dst}', 'format' = 'json');
INSERT INTO `out` SELECT id FROM gen;
"""


def _commits(ckpt: Path) -> int:
    try:
        return sum(1 for f in ckpt.glob("*/*/commits/*") if f.name.isdigit())
    except OSError:
        return 0


def _run_until(script: Path, ckpt: Path, sig: int, commits: int, *extra: str) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-f", str(script),
            "-D", f"execution.checkpointing.dir={ckpt}", "-D", "pipeline.job-id=stop-test", *extra]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while _commits(ckpt) < commits and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # watching the job's checkpoint from outside, not waiting for a result
    assert proc.poll() is None, proc.stderr.read()[-2000:]
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _stopped(res: subprocess.CompletedProcess, ckpt: Path) -> str:
    """The restore path the stopped job printed (after checking the exit and the output)."""
    assert res.returncode == 0, res.stdout + res.stderr[-2000:]
    found = re.search(r"\[INFO\] Job stop-test stopped after epoch (\d+) \(committed\)\. To resume, "
                      r"SET 'execution.state-recovery.path' = '(.+)';", res.stdout)
    assert found, res.stdout
    assert Path(found.group(2)) == ckpt / "stop-test"
    assert "Traceback" not in res.stdout + res.stderr and "Exception" not in res.stdout
    return found.group(2)


def test_sigterm_then_ctrl_c_stop_at_epoch_boundaries_and_resume(tmp_path):
    """SIGTERM stops the first run; a run restored from the printed checkpoint is stopped
    with Ctrl-C (SIGINT); the output holds whole epochs, contiguous, none twice."""
    script = tmp_path / "job.sql"
    script.write_text(SCRIPT.format(dst=tmp_path / "out"))
    ckpt = tmp_path / "ckpt"
    path = _stopped(_run_until(script, ckpt, signal.SIGTERM, 2), ckpt)
    ids = sorted(r["id"] for r in read_rows(tmp_path / "out"))
    assert ids and ids == list(range(1, len(ids) + 1)), "whole epochs, in order, none twice"
    _stopped(_run_until(script, ckpt, signal.SIGINT, _commits(ckpt) + 2,
                        "-D", f"execution.state-recovery.path={path}"), ckpt)
    more = sorted(r["id"] for r in read_rows(tmp_path / "out"))
    assert len(more) > len(ids) and more == list(range(1, len(more) + 1)), "resumed: nothing lost or repeated"
