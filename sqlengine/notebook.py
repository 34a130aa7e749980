"""Flink SQL in IPython and Jupyter: ``%load_ext sqlengine``, then ``%sql`` and ``%%sql``.

    %load_ext sqlengine
    %sql SET 'parallelism.default' = '1'
    %%sql -o top
    SELECT item, COUNT(*) AS n FROM orders WHERE price >= :min_price GROUP BY item

One ``Session`` per kernel, created on first use. A cell's statements run in order, each
result shown as it comes: ``[INFO]`` lines for DDL/SET, an HTML table for rows (text/plain:
Flink's tableau), the job id for an INSERT (the job runs on in the background: ``SHOW
JOBS``, ``STOP JOB``), and a live table for a streaming SELECT.

**Options** on the magic line, before the SQL: ``-D key=value`` (session configuration,
as ``SET``; ``spark.*`` keys only before the first query starts Spark), ``-o name``
(the last rows shown become the pandas DataFrame ``name``), ``--max-rows N`` and
``--timeout SECONDS`` (bound a streaming SELECT: it is cancelled once N rows have
arrived, whole epochs at a time, or that long after it started).

**Python variables**: ``:name`` is replaced by the value of ``name`` in the notebook
as a SQL literal: ``'text'`` (quotes doubled), ``42``, ``1.5E0`` (a float is a DOUBLE),
``Decimal`` as a DECIMAL, ``TRUE``, ``NULL``, ``DATE '...'``, ``TIME '...'``,
``TIMESTAMP '...'``, ``X'..'`` for bytes, ``ARRAY[...]`` for a list or tuple, ``MAP[...]``
for a dict, a path as its text. It is a value, never SQL text: nothing in it can change
the statement, and ``:name`` inside a string literal, a quoted identifier or a comment is
left alone (``'12:30'``, ``'s3://b'``), so existing SQL never changes meaning. ``::`` is
not a variable. An undefined name or a value of another type is an error at its place.

**Streaming SELECT**: a table refreshed in place (``display_id``, at most
``SqlMagic.refresh`` seconds apart) until the query ends, ``--max-rows``/``--timeout``
stop it, or the kernel is interrupted (the query is cancelled, the table stays with a
"Cancelled" line, the cell's later statements do not run and no traceback is shown).
By default the changes are applied (Flink's ``table`` result mode: ``-U``/``-D`` remove
the row, ``+I``/``+U`` add it); ``SET 'sql-client.execution.result-mode' =
'changelog'`` (or ``'tableau'``) shows every change with its ``op`` column instead.
At most ``SqlMagic.display_limit`` rows are shown (the newest); ``-o`` gets all that are
kept: ``sql-client.execution.max-table-result.rows`` (1,000,000; beyond, the oldest go).

**Errors** show as Flink's SQL Client prints them (``[ERROR] ...``, the reason with
``line:col``, the line and a caret; HTML and text/plain), and the cell fails with a
one-line error, not a traceback: "Run all" and nbclient stop there, as at a failing
Python cell (tag a cell ``raises-exception``, or run nbclient with ``allow_errors``, to
go on). The full trace goes to sqlengine's log file, where Spark's own log goes too:
on first use the kernel's Python logging and warnings are routed there
(``sqlengine.logs.setup``), so no Spark/JVM line reaches a cell.
"""
from __future__ import annotations

import datetime as dt
import html
import io
import math
import numbers
import os
import re
import shlex
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Mapping, Optional

from IPython.core.displaypub import DisplayPublisher
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display
from traitlets import Float, Int

from sqlengine.errors import Span, ValidationError
from sqlengine.api.result import Materialized, max_table_rows, result_mode



# -- the magic line --------------------------------------------------------------------
@dataclass(frozen=True)
class CellOptions:
    defines: dict[str, str] = field(default_factory=dict)
    out: Optional[str] = None
    max_rows: Optional[int] = None
    timeout: Optional[float] = None


_OPTION = re.compile(r"^(-[A-Za-z]|--[A-Za-z][\w-]*)")


def split_line(line: str) -> tuple[list[str], str]:
    """The leading option tokens of a magic line and the SQL after them (verbatim: shell
    splitting would eat the SQL's quotes)."""
    lex = shlex.shlex(line, posix=True)
    lex.whitespace_split, lex.commenters = True, ""
    tokens: list[str] = []
    wants_value = False
    while True:
        pos = lex.instream.tell()
        try:
            tok = lex.get_token()
        except ValueError:  # an unbalanced quote: the SQL has begun
            break
        if tok is None:
            return tokens, ""
        if not wants_value and not _OPTION.match(tok):
            break
        tokens.append(tok)
        # ``-o NAME``, ``--max-rows N``: the value is the next token (not in ``-Dk=v``, ``--timeout=5``)
        wants_value = not wants_value and "=" not in tok and (len(tok) == 2 or tok.startswith("--"))
    return tokens, line[pos:].strip()


