"""What a statement returns (PyFlink's ``TableResult`` and ``JobClient``).

* ``OK``: DDL, SET, USE ... (``render`` gives Flink's ``[INFO] Execute statement succeeded.``);
* ``ROWS``: SHOW/DESCRIBE/EXPLAIN and SELECT. A streaming SELECT holds a ``ResultStream``
  (sqlengine/runtime/collect.py): its changes arrive epoch by epoch while the query runs;
  ``rows``/``collect()`` wait for the end (over unbounded input: until ``cancel``);
* ``JOB``: a submitted INSERT or statement set; ``wait()`` blocks until it ends (raising
  its error), ``get_job_client()`` gives its status, ``cancel()`` and
  ``stop_with_savepoint()``.
"""
from __future__ import annotations

import datetime as dt
import sys
from concurrent.futures import Future
from typing import Any, Iterator, Optional, TextIO

from catalog.tableau import (NULL_VALUE, changelog_footer, changelog_header, column_widths_by_type,  # noqa: F401
                             render_show_result, render_tableau, tableau_row)

RESULT_MODE = "sql-client.execution.result-mode"
RESULT_MODES = ("table", "changelog", "tableau")
MAX_TABLE_ROWS = "sql-client.execution.max-table-result.rows"  # as Flink's SQL Client

# Flink's JobStatus names; a job stopped at an epoch boundary is FINISHED, as a job
# stopped with a savepoint is in Flink.
_STATUS = {"STOPPED": "FINISHED"}


def _done(value: Any = None) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


class JobClient:
    """PyFlink's ``JobClient`` for a job of this process; as in PyFlink, each call returns a
    future (already completed, except ``get_job_execution_result``)."""

    def __init__(self, job) -> None:
        self._job = job

    def get_job_id(self) -> str:
        return self._job.job_id

    @property
    def job_id(self) -> str:
        return self._job.job_id

    def get_job_status(self) -> Future:
        return _done(job_status(self._job))

    def cancel(self) -> Future:
        self._job.cancel()
        self._job.done.wait(60)
        return _done()

    def stop_with_savepoint(self, advance_to_end_of_event_time: bool = False,
                            savepoint_directory: Optional[str] = None, formatType: Any = None) -> Future:
        """Stop at an epoch boundary (with ``advance_to_end_of_event_time``, Flink's drain:
        every window fires); the future's value is the savepoint to restore from (``SET
        'execution.state-recovery.path' = ...``), taken in ``savepoint_directory`` (default:
        ``execution.checkpointing.savepoint-dir``, else ``savepoints`` beside the checkpoint),
        None if no epoch was committed."""
        from sqlengine.runtime.savepoint import default_savepoint_dir, new_path
        job = self._job
        root = job.stop(drain=advance_to_end_of_event_time)
        target = savepoint_directory or default_savepoint_dir(
            {"execution.checkpointing.savepoint-dir": job.savepoint_dir or ""}, job.checkpoint_root)
        if root is None or target is None:
            return _done(root)
        return _done(job.savepoint(new_path(job.job_id, target)))

    def get_job_execution_result(self) -> Future:
        f: Future = Future()

        def wait() -> None:
            try:
                self._job.wait()
                f.set_result(job_status(self._job))
            except BaseException as exc:  # noqa: BLE001
                f.set_exception(exc)
        import threading
        threading.Thread(target=wait, daemon=True).start()
        return f


def job_status(job) -> str:
    if job.status == "RUNNING" and job.done.is_set():
        return "FAILED" if job.error is not None else "FINISHED"
    return _STATUS.get(job.status, job.status)


def result_mode(conf: dict[str, str]) -> str:
    """How a client shows a streaming SELECT (``sql-client.execution.result-mode``)."""
    from sqlengine.errors import ValidationError
    mode = conf.get(RESULT_MODE, "table").strip().lower()
    if mode not in RESULT_MODES:
        raise ValidationError(f"Unknown result mode '{mode}' in '{RESULT_MODE}'. "
                              f"Valid values: {', '.join(RESULT_MODES)}.")
    return mode


