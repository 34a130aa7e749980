"""``sqlengine cluster start | stop | status``: a session cluster (sqlengine/service/cluster.py).

``start`` runs the JobManager process in the background (its output and Spark's log go to
``$XDG_STATE_HOME/sqlengine/cluster/cluster-<port>.log``, its pid to ``cluster-<port>.pid``)
and returns once its REST API answers; ``start --foreground`` runs it in this process (for
containers and service managers: logs to the terminal, SIGTERM stops it). ``stop`` sends
SIGTERM and waits: running jobs stop at an epoch boundary and the paths to restore them
from are printed. ``status`` asks the REST API. ``-D key=value`` sets the cluster's
configuration (``rest.port``, ``rest.bind-address``, ``sql-gateway.endpoint.rest.port``,
``spark.master``, ``parallelism.default``, ...).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Optional

START_TIMEOUT = 180.0  # seconds for the JVM and Spark to start
STOP_TIMEOUT = 600.0  # seconds for running jobs to reach an epoch boundary


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sqlengine cluster", description="A sqlengine session cluster: a long-lived "
                                "JobManager with Flink's REST API and SQL Gateway.")
    p.add_argument("action", choices=("start", "stop", "status"))
    p.add_argument("--foreground", action="store_true", help="start: run in this process until SIGTERM")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="key=value",
                   help="cluster configuration, e.g. -D rest.port=8081 -D spark.master=local[4]")
    return p


def _files(conf: dict[str, str]) -> tuple[Path, Path]:
    from sqlengine.api.control import state_home
    folder = state_home() / "cluster"
    folder.mkdir(parents=True, exist_ok=True)
    port = conf.get("rest.port", "8081")
    return folder / f"cluster-{port}.pid", folder / f"cluster-{port}.log"


def _url(conf: dict[str, str], path: str) -> str:
    host = conf.get("rest.address") or conf.get("rest.bind-address") or "127.0.0.1"
    host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return f"http://{host}:{conf.get('rest.port', '8081')}{path}"


def _overview(conf: dict[str, str]) -> Optional[dict]:
    try:
        with urllib.request.urlopen(_url(conf, "/v1/overview"), timeout=5) as r:
            return json.loads(r.read())
    except (OSError, ValueError):
        return None


def _pid(pid_file: Path) -> Optional[int]:
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def start(conf: dict[str, str], defines: list[str]) -> int:
    pid_file, log_file = _files(conf)
    if _pid(pid_file) is not None or _overview(conf) is not None:
        print(f"[ERROR] A cluster is already running at {_url(conf, '')} (sqlengine cluster stop stops it).",
              file=sys.stderr)
        return 1
    print("Starting cluster.", flush=True)
    args = [sys.executable, "-m", "shell.cli", "cluster", "start", "--foreground"]
    for d in defines:
        args += ["-D", d]
    env = dict(os.environ, SQLENGINE_LOG_FILE=str(log_file))
    offset = log_file.stat().st_size if log_file.exists() else 0
    with open(log_file, "ab") as out:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, cwd="/")
    pid_file.write_text(str(proc.pid))
    # It answers once Spark has started; it is ready once its warm-up job has run (so that the
    # first job submitted is fast), unless sqlengine.cluster.warm-up is false.
    from sqlengine.service.cluster import STANDBY, WARM, WARM_UP
    warming = conf.get(WARM_UP, "true").strip().lower() != "false"
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            print(f"[ERROR] The cluster did not start: {_said(log_file, offset) or 'it exited'} "
                  f"(log: {log_file})", file=sys.stderr)
            pid_file.unlink(missing_ok=True)
            return 1
        said = _said(log_file, offset, "[INFO]")
        if _overview(conf) is not None and (not warming or WARM in said or STANDBY in said):
            print(f"[INFO] Cluster started (pid {proc.pid}): REST API and dashboard at {_url(conf, '')}, "
                  f"SQL Gateway on port {conf.get('sql-gateway.endpoint.rest.port', '8083')}; log: {log_file}",
                  flush=True)
            return 0
        time.sleep(0.2)
    print(f"[ERROR] The cluster did not answer within {START_TIMEOUT:g} s (log: {log_file})", file=sys.stderr)
    return 1


def _said(log_file: Path, offset: int, prefix: str = "[ERROR]") -> str:
    """What the cluster printed (its lines beginning with ``prefix``) since ``offset``."""
    try:
        with open(log_file, encoding="utf-8", errors="replace") as f:
            f.seek(offset)
            return "\n".join(line.rstrip() for line in f if line.startswith(prefix))
    except OSError:
        return ""


def stop(conf: dict[str, str]) -> int:
    pid_file, log_file = _files(conf)
    pid = _pid(pid_file)
    if pid is None:
        print(f"No cluster to stop at {_url(conf, '')}.", flush=True)
        pid_file.unlink(missing_ok=True)
        return 0
    offset = log_file.stat().st_size if log_file.exists() else 0
    print(f"Stopping cluster (pid {pid}): its running jobs stop at an epoch boundary.", flush=True)
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.1)
    else:
        print(f"[ERROR] The cluster (pid {pid}) has not stopped after {STOP_TIMEOUT:g} s.", file=sys.stderr)
        return 1
    said = _said(log_file, offset, "[INFO] Job ")
    if said:
        print(said)
    pid_file.unlink(missing_ok=True)
    print("[INFO] The cluster has stopped.", flush=True)
    return 0


def status(conf: dict[str, str]) -> int:
    o = _overview(conf)
    if o is None:
        print(f"No cluster is running at {_url(conf, '')}.")
        return 1
    pid = _pid(_files(conf)[0])
    print(f"Cluster running at {_url(conf, '')}" + (f" (pid {pid})" if pid else "") +
          f": {o.get('jobs-running', 0)} jobs running, {o.get('jobs-finished', 0)} finished, "
          f"{o.get('jobs-cancelled', 0)} canceled, {o.get('jobs-failed', 0)} failed.")
    return 0


def main(argv: list[str]) -> int:
    from shell.session import defines as _conf
    args = _parser().parse_args(argv)
    conf = _conf(args.defines)
    if args.action == "start" and args.foreground:
        from sqlengine.api.control import setup_logging
        from sqlengine.service.cluster import run
        setup_logging()
        return run(conf)
    return {"start": lambda: start(conf, args.defines), "stop": lambda: stop(conf),
            "status": lambda: status(conf)}[args.action]()