# -- Python variables ------------------------------------------------------------------
# What is skipped (string literals, quoted identifiers, comments), ``::``, or ``:name``
# at the start of a token.
_SQL_PIECES = re.compile(r"""(?P<skip>'(?:[^']|'')*'?|`(?:[^`]|``)*`?|"(?:[^"]|"")*"?|--[^\n]*|/\*.*?(?:\*/|\Z))
                             |(?P<colons>::+)
                             |(?<![\w$]):(?P<name>[A-Za-z_]\w*)""", re.S | re.X)
_SUPPORTED = ("str, int, float, Decimal, bool, None, date, time, datetime (naive), bytes, "
              "list/tuple (ARRAY), dict (MAP), a path")


def bind_variables(sql: str, namespace: Mapping[str, Any]) -> str:
    """``sql`` with each ``:name`` outside literals, quoted identifiers and comments
    replaced by the value of ``name`` in ``namespace`` as a SQL literal."""
    def replace(m: re.Match) -> str:
        name = m.group("name")
        if name is None:
            return m.group(0)
        span = Span(sql, m.start(), m.end())
        if name not in namespace:
            raise ValidationError(f"Python variable '{name}' is not defined (`:{name}` binds a variable of "
                                  "the notebook as a SQL literal).", span)
        try:
            return sql_literal(namespace[name])
        except TypeError as exc:
            raise ValidationError(f"Python variable '{name}' cannot be a SQL literal: {exc}", span,
                                  hint=f"supported: {_SUPPORTED}") from None
    return _SQL_PIECES.sub(replace, sql)


def sql_literal(value: Any) -> str:
    """``value`` as a Flink SQL literal of its type; TypeError if it has none."""
    if hasattr(value, "item") and hasattr(value, "dtype"):  # a numpy scalar
        value = value.item()
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise TypeError(f"{value} has no DECIMAL literal")
        return format(value, "f")
    if isinstance(value, numbers.Real):
        return _double(float(value))
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (bytes, bytearray)):
        return f"X'{bytes(value).hex()}'"
    return _temporal(value) or _collection(value)


def _double(v: float) -> str:
    if math.isnan(v):
        return "CAST('NaN' AS DOUBLE)"
    if math.isinf(v):
        return f"CAST('{'-' if v < 0 else ''}Infinity' AS DOUBLE)"
    text = repr(v)
    return text.upper() if "e" in text else text + "E0"  # 1.5 would be a DECIMAL


def _temporal(value: Any) -> Optional[str]:
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            raise TypeError("a timezone-aware datetime (pass a naive one, e.g. in UTC)")
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, dt.time):
        if value.tzinfo is not None:
            raise TypeError("a timezone-aware time")
        return f"TIME '{value.isoformat()}'"
    return None


