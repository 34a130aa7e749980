"""A real Apache Kafka broker for the tests: one node in KRaft mode (broker and controller
in one JVM), started from ``org.apache.kafka:kafka_2.13`` jars that Maven fetches once
into the user's cache (``maven_jars``). ``KAFKA_BOOTSTRAP_SERVERS`` points the tests at a running cluster
instead.

Measured on the 2-core development machine: formatting the log folder and starting the
broker until it answers a metadata request takes ~3 s (C1 only, serial GC, 512 MB heap:
a test broker moves little data).
"""
from __future__ import annotations

import base64
import fcntl
import logging
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Optional

KAFKA = "org.apache.kafka:kafka_2.13:4.1.1"
START_SECONDS = 60

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>sqlengine.tests</groupId><artifactId>jars</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version></dependency>
  </dependencies>
</project>
"""


def terminate(proc: Optional[subprocess.Popen]) -> None:
    """Stop a test server's process: SIGTERM, SIGKILL if it does not exit within 20 s."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def maven_jars(coordinate: str) -> Path:
    """The folder of ``group:artifact:version`` and its runtime dependencies, fetched by
    Maven once into the user's cache (one process at a time)."""
    from sqlengine.runtime.classdata import cache_dir
    group, artifact, version = coordinate.split(":")
    folder = cache_dir().parent / f"{artifact}-{version}"
    lib = folder / "lib"
    if (folder / "DONE").exists():
        return lib
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "DONE").exists():
            (folder / "pom.xml").write_text(POM.format(group=group, artifact=artifact, version=version))
            shutil.rmtree(lib, ignore_errors=True)
            res = subprocess.run(["mvn", "-q", "-B", "-f", str(folder / "pom.xml"), "dependency:copy-dependencies",
                                  f"-DoutputDirectory={lib}", "-DincludeScope=runtime"],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                raise RuntimeError(f"Maven could not fetch {coordinate}: {res.stdout[-2000:]}{res.stderr[-2000:]}")
            (folder / "DONE").touch()
    return lib


def _cluster_id() -> str:
    """A random cluster id in Kafka's format (base64 of a UUID), never starting with '-'
    (the storage tool would read it as an option; Kafka's own Uuid.randomUuid avoids it too)."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One KRaft node on loopback ports; ``bootstrap`` is its address."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port, self.controller_port = _free_port(), _free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None

    def start(self) -> "Broker":
        lib = maven_jars(KAFKA)
        data = self.workdir / "data"
        props = self.workdir / "server.properties"
        props.write_text("\n".join([
            "process.roles=broker,controller", "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{self.controller_port}",
            f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"log.dirs={data}", "num.partitions=1",
            "offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1", "group.initial.rebalance.delay.ms=0",
            # The tests' records carry fixed timestamps (2023): the default 7-day retention
            # deletes them at its first check, 30 s after the broker starts.
            "log.retention.ms=-1", ""]))
        java = ["java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", f"{lib}/*"]
        cluster_id = _cluster_id()
        subprocess.run(java + ["kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(props)],
                       check=True, capture_output=True)
        self._java = java
        self._launch(props)
        return self

    def _launch(self, props: Path) -> None:
        with open(self.workdir / "broker.log", "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(self._java + ["kafka.Kafka", str(props)], stdout=log,
                                         stderr=subprocess.STDOUT)
        self._wait_ready()

    def restart(self) -> None:
        """Stop the broker (a clean shutdown) and start it again on the same ports and data."""
        self.stop()
        self.start_again()

    def start_again(self) -> None:
        """Start a stopped broker on its ports and data."""
        self._launch(self.workdir / "server.properties")

    def _wait_ready(self) -> None:
        from confluent_kafka.admin import AdminClient
        # Its "Connection refused" lines until the broker listens are expected: not printed
        # (a benchmark's terminal showed dozens of them).
        quiet = logging.getLogger("tests.kafka.broker.ready")
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False
        admin = AdminClient({"bootstrap.servers": self.bootstrap, "logger": quiet})
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the Kafka broker exited: see {self.workdir / 'broker.log'}")
            try:
                if admin.list_topics(timeout=1).brokers:
                    return
            except Exception:  # noqa: BLE001 - not listening yet
                time.sleep(0.1)
        raise RuntimeError(f"the Kafka broker did not start within {START_SECONDS} s: see {self.workdir / 'broker.log'}")

    def stop(self) -> None:
        terminate(self.proc)
