"""A real PostgreSQL server for the tests: Debian's ``postgresql`` package (``test.sh``
installs it when missing), a throw-away cluster made by ``initdb`` and started on a
loopback port with ``max_prepared_transactions`` > 0 (two-phase commit).
``SQLENGINE_TEST_POSTGRES`` (a libpq URL, ``postgresql://user:password@host:port/db``)
points the tests at a running server instead.

PostgreSQL refuses to run as root: when the tests run as root the cluster belongs to the
``postgres`` user the package creates. Durability is switched off (``fsync``,
``synchronous_commit``): a test server need not survive a power cut, and
``COMMIT PREPARED`` semantics do not depend on it.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

START_SECONDS = 60


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    exe = shutil.which("postgres")
    if exe:
        return Path(exe).parent
    raise RuntimeError("PostgreSQL is not installed: apt-get install -y postgresql (test.sh does this)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """One PostgreSQL cluster on a loopback port; ``url`` is its libpq URL."""

    def __init__(self, workdir: Optional[Path] = None):
        # Its own folder under the system temp dir: pytest's are private to the user, and
        # the server may run as the ``postgres`` user.
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="sqlengine-pg-"))
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.jdbc_url = f"jdbc:postgresql://127.0.0.1:{self.port}/postgres"
        self.proc: Optional[subprocess.Popen] = None

    def _as_owner(self) -> dict:
        return {"user": "postgres", "group": "postgres"} if os.geteuid() == 0 else {}

    def start(self) -> "Postgres":
        bindir = _bin_dir()
        data = self.workdir / "data"
        self.workdir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            os.chmod(self.workdir, 0o755)
            shutil.chown(self.workdir, "postgres", "postgres")
        if not (data / "PG_VERSION").exists():  # a restart keeps its data (and prepared transactions)
            subprocess.run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                            "-E", "UTF8", "--no-sync", "--locale=C"],
                           check=True, capture_output=True, cwd=self.workdir, **self._as_owner())
        with open(self.workdir / "postgres.log", "ab") as log:
            self.proc = subprocess.Popen(
                [str(bindir / "postgres"), "-D", str(data), "-p", str(self.port), "-k", str(self.workdir),
                 "-c", "listen_addresses=127.0.0.1", "-c", "max_prepared_transactions=64",
                 "-c", "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off",
                 "-c", "full_page_writes=off"],
                stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir, **self._as_owner())
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        import psycopg
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"PostgreSQL exited: see {self.workdir / 'postgres.log'}")
            try:
                psycopg.connect(self.url, connect_timeout=1).close()
                return
            except psycopg.OperationalError:
                time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL did not start within {START_SECONDS} s: see {self.workdir / 'postgres.log'}")

    def stop(self, keep: bool = False) -> None:
        """Shut down; ``keep``: keep the data folder for a restart (``start`` again)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT: fast shutdown (rolls back sessions, keeps prepared transactions)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not keep:
            shutil.rmtree(self.workdir, ignore_errors=True)
