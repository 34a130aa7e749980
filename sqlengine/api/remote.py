"""A session on a sqlengine cluster (``execution.target`` = ``remote``), through the SQL
Gateway REST API the cluster serves (``sqlengine/service/gateway.py``) beside Flink's REST
API on its ``rest.port``.

``RemoteSession`` has the local ``Session``'s interface: ``execute_sql`` and
``execute_statement`` return ``TableResult``s printed as a local run prints them. An INSERT
is submitted and returns with its job id; the job is the cluster's and keeps running after
this client has gone (``TableResult.wait()`` waits for it over REST). A SELECT's rows come
back page by page; a streaming SELECT's changes as its epochs end. Statements are parsed
here first, so a syntax error points into the script as a local run's does, and the
statement goes out padded to its line, so the cluster's errors name the script's lines.
"""
from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any, Iterator, Optional

from sqlengine.api.result import TableResult, job_status  # noqa: F401
from sqlengine.dialect.script import Statement, parse_script
from sqlengine.errors import ExecutionError, SqlEngineError

TARGET = "execution.target"
REMOTE_KEYS = (TARGET, "rest.address", "rest.port")
API = "/v4"


def is_remote(conf: Optional[dict[str, str]]) -> bool:
    return str((conf or {}).get(TARGET, "")).strip().lower() == "remote"


def address_of(conf: dict[str, str]) -> tuple[str, int]:
    """The cluster's REST address (``rest.address``, ``rest.port``; Flink's defaults)."""
    host = conf.get("rest.address") or "localhost"
    port = conf.get("rest.port") or "8081"
    if not str(port).isdigit():
        raise ExecutionError(f"Invalid value for 'rest.port': '{port}' is not a port number.")
    return host, int(port)


class RemoteError(SqlEngineError):
    """A failure the cluster reported (its text is what a local run prints)."""

    kind = "remote"

    def __init__(self, message: str, address: str = ""):
        super().__init__(message)
        self._translated = True
        self.trace_in = f"the log of the cluster at {address}" if address else "the cluster's log"


class Connection:
    """One keep-alive HTTP connection to the cluster (reopened when the server closed it)."""

    def __init__(self, host: str, port: int, timeout: float = 60.0):
        self.host, self.port, self.timeout = host, port, timeout
        self._conn: Optional[http.client.HTTPConnection] = None
        self._lock = threading.Lock()

    def request(self, method: str, path: str, body: Optional[dict] = None) -> tuple[int, Any]:
        data = json.dumps(body if body is not None else {}).encode()
        with self._lock:
            for attempt in (0, 1):
                if self._conn is None:
                    self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                try:
                    self._conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
                    resp = self._conn.getresponse()
                    raw = resp.read()
                    break
                except (ConnectionError, http.client.HTTPException, OSError) as exc:
                    self._conn.close()
                    self._conn = None
                    if attempt or isinstance(exc, (ConnectionRefusedError, TimeoutError)):
                        raise ExecutionError(f"Could not reach the sqlengine cluster at {self.host}:{self.port}: "
                                             f"{exc.strerror if isinstance(exc, OSError) and exc.strerror else exc} "
                                             f"(is it running? sqlengine cluster status)") from None
        try:
            return resp.status, json.loads(raw) if raw else {}
        except ValueError:
            raise ExecutionError(f"The server at {self.host}:{self.port} is not a sqlengine cluster "
                                 f"(HTTP {resp.status}).") from None

    def call(self, method: str, path: str, body: Optional[dict] = None) -> dict:
        status, reply = self.request(method, path, body)
        if status >= 400 or (isinstance(reply, dict) and "errors" in reply and len(reply) == 1):
            raise RemoteError(_reason(reply), f"{self.host}:{self.port}")
        return reply

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _reason(reply: Any) -> str:
    """The failure's text from Flink's ``{"errors": [...]}`` (the server side's message)."""
    errors = reply.get("errors") if isinstance(reply, dict) else None
    if not errors:
        return f"The cluster answered: {reply}"
    for e in errors:
        if isinstance(e, str) and e.startswith("<Exception on server side:"):
            return e[len("<Exception on server side:"):].rsplit("End of exception on server side>", 1)[0].strip()
    return "; ".join(str(e) for e in errors)


