"""The interactive shell: ``sqlengine`` with no ``-f`` or ``-e``, on a terminal.

The Flink SQL Client's behaviour and messages, with pgcli's comfort:

* input: multi-line; Enter submits once the text ends a statement (a ``;`` outside
  strings and comments, statement sets closed), Alt-Enter submits anyway; history in
  ``~/.sqlengine_history`` (``SQLENGINE_HISTORY``) with Ctrl-R reverse search; Flink SQL
  highlighting; completion from the live catalog (shell/completion.py), computed off
  the UI thread; a bottom toolbar with the current catalog.database, the runtime mode,
  the result mode and the running jobs;
* start-up: the prompt comes at once; Spark starts in the background (a statement typed
  meanwhile waits for it);
* statements: Flink's ``[INFO]`` / ``[ERROR]`` lines; ``INSERT INTO`` runs as a
  background job (its id is printed; ``SHOW JOBS``, ``STOP JOB '<id>' [WITH SAVEPOINT]``);
  a streaming ``SELECT`` shows its result live (shell/live.py) in the result mode of
  ``sql-client.execution.result-mode`` (``table``, ``changelog``, ``tableau``) until it
  ends or Ctrl-C cancels it; ``HELP``, ``QUIT`` / ``EXIT`` / Ctrl-D;
* a job that fails in the background is reported once, before the next prompt; on exit,
  running jobs are stopped at an epoch boundary and their checkpoints printed.
"""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Optional, TextIO

PROMPT = "Flink SQL> "
CONTINUATION = "> "
CLIENT_COMMANDS = ("quit", "exit", "help", "clear", "\\q", "\\h")
DIALECT_READY = threading.Event()
WARMUP_IDLE_S = float(os.environ.get("SQLENGINE_WARMUP_IDLE_S", "2"))  # prompt idle before the warm-up

HELP = """The following commands are available:

CLEAR\t\tClears the current terminal.
CREATE TABLE\t\tCreate table under current catalog and database.
DROP TABLE\t\tDrop table with optional catalog and database. Syntax: "DROP TABLE [IF EXISTS] <name>;"
CREATE VIEW\t\tCreates a virtual table from a SQL query. Syntax: "CREATE VIEW <name> AS <query>;"
DESCRIBE\t\tDescribes the schema of a table with the given name.
DROP VIEW\t\tDeletes a previously created virtual table. Syntax: "DROP VIEW <name>;"
EXPLAIN\t\tDescribes the execution plan of a query or table with the given name.
HELP\t\tPrints the available commands.
INSERT INTO\t\tInserts the results of a SQL SELECT query into a declared table sink (a background job).
QUIT\t\tQuits the SQL CLI client (running jobs stop at an epoch boundary; their checkpoints are printed).
RESET\t\tResets a session configuration property. Syntax: "RESET '<key>';". Use "RESET;" for reset all session properties.
SELECT\t\tExecutes a SQL SELECT query; a streaming result updates on screen until it ends or Ctrl-C.
SET\t\tSets a session configuration property. Syntax: "SET '<key>'='<value>';". Use "SET;" for listing all properties.
SHOW FUNCTIONS\t\tShows all user-defined and built-in functions or only user-defined functions. Syntax: "SHOW [USER] FUNCTIONS;"
SHOW TABLES\t\tShows all registered tables.
SHOW JOBS\t\tShows the jobs of this session.
STOP JOB\t\tStops a job at an epoch boundary. Syntax: "STOP JOB '<job id>' [WITH SAVEPOINT];"
USE CATALOG\t\tSets the current catalog. Syntax: "USE CATALOG <name>;"
USE\t\tSets the current default database. Syntax: "USE <name>;"
EXECUTE STATEMENT SET\t\tRuns several INSERTs as one job. Syntax: "EXECUTE STATEMENT SET BEGIN <inserts> END;"

Result modes: SET 'sql-client.execution.result-mode' = 'table' | 'changelog' | 'tableau';
Keys: Tab completes, Ctrl-R searches the history, Alt-Enter submits without ';', Ctrl-C cancels a running query, Ctrl-D quits.

Hint: Make sure that a statement ends with ";" for finalizing (multi-line) statements."""


def history_path() -> Path:
    return Path(os.environ.get("SQLENGINE_HISTORY") or Path.home() / ".sqlengine_history")


def banner(version: str) -> str:
    return (f"sqlengine {version} — Flink SQL on Apache Spark\n"
            "Type HELP; for the commands, QUIT; or Ctrl-D to leave. A statement ends with ';'.\n")


