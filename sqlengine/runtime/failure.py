"""The one place a Spark, Py4J or Python failure becomes a ``SqlEngineError``.

Spark reports a failure as a chain (a StreamingQueryException around a task failure
around a PythonException around a Python traceback; a Py4JJavaError around a JVM
stack trace; an AnalysisException with a plan dump). A user gets one line: the
innermost message, without class names, plans or stack traces, which go to the
log file (sqlengine/logs.py). A dead driver JVM (killed, OutOfMemoryError) is
reported as such instead of as the socket error Py4J raises next.
"""
from __future__ import annotations

import re
import subprocess
from typing import Optional

from sqlengine.errors import ExecutionError, SqlEngineError

DRIVER_DIED = "The Spark driver (JVM) died"
_MAX = 500
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.$]*(?:Error|Exception|Exit|Interrupt))(?::\s*(.*))?$")
_CONDITION = re.compile(r"^\[USER_RAISED_EXCEPTION\]\s*")
# Spark's tail: ``SQLSTATE: 42703; line 1 pos 7;`` (a place in Spark's SQL, not the user's).
_TAIL = re.compile(r"(?:\s*SQLSTATE: \w+|;\s*line \d+ pos \d+|;)+\s*$")
_CAUSED_BY = re.compile(r'^(?:Caused by: |: |Exception in thread "[^"]*" )')
_JOB_FAILED = re.compile(r"^(Job \S+ failed): ")
_PLAN = ("\n;", "\n+-", "\n:-", "\n== ")


def to_engine_error(exc: BaseException) -> SqlEngineError:
    """``exc`` as an engine error (itself, if one with its own reason); the original is its cause."""
    if getattr(exc, "_translated", False):
        return exc  # type: ignore[return-value]
    if driver_died(exc):
        return _caused(ExecutionError(DRIVER_DIED + _oom_hint() + "."), exc)
    if isinstance(exc, SqlEngineError):
        return _job_failure(exc)
    return _caused(ExecutionError(root_cause(exc)), exc)


def _caused(err: SqlEngineError, cause: BaseException) -> SqlEngineError:
    err.__cause__ = cause
    err._translated = True  # type: ignore[attr-defined]  # translating again keeps it (and its span)
    return err


def _job_failure(err: SqlEngineError) -> SqlEngineError:
    """runtime/job.py words a failed job ``Job <id> failed: <reason>`` with its own parse
    of Spark's message (``_root_message``); the reason is derived here as for any other
    failure, so a Python worker's error reads the same in every path."""
    found = _JOB_FAILED.match(err.message)
    cause = err.__cause__
    if found is None or cause is None or isinstance(cause, SqlEngineError):
        return err
    d = err.diagnostic
    return _caused(type(err)(f"{found.group(1)}: {root_cause(cause)}", d.span, d.hint), cause)


def root_cause(exc: BaseException) -> str:
    """One line: the innermost message of ``exc``'s chain (Python and JVM causes)."""
    texts = [t for t in _messages(exc) if t.strip()]
    for text in reversed(texts):
        line = reason_in(text)
        if line:
            return line[:_MAX]
    return type(exc).__name__


def root_class(exc: BaseException) -> str:
    """The class of the innermost exception of ``exc``'s chain (Python and JVM causes), as
    its message names it (``sqlengine.faults.InjectedError``), for a job's exception history."""
    for text in reversed([t for t in _messages(exc) if t.strip()]):
        for marker in _PLAN:
            text = text.split(marker, 1)[0]
        raised = [l.rstrip() for l in text.strip().splitlines() if l.strip() and _raised(l.rstrip())]
        if raised:
            found = _EXCEPTION_LINE.match(_innermost_clause(_CAUSED_BY.sub("", raised[-1])).strip())
            if found:
                return found.group(1)
    return type(exc).__name__


def driver_died(exc: BaseException) -> bool:
    """Whether the driver JVM has exited (checked on the process when we started it)."""
    proc = _jvm_process()
    network = any(_is_network_error(e) for e in _chain(exc))
    if proc is None:  # a JVM we did not start (or none yet): only Py4J's word for it
        return network and _gateway() is not None
    if network:
        try:
            proc.wait(timeout=5)  # the socket closes a moment before the process is reaped
        except subprocess.TimeoutExpired:
            pass
    return proc.poll() is not None


