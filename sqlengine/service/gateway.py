"""Flink's SQL Gateway REST API (``rest_v1``…``v4_sql_gateway.yml``) over a cluster's sessions.

A gateway session is a sqlengine ``Session`` of its own (configuration, catalogs) on the
cluster's one SparkSession, sharing the cluster's job registry: an INSERT submitted
through any session is a job of the cluster (the REST API and every session's ``SHOW
JOBS`` list it) and outlives the session and its client. A statement is an operation
that runs in a thread; its result is fetched page by page (``result/:token``, the next
page's ``nextResultUri``): ``NOT_READY`` while the statement runs, then ``PAYLOAD``
pages, then ``EOS``. A streaming SELECT's changes come page by page as its epochs
produce them, with their row kinds; a page waits up to ``PAGE_WAIT`` seconds for rows
before it goes out empty (Flink's client asks again at once). A streaming SELECT is a
job of the cluster too (Flink's ``collect`` job). Cancelling or closing a query's
operation (Ctrl-C in the SQL Client) stops what it runs: a streaming SELECT's job, a
batch query's Spark jobs (a Spark job group per operation); an INSERT's job is the
cluster's and runs on. Flink's SQL Client closes no operation that ended, so a session
drops the operations its client is done with when the next statement comes.

Bodies are what Flink 2.3's serializers write (``FetchResultsResponseBodySerializer``,
``LogicalTypeJsonSerializer``), not the ymls where these differ; rows are ``PLAIN_TEXT``
(every field a string, as the SQL Client asks) or ``JSON``. Versions V1–V4 are served,
unversioned paths being V4, as Flink's gateway does; ``configure-session`` and
``complete-statement`` from V2. Our own client (``sqlengine.api.remote``) reads one more
key, ``sqlengine``, that Flink's clients ignore: the text a statement prints locally.
"""
from __future__ import annotations

import datetime as dt
import decimal
import logging
import threading
import time
import uuid
from typing import Any, Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sqlengine.api.control import duration_ms
from sqlengine.api.report import describe
from sqlengine.api.secrets import MASK, is_secret_key, mask_conf, mask_sql
from sqlengine.api.result import TableResult
from sqlengine.api.session import Session
from sqlengine.api.script import parse_script, runs_query
from sqlengine.version import __version__

log = logging.getLogger("sqlengine.service")

VERSIONS = ("V1", "V2", "V3", "V4")
PAGE_WAIT = 0.5  # seconds a page of a running query waits for rows before it goes out empty
IDLE_TIMEOUT = "sql-gateway.session.idle-timeout"
KINDS = {"+I": "INSERT", "-U": "UPDATE_BEFORE", "+U": "UPDATE_AFTER", "-D": "DELETE"}
OK_TEXT = "[INFO] Execute statement succeeded."
STRING = {"type": "VARCHAR", "nullable": True, "length": 2147483647}
# sqlengine's type roots that Flink's ``LogicalTypeRoot`` names otherwise
ROOTS = {"INT": "INTEGER", "TIMESTAMP": "TIMESTAMP_WITHOUT_TIME_ZONE",
         "TIMESTAMP_LTZ": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "TIME": "TIME_WITHOUT_TIME_ZONE"}


def _json(body: object, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"Access-Control-Allow-Origin": "*"})


def _errors(status: int, *messages: str) -> JSONResponse:
    return _json({"errors": list(messages)}, status)


def server_side(message: str) -> JSONResponse:
    """A failed statement as Flink's gateway reports it (the SQL Client prints the list)."""
    return _errors(500, "Internal server error.",
                   f"<Exception on server side:\n{mask_sql(message)}\nEnd of exception on server side>")


