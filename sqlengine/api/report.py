"""How a failure reaches the terminal: one ``[ERROR]`` reason, the full trace in the log.

Flink's SQL Client prints ``[ERROR] Could not execute SQL statement. Reason:`` and the
root cause. Here the reason is one line (plus ``line:col``, the source line and a
caret for errors in SQL text), then the log file that holds the Python traceback and
the JVM stack trace; with ``sql-client.verbose`` the trace is printed too.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, TextIO

from sqlengine.logs import full_trace, log_failure
from sqlengine.runtime.failure import to_engine_error

HEADER = "[ERROR] Could not execute SQL statement. Reason:"
VERBOSE = "sql-client.verbose"


def is_verbose(conf: dict[str, str]) -> bool:
    return conf.get(VERBOSE, "false").strip().lower() == "true"


def report(exc: BaseException, log: Path, verbose: bool, statement: str = "",
           err: Optional[TextIO] = None) -> None:
    """Print ``exc`` as one ``[ERROR]``; its full trace goes to ``log`` (and ``err`` if verbose)."""
    err = err or sys.stderr
    error = to_engine_error(exc)
    log_failure(error, statement)
    where = getattr(error, "trace_in", None) or log  # a cluster's failure: its trace is in the cluster's log
    print(f"{HEADER}\n{error.render()}\n(full trace in {where})", file=err)
    if verbose:
        print(full_trace(error), file=err)
    err.flush()



def describe(exc: BaseException, statement: str = "") -> str:
    """``exc`` as the one reason a client prints (its full trace goes to the log file)."""
    error = to_engine_error(exc)
    log_failure(error, statement)
    return error.render()