def _gateway() -> object:
    try:
        from pyspark import SparkContext
    except ImportError:
        return None
    return SparkContext._gateway


def _jvm_process() -> Optional[subprocess.Popen]:
    return getattr(_gateway(), "proc", None)


def _is_network_error(e: BaseException) -> bool:
    if isinstance(e, (ConnectionError, EOFError)):
        return True
    if type(e).__name__ == "Py4JNetworkError":
        return True
    # A call whose answer never came (the JVM went away mid-call) is a bare Py4JError
    # "An error occurred while calling o114.awaitTermination", without "connect" in it.
    text = str(e).lower()
    return type(e).__name__ == "Py4JError" and ("connect" in text or "error occurred while calling" in text)


def _oom_hint() -> str:
    from sqlengine.logs import run_tail
    return " (java.lang.OutOfMemoryError)" if "OutOfMemoryError" in run_tail(65536) else ""


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: Optional[BaseException] = exc
    while e is not None and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def _messages(exc: BaseException) -> list[str]:
    """Messages from the outermost to the innermost cause, JVM causes included."""
    out: list[str] = []
    for e in _chain(exc):
        out.extend(_jvm_messages(e) or [_python_message(e)])
    return out


def _python_message(e: BaseException) -> str:
    desc = getattr(e, "_desc", None)  # pyspark's captured exceptions: without the JVM trace
    if isinstance(desc, str):
        return desc
    try:
        text = str(e)
    except Exception:  # noqa: BLE001 - str() of a captured error calls the (maybe dead) JVM
        text = ""
    name = type(e).__name__
    if isinstance(e, SqlEngineError) or not text:
        return text or name
    return text if "\n" in text else f"{name}: {text}"


def _jvm_messages(e: BaseException) -> list[str]:
    """For a Py4JJavaError: the messages of its Java exception and that one's causes."""
    java = getattr(e, "java_exception", None)
    out: list[str] = []
    try:
        while java is not None and len(out) < 20:
            out.append(str(java.getMessage() or java.toString()))
            java = java.getCause()
    except Exception:  # noqa: BLE001 - the JVM may be gone
        pass
    return out


def reason_in(text: str) -> str:
    """The user-facing line of one message or log excerpt: its innermost exception line, no plan."""
    for marker in _PLAN:
        text = text.split(marker, 1)[0]
    lines = [l.rstrip() for l in text.strip().splitlines() if l.strip()]
    if not lines:
        return ""
    raised = [l for l in lines if _raised(l)]
    if raised:  # a Python traceback's exception, a JVM "Caused by:", py4j's ": <Java error>"
        return _strip(_innermost_clause(_CAUSED_BY.sub("", raised[-1])))
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:  # "... Spark >= 3.0:\n<the reason>"
        first = f"{first} {lines[1].strip()}"
    return _strip(_innermost_clause(first))


def _raised(line: str) -> bool:
    """An unindented line naming an exception and its message (not a traceback header)."""
    if line[:1].isspace():
        return False
    body = _CAUSED_BY.sub("", line).rstrip()
    return bool(_EXCEPTION_LINE.match(body)) and not body.endswith(":")


def _innermost_clause(line: str) -> str:
    """Spark nests causes in one line (``...: Lost task ...: org.x.FooException: msg``)."""
    parts = re.split(r"(?<=: )(?=(?:[a-z]+\.)+[A-Za-z$]*(?:Exception|Error)\b)", line)
    return parts[-1]


def _strip(line: str) -> str:
    """Drop a qualified class name (keep ``ValueError: x``), a raise_error tag, SQLSTATE."""
    m = _EXCEPTION_LINE.match(line.strip())
    if m and m.group(2) is not None:
        name, msg = m.group(1), m.group(2)
        line = msg if "." in name else f"{name}: {msg}"
    return _TAIL.sub("", _CONDITION.sub("", line.strip())).strip()