class RemoteJob:
    """A job on the cluster: its id; ``wait`` and ``cancel`` go through the REST API."""

    def __init__(self, conn: Connection, job_id: str):
        self.conn, self.job_id = conn, job_id
        self.messages: list[str] = []
        self.error = None
        self.done = threading.Event()

    @property
    def status(self) -> str:
        return self.conn.call("GET", f"/v1/jobs/{self.job_id}/status")["status"]

    def wait(self, timeout: Optional[float] = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            status = self.status
            if status in ("FINISHED", "CANCELED"):
                self.done.set()
                return
            if status == "FAILED":
                self.done.set()
                entries = self.conn.call("GET", f"/v1/jobs/{self.job_id}/exceptions").get(
                    "exceptionHistory", {}).get("entries") or []
                raise RemoteError(entries[0]["stacktrace"] if entries else f"Job {self.job_id} failed.")
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"Job {self.job_id} is still running")
            time.sleep(0.1)

    def cancel(self) -> None:
        self.conn.request("PATCH", f"/v1/jobs/{self.job_id}?mode=cancel")

    def stop(self, timeout: Optional[float] = None) -> Optional[str]:
        trigger = self.conn.call("POST", f"/v1/jobs/{self.job_id}/stop", {"drain": False})["request-id"]
        while True:
            reply = self.conn.call("GET", f"/v1/jobs/{self.job_id}/savepoints/{trigger}")
            if reply.get("status", {}).get("id") == "COMPLETED":  # a failure is an error body (raised)
                return (reply.get("operation") or {}).get("location")
            time.sleep(0.1)


class RemoteStream:
    """A streaming SELECT's changes as the cluster's pages bring them."""

    def __init__(self, op: "RemoteOperation", first: list[list], bounded: bool):
        self.op, self._first, self.bounded = op, first, bounded
        self._rows: Optional[list[list]] = None

    def batches(self, timeout: Optional[float] = None) -> Iterator[list[list]]:
        first, self._first = self._first, []
        if first:
            yield first
        while True:
            rows = self.op.next_page()
            if rows is None:
                return
            if rows or timeout is not None:
                yield rows

    def rows(self) -> list[list]:
        if self._rows is None:
            self._rows = [r for batch in self.batches() for r in batch]
        return self._rows

    def wait(self, timeout: Optional[float] = None) -> bool:
        self.rows()
        return True

    def cancel(self) -> None:
        self.op.cancel()


KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}


class RemoteOperation:
    def __init__(self, session: "RemoteSession", handle: str):
        self.session, self.handle = session, handle
        self.token = 0
        self.changelog = False
        self.ended = False

    @property
    def path(self) -> str:
        return f"{API}/sessions/{self.session.handle}/operations/{self.handle}"

    def fetch(self) -> dict:
        """The next page that is not NOT_READY."""
        while True:
            reply = self.session.conn.call("GET", f"{self.path}/result/{self.token}?rowFormat=PLAIN_TEXT")
            if reply.get("resultType") != "NOT_READY":
                return reply

    def rows_of(self, page: dict) -> list[list]:
        data = (page.get("results") or {}).get("data") or []
        if self.changelog:
            return [[KINDS.get(d.get("kind"), "+I"), *d.get("fields", [])] for d in data]
        return [list(d.get("fields", [])) for d in data]

    def advance(self, page: dict) -> None:
        """Past ``page``: to the token of its ``nextResultUri``; without one, at the end."""
        if page.get("resultType") == "EOS" or not page.get("nextResultUri"):
            self.ended = True
        else:
            self.token = int(page["nextResultUri"].split("?", 1)[0].rsplit("/", 1)[1])

    def next_page(self) -> Optional[list[list]]:
        """The next page's rows ([] if none came yet), None at the end."""
        if self.ended:
            return None
        page = self.fetch()
        self.advance(page)
        rows = self.rows_of(page)
        return None if self.ended and not rows else rows

    def cancel(self) -> None:
        if not self.ended:
            self.session.conn.request("POST", f"{self.path}/cancel")
            self.session.conn.request("DELETE", f"{self.path}/close")
            self.ended = True


def _in_place(span, text: str) -> str:
    """``text`` at its line and column of the script (what comes before it blank), with
    the rest of its last line when that is only its ``;`` and a comment: the cluster's
    errors then print the script's line and place."""
    src = span.source
    line_start = src.rfind("\n", 0, span.start) + 1
    end = src.find("\n", span.end)
    rest = src[span.end: end if end >= 0 else len(src)]
    tail = rest.strip()
    keep = rest if tail.startswith(";") and (tail[1:].strip() == "" or tail[1:].strip().startswith("--")) else ""
    return "\n" * src.count("\n", 0, span.start) + " " * (span.start - line_start) + text + keep