def logical_type(t: Any) -> dict:
    """A type as Flink's ``LogicalTypeJsonSerializer`` writes it: the ``type`` is a
    ``LogicalTypeRoot`` name (Flink's client rejects any other), plus the root's attributes."""
    if t is None:
        return dict(STRING)
    root = ROOTS.get(t.root, t.root)
    out: dict = {"type": root, "nullable": bool(t.nullable)}
    if root in ("VARCHAR", "VARBINARY"):
        out["length"] = t.precision if t.precision is not None else 2147483647
    elif root in ("CHAR", "BINARY"):
        out["length"] = t.precision if t.precision is not None else 1
    elif root == "DECIMAL":
        out["precision"], out["scale"] = t.precision, t.scale or 0
    elif root.startswith(("TIME", "TIMESTAMP")):
        out["precision"] = t.precision if t.precision is not None else (0 if root.startswith("TIME_") else 6)
    elif root == "INTERVAL_DAY_TIME":  # ours are INTERVAL DAY TO SECOND(3)
        out.update(precision=2, fractionalPrecision=3, resolution="DAY_TO_SECOND")
    elif root == "INTERVAL_YEAR_MONTH":
        out.update(precision=2, resolution="YEAR_TO_MONTH")
    elif root in ("ARRAY", "MULTISET"):
        out["elementType"] = logical_type(t.element)
    elif root == "MAP":
        out["keyType"], out["valueType"] = logical_type(t.key), logical_type(t.value)
    elif root == "ROW":
        out["fields"] = [{"name": f.name, "fieldType": logical_type(f.type)} for f in t.fields]
    return out


