"""``sqlengine``: run Flink SQL scripts like the Flink SQL Client (``-f``, ``-i``, ``-D``)."""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Optional

_SETS_SPARK = re.compile(r"\bSET\s+'spark\.", re.IGNORECASE)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sqlengine", description="Flink SQL on Apache Spark.")
    p.add_argument("-f", "--file", help="SQL script to execute (statements in order)")
    p.add_argument("-i", "--init", help="SQL script to run first (session set-up)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="key=value",
                   help="session configuration, e.g. -D parallelism.default=2 or -D spark.master=local[2]")
    return p


def _conf(defines: list[str]) -> dict[str, str]:
    conf = {}
    for item in defines:
        if "=" not in item:
            raise SystemExit(f"[ERROR] -D expects key=value, got '{item}'")
        k, v = item.split("=", 1)
        conf[k.strip()] = v.strip()
    return conf


def run_script(session, text: str, out=sys.stdout, log: Optional[Path] = None) -> bool:
    """Execute statements in order; at the first failure print one [ERROR] and stop."""
    from sqlengine.dialect.script import parse_script
    from sqlengine.logs import log_path
    from shell.report import is_verbose, report

    from sqlengine.runtime.job import stop_requested
    log = log or log_path()
    statement = ""
    try:
        for stmt in parse_script(text):
            if stop_requested():  # SIGTERM / Ctrl-C: the running job stopped; run nothing more
                break
            statement = stmt.text
            _print_result(session.execute_statement(stmt), out)
    except Exception as exc:  # noqa: BLE001 - every failure is reported the same way
        report(exc, log, is_verbose(session.conf), statement)
        return False
    return True


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
        from sqlengine.runtime.job import request_stop, stop_requested
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


def _start(conf: dict[str, str], texts: list[str]):
    """The session; the JVM starts meanwhile, unless a script sets ``spark.*`` keys itself."""
    if not any(_SETS_SPARK.search(t) for t in texts):
        # Start the JVM while the planner is imported; a script that sets spark.* keys
        # itself starts Spark when it first needs it, with those keys.
        from sqlengine.runtime.spark import prestart
        prestart({k: v for k, v in conf.items() if k.startswith("spark.")})
    from sqlengine.session import Session
    return Session(conf)


def main(argv: Optional[list[str]] = None) -> int:
    from sqlengine.logs import setup
    from shell.report import is_verbose, report

    log = setup()  # first: warnings and PySpark's loggers go to the log file
    args = _parser().parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from sqlengine.runtime.faults import arm
    arm()  # crash tests only: a no-op unless SQLENGINE_FAULT is set
    _stop_on_signals()
    conf = _conf(args.defines)
    texts = [_read(p) for p in (args.init, args.file) if p is not None]
    if not texts:
        _parser().print_help()
        return 0
    try:
        session = _start(conf, texts)
    except Exception as exc:  # noqa: BLE001 - reported like a failing statement
        report(exc, log, is_verbose(conf))
        return 1
    return 0 if all(run_script(session, t, log=log) for t in texts) else 1


if __name__ == "__main__":
    sys.exit(main())
