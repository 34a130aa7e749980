"""A sqlengine session cluster: one long-lived JobManager process.

It holds one SparkSession (Spark is its ResourceManager and TaskManagers: ``spark.master``,
``local[*]`` by default) and the cluster's jobs. Its Dispatcher is Flink's REST API on
``rest.port`` (8081, ``rest.bind-address``), which also serves the SQL Gateway's paths
(they do not collide with the Dispatcher's), so one address is all a client needs; the
SQL Gateway has its own port as in Flink, ``sql-gateway.endpoint.rest.port`` (8083,
``sql-gateway.endpoint.rest.bind-address``). Each INSERT submitted through a gateway
session is a job of the cluster, driven by its own JobMaster (the job's epochs and
checkpoints: ``runtime/job.py``), and outlives the client that submitted it.

On SIGTERM (or Ctrl-C in the foreground) every running job stops at an epoch boundary:
its epoch in progress commits, and the checkpoint to restore it from is printed and kept.
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Optional, TextIO

log = logging.getLogger("sqlengine.service")

CLUSTER_DEFAULTS = {"rest.port": "8081", "sql-gateway.endpoint.rest.port": "8083", "spark.master": "local[*]"}
GATEWAY_PORT = "sql-gateway.endpoint.rest.port"
WARM_UP = "sqlengine.cluster.warm-up"  # run a small job at start, so that the first one submitted is fast
# A bounded window aggregation from a JSON file into a JSON file: it takes the paths a
# typical job takes (a source and its format, an exchange by key group, state, a sink), so
# the JVM has compiled them and Spark's workers are up when a client's first job comes. It
# runs in a session of its own, in a temporary folder, and is no job of the cluster.
WARM_UP_SQL = """CREATE TEMPORARY TABLE warm_up_source (ts TIMESTAMP(3), k INT, v INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{folder}/in.json',
  'format' = 'json');
CREATE TEMPORARY TABLE warm_up_sink (window_start TIMESTAMP(3), k INT, n BIGINT, s INT)
  WITH ('connector' = 'filesystem', 'path' = '{folder}/out-{run}', 'format' = 'json');
