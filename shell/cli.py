"""``sqlengine``: run Flink SQL scripts like the Flink SQL Client (``-f``, ``-i``, ``-D``)."""
from __future__ import annotations

import argparse
import os
import re
import sys
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


def run_script(session, text: str, out=sys.stdout) -> bool:
    """Execute statements in order; at the first failure print one [ERROR] line."""
    from sqlengine.dialect.script import parse_script
    from sqlengine.errors import SqlEngineError

    verbose = lambda: session.conf.get("sql-client.verbose", "false").lower() == "true"
    try:
        statements = parse_script(text)
    except SqlEngineError as err:
        print(f"[ERROR] Could not execute SQL statement. Reason:\n{err.render()}", file=sys.stderr)
        return False
    for stmt in statements:
        try:
            result = session.execute_statement(stmt)
            print(result.render(), file=out)
            for m in result.messages:
                print(f"[INFO] {m}", file=out)
            out.flush()
        except SqlEngineError as err:
            print(f"[ERROR] Could not execute SQL statement. Reason:\n{err.render()}", file=sys.stderr)
            if verbose() and err.__cause__ is not None:
                import traceback
                traceback.print_exception(err.__cause__, file=sys.stderr)
            return False
        except Exception as exc:  # an engine bug: still one line, traceback only when verbose
            print(f"[ERROR] Could not execute SQL statement. Reason:\n{type(exc).__name__}: {exc}",
                  file=sys.stderr)
            if verbose():
                import traceback
                traceback.print_exc()
            return False
    return True


def main(argv: Optional[list[str]] = None) -> int:
    args = _parser().parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = _conf(args.defines)
    texts = []
    for path in [args.init, args.file]:
        if path is None:
            continue
        try:
            texts.append(open(path, encoding="utf-8").read())
        except OSError as exc:
            print(f"[ERROR] Cannot read {path}: {exc.strerror}", file=sys.stderr)
            return 1
    if texts and not any(_SETS_SPARK.search(t) for t in texts):
        # Start the JVM while the planner is imported; a script that sets spark.* keys
        # itself starts Spark when it first needs it, with those keys.
        from sqlengine.runtime.spark import prestart
        prestart({k: v for k, v in conf.items() if k.startswith("spark.")})
    from sqlengine.session import Session

    session = Session(conf)
    for text in texts:
        if not run_script(session, text):
            return 1
    if args.file is None and args.init is None:
        _parser().print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
