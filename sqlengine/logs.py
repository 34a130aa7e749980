"""Where a run's full traces go: a log file per day, never the terminal.

A user sees one ``[ERROR]`` line (see sqlengine/api/report.py); the Python traceback, the
JVM stack trace, Spark's own log (log4j2, configured by sqlengine/runtime/spark.py)
and the JVM's raw stdout/stderr all go to ``$XDG_STATE_HOME/sqlengine/log/
sqlengine-<date>.log`` (``~/.local/state`` when ``XDG_STATE_HOME`` is unset), so the
one line can name the file that explains it.
"""
from __future__ import annotations

import datetime as dt
import logging
import os
import traceback
from pathlib import Path

from sqlengine.secrets import mask_sql

LOGGER = "sqlengine"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# PySpark's own loggers print JSON to stderr and do not propagate (pyspark/logger).
_PYSPARK_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")
_run_start: dict[Path, int] = {}  # where this run began writing each log file


def cache_home() -> Path:
    """sqlengine's folder in the user's cache (``$XDG_CACHE_HOME/sqlengine``): downloaded
    jars, the JVM's class-data archive, the workers' Spark home."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sqlengine"


def state_home() -> Path:
    """sqlengine's folder in the user's state (``$XDG_STATE_HOME/sqlengine``): logs, a
    cluster's pid file."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "sqlengine"


def log_path() -> Path:
    """Today's log file (the folder is created); ``SQLENGINE_LOG_FILE`` names another (a
    cluster's own log)."""
    own = os.environ.get("SQLENGINE_LOG_FILE")
    if own:
        Path(own).parent.mkdir(parents=True, exist_ok=True)
        return Path(own)
    folder = state_home() / "log"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"sqlengine-{dt.date.today().isoformat()}.log"


def run_tail(max_bytes: int) -> str:
    """The last ``max_bytes`` this run wrote to the log file (what the JVM said as it died)."""
    path = log_path()
    try:
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            f.seek(max(_run_start.get(path, 0), end - max_bytes))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _file_handler(path: Path) -> logging.Handler:
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler._sqlengine = True  # type: ignore[attr-defined]  # marks ours (setup is idempotent)
    return handler


def setup(pyspark: bool = True) -> Path:
    """Send Python logging and ``warnings`` to the log file only; returns its path.

    For a command-line run: a library user's notebook keeps its own logging set-up.
    ``pyspark``: also PySpark's own loggers (a client of a cluster runs no PySpark).
    """
    path = log_path()
    _run_start.setdefault(path, path.stat().st_size if path.exists() else 0)
    root = logging.getLogger()
    if not any(getattr(h, "_sqlengine", False) for h in root.handlers):
        for handler in list(root.handlers):
            root.removeHandler(handler)
        root.addHandler(_file_handler(path))
        root.setLevel(logging.WARNING)
    logging.captureWarnings(True)
    if pyspark:
        quiet_pyspark_loggers()
    return path


def quiet_pyspark_loggers() -> None:
    """PySpark's query-context loggers write JSON to stderr: point them at the log file."""
    handlers = [h for h in logging.getLogger().handlers if getattr(h, "_sqlengine", False)]
    if not handlers:
        return
    from pyspark.logger import PySparkLogger

    for name in _PYSPARK_LOGGERS:
        logger = PySparkLogger.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        for handler in handlers:
            logging.Logger.addHandler(logger, handler)


def full_trace(exc: BaseException) -> str:
    """The Python traceback (causes included) plus every JVM stack trace in the chain."""
    parts = ["".join(traceback.format_exception(exc))]
    for e in _chain(exc):
        jvm = getattr(e, "_stackTrace", None)
        if isinstance(jvm, str) and jvm:
            parts.append(f"JVM stack trace of {type(e).__name__}:\n{jvm}")
    return "\n".join(parts)


def log_failure(exc: BaseException, statement: str = "") -> None:
    """Write ``exc``'s full trace to the log file (and wherever else logging goes)."""
    where = f" in statement:\n{mask_sql(statement)}\n" if statement else "\n"
    file_logger().error("Statement failed%s%s", where, mask_sql(full_trace(exc)))


def file_logger() -> logging.Logger:
    """Writes to the log file whatever the process's logging set-up (never to stderr)."""
    logger = logging.getLogger(LOGGER)
    if not logger.handlers:
        logger.addHandler(_file_handler(log_path()))
        logger.propagate = False
    return logger


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out