def _collection(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        if not value:
            raise TypeError("an empty list (Flink has no empty ARRAY literal)")
        return "ARRAY[" + ", ".join(sql_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            raise TypeError("an empty dict (Flink has no empty MAP literal)")
        return "MAP[" + ", ".join(f"{sql_literal(k)}, {sql_literal(v)}" for k, v in value.items()) + "]"
    raise TypeError(f"a value of type {type(value).__name__}")


# -- rendering -------------------------------------------------------------------------
class Rendered:
    """A display object: HTML for notebooks, text for terminals (and text/plain)."""

    def __init__(self, html_text: str, text: str) -> None:
        self.html, self.text = html_text, text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def table_html(header: list[str], rows: list[list[Optional[str]]], null: str, note: str = "") -> str:
    """Flink-formatted cells as an HTML table, escaped; a None cell (NULL) shows ``null``."""
    def cell(v: Optional[str]) -> str:
        return html.escape(null if v is None else v)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    foot = f'<p class="sqlengine-status">{html.escape(note)}</p>' if note else ""
    return (f'<div class="sqlengine-result"><table class="sqlengine"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>{foot}</div>")


def rows_view(result: Any, limit: int) -> Rendered:
    """A finished ROWS result: HTML table (at most ``limit`` rows) and Flink's tableau."""
    from sqlengine.api.result import NULL_VALUE, render_show_result, render_tableau

    rows = result.rows
    if not rows:
        return Rendered('<p class="sqlengine-status">Empty set</p>', "Empty set")
    types = result.types or [None] * len(result.header)
    shown = rows[:limit]
    cells = [result.cells(r, types) for r in shown]
    total = f"{len(rows)} {'rows' if len(rows) > 1 else 'row'} in set"
    note = total if len(rows) <= limit else f"{total} (the first {limit} shown; -o NAME gets them all)"
    html_text = table_html(result.header, cells, "" if result.show else NULL_VALUE, note)
    if len(rows) <= limit:
        return Rendered(html_text, result.render())
    text = (render_show_result(result.header, cells) if result.show else
            render_tableau(result.header, cells, max_column_width=30))
    return Rendered(html_text, text.rsplit("\n", 1)[0] + "\n" + note)


def error_view(exc: BaseException, conf: Mapping[str, str], statement: str = "") -> Rendered:
    """``exc`` as the CLI's ``[ERROR]`` text (sqlengine/api/report.py, which also logs the trace)."""
    from sqlengine.api.report import is_verbose, report
    from sqlengine.api.control import log_path

    out = io.StringIO()
    report(exc, log_path(), is_verbose(dict(conf)), statement, err=out)
    text = out.getvalue().rstrip("\n")
    head, _, rest = text.partition("\n")
    return Rendered(f'<div class="sqlengine-error"><p style="color: #c00; font-weight: bold">{html.escape(head)}'
                    f"</p><pre>{html.escape(rest)}</pre></div>", text)


class SqlError(Exception):
    """Fails the cell after its error was shown; IPython prints this one line, no traceback."""

    def _render_traceback_(self) -> list[str]:
        return [f"SqlError: {self}"]


# -- streaming results -----------------------------------------------------------------
class LiveTable(Materialized):
    """A streaming SELECT's result as the changes arrive (``Materialized``), rendered as
    an HTML table with a status line."""

    def status(self, state: str) -> str:
        received = f"{self.received} {'change' if self.received == 1 else 'changes'} received"
        if self.changelog:
            return f"{state}: {received}."
        n = len(self)
        return f"{state}: {n} {'row' if n == 1 else 'rows'} in the table, {received}."

    def view(self, state: str, limit: int) -> Rendered:
        from sqlengine.api.result import NULL_VALUE, render_tableau
        cells = self.cells()
        shown = cells[-limit:] if limit > 0 else []
        note = self.status(state)
        if len(shown) < len(cells):
            note += f" The newest {len(shown)} rows are shown."
        text = render_tableau(self.header, shown, max_column_width=30)
        text = (text.rsplit("\n", 1)[0] + "\n" if shown else "") + note
        return Rendered(table_html(self.header, shown, NULL_VALUE, note), text)


def follow(result: Any, live: LiveTable, options: CellOptions, show: Callable[[Rendered], None],
           limit: int, refresh: float, clock: Callable[[], float] = time.monotonic, progress: bool = True) -> bool:
    """Show a streaming SELECT's changes (at most every ``refresh`` seconds; with ``progress``
    False only the end) until it ends, a bound of ``options`` is reached or the kernel is
    interrupted (then the query is cancelled and False returned). A failure of the query
    is raised after the table was shown with "Failed"."""
    start = last = clock()
    state = "Finished (the query ended)"
    stop, pending = None, False
    try:
        for changes in result.batches(refresh):  # an empty batch every ``refresh`` s when idle
            live.apply(changes)
            pending = pending or bool(changes)
            now = clock()
            if options.max_rows is not None and live.received >= options.max_rows:
                stop = f"Stopped (--max-rows {options.max_rows})"
            elif options.timeout is not None and now - start >= options.timeout:
                stop = f"Stopped (--timeout {options.timeout:g} s)"
            if stop:
                state = stop
                break
            if progress and pending and now - last >= refresh:
                show(live.view("Running (interrupt the kernel to cancel)", limit))
                last, pending = now, False
    except KeyboardInterrupt:
        _cancel(result)
        show(live.view("Cancelled (interrupted)", limit))
        return False
    except Exception:
        show(live.view("Failed", limit))
        raise
    if stop:
        _cancel(result)
    show(live.view(state, limit))
    return True


def _cancel(result: Any) -> None:
    try:
        result.cancel()
    except KeyboardInterrupt:  # a second interrupt while cancelling: try once more
        result.cancel()


# -- the magics ------------------------------------------------------------------------
@magics_class
class SqlMagic(Magics):
    """``%sql`` and ``%%sql``: Flink SQL on the kernel's ``Session``."""

    display_limit = Int(200, help="At most this many rows of a result are shown (-o NAME gets all).").tag(
        config=True)
    refresh = Float(0.25, help="Seconds between two refreshes of a streaming result's table.").tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell, **kwargs)
        self.session: Any = None  # the kernel's Session, created on first use

    @no_var_expand
    @magic_arguments()
    @argument("-D", dest="defines", action="append", default=[], metavar="key=value",
              help="session configuration, as SET (spark.* keys: before the first query only)")
    @argument("-o", "--out", metavar="NAME", help="store the last rows shown as the pandas DataFrame NAME")
    @argument("--max-rows", type=int, metavar="N",
              help="cancel a streaming SELECT once N rows (changes) have arrived, whole epochs at a time")
    @argument("--timeout", type=float, metavar="SECONDS",
              help="cancel a streaming SELECT that long after it started")
    @line_cell_magic
    def sql(self, line: str, cell: Optional[str] = None) -> None:
        """Run Flink SQL statements in order: ``%sql [options] SQL`` (the rest of the line)
        or ``%%sql [options]`` (the cell). ``:name`` binds the Python variable ``name`` as a
        SQL literal; a streaming SELECT's table updates in place until it ends, a bound
        below stops it, or the kernel is interrupted (see ``help(sqlengine.notebook)``)."""
        tokens, rest = split_line(line)
        args = parse_argstring(self.sql, shlex.join(tokens))
        if cell is not None and rest:
            from IPython.core.error import UsageError
            raise UsageError(f"%%sql takes options on its line, the SQL in the cell: '{rest}'")
        options = CellOptions(_defines(args.defines), args.out, args.max_rows, args.timeout)
        self.run(cell if cell is not None else rest, options)

    def kernel_session(self, defines: Mapping[str, str]) -> Any:
        if self.session is None:
            from sqlengine.api.control import setup_logging as setup
            from sqlengine.api.session import Session
            setup()  # Python logging and warnings to the log file, as Spark's own log
            self.session = Session(dict(defines))
        else:
            self.session.conf.update(defines)
        return self.session

    def run(self, sql: str, options: CellOptions) -> None:
        """Each statement in order; at the first failure show it and fail the cell."""
        from sqlengine.api.script import parse_script
        session = self.kernel_session(options.defines)
        statement, done, total = "", 0, 0
        try:
            statements = parse_script(bind_variables(sql, self.shell.user_ns))
            total = len(statements)
            for stmt in statements:
                statement = stmt.text
                if not self._show(session, session.execute_statement(stmt, live=True), options):
                    return
                done += 1
        except Exception as exc:  # noqa: BLE001 - every failure is shown the same way
            display(error_view(exc, session.conf, statement))
            raise SqlError(_failed(done, total)) from None

    def _show(self, session: Any, result: Any, options: CellOptions) -> bool:
        """Show one result; False if the user interrupted it."""
        if result.kind != "ROWS":
            print(result.render())
        elif result.stream is not None:
            if not self._follow(session, result, options):
                return False
        else:
            display(rows_view(result, self.display_limit))
            self._store(options.out, result.header, result.rows)
        for message in result.messages:
            print(f"[INFO] {message}")
        return True

    def _follow(self, session: Any, result: Any, options: CellOptions) -> bool:
        """A streaming SELECT's live table; False if the user interrupted it."""
        try:
            live = LiveTable(result.header, result.types, result_mode(session.conf) != "table",
                             max_table_rows(session.conf), result.time_zone)
            # A terminal's IPython prints every update anew: there, only the end is shown.
            progress = type(self.shell.display_pub) is not DisplayPublisher
            show = display(live.view("Starting", self.display_limit), display_id=True).update if progress \
                else display
            ended = follow(result, live, options, show, self.display_limit, self.refresh, progress=progress)
        except BaseException:
            if not result.stream.ended:  # never leave a query running that nobody reads
                result.cancel()
            raise
        self._store(options.out, live.header, live.values())
        return ended

    def _store(self, name: Optional[str], header: list[str], rows: list[list]) -> None:
        if name:
            import pandas as pd
            self.shell.user_ns[name] = pd.DataFrame(rows, columns=header)


def _failed(done: int, total: int) -> str:
    if total == 0:
        return "the cell's SQL did not run (the error is shown above)."
    if total == 1:
        return "the statement failed (the error is shown above)."
    left = total - done - 1
    return f"statement {done + 1} of {total} failed (the error is shown above)" + \
        (f"; the {left} after it did not run." if left else ".")


def _defines(items: list[str]) -> dict[str, str]:
    from IPython.core.error import UsageError
    conf = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"-D expects key=value, got '{item}'")
        conf[key.strip()] = value.strip()
    return conf


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext sqlengine``: registers ``%sql`` / ``%%sql``."""
    ipython.register_magics(SqlMagic)
