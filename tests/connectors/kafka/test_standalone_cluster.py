"""The Kafka -> window aggregation -> Kafka (exactly-once) job on a Spark standalone
cluster: a master and two workers started with ``spark-class`` (separate JVMs, each
executor in its own process with its own Python workers), the CLI's driver connected
to it with ``spark.master=spark://...``. No local path is shared: the checkpoint (Spark's
logs, the operators' state, the epoch facts) is on a real HDFS (``tests/hdfs.py``), and
each worker has its own work folder. Midway one worker is killed with SIGKILL (its JVM,
its executor and their Python workers): Spark runs the lost tasks on the other worker, or
the job's restart strategy restarts it from its checkpoint; the committed output must be
exact, and both workers must have run executors of the job."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests import fault_cells
from tests.connectors.kafka.kafka_util import new_topic, produce, read_all
from tests.e2e.conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> Path:
    import pyspark
    return Path(pyspark.__file__).parent / "bin" / "spark-class"


@pytest.fixture
def cluster(tmp_path):
    """``spark://127.0.0.1:<port>`` of a master with two one-core workers."""
    port = _free_port()
    env = {**os.environ, "SPARK_LOG_DIR": str(tmp_path / "logs"), "SPARK_NO_DAEMONIZE": "1"}
    env.pop("SPARK_HOME", None)
    procs = []
    logs = tmp_path / "logs"
    logs.mkdir()

    def start(name: str, *args: str) -> None:
        with open(logs / f"{name}.log", "wb") as out:
            procs.append(subprocess.Popen([str(_spark_class()), *args], stdout=out, stderr=subprocess.STDOUT,
                                          env=env, start_new_session=True))

    url = f"spark://127.0.0.1:{port}"
    start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
          "--webui-port", str(_free_port()))
    workdirs = []
    for i in range(2):
        work = tmp_path / f"worker{i}"
        work.mkdir()
        workdirs.append(work)
        start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
              "--memory", "1g", "--work-dir", str(work), "--webui-port", str(_free_port()), url)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # the master's log says when both workers registered
        text = (logs / "master.log").read_text(errors="replace")
        if text.count("Registering worker") >= 2:
            break
        if any(p.poll() is not None for p in procs):
            pytest.fail("the standalone cluster did not start: " + text[-2000:])
        time.sleep(0.2)  # polling another process's log, not waiting for a result
    else:
        pytest.fail("the workers did not register with the master")
    try:
        yield url, workdirs, procs[1:]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_window_job_on_a_standalone_cluster_survives_a_lost_worker(cluster, kafka_bootstrap, hdfs, spark, tmp_path,
                                                                   request):
    from sqlengine.runtime import fs
    url, workdirs, workers = cluster
    bs = kafka_bootstrap
    src, dst = new_topic(bs, 2), new_topic(bs, 2)
    bids = [{"id": i, "item": f"i{i % 3}", "price": i % 17, "ts": f"2024-01-01 10:{i // 30:02d}:{i % 30 * 2:02d}"}
            for i in range(300)]
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(bids)])
    script = tmp_path / "job.sql"
    script.write_text(f"""
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE `out` (item STRING, window_start TIMESTAMP(3), n BIGINT, total BIGINT)
  WITH ('connector' = 'kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{bs}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'cluster-{dst}');
INSERT INTO `out` SELECT item, window_start, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY item, window_start, window_end;
""")
    ckpt = f"{hdfs.url}/cluster-{dst}"
    # 15 epochs, one per 0.5 s at most: the job is still running when a worker dies.
    job = subprocess.Popen([sys.executable, "-m", "shell.cli", "-D", f"spark.master={url}", "-f", str(script),
                            "-D", f"execution.checkpointing.dir={ckpt}", "-D", "parallelism.default=2",
                            "-D", "sqlengine.kafka.max-rows-per-epoch=20", "-D", "spark.executor.memory=512m",
                            "-D", "execution.checkpointing.interval=500 ms", "-D", "spark.cores.max=2",
                            "-D", "restart-strategy.type=fixed-delay", "-D", "restart-strategy.fixed-delay.attempts=3"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while sum(1 for f in fs.glob(ckpt, "*/*/commits/*") if f.rsplit("/", 1)[1].isdigit()) < 3:
        assert job.poll() is None and time.monotonic() < deadline, "the job ended before a worker could be lost"
        time.sleep(0.1)  # watching another process's checkpoint
    os.killpg(workers[1].pid, signal.SIGKILL)  # the worker's JVM, its executor, their Python workers
    out, err = job.communicate(timeout=600)
    assert job.returncode == 0, err[-3000:]
    per: dict = {}
    for b in bids:
        key = (b["item"], b["ts"][:16] + ":00")
        n, t = per.get(key, (0, 0))
        per[key] = (n + 1, t + b["price"])
    expected = Counter(json.dumps({"item": i, "window_start": w, "n": n, "total": t}, sort_keys=True)
                       for (i, w), (n, t) in per.items())
    got = Counter(json.dumps(json.loads(v), sort_keys=True) for _, _, _, v, _ in read_all(bs, dst))
    fault_cells.report(request.node, "worker kill", "a Spark worker SIGKILL after 3 epochs",
                       "window->kafka, standalone, HDFS ckpt", expected, got)
    assert got == expected
    assert fs.glob(ckpt, "*/*/state/*/*/e=*/_SUCCESS"), "the state is on HDFS"
    assert not list(tmp_path.rglob("commits")), "nothing of the checkpoint on the local disk"
    # both workers ran an executor of the job (its folder: <work-dir>/app-*/<executor id>)
    assert all(list(w.glob("app-*/*/stderr")) for w in workdirs), [list(w.rglob("*")) for w in workdirs]
