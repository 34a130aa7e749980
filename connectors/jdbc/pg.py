"""PostgreSQL helpers shared by the jdbc reader and writer: connections, quoting."""
from __future__ import annotations

import json
MARKERS = "sqlengine_sink_epochs"  # exactly-once: the last committed epoch per (sink, query, task)
GID_PREFIX = "sqlengine"


class PostgresError(RuntimeError):
    pass


def connect(options: dict, autocommit: bool = False):
    """A psycopg connection from the serialized options (``connect_json``)."""
    import psycopg
    kw = json.loads(options["connect_json"])
    conninfo = kw.pop("conninfo")
    try:
        return psycopg.connect(conninfo, autocommit=autocommit, **kw)
    except psycopg.OperationalError as e:
        raise PostgresError(f"Could not connect to PostgreSQL at {options.get('url', conninfo)}: "
                            f"{_first_line(e)}") from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_table(name: str) -> str:
    """``table-name`` (``table`` or ``schema.table``, as Flink's PostgreSQL dialect) quoted."""
    return ".".join(quote_ident(p) for p in name.split("."))


def gid(sink_id: str, query_id: str, epoch: int, task: int) -> str:
    return f"{GID_PREFIX}:{sink_id[:16]}:{query_id}:{epoch}:{task}"


def sink_gid_prefix(sink_id: str) -> str:
    """The transactions of one sink (its statement and table, ``JdbcSink._sink_key``) of any
    run: what a killed run left prepared is rolled back by the next run of the sink."""
    return f"{GID_PREFIX}:{sink_id[:16]}:"


def error_text(e: BaseException) -> str:
    return _first_line(e)


def describe(options: dict) -> str:
    return f"{options.get('table', '?')} at {options.get('url', '?')}"