def max_table_rows(conf: dict[str, str]) -> int:
    from sqlengine.errors import ValidationError
    raw = conf.get(MAX_TABLE_ROWS, "1000000").strip()
    if not raw.isdigit() or int(raw) == 0:
        raise ValidationError(f"Invalid value for '{MAX_TABLE_ROWS}': '{raw}' is not a positive integer.")
    return int(raw)


class Materialized:
    """A streaming SELECT's result as its changes arrive, for a client to show:
    materialized (Flink's ``table`` result mode: ``-U``/``-D`` remove the newest equal row,
    ``+I``/``+U`` append) or the changelog itself (``op`` first). At most ``max_rows`` rows
    are kept: beyond, the oldest go. Rows are found by their printed cells, so a
    retraction costs no scan."""

    def __init__(self, header: list[str], types: Optional[list[Any]], changelog: bool,
                 max_rows: int = 1_000_000, time_zone: str = "UTC") -> None:
        self.changelog, self.max_rows = changelog, max_rows
        self.zone = zone_of(time_zone)
        self.header = header if changelog else header[1:]
        self.types = types[1:] if types else [None] * (len(header) - 1)
        self._rows: dict[int, tuple[list, list]] = {}  # seq -> (values, cells), in display order
        self._by_cells: dict[tuple, list[int]] = {}
        self._seq = 0
        self.received = 0

    def apply(self, changes: list[list]) -> None:
        for change in changes:
            self.received += 1
            cells = [_cell(v, t, self.zone) for v, t in zip(change[1:], self.types)]
            if self.changelog:
                self._append([change[0], *change[1:]], [change[0], *cells])
            elif change[0] in ("+I", "+U"):
                self._append(list(change[1:]), cells)
            else:
                seqs = self._by_cells.get(tuple(cells))
                if seqs:
                    self._drop(seqs[-1])

    def _append(self, values: list, cells: list) -> None:
        self._seq += 1
        self._rows[self._seq] = (values, cells)
        self._by_cells.setdefault(tuple(cells), []).append(self._seq)
        if len(self._rows) > self.max_rows:
            self._drop(next(iter(self._rows)))

    def _drop(self, seq: int) -> None:
        key = tuple(self._rows.pop(seq)[1])
        seqs = self._by_cells[key]
        seqs.remove(seq)
        if not seqs:
            del self._by_cells[key]

    def __len__(self) -> int:
        return len(self._rows)

    def values(self) -> list[list]:
        return [v for v, _ in self._rows.values()]

    def cells(self) -> list[list]:
        """The rows as printed (``None`` for NULL)."""
        return [c for _, c in self._rows.values()]