class SessionHolder:
    """The session, created in the background so that the prompt comes at once."""

    def __init__(self, conf: dict[str, str], session=None):
        self.conf = conf
        self._ready = threading.Event()
        self._session = session
        self._error: Optional[BaseException] = None
        if session is not None:  # a session of the caller's (a test drives the shell with it)
            DIALECT_READY.set()
            self._ready.set()
        else:
            threading.Thread(target=self._start, name="session-start", daemon=True).start()

    def _start(self) -> None:
        try:
            # The SQL splitter first: Enter needs it (``_submits`` waits for it rather than
            # importing it too: a module imported by two threads at once can fail in one).
            import sqlengine.api.script  # noqa: F401
            DIALECT_READY.set()
            from shell.session import start_session
            self._session = start_session(self.conf, [])
        except BaseException as exc:  # noqa: BLE001 - raised by get()
            self._error = exc
        finally:
            DIALECT_READY.set()
            self._ready.set()

    def ready(self):
        """The session if it has started, else None (for the toolbar and completion)."""
        return self._session if self._ready.is_set() else None

    def get(self):
        self._ready.wait()
        if self._error is not None:
            raise self._error
        return self._session


class Shell:
    def __init__(self, conf: dict[str, str], log: Path, out: TextIO = sys.stdout, session=None):
        self.holder = SessionHolder(conf, session)
        self.log = log
        self.out = out
        self._reported: set[str] = set()  # jobs whose failure was printed

    # -- the loop -----------------------------------------------------------------------------
    def run(self, init: list[str]) -> int:
        from sqlengine.api import __version__
        print(banner(__version__), file=self.out, flush=True)
        prompt = self._prompt_session()
        for text in init:
            if not self._run_text(text):
                return 1
        while True:
            self._report_jobs()
            idle = self._arm_warmup()
            try:
                text = prompt.prompt(PROMPT)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            finally:
                if idle is not None:
                    idle.cancel()
            if not self._run_text(text, interactive=True):
                if self._quit:
                    break
            if self._quit:
                break
        self._stop_jobs()
        print("Shutting down the session...\ndone.", file=self.out, flush=True)
        return 0

    _quit = False

    def _arm_warmup(self):
        """Start Spark's Python workers once the prompt has waited ``WARMUP_IDLE_S`` for input
        (sqlengine/runtime/warmup.py); a statement typed sooner runs alone. The timer, or None."""
        from sqlengine.api.control import WARMUP_CONF, warm_workers, workers_warming
        if workers_warming() or str(self.holder.conf.get(WARMUP_CONF, "true")).lower() == "false":
            return None
        timer = threading.Timer(WARMUP_IDLE_S, warm_workers)
        timer.daemon = True
        timer.start()
        return timer

    def _prompt_session(self):
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.history import FileHistory
        path = history_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        prompt = PromptSession(history=FileHistory(str(path)), multiline=True, key_bindings=_bindings(),
                               prompt_continuation=lambda width, line, soft: CONTINUATION.rjust(width),
                               bottom_toolbar=self._toolbar, auto_suggest=AutoSuggestFromHistory(),
                               complete_while_typing=True, enable_history_search=False)
        # Completion and highlighting load after the first prompt is up (the session's
        # completer, lexer and style are read at each redraw).
        threading.Thread(target=self._load_extras, args=(prompt,), name="shell-extras", daemon=True).start()
        return prompt

    def _load_extras(self, prompt) -> None:
        from prompt_toolkit.completion import ThreadedCompleter

        from shell.completion import SqlCompleter
        from shell.highlight import lexer, style
        prompt.completer = ThreadedCompleter(SqlCompleter(self.holder.ready))
        prompt.lexer, prompt.style = lexer(), style()
        app = prompt.app
        if app.is_running:
            app.invalidate()

    def _toolbar(self) -> str:
        session = self.holder.ready()
        if session is None:
            return " starting Spark… (statements wait for it)"
        from sqlengine.api.result import job_status
        cm = session.catalogs
        running = sum(1 for j in session.jobs.values() if job_status(j) == "RUNNING")
        mode = "streaming" if session.streaming else "batch"
        result_mode = session.conf.get("sql-client.execution.result-mode", "table").lower()
        jobs = f"{running} job{'s' if running != 1 else ''} running" if running else "no job running"
        return f" {cm.current_catalog}.{cm.current_database} │ {mode} │ result mode: {result_mode} │ {jobs} │ HELP;"

    # -- statements --------------------------------------------------------------------------
    def _run_text(self, text: str, interactive: bool = False) -> bool:
        """Run every statement of ``text``; False at the first failure (reported)."""
        from sqlengine.api.report import is_verbose, report
        stripped = text.strip().rstrip(";").strip().lower()
        if not stripped:
            return True
        if stripped in CLIENT_COMMANDS:
            return self._client_command(stripped)
        statement = ""
        try:
            session = self.holder.get()
            from sqlengine.api.script import parse_script
            for stmt in parse_script(text):
                statement = stmt.text
                word = statement.strip().rstrip(";").strip().lower()
                if word in CLIENT_COMMANDS:
                    self._client_command(word)
                    if self._quit:
                        return True
                    continue
                self._execute(session, stmt)
        except KeyboardInterrupt:
            print("[INFO] Cancelled.", file=self.out, flush=True)
            return False
        except Exception as exc:  # noqa: BLE001 - every failure is reported the same way
            self.out.flush()
            conf = self.holder.ready().conf if self.holder.ready() is not None else self.holder.conf
            report(exc, self.log, is_verbose(conf), statement, err=self.out)
            return False
        return True

    def _client_command(self, word: str) -> bool:
        if word in ("quit", "exit", "\\q"):
            self._quit = True
        elif word in ("help", "\\h"):
            print(HELP, file=self.out, flush=True)
        elif word == "clear":
            print("\x1b[2J\x1b[H", end="", file=self.out, flush=True)
        return True

    def _execute(self, session, stmt) -> None:
        from shell.live import show_live
        from sqlengine.api.result import max_table_rows, result_mode
        result = self._foreground(session, stmt, lambda: session.execute_statement(stmt, live=True))
        if result.stream is not None:
            try:
                mode, max_rows = result_mode(session.conf), max_table_rows(session.conf)
            except Exception:
                result.cancel()
                raise
            show_live(result, mode, self.out, max_rows)
        elif result.kind == "JOB" and not result.job.done.is_set():
            print("[INFO] Submitting SQL update statement to the cluster...\n"
                  "[INFO] SQL update statement has been successfully submitted to the cluster:\n"
                  f"Job ID: {result.job.job_id}\n", file=self.out, flush=True)
        else:
            result.print(self.out)

    def _foreground(self, session, stmt, run):
        """Run a statement in this thread under a Spark job group, so that Ctrl-C cancels
        its Spark jobs (not the background jobs'), with a progress bar of its tasks."""
        from shell.progress import TaskProgress
        from sqlengine.api.script import runs_query
        sc = None
        spark = session.spark if runs_query(stmt) else None  # a query needs Spark: wait for it to have started
        if spark is not None:  # (none in a remote session: Spark runs in the cluster)
            sc = spark.sparkContext
        if sc is not None:
            sc.setJobGroup("sqlengine-shell", "a statement typed in the shell", interruptOnCancel=True)
        try:
            if sc is None:
                return run()
            with TaskProgress(sc, "sqlengine-shell", self.out):
                return run()
        except KeyboardInterrupt:
            if sc is not None:
                sc.cancelJobGroup("sqlengine-shell")
            raise

    # -- jobs -----------------------------------------------------------------------------------
    def _report_jobs(self) -> None:
        """A background job that failed since the last prompt: one [ERROR] line."""
        session = self.holder.ready()
        if session is None:
            return
        from sqlengine.api.report import is_verbose, report
        for job in list(session.jobs.values()):
            if job.done.is_set() and job.error is not None and job.job_id not in self._reported:
                self._reported.add(job.job_id)
                report(job.error, self.log, is_verbose(session.conf), f"job {job.job_id}", err=self.out)

    def _stop_jobs(self) -> None:
        session = self.holder.ready()
        if session is None:
            return
        for job in list(session.jobs.values()):
            if not job.done.is_set():
                path = job.stop()
                where = f"; to resume, SET 'execution.state-recovery.path' = '{path}';" if path else ""
                print(f"[INFO] Job {job.job_id} stopped{where}", file=self.out, flush=True)


def _bindings():
    from prompt_toolkit.key_binding import KeyBindings
    kb = KeyBindings()

    @kb.add("enter")
    def _enter(event) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)
            return
        if _submits(buf.text):
            buf.validate_and_handle()
        else:
            buf.insert_text("\n")

    @kb.add("escape", "enter")
    def _submit(event) -> None:
        event.current_buffer.validate_and_handle()

    return kb


def _submits(text: str) -> bool:
    """Enter submits a complete statement, a client command, or an empty line."""
    stripped = text.strip()
    if not stripped or stripped.rstrip(";").strip().lower() in CLIENT_COMMANDS:
        return True
    DIALECT_READY.wait()
    from sqlengine.api.script import is_complete
    return is_complete(text)


def run_shell(conf: dict[str, str], init: list[str], log: Path) -> int:
    return Shell(conf, log).run(init)
