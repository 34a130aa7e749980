"""``sqlengine``: the Flink SQL Client's command line.

``sqlengine [-i init.sql] [-f script.sql | -e "SQL"] [-D key=value ...]`` runs the
statements in order and exits with 0, or non-zero at the first failing statement. SQL on
standard input (when it is not a terminal) runs as Flink's client runs it, as a session
typed in: a failing statement is reported and the next one runs, and the exit code is 0.
Without a script, on a
terminal, the interactive shell starts (shell/repl.py). Scripts wait for their INSERT
jobs (the process is the cluster: a job cannot outlive it), unless the script sets
``table.dml-sync`` to false, in which case the jobs run side by side and the script
waits for all of them at its end.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from shell.session import defines as _conf, start_session
from sqlengine.service import serve_if_configured



def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sqlengine", description="Flink SQL on Apache Spark. Without -f or -e: the interactive shell "
        "(on a terminal), or the SQL read from standard input.")
    p.add_argument("-f", "--file", help="SQL script to execute (statements in order), then exit")
    p.add_argument("-e", "--execute", metavar="SQL", help="SQL statements to execute, then exit")
    p.add_argument("-i", "--init", help="SQL script to run first (session set-up); the shell starts after it")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="key=value",
                   help="session configuration, e.g. -D parallelism.default=2 or -D spark.master=local[2]")
    p.add_argument("-m", "--jobmanager", metavar="host:port",
                   help="submit to the sqlengine cluster at this REST address (execution.target=remote; "
                        "'sqlengine cluster start' starts one)")
    p.add_argument("-V", "--version", action="version", version=f"sqlengine {version()}")
    return p


def version() -> str:
    from sqlengine.api import __version__
    return __version__


def run_script(session, text: str, out=sys.stdout, log: Optional[Path] = None,
               keep_going: bool = False) -> bool:
    """Execute statements in order; at the first failure print one [ERROR] and stop (``-f``,
    ``-e``), or with ``keep_going`` (standard input, which Flink's client reads as its
    interactive session) print it and go on with the next statement. True when none failed.
    A script's INSERTs finish in order unless it sets ``table.dml-sync`` to false."""
    from sqlengine.api.control import log_path
    from sqlengine.api.script import parse_each
    from sqlengine.api.report import is_verbose, report

    from sqlengine.api.control import stop_requested
    log = log or log_path()
    session.default_dml_sync = True
    statement, ok = "", True
    try:
        for stmt in parse_each(text):
            if stop_requested():  # SIGTERM / Ctrl-C: the running job stopped; run nothing more
                break
            statement = stmt.text if not isinstance(stmt, Exception) else ""
            try:
                if isinstance(stmt, Exception):  # a statement Flink's parser rejects
                    raise stmt
                _echo_client_statement_set(stmt, out)
                _print_result(session.execute_statement(stmt), out)
            except Exception as exc:  # noqa: BLE001 - every failure is reported the same way
                if not keep_going:
                    raise
                report(exc, log, is_verbose(session.conf), statement)
                ok = False
    except Exception as exc:  # noqa: BLE001
        report(exc, log, is_verbose(session.conf), statement)
        return False
    return ok


def _echo_client_statement_set(stmt, out) -> None:
    """``BEGIN STATEMENT SET;`` ... ``END;`` in a script runs as one statement set; Flink's
    client answers its BEGIN and each INSERT on their own first, as it reads them."""
    from sqlengine.api.script import is_client_statement_set
    if is_client_statement_set(stmt):
        for _ in range(1 + len(stmt.node.expressions)):
            print("[INFO] Execute statement succeeded.", file=out)


def _print_result(result, out) -> None:
    print(result.render(), file=out)
    for m in result.messages:
        print(f"[INFO] {m}", file=out)
    out.flush()