class TableResult:
    """What a statement returned: OK, rows (SHOW/DESCRIBE/SELECT), or a submitted job."""

    def __init__(self, kind: str, header: Optional[list[str]] = None, rows: Optional[list[list[Any]]] = None,
                 job: Any = None, text: Optional[str] = None, changelog: bool = False, show: bool = False,
                 types: Optional[list[Any]] = None, messages: Optional[list[str]] = None, stream: Any = None):
        self.kind = kind  # "OK" | "ROWS" | "JOB"
        self.header = header or []
        self._rows = rows
        self.job = job
        self.text = text
        self.changelog = changelog
        self.show = show  # SHOW/DESCRIBE (Flink prints NULL as empty, no width limit)
        self.types = types  # Flink types of the columns (query results), for printing
        self.messages = messages if messages is not None else []
        self.stream = stream  # a streaming SELECT's ResultStream
        self.span = None  # the statement's place in its script (errors raised later point there)
        self.inserts = False  # a streaming SELECT computed at once: printed as +I changes
        self.max_column_width = 30  # Flink's table.display.max-column-width
        self.time_zone = "UTC"  # table.local-time-zone: TIMESTAMP_LTZ cells are shown in it

    def cells(self, row: list[Any], types: list[Any]) -> list[Optional[str]]:
        """One row's values as Flink prints them (TIMESTAMP_LTZ in the session time zone)."""
        zone = zone_of(self.time_zone)
        return [_cell(v, t, zone) for v, t in zip(row, types)]

    def printed(self) -> "TableResult":
        """What ``render`` shows: ``inserts`` rows as a changelog of insertions."""
        if not self.inserts:
            return self
        shown = TableResult("ROWS", ["op", *self.header], [["+I", *r] for r in self.rows], changelog=True,
                            types=[None, *(self.types or [None] * len(self.header))])
        shown.max_column_width, shown.time_zone = self.max_column_width, self.time_zone
        return shown

    def __repr__(self) -> str:
        return f"TableResult({self.kind}, {self.header})"

    # -- rows ------------------------------------------------------------------------------
    @property
    def rows(self) -> list[list[Any]]:
        if self._rows is None:
            if self.stream is None:
                return []
            try:
                self._rows = self.stream.rows()
            except Exception as exc:  # noqa: BLE001 - the same errors as a statement's
                raise self._engine_error(exc) from exc
        return self._rows

    @rows.setter
    def rows(self, value: list[list[Any]]) -> None:
        self._rows = value

    def collect(self) -> list[list[Any]]:
        """Every row (a streaming SELECT: every change, ``[op, *values]``, once it ends)."""
        return self.rows

    def batches(self, timeout: Optional[float] = None) -> Iterator[list[list[Any]]]:
        """A streaming SELECT's changes epoch by epoch as they arrive (else all rows at once);
        with ``timeout`` an empty batch comes whenever that long passes without one."""
        if self.stream is None or self._rows is not None:
            yield self.rows
            return
        try:
            yield from self.stream.batches(timeout)
        except Exception as exc:  # noqa: BLE001
            raise self._engine_error(exc) from exc

    def cancel(self) -> None:
        """Stop a running streaming SELECT or job now."""
        if self.stream is not None:
            self.stream.cancel()
        elif self.job is not None:
            self.job.cancel()

    def get_result_kind(self) -> str:
        return "SUCCESS" if self.kind == "OK" else "SUCCESS_WITH_CONTENT"

    def get_job_client(self) -> Optional[JobClient]:
        return JobClient(self.job) if self.job is not None else None

    def wait(self, timeout_ms: Optional[int] = None) -> "TableResult":
        """Block until the job (or streaming SELECT) has ended; a failure is raised."""
        timeout = timeout_ms / 1000 if timeout_ms is not None else None
        if self.job is not None:
            try:
                self.job.wait(timeout)
            except TimeoutError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise self._engine_error(exc) from exc
        elif self.stream is not None and (timeout is None or self.stream.wait(timeout)):
            self.rows  # noqa: B018 - reads the changes (the query waits for its reader); raises its failure
        return self

    def _engine_error(self, exc: BaseException):
        from sqlengine.runtime.failure import to_engine_error
        err = to_engine_error(exc)
        return err.with_span(self.span) if self.span is not None else err

    def to_pandas(self):
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.header)

    # -- printing ------------------------------------------------------------------------------
    def render(self) -> str:
        if self.text is not None:
            return self.text
        if self.kind == "OK":
            return "[INFO] Execute statement succeeded."
        if self.inserts:
            return self.printed().render()
        if self.kind == "JOB":
            return f"[INFO] Submitting SQL update statement to the cluster...\n" \
                   f"[INFO] SQL update statement has been successfully submitted to the cluster:\n" \
                   f"Job ID: {self.job.job_id}\n"
        types = self.types or [None] * len(self.header)
        if self.changelog and all(t is not None for t in types[1:]):
            return self._render_changes(types[1:])
        if not self.rows:
            return "Empty set"
        cells = [self.cells(r, types) for r in self.rows]
        if self.show:
            return render_show_result(self.header, cells)
        body = render_tableau(self.header, cells, max_column_width=self.max_column_width)
        if self.changelog:
            n = len(self.rows)
            body = body.rsplit("\n", 1)[0] + f"\nReceived a total of {n} {'rows' if n > 1 else 'row'}"
        return body

    def _render_changes(self, types: list) -> str:
        """A streaming result as Flink's streaming tableau prints it: column widths from the
        types (decided before any row), the ``op`` column, ``Received a total of N rows``."""
        names = self.header[1:]
        widths = column_widths_by_type(names, types, max_column_width=self.max_column_width)
        lines = [changelog_header(names, widths)]
        lines += [tableau_row([r[0]] + self.cells(r[1:], types), widths) for r in self.rows]
        lines.append(changelog_footer(len(self.rows), widths))
        return "\n".join(lines)

    def print(self, out: Optional[TextIO] = None, live: bool = False) -> None:
        """Print the result as Flink's tableau. A streaming SELECT over unbounded input (or
        any running one, with ``live``) is printed row by row as its changes arrive
        (widths from the column types, as Flink's streaming tableau), until it ends or
        Ctrl-C cancels it."""
        out = out or sys.stdout
        if self.stream is not None and self._rows is None and (live or not self.stream.bounded):
            self._print_live(out)
        else:
            print(self.render(), file=out)
        for m in self.messages:
            print(f"[INFO] {m}", file=out)
        out.flush()

    def _print_live(self, out: TextIO) -> None:
        names, types = self.header[1:], (self.types or [None] * len(self.header))[1:]
        widths = column_widths_by_type(names, types, max_column_width=self.max_column_width)
        print(changelog_header(names, widths), file=out, flush=True)
        count = 0
        try:
            with CtrlC() as ctrl_c:
                for rows in self.batches(timeout=0.25):
                    ctrl_c.check()
                    for r in rows:
                        print(tableau_row([r[0]] + self.cells(r[1:], types), widths), file=out)
                    count += len(rows)
                    out.flush()
        except KeyboardInterrupt:
            self.cancel()
            print(changelog_footer(count, widths), file=out)
            print("Query terminated by the user (Ctrl-C).", file=out)
            return
        print(changelog_footer(count, widths), file=out)