def _json_value(v: Any) -> Any:
    """A value in the ``JSON`` row format (flink-json's converters: ISO times, numbers)."""
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (bytes, bytearray)):
        import base64
        return base64.b64encode(bytes(v)).decode()
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, tuple) and hasattr(v, "asDict"):
        return {k: _json_value(x) for k, x in v.asDict().items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return v


class Operation:
    """One statement running in its own thread, then its result, page by page."""

    def __init__(self, session: "GatewaySession", statement: str):
        self.handle = str(uuid.uuid4())
        self.session = session
        self.statement = statement
        self.status = "RUNNING"
        self.result: Optional[TableResult] = None
        self.error: Optional[str] = None
        self.done = threading.Event()
        self.lock = threading.Lock()  # one page at a time
        self.handoff = threading.Lock()  # its result arrives / it is cancelled: one sees the other
        self.token = 0  # the next page's token
        self.last: Optional[dict] = None  # the last page sent (a retry of its token gets it again)
        self.pages = None  # the result's batches (a running streaming SELECT's come as its epochs end)
        self.ended = False  # EOS went out
        self.failed = False  # its error went out
        self.grouped = False  # its Spark jobs are the job group named by its handle
        self.cancelled = False
        threading.Thread(target=self._run, name=f"gateway-op-{self.handle[:8]}", daemon=True).start()

    def _run(self) -> None:
        try:
            statements = parse_script(self.statement)
            if len(statements) != 1:
                from sqlengine.errors import ValidationError
                raise ValidationError("Only one statement is supported at a time; got "
                                      f"{len(statements)}." if statements else "No statement to execute.")
            if _query(statements[0]):  # its Spark jobs, a group of their own, end when it is cancelled
                self.session.session.spark.sparkContext.setJobGroup(self.handle, self.statement[:200])
                self.grouped = True
            result = self.session.session.execute_statement(statements[0], live=True)
            self._register(result)
            self.session.record(self.statement, result)
            with self.handoff:
                self.result = result
                cancelled = self.cancelled
            if cancelled and result.stream is not None:
                result.stream.cancel()
            self.status = "FINISHED" if self.status == "RUNNING" else self.status
        except Exception as exc:  # noqa: BLE001 - the operation's failure, fetched by its client
            if self.cancelled:  # its Spark jobs were cancelled: no failure to log
                log.info("gateway operation %s cancelled while it ran", self.handle)
                self.error = f"The operation {self.handle} was cancelled."
            else:
                self.error = describe(exc, self.statement)
                self.status = "ERROR"
        finally:
            self.done.set()

    def _register(self, r: TableResult) -> None:
        """A streaming SELECT is a job of the cluster, as Flink's ``collect`` job is: the
        REST API lists it while it runs, and it is CANCELED when its client cancels it
        (Ctrl-C) or closes its session; its id is the result's ``jobID``."""
        job = r.stream.job if r.stream is not None else None
        if job is None:
            return
        self.session.session.jobs[job.job_id] = job

    def cancel(self) -> None:
        """Flink's cancel: a running query's Spark jobs, or a streaming SELECT's job, stop now
        (an INSERT's job is the cluster's: it is cancelled as a job, over REST)."""
        with self.handoff:
            self.status, self.cancelled = "CANCELED", True
            result = self.result
        if result is None and self.grouped and not self.done.is_set():
            self.session.session.spark.sparkContext.cancelJobGroup(self.handle)
        elif result is not None and result.stream is not None:
            result.stream.cancel()

    def close(self) -> None:
        """Closed by its client (or with its session): what still runs of it is cancelled."""
        if not self.done.is_set() or (self.result is not None and self.result.stream is not None):
            self.cancel()
        self.status = "CLOSED"

    # -- results -----------------------------------------------------------------------
    def fetch(self, token: int, row_format: str, prefix: str) -> dict | JSONResponse:
        """Page ``token`` (the next, or the last again for a retry)."""
        if not self.done.wait(PAGE_WAIT):
            return {"resultType": "NOT_READY", "nextResultUri": self._uri(prefix, token, row_format)}
        if self.error is not None:
            self.failed = True
            return server_side(self.error)
        with self.lock:
            if token == self.token - 1 and self.last is not None:
                return self.last
            if token != self.token:
                return _errors(400, f"Expecting token {self.token} but the client asked for token {token}.")
            page = self._page(token, row_format, prefix)
            if isinstance(page, JSONResponse):
                return page
            self.last, self.token = page, self.token + 1
            return page

    @property
    def spent(self) -> bool:
        """Its client has had all it will ask for. Flink's SQL Client closes only the
        operations it cancels: it reads a query to its EOS, a statement to its first page
        (its job id, its OK), and leaves the operation open; the session drops spent ones."""
        if not self.done.is_set():
            return False
        query = self.result is not None and self.result.kind == "ROWS" and not self.result.show
        return self.failed or self.ended or (self.token > 0 and not query)

    def _uri(self, prefix: str, token: int, row_format: str) -> str:
        query = f"?rowFormat={row_format}" if prefix != "/v1" else ""
        return f"{prefix}/sessions/{self.session.handle}/operations/{self.handle}/result/{token}{query}"

    def _page(self, token: int, row_format: str, prefix: str) -> dict | JSONResponse:
        r = self.result
        assert r is not None
        job = r.job if r.job is not None else (r.stream.job if r.stream is not None else None)
        job_id = job.job_id if job is not None else None
        query = r.kind == "ROWS" and not r.show
        columns, types = self._columns(r)
        head = {"isQueryResult": query, "resultKind": "SUCCESS" if r.kind == "OK" and r.text in (None, OK_TEXT)
                else "SUCCESS_WITH_CONTENT"}
        if job_id is not None:
            head["jobID"] = job_id
        if self.ended:
            return {"resultType": "EOS", **head, "results": {"columns": columns, "rowFormat": row_format, "data": []}}
        rows = self._rows(r)
        if isinstance(rows, JSONResponse):
            return rows
        if rows is None:  # the end
            self.ended = True
            return self._page(token, row_format, prefix)
        data = [self._row(row, r, types, row_format) for row in rows]
        page = {"resultType": "PAYLOAD", **head, "results": {"columns": columns, "rowFormat": row_format,
                                                             "data": data},
                "nextResultUri": self._uri(prefix, token + 1, row_format)}
        if token == 0:
            page["sqlengine"] = {"text": mask_sql(r.render()) if r.kind != "ROWS" else None,
                                 "messages": [mask_sql(m) for m in r.messages],
                                 "show": r.show, "changelog": r.changelog,
                                 "bounded": r.stream.bounded if r.stream is not None else True}
        return page

    def _columns(self, r: TableResult) -> tuple[list[dict], list]:
        if r.kind == "JOB":
            return [{"name": "job id", "logicalType": dict(STRING), "comment": None}], [None]
        if r.kind == "OK":
            return [{"name": "result", "logicalType": dict(STRING), "comment": None}], [None]
        header, types = list(r.header), list(r.types or [None] * len(r.header))
        if r.changelog:  # the op column is the rows' kind
            header, types = header[1:], types[1:]
        return [{"name": n, "logicalType": logical_type(t), "comment": None} for n, t in zip(header, types)], types

    def _rows(self, r: TableResult) -> Optional[list] | JSONResponse:
        """The next rows (``[]``: none yet), None at the end."""
        if r.kind in ("OK", "JOB"):
            if self.pages is None:
                self.pages = True
                if r.kind == "JOB":
                    return [[r.job.job_id]]
                return [["OK" if r.text in (None, OK_TEXT) else r.text]]
            return None
        if self.pages is None:
            self.pages = iter(r.batches(PAGE_WAIT)) if r.stream is not None else iter([r.rows])
        try:
            return next(self.pages)
        except StopIteration:
            return None
        except Exception as exc:  # noqa: BLE001 - the query failed while running
            self.error = describe(exc, self.statement)
            self.status = "ERROR"
            self.failed = True
            return server_side(self.error)

    @staticmethod
    def _row(row: list, r: TableResult, types: list, row_format: str) -> dict:
        kind = "INSERT"
        if r.changelog:
            kind, row = KINDS.get(row[0], "INSERT"), row[1:]
        if row_format == "JSON":
            fields = [_json_value(v) for v in row]
        elif r.show or r.kind != "ROWS":  # statements' own text (SET's keys, SHOW CREATE): secrets masked
            fields = [None if v is None else mask_sql(str(v)) for v in row]
            if len(fields) == 2 and r.header == ["key", "value"] and fields[0] and is_secret_key(fields[0]):
                fields[1] = MASK
        else:
            fields = r.cells(row, types)
        return {"kind": kind, "fields": fields}


class GatewaySession:
    def __init__(self, session: Session, name: str, properties: dict[str, str],
                 on_job: Optional[Callable[[dict, Any], None]] = None):
        self.handle = str(uuid.uuid4())
        self.session = session
        self.name = name
        self.properties = properties
        self.operations: dict[str, Operation] = {}
        self.last_access = time.monotonic()
        # The statements that shaped the session (DDL, SET, USE, ...), in order: with the
        # configuration they recreate it, and a job submitted in it (``on_job``).
        self.history: list[str] = []
        self.on_job = on_job

    def record(self, statement: str, result: TableResult) -> None:
        """A statement that succeeded: an INSERT's job goes to ``on_job`` with what recreates
        it (the session's configuration, its history and the statement: a JobManager taking
        over resumes it from that); a statement without rows joins the history."""
        job = result.job if result.stream is None else None
        if job is not None and self.on_job is not None and not job.done.is_set():
            self.on_job({"job_id": job.job_id, "name": job.name, "conf": dict(self.session.conf),
                         "history": list(self.history), "statement": statement,
                         "checkpoint": job.checkpoint_root, "submitted_ms": int(job.start_time * 1000)}, job)
        elif job is None and result.kind == "OK":
            self.history.append(statement)

    def add(self, op: Operation) -> None:
        """A new statement's operation; the spent ones before it go (else a session keeps
        every result it ever had until it closes)."""
        for handle, old in list(self.operations.items()):
            if old.spent:
                self.operations.pop(handle, None)
        self.operations[op.handle] = op

    def close(self) -> None:
        """Its running queries end; its INSERT jobs are the cluster's and keep running."""
        for op in list(self.operations.values()):
            op.close()
        self.operations.clear()


class Gateway:
    """The SQL Gateway's sessions over the cluster's session ``root`` (its SparkSession and
    its jobs; every gateway session starts from its configuration)."""

    def __init__(self, root: Session, on_job: Optional[Callable[[dict, Any], None]] = None):
        self.root = root
        self.sessions: dict[str, GatewaySession] = {}
        self.lock = threading.Lock()
        self.on_job = on_job  # each job submitted, with what recreates it (``GatewaySession.record``)

    def idle_timeout(self) -> float:
        raw = self.root.conf.get(IDLE_TIMEOUT, "10 min")
        ms = duration_ms(raw)
        return ms / 1000 if ms and ms > 0 else float("inf")

    def _expire(self) -> None:
        limit = time.monotonic() - self.idle_timeout()
        for h, s in list(self.sessions.items()):
            if s.last_access < limit:
                log.info("gateway session %s expired", h)
                self.sessions.pop(h, None)
                s.close()

    def open(self, name: str, properties: dict[str, str]) -> GatewaySession:
        conf = {k: v for k, v in self.root.conf.items()}
        conf.update({k: v for k, v in properties.items() if not k.startswith("$internal.")})
        conf.pop("execution.target", None)  # the session runs here
        session = Session(conf, spark=self.root.spark)
        session.jobs = self.root.jobs  # the cluster's jobs
        gs = GatewaySession(session, name, {k: str(v) for k, v in properties.items()}, self.on_job)
        with self.lock:
            self._expire()
            self.sessions[gs.handle] = gs
        return gs

    # -- routes ---------------------------------------------------------------------------
    def _session(self, request: Request) -> GatewaySession | JSONResponse:
        handle = request.path_params["session"]
        s = self.sessions.get(handle)
        if s is None:
            return _errors(404, f"Session '{handle}' does not exist.")
        s.last_access = time.monotonic()
        return s

    def _operation(self, request: Request) -> Operation | JSONResponse:
        s = self._session(request)
        if isinstance(s, JSONResponse):
            return s
        handle = request.path_params["operation"]
        op = s.operations.get(handle)
        if op is None:
            return _errors(404, f"Can not find the submitted operation in the OperationManager with the {handle}.")
        return op

    async def api_versions(self, request: Request) -> Response:
        return _json({"versions": list(VERSIONS)})

    async def info(self, request: Request) -> Response:
        return _json({"productName": "Apache Flink", "version": "2.3.0", "sqlengine": __version__})

    async def open_session(self, request: Request) -> Response:
        body = await _body(request)
        if body is None:
            return _errors(400, "Bad request received. Request body must be a JSON object.")
        props = body.get("properties") or {}
        if not isinstance(props, dict):
            return _errors(400, "Bad request received. 'properties' must be a map of strings.")
        gs = await run_in_threadpool(self.open, str(body.get("sessionName") or "default"),
                                     {str(k): str(v) for k, v in props.items()})
        return _json({"sessionHandle": gs.handle})

    async def get_session(self, request: Request) -> Response:
        s = self._session(request)
        if isinstance(s, JSONResponse):
            return s
        return _json({"properties": {k: str(v) for k, v in mask_conf(s.session.conf).items()}})

    async def close_session(self, request: Request) -> Response:
        s = self._session(request)
        if isinstance(s, JSONResponse):
            return s
        self.sessions.pop(s.handle, None)
        s.close()
        return _json({"status": "CLOSED"})

    async def heartbeat(self, request: Request) -> Response:
        s = self._session(request)
        return s if isinstance(s, JSONResponse) else _json({})

    async def _statement(self, request: Request) -> tuple[GatewaySession, dict] | JSONResponse:
        """The session and the request's body, which names a ``statement``."""
        s = self._session(request)
        if isinstance(s, JSONResponse):
            return s
        body = await _body(request)
        if not body or not isinstance(body.get("statement"), str):
            return _errors(400, "Bad request received. Field 'statement' is required.")
        return s, body

    async def configure_session(self, request: Request) -> Response:
        found = await self._statement(request)
        if isinstance(found, JSONResponse):
            return found
        s, body = found
        op = Operation(s, body["statement"])
        await run_in_threadpool(op.done.wait)
        if op.error is not None:
            return server_side(op.error)
        return _json({})

    async def execute_statement(self, request: Request) -> Response:
        found = await self._statement(request)
        if isinstance(found, JSONResponse):
            return found
        s, body = found
        config = body.get("executionConfig") or {}
        if isinstance(config, dict) and config:
            s.session.conf.update({str(k): str(v) for k, v in config.items()})
        op = Operation(s, body["statement"])
        s.add(op)
        return _json({"operationHandle": op.handle})

    async def fetch_results(self, request: Request) -> Response:
        op = self._operation(request)
        if isinstance(op, JSONResponse):
            return op
        raw = request.path_params["token"]
        if not raw.isdigit():
            return _errors(400, f"Bad request, could not parse parameters: Cannot resolve path parameter "
                                f"(token) from value \"{raw}\".")
        prefix = _prefix(request)
        row_format = request.query_params.get("rowFormat")
        if prefix == "/v1":
            row_format = "JSON"
        elif row_format is None:
            return _errors(400, "Bad request, could not parse parameters: Missing query parameter: rowFormat")
        row_format = row_format.upper()
        if row_format not in ("JSON", "PLAIN_TEXT"):
            return _errors(400, f"Bad request, could not parse parameters: Cannot resolve query parameter "
                                f"(rowFormat) from value \"{row_format}\".")
        page = await run_in_threadpool(op.fetch, int(raw), row_format, prefix)
        return page if isinstance(page, Response) else _json(page)

    async def operation_status(self, request: Request) -> Response:
        op = self._operation(request)
        return op if isinstance(op, JSONResponse) else _json({"status": op.status})

    async def cancel_operation(self, request: Request) -> Response:
        op = self._operation(request)
        if isinstance(op, JSONResponse):
            return op
        await run_in_threadpool(op.cancel)
        return _json({"status": "CANCELED"})

    async def close_operation(self, request: Request) -> Response:
        op = self._operation(request)
        if isinstance(op, JSONResponse):
            return op
        await run_in_threadpool(op.close)
        op.session.operations.pop(op.handle, None)
        return _json({"status": "CLOSED"})

    async def complete_statement(self, request: Request) -> Response:
        s = self._session(request)
        if isinstance(s, JSONResponse):
            return s
        body = await _body(request) or {}
        text, pos = str(body.get("statement") or ""), body.get("position")
        pos = pos if isinstance(pos, int) and 0 <= pos <= len(text) else len(text)
        return _json({"candidates": completions(s.session, text[:pos])})

    def routes(self) -> list[Route]:
        v1 = [("/api_versions", self.api_versions, ["GET"]), ("/info", self.info, ["GET"]),
              ("/sessions", self.open_session, ["POST"]),
              ("/sessions/{session}", self.get_session, ["GET"]),
              ("/sessions/{session}", self.close_session, ["DELETE"]),
              ("/sessions/{session}/heartbeat", self.heartbeat, ["POST"]),
              ("/sessions/{session}/statements", self.execute_statement, ["POST"]),
              ("/sessions/{session}/operations/{operation}/result/{token}", self.fetch_results, ["GET"]),
              ("/sessions/{session}/operations/{operation}/status", self.operation_status, ["GET"]),
              ("/sessions/{session}/operations/{operation}/cancel", self.cancel_operation, ["POST"]),
              ("/sessions/{session}/operations/{operation}/close", self.close_operation, ["DELETE"])]
        v2 = [("/sessions/{session}/configure-session", self.configure_session, ["POST"]),
              ("/sessions/{session}/complete-statement", self.complete_statement, ["GET"])]
        routes = [Route(f"/{v.lower()}{path}", fn, methods=m) for v in VERSIONS for path, fn, m in v1]
        routes += [Route(f"/{v.lower()}{path}", fn, methods=m) for v in VERSIONS[1:] for path, fn, m in v2]
        routes += [Route(path, fn, methods=m) for path, fn, m in v1 + v2]  # unversioned: V4
        return routes


def _query(stmt) -> bool:
    """A query runs its Spark jobs for its operation only; an INSERT's or a statement set's
    are a job of the cluster, which outlives its operation (as a job in Flink's gateway)."""
    return runs_query(stmt) and stmt.node.key not in ("insert", "statementset")


def _prefix(request: Request) -> str:
    first = request.url.path.strip("/").split("/", 1)[0]
    return f"/{first}" if first.upper() in VERSIONS else "/v4"


async def _body(request: Request) -> Optional[dict]:
    from sqlengine.service.rest import _body as body
    return await body(request)


def completions(session: Session, text: str) -> list[str]:
    """Candidates for the word before the cursor: keywords, functions, tables."""
    import re
    word = re.search(r"[\w.]*$", text).group(0)
    if not word:
        return []
    from sqlengine.api.completion import builtin_functions, keywords
    names = set(keywords()) | set(builtin_functions())
    try:
        names |= set(session.catalogs.list_tables())
    except Exception:  # noqa: BLE001 - completion never fails a request
        pass
    up = word.upper()
    return sorted(n for n in names if n.upper().startswith(up))
