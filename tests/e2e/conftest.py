from __future__ import annotations

import json
import subprocess
import sys
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