class CtrlC:
    """While a live result is shown: a Ctrl-C goes to the SIGINT handler there was
    (Python's, or SparkContext's, which cancels Spark's jobs first), and one that raised
    KeyboardInterrupt is also remembered. A press that lands while Python runs a finalizer
    (py4j releases JVM objects from weakref callbacks) has its KeyboardInterrupt printed
    as "Exception ignored" and dropped; ``check`` between batches raises it again, so the
    query is cancelled all the same. A handler that does not raise (a script's, which
    stops jobs at an epoch boundary) is left to do just that. Main thread only."""

    def __init__(self) -> None:
        self.pressed = False
        self._previous: Any = None
        self._hook: Any = None

    def __enter__(self) -> "CtrlC":
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._pressed)
            self._hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable
        return self

    def _pressed(self, signum, frame) -> None:
        import signal
        previous = self._previous
        try:
            if callable(previous):
                previous(signum, frame)
            elif previous != signal.SIG_IGN:
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            self.pressed = True
            raise

    def _unraisable(self, info) -> None:
        if not (self.pressed and isinstance(info.exc_value, KeyboardInterrupt)):
            self._hook(info)  # a press dropped in a finalizer is not printed: ``check`` raises it

    def check(self) -> None:
        if self.pressed:
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        if self._hook is not None:
            import signal
            signal.signal(signal.SIGINT, self._previous)
            sys.unraisablehook = self._hook


