"""A real Apache ZooKeeper for the tests: one standalone server (``ZooKeeperServerMain``)
on a loopback port, started from ``org.apache.zookeeper:zookeeper`` jars that Maven
fetches once into the user's cache (``maven_jars``, as the Kafka broker's are).

ZooKeeper's pom leaves some jars of its distribution out of its runtime dependencies: an
SLF4J binding (``slf4j-simple`` here: the server's log goes to ``zookeeper.log`` in its
folder), and ``PROVIDED``, without which the server does not start. Readiness is the
four-letter ``srvr``, which (unlike ``ruok``) says whether the server serves requests. The
tick is short (200 ms) so that a session timeout of a second or two is allowed (the
server accepts 2 to 20 ticks unless told otherwise) and sessions expire promptly: the
leader-election tests wait for a dead contender's session to end.
"""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

from tests.connectors.kafka.broker import _free_port, maven_jars, terminate

ZOOKEEPER = "org.apache.zookeeper:zookeeper:3.9.5"
SLF4J_SIMPLE = "org.slf4j:slf4j-simple:2.0.13"
# Jars ZooKeeper's pom leaves to its distribution (scope provided) and the server cannot
# start without: Dropwizard's metrics and snappy (its snapshot streams); the versions are
# the ones ZooKeeper 3.9 builds against.
PROVIDED = ("io.dropwizard.metrics:metrics-core:4.1.12.1", "org.xerial.snappy:snappy-java:1.1.10.5")
START_SECONDS = 60
TICK_MS = 200


class ZooKeeper:
    """One standalone server on a loopback port; ``quorum`` is its address
    (``high-availability.zookeeper.quorum``)."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = _free_port()
        self.quorum = f"127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None

    def start(self) -> "ZooKeeper":
        """Start the server (again, on the same port and data after ``stop``/``kill``) and
        wait until it serves."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        cfg = self.workdir / "zoo.cfg"
        cfg.write_text("\n".join([
            f"tickTime={TICK_MS}", f"dataDir={self.workdir / 'data'}", f"clientPort={self.port}",
            "clientPortAddress=127.0.0.1", "minSessionTimeout=400", "maxSessionTimeout=60000",
            "admin.enableServer=false", "4lw.commands.whitelist=srvr", ""]))
        # ZooKeeper's own jars first: its slf4j-api (2.x) is the one the binding needs.
        classpath = ":".join(f"{maven_jars(jars)}/*" for jars in (ZOOKEEPER, SLF4J_SIMPLE, *PROVIDED))
        java = ["java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.showDateTime=true", "-cp", classpath,
                "org.apache.zookeeper.server.ZooKeeperServerMain", str(cfg)]
        with open(self.workdir / "zookeeper.log", "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(java, stdout=log, stderr=subprocess.STDOUT)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited: see {self.workdir / 'zookeeper.log'}")
            if self._serving():
                return
            time.sleep(0.1)
        raise RuntimeError(f"ZooKeeper did not start within {START_SECONDS} s: see {self.workdir / 'zookeeper.log'}")

    def _serving(self) -> bool:
        """ZooKeeper's four-letter ``srvr``: its version and statistics once the server
        serves requests, "not currently serving requests" before."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"srvr")
                return s.recv(64).startswith(b"Zookeeper version")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the server (SIGTERM; SIGKILL if it does not exit within 20 s)."""
        terminate(self.proc)

    def kill(self) -> None:
        """A hard failure: SIGKILL, no shutdown of any kind."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