class RemoteSession:
    """``Session``'s interface over a gateway session on the cluster at ``rest.address`` /
    ``rest.port``."""

    default_dml_sync = False  # a client submits and detaches (Flink's SQL Client on a cluster)

    def __init__(self, conf: Optional[dict[str, str]] = None):
        conf = dict(conf or {})
        host, port = address_of(conf)
        self.address = f"{host}:{port}"
        self.conn = Connection(host, port)
        props = {k: v for k, v in conf.items() if k not in REMOTE_KEYS}
        self.handle = self.conn.call("POST", f"{API}/sessions", {"sessionName": "sqlengine", "properties": props})[
            "sessionHandle"]
        self.jobs: dict[str, RemoteJob] = {}  # jobs this client waits for (none: they are the cluster's)
        self.catalogs = RemoteCatalogs(self)

    spark = None  # Spark runs in the cluster
    catalogs: "RemoteCatalogs"

    @property
    def conf(self) -> dict[str, str]:
        return self.conn.call("GET", f"{API}/sessions/{self.handle}").get("properties", {})

    @property
    def streaming(self) -> bool:
        return self.conf.get("execution.runtime-mode", "streaming").strip().lower() != "batch"

    def rows(self, sql: str) -> list[list]:
        """The rows of a SHOW statement run on the cluster."""
        return self.execute_sql(sql).rows

    def execute_sql(self, sql: str) -> TableResult:
        result = TableResult("OK")
        for stmt in parse_script(sql):
            result = self.execute_statement(stmt)
        return result

    def execute_statement(self, stmt: Statement, live: bool = False) -> TableResult:
        # The statement at its place in the script: the cluster's errors name the script's lines.
        span = stmt.span
        text = stmt.text
        if span is not None:
            text = _in_place(span, stmt.text)
        handle = self.conn.call("POST", f"{API}/sessions/{self.handle}/statements",
                                {"statement": text, "executionTimeout": 0})["operationHandle"]
        op = RemoteOperation(self, handle)
        page = op.fetch()
        op.advance(page)
        result = self._result(op, page, live)
        result.span = span
        return result

    def _result(self, op: RemoteOperation, page: dict, live: bool) -> TableResult:
        extra = page.get("sqlengine") or {}
        messages = list(extra.get("messages") or [])
        columns = [c["name"] for c in (page.get("results") or {}).get("columns", [])]
        if page.get("jobID") and not page.get("isQueryResult"):
            job = RemoteJob(self.conn, page["jobID"])
            job.messages = messages
            op.cancel = lambda: None  # noqa: E731 - the job is the cluster's; its operation needs no close
            return TableResult("JOB", job=job, messages=messages)
        if not page.get("isQueryResult"):
            rows = op.rows_of(page)
            if extra.get("text") is not None:
                return TableResult("OK", text=extra["text"], messages=messages)
            if page.get("resultKind") == "SUCCESS":
                return TableResult("OK", messages=messages)
            rest = []
            while (more := op.next_page()) is not None:
                rest.extend(more)
            return TableResult("ROWS", columns, rows + rest, show=True, messages=messages)
        op.changelog = bool(extra.get("changelog"))
        first = op.rows_of(page)
        if not op.changelog:
            rest = []
            while (more := op.next_page()) is not None:
                rest.extend(more)
            return TableResult("ROWS", columns, first + rest, messages=messages)
        stream = RemoteStream(op, first, bool(extra.get("bounded")))
        result = TableResult("ROWS", ["op", *columns], changelog=True, stream=stream, messages=messages)
        if stream.bounded and not live:
            result.rows  # noqa: B018 - the whole changelog, as a local run waits for it
        return result

    def close(self) -> None:
        try:
            self.conn.request("DELETE", f"{API}/sessions/{self.handle}")
        except SqlEngineError:
            pass
        self.conn.close()


class RemoteCatalogs:
    """What a client (the shell's prompt and completion) reads of the session's catalogs,
    asked of the cluster with SHOW statements (each answer kept for a second)."""

    TTL = 1.0

    def __init__(self, session: RemoteSession):
        self.session = session
        self._cache: dict[str, tuple[float, list]] = {}

    def _ask(self, sql: str) -> list:
        now = time.monotonic()
        hit = self._cache.get(sql)
        if hit is None or now - hit[0] > self.TTL:
            hit = (now, [r[0] for r in self.session.rows(sql)])
            self._cache[sql] = hit
        return hit[1]

    @property
    def current_catalog(self) -> str:
        return (self._ask("SHOW CURRENT CATALOG") or ["default_catalog"])[0]

    @property
    def current_database(self) -> str:
        return (self._ask("SHOW CURRENT DATABASE") or ["default_database"])[0]

    def list_catalogs(self) -> list[str]:
        return self._ask("SHOW CATALOGS")

    def list_databases(self, catalog: Optional[str] = None) -> list[str]:
        return self._ask("SHOW DATABASES") if catalog in (None, self.current_catalog) else []

    def list_tables(self, catalog: Optional[str] = None, database: Optional[str] = None) -> list[str]:
        return self._ask("SHOW TABLES") if catalog in (None, self.current_catalog) else []

    def list_views(self, catalog: Optional[str] = None, database: Optional[str] = None) -> list[str]:
        return self._ask("SHOW VIEWS") if catalog in (None, self.current_catalog) else []

    def list_user_functions(self) -> list[str]:
        return self._ask("SHOW USER FUNCTIONS")

    def qualify(self, parts: list[str]):
        raise LookupError("table details are not read from a remote session")

    def get_table(self, path):
        raise LookupError("table details are not read from a remote session")