def _cell(v: Any, t: Any = None, zone: Optional[dt.tzinfo] = None) -> Optional[str]:
    """A value as Flink's tableau prints it; ``t`` (its Flink type, if known) sets the
    fraction digits of TIMESTAMP/TIME values and types nested values. A TIMESTAMP_LTZ
    value is an instant (a naive UTC datetime, as Spark collects it, its session zone
    pinned to UTC): Flink prints it in ``table.local-time-zone``, ``zone`` here."""
    if v is None:
        return None
    root = getattr(t, "root", None)
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (bytes, bytearray)):  # BINARY/VARBINARY: Flink prints x'<hex>'
        return f"x'{bytes(v).hex()}'"
    if isinstance(v, dt.datetime):
        if root == "TIMESTAMP_LTZ" and zone is not None:
            v = v.replace(tzinfo=dt.timezone.utc).astimezone(zone).replace(tzinfo=None)
        digits = t.precision if root in ("TIMESTAMP", "TIMESTAMP_LTZ") and t.precision is not None else 3
        return v.strftime("%Y-%m-%d %H:%M:%S") + _fraction(v.microsecond, digits)
    if root == "TIME" and isinstance(v, int):  # milliseconds of the day
        seconds, millis = divmod(v, 1000)
        text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        if not t.precision:
            return text
        # As CAST(TIME AS STRING): at most the precision's digits, trailing zeros dropped.
        return text + "." + (_fraction(millis * 1000, min(t.precision, 3))[1:].rstrip("0") or "0")
    if root == "INTERVAL_DAY_TIME" and isinstance(v, int):
        return _interval_day_time(v)
    if root == "INTERVAL_YEAR_MONTH" and isinstance(v, int):
        sign, months = ("-" if v < 0 else "+"), abs(v)
        return f"{sign}{months // 12}-{months % 12:02d}"
    if isinstance(v, float) and root in ("DOUBLE", "FLOAT"):
        return java_double(v)
    if isinstance(v, (list, tuple)) and not hasattr(v, "__fields__"):
        element = getattr(t, "element", None)
        return "[" + ", ".join(_cell(x, element, zone) or "NULL" for x in v) + "]"
    if isinstance(v, tuple):  # a ROW (pyspark Row)
        fields = [f.type for f in getattr(t, "fields", ())] or [None] * len(v)
        return "(" + ", ".join(_cell(x, ft, zone) or "NULL" for x, ft in zip(v, fields)) + ")"
    if isinstance(v, dict):
        key, value = getattr(t, "key", None), getattr(t, "value", None)
        return "{" + ", ".join(f"{_cell(k, key, zone)}={_cell(x, value, zone) or 'NULL'}" for k, x in v.items()) + "}"
    return str(v)


def zone_of(name: Optional[str]) -> Optional[dt.tzinfo]:
    """``table.local-time-zone`` as a tzinfo: a region (``Europe/Berlin``) or an offset
    (``+08:00``, ``GMT+8``, ``UTC-03:30``), as Flink accepts them; None for UTC (or a
    name it cannot read: the instant is then printed in UTC)."""
    import re
    import zoneinfo
    name = (name or "UTC").strip()
    match = re.fullmatch(r"(?:GMT|UTC|UT)?([+-])(\d{1,2})(?::?(\d{2}))?", name, re.IGNORECASE)
    if match:
        sign = -1 if match.group(1) == "-" else 1
        offset = dt.timedelta(hours=int(match.group(2)), minutes=int(match.group(3) or 0))
        return dt.timezone(sign * offset) if offset else None
    if name.upper() in ("UTC", "Z", "GMT", "UT", "ETC/UTC"):
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def _fraction(micros: int, digits: int) -> str:
    """``.fff`` with exactly ``digits`` digits (none for 0), as Flink pads its fractions."""
    if digits <= 0:
        return ""
    text = f"{micros:06d}" + "0" * max(0, digits - 6)
    return "." + text[:digits]




def _interval_day_time(millis: int) -> str:
    """Flink's ``+d hh:mm:ss.fff`` of an INTERVAL DAY TO SECOND (milliseconds)."""
    sign, ms = ("-" if millis < 0 else "+"), abs(millis)
    seconds, frac = divmod(ms, 1000)
    minutes, sec = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    days, hour = divmod(hours, 24)
    return f"{sign}{days} {hour:02d}:{minute:02d}:{sec:02d}.{frac:03d}"


def java_double(v: float) -> str:
    """A DOUBLE as Java's ``Double.toString`` prints it (Flink's cells): ``NaN``,
    ``Infinity``, plain digits from 10^-3 to 10^7, else ``d.dddE[-]n``."""
    import math
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0 or 1e-3 <= abs(v) < 1e7:
        text = repr(v)
        return text if "e" not in text else format(v, "f")
    mantissa, exponent = f"{v:e}".split("e")
    digits = repr(v).split("e")[0] if "e" in repr(v) else None
    if digits is None:  # repr gave plain digits (e.g. 10000000000.0): take its significant ones
        sig = repr(abs(v)).replace(".", "").lstrip("0").rstrip("0") or "0"
        digits = ("-" if v < 0 else "") + sig[0] + "." + (sig[1:] or "0")
    elif "." not in digits:
        digits += ".0"
    return f"{digits}E{int(exponent)}"
