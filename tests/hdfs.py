"""A real HDFS for the tests: a NameNode and a DataNode in one JVM (Hadoop's
``MiniDFSClusterManager``, from ``org.apache.hadoop:hadoop-client-minicluster``, the
version of the Hadoop client pyspark ships), fetched by Maven once into the user's cache
as the Kafka broker's jars are.

The manager writes ``{"namenode_port": ...}`` to a file once both nodes serve, which is
the readiness signal; its data and logs stay in the test's folder. ``url`` is the
file system's root (``hdfs://127.0.0.1:<port>``).
"""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Optional

from tests.connectors.kafka.broker import maven_jars, terminate

MINICLUSTER = "org.apache.hadoop:hadoop-client-minicluster:3.5.0"
START_SECONDS = 120


class Hdfs:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.proc: Optional[subprocess.Popen] = None
        self.url = ""

    def start(self) -> "Hdfs":
        self.workdir.mkdir(parents=True, exist_ok=True)
        details = self.workdir / "details.json"
        details.unlink(missing_ok=True)
        java = ["java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                f"-Dtest.build.data={self.workdir / 'data'}", "-cp", f"{maven_jars(MINICLUSTER)}/*",
                "org.apache.hadoop.test.MiniDFSClusterManager", "-nnport", "0", "-datanodes", "1", "-format",
                "-writeDetails", str(details), "-D", f"hdfs.minidfs.basedir={self.workdir / 'base'}",
                "-D", "dfs.replication=1"]
        with open(self.workdir / "hdfs.log", "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(java, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"HDFS exited: see {self.workdir / 'hdfs.log'}")
            if details.exists() and details.read_text().strip().endswith("}"):
                self.url = f"hdfs://127.0.0.1:{json.loads(details.read_text())['namenode_port']}"
                return self
            time.sleep(0.1)  # polling another process's readiness file
        raise RuntimeError(f"HDFS did not start within {START_SECONDS} s: see {self.workdir / 'hdfs.log'}")

    def stop(self) -> None:
        terminate(self.proc)
