from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The bid table several e2e tests read: JSON lines at ``{src}``, event time with a 1 s watermark.
BIDS_DDL = """CREATE TABLE bids (
  bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json');
"""


@pytest.fixture
def session(spark, tmp_path):
    from sqlengine.api.session import Session
    return Session({"execution.checkpointing.dir": str(tmp_path / "ckpt")}, spark=spark)


def read_rows(folder: Path) -> list[dict]:
    rows = []
    for f in sorted(folder.rglob("*")):
        if f.is_file() and not any(p.startswith((".", "_")) for p in f.relative_to(folder).parts):
            rows += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    return rows


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def commits(ckpt: Path) -> int:
    """Committed epochs in Spark's commit log (``<root>/<job>/<query>/commits/<n>``)."""
    try:
        return sum(1 for f in ckpt.glob("*/*/commits/*") if f.name.isdigit())
    except OSError:  # a folder vanished while listed
        return 0


def kill_after_commits(args: list[str], ckpt: Path, count: int) -> None:
    """Run the CLI with ``args`` and SIGKILL it (its whole process group) once ``count``
    epochs are committed under ``ckpt`` in all; it must still be running then."""
    cmd = [sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    while commits(ckpt) < count and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # watching another process's checkpoint, not waiting for a result
    if proc.poll() is not None:
        raise AssertionError("the job must still be running when it is killed:\n" + proc.stderr.read().decode()[-2000:])
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