def _stop_on_signals() -> None:
    """SIGTERM and Ctrl-C stop a running streaming job at an epoch boundary (it commits and
    prints the checkpoint to resume from) and end the script; a second Ctrl-C interrupts."""
    import signal

    def stop(signum, frame) -> None:
        from sqlengine.api.control import request_stop, stop_requested
        if signum == signal.SIGINT and stop_requested():
            raise KeyboardInterrupt
        request_stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise SystemExit(f"[ERROR] Cannot read {path}: {exc.strerror}") from None


def main(argv: Optional[list[str]] = None) -> int:
    from sqlengine.api.control import setup_logging, warm_workers_at_start
    from sqlengine.api.report import is_verbose, report

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["cluster"]:
        from shell.cluster import main as cluster
        return cluster(argv[1:])
    args = _parser().parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = _conf(args.defines)
    from sqlengine.api.control import setting_warning
    for key in conf:  # a -D key with no effect says so, as SET does
        said = setting_warning(key)
        if said:
            print(said, file=sys.stderr)
    if args.jobmanager:
        host, _, port = args.jobmanager.rpartition(":")
        if not host or not port.isdigit():
            print(f"[ERROR] -m expects host:port, got '{args.jobmanager}'", file=sys.stderr)
            return 1
        conf.update({"execution.target": "remote", "rest.address": host, "rest.port": port})
    remote = conf.get("execution.target", "").strip().lower() == "remote"
    log = setup_logging(pyspark=not remote)  # first: warnings and PySpark's loggers go to the log file
    if not remote:
        # Not with the SparkSession: a script has no idle time in which Python workers could
        # start ahead of its first query (they would compete with it); the shell starts them
        # when its prompt is idle (sqlengine/runtime/warmup.py).
        warm_workers_at_start(False)
    init = [_read(args.init)] if args.init is not None else []
    scripts = ([_read(args.file)] if args.file is not None else []) + \
        ([args.execute] if args.execute is not None else [])
    if not scripts and sys.stdin.isatty():
        from shell.repl import run_shell
        return run_shell(conf, init, log)
    stdin = not scripts  # Flink's client reads it as its interactive session: an error does not end it
    if stdin:
        scripts = [sys.stdin.read()]
    from sqlengine.api.control import arm_faults
    arm_faults()  # crash tests only: a no-op unless SQLENGINE_FAULT is set
    _stop_on_signals()
    texts = init + scripts
    try:
        session = start_session(conf, texts)
    except Exception as exc:  # noqa: BLE001 - reported like a failing statement
        report(exc, log, is_verbose(conf))
        return 1
    if remote:  # the cluster runs the jobs: submitted, they outlive this client
        try:
            return 0 if _run_all(session, init, scripts, log, stdin) else 1
        finally:
            session.close()
    try:
        rest = serve_if_configured(session)  # Flink's REST API for this process's jobs (rest.port)
    except OSError as exc:
        print(f"[ERROR] Could not start the REST endpoint: {exc}", file=sys.stderr)
        return 1
    try:
        ok = _run_all(session, init, scripts, log, stdin)
        return 0 if _wait_jobs(session, log) and ok else 1
    finally:
        if rest is not None:
            rest.stop()


def _run_all(session, init: list[str], scripts: list[str], log: Path, stdin: bool) -> bool:
    """The init script, then the scripts: ``-f`` / ``-e`` end at their first failure (exit
    code 1); standard input goes on after one and, as Flink's client, ends with 0."""
    if not all(run_script(session, t, log=log) for t in init):
        return False
    if stdin:
        run_script(session, scripts[0], log=log, keep_going=True)
        return True
    return all(run_script(session, t, log=log) for t in scripts)


def _wait_jobs(session, log: Path) -> bool:
    """A script's jobs submitted with ``table.dml-sync`` false: wait for them (they live in
    this process); a failed one is reported like a failing statement."""
    from sqlengine.api.report import is_verbose, report
    ok = True
    for job in list(session.jobs.values()):
        try:
            job.wait()
        except Exception as exc:  # noqa: BLE001
            report(exc, log, is_verbose(session.conf))
            ok = False
    return ok


if __name__ == "__main__":
    sys.exit(main())