INSERT INTO warm_up_sink SELECT window_start, k, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE warm_up_source, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;
"""


def bind_address(conf: dict[str, str], prefix: str) -> str:
    return conf.get(f"{prefix}.bind-address") or conf.get(f"{prefix}.address") or "127.0.0.1"


def run(conf: dict[str, str], out: TextIO = sys.stdout, ready: Optional[threading.Event] = None,
        stop: Optional[threading.Event] = None) -> int:
    """Run the cluster until SIGTERM / SIGINT (or ``stop``); 0 once its jobs have stopped."""
    from sqlengine.api.control import warm_workers_at_start
    from sqlengine.api.jobs import stop_all
    from sqlengine.api.session import Session
    from sqlengine.service import dashboard, ha
    from sqlengine.service.failover import Keeper
    from sqlengine.service.gateway import Gateway
    from sqlengine.service.rest import RestServer

    logging.getLogger("sqlengine.service").setLevel(logging.INFO)
    conf = {**CLUSTER_DEFAULTS, **conf}
    conf.pop("execution.target", None)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warm_workers_at_start(True)  # a cluster's Python workers start ahead of its first job
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
    try:
        services = ha.HaServices(conf) if ha.ha_enabled(conf) else None
        store = ha.job_store(conf, services)
    except Exception as exc:  # noqa: BLE001 - a bad setting or no ZooKeeper: one line
        print(f"[ERROR] {exc}", file=out, flush=True)
        return 1
    if services is not None and not _lead(services, conf, out, stop):
        services.close()
        return 0
    session = Session(conf)
    session.spark  # noqa: B018 - Spark starts now, not with the first job
    keeper = Keeper(session, store) if store is not None else None
    gateway = Gateway(session, on_job=keeper.submitted if keeper is not None else None)
    servers = []
    try:
        servers.append(RestServer(session, bind_address(conf, "rest"), int(conf["rest.port"]),
                                  extra=gateway.routes() + dashboard.routes()).start())
        gw_port = conf.get(GATEWAY_PORT, "")
        if gw_port not in ("", "-1"):
            servers.append(RestServer(session, bind_address(conf, "sql-gateway.endpoint.rest"), int(gw_port),
                                      rest=False, extra=gateway.routes(), name="SQL Gateway endpoint").start())
    except OSError as exc:
        print(f"[ERROR] {exc}", file=out, flush=True)
        for s in servers:
            s.stop(0)
        return 1
    resumed = keeper.resume_all(out) if keeper is not None else []
    if conf.get(WARM_UP, "true").strip().lower() != "false" and not resumed:
        threading.Thread(target=_warm_up, args=(session, out), name="cluster-warm-up", daemon=True).start()
    print(f"[INFO] sqlengine cluster is running: REST API and dashboard at http://{servers[0].address}"
          + (f", SQL Gateway at http://{servers[1].address}" if len(servers) > 1 else "")
          + f"; Spark master {session.spark.sparkContext.master}; pid {os.getpid()}", file=out, flush=True)
    log.info("cluster started: %s", ", ".join(s.address for s in servers))
    if ready is not None:
        ready.set()
    stop.wait()
    if keeper is not None:
        keeper.closing = True  # its jobs stay in the job store: the next start resumes them
    print("[INFO] Stopping the cluster: its running jobs stop at an epoch boundary...", file=out, flush=True)
    for job_id, path in stop_all(session, timeout=300):
        if path is None:
            print(f"[INFO] Job {job_id} stopped before its first checkpoint completed.", file=out)
        else:
            print(f"[INFO] Job {job_id} stopped. To resume it, SET 'execution.state-recovery.path' = "
                  f"'{path}'; and run its statement again.", file=out)
        log.info("job %s stopped at shutdown; checkpoint %s", job_id, path)
    for s in servers:
        s.stop(linger=5)
    if services is not None:
        services.close()
    print("[INFO] The cluster has stopped.", file=out, flush=True)
    return 0


STANDBY = "[INFO] This JobManager is a standby"


def _lead(services, conf: dict[str, str], out: TextIO, stop: threading.Event) -> bool:
    """Take part in the leader election (ZooKeeper HA); return once this JobManager leads
    (False if it was stopped first). A standby serves the leader's REST API and SQL Gateway
    on its own ports, so clients and the dashboard follow the leader. A leader that loses
    its leadership exits at once: a standby resumes its jobs, and two JobManagers must never
    drive one job."""
    from sqlengine.service import ha
    from sqlengine.service.rest import RestServer
    granted = threading.Event()
    host = bind_address(conf, "rest")
    advertised = f"{conf.get('rest.address') or host}:{conf['rest.port']}"

    def revoked() -> None:
        if granted.is_set() and not stop.is_set():  # (not when it steps down at shutdown)
            log.error("this JobManager lost its leadership: it exits (a standby resumes its jobs)")
            print("[ERROR] This JobManager lost its leadership (ZooKeeper): it exits; a standby JobManager "
                  "resumes its jobs.", file=out, flush=True)
            os._exit(70)
    services.elect(f"{advertised}-{os.getpid()}", advertised, granted.set, revoked)
    if not granted.wait(1.0):
        proxies = []
        ports = [(host, int(conf["rest.port"]))]
        gw_port = conf.get(GATEWAY_PORT, "")
        if gw_port not in ("", "-1"):
            ports.append((bind_address(conf, "sql-gateway.endpoint.rest"), int(gw_port)))
        try:
            for h, p in ports:
                proxies.append(RestServer(None, h, p, rest=False, extra=ha.follow_leader(services),
                                          name="standby REST endpoint").start())
        except OSError as exc:
            print(f"[ERROR] {exc}", file=out, flush=True)
            for proxy in proxies:
                proxy.stop(0)
            return False
        print(f"{STANDBY} (high availability through ZooKeeper): it serves the leader's REST API "
              f"(now at {services.leader_address()}) and takes over when the leader is gone; pid {os.getpid()}.",
              file=out, flush=True)
        while not granted.wait(0.2):
            if stop.is_set():
                for proxy in proxies:
                    proxy.stop(0)
                return False
        for proxy in proxies:
            proxy.stop(0)
    print("[INFO] This JobManager is the leader (high availability through ZooKeeper).", file=out, flush=True)
    log.info("granted leadership as %s", advertised)
    return True


WARM = "[INFO] The cluster is warm"


def _warm_up(root, out: TextIO) -> None:
    """Run ``WARM_UP_SQL`` in a session of its own on the cluster's Spark (twice: the second
    run finds the compiled code the first left)."""
    import shutil
    import tempfile
    import time
    from sqlengine.api.session import Session
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="sqlengine-warm-up-")
    try:
        with open(f"{folder}/in.json", "w") as f:
            for i in range(200):
                f.write(f'{{"ts": "2026-01-01 00:{i // 60:02d}:{i % 60:02d}.000", "k": {i % 8}, "v": {i}}}\n')
        for run in range(2):
            conf = {**root.conf, "execution.checkpointing.dir": f"{folder}/checkpoints"}
            conf.pop("execution.state-recovery.path", None)
            # a script: it waits for its INSERT
            Session(conf, spark=root.spark).execute_sql(WARM_UP_SQL.format(folder=folder, run=run))
        print(f"{WARM} (its warm-up job took {time.monotonic() - started:.1f} s).", file=out, flush=True)
    except Exception:  # noqa: BLE001 - a failed warm-up costs only speed
        log.warning("the cluster's warm-up job failed", exc_info=True)
        print(f"{WARM}: its warm-up job failed (see the log); jobs run, the first one slower.", file=out, flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
