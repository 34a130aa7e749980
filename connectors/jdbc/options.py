"""Flink's ``jdbc`` table options (flink-connector-jdbc), for PostgreSQL.

``url`` is a JDBC URL, ``jdbc:postgresql://host[:port]/database[?params]``; it becomes a
libpq connection string for psycopg (JDBC's ``user``/``password``/``ssl*`` parameters
carry over, ``currentSchema`` becomes the search path). Other databases' URLs are an
error naming the URL. ``password`` is a secret: it never prints (``connectors.base.redact``).

Sink extension: ``sink.delivery-guarantee`` (as the Kafka sink's) = ``at-least-once``
(default, Flink's JDBC behaviour: each writer task commits its rows of an epoch in one
transaction; a replayed epoch writes them again, harmless for an upsert table) or
``exactly-once`` (two-phase commit tied to the epoch, see writer.py). Flink's buffering
options (``sink.buffer-flush.*``) are accepted and have nothing to tune: a task writes
its rows of an epoch one Arrow batch per statement and commits them with the epoch.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import parse_qsl, quote, urlencode

from connectors.base import Options
from sqlengine.config import duration_ms
from sqlengine.errors import ConnectorError

GUARANTEES = ("none", "at-least-once", "exactly-once")
CACHES = ("NONE", "PARTIAL")
# JDBC URL parameters libpq understands under the same name.
_LIBPQ_PARAMS = {"user", "password", "sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword",
                 "connect_timeout", "application_name", "options", "target_session_attrs"}
_JDBC_RENAMES = {"ApplicationName": "application_name", "connectTimeout": "connect_timeout",
                 "targetServerType": "target_session_attrs"}


@dataclass(frozen=True)
class JdbcOptions:
    url: str  # the JDBC URL as written
    conninfo: str  # libpq URL (no password in it)
    username: Optional[str]
    password: Optional[str]
    table: str  # table-name as written (``schema.table`` or ``table``)
    # scan
    partition_column: Optional[str] = None
    partition_num: Optional[int] = None
    lower_bound: Optional[int] = None
    upper_bound: Optional[int] = None
    fetch_size: int = 0
    # lookup
    cache: str = "NONE"
    cache_max_rows: Optional[int] = None
    cache_ttl_ms: Optional[int] = None
    cache_missing: bool = True
    lookup_retries: int = 3
    # sink
    guarantee: str = "at-least-once"
    sink_parallelism: Optional[int] = None
    max_retries: int = 3
    timeout_s: float = 60.0  # connection.max-retry-timeout
    extra: dict = field(default_factory=dict)

    def connect_kwargs(self) -> dict:
        out = {"conninfo": self.conninfo, "connect_timeout": max(1, int(self.timeout_s))}
        if self.username is not None:
            out["user"] = self.username
        if self.password is not None:
            out["password"] = self.password
        return out


def libpq_url(url: str, table: str) -> str:
    if not url.startswith("jdbc:"):
        raise ConnectorError(f"Invalid JDBC URL '{url}' of table {table}: it must start with 'jdbc:'.")
    rest = url[len("jdbc:"):]
    if not rest.startswith("postgresql:"):
        kind = rest.split(":", 1)[0]
        raise ConnectorError(f"Unsupported JDBC URL '{url}' of table {table}: the '{kind}' database is not "
                             f"supported (only PostgreSQL: jdbc:postgresql://host:port/database).")
    body = rest[len("postgresql:"):]
    if not body.startswith("//"):
        # jdbc:postgresql:database (host localhost)
        body = "//localhost/" + body
    base, _, query = body.partition("?")
    params = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k == "currentSchema":
            params["options"] = f"-csearch_path={v}"
        elif k in _JDBC_RENAMES:
            params[_JDBC_RENAMES[k]] = v
        elif k in _LIBPQ_PARAMS:
            params[k] = v
        elif k == "ssl" and v == "true":
            params.setdefault("sslmode", "require")
        # other JDBC driver parameters (prepareThreshold, ...) have no libpq meaning
    out = "postgresql:" + base
    if params:
        out += "?" + urlencode(params, quote_via=quote)
    return out


def parse(options: Options, table: str) -> JdbcOptions:
    url = options.require("url")
    table_name = options.require("table-name")
    driver = options.pop("driver")
    if driver is not None and driver != "org.postgresql.Driver":
        raise ConnectorError(f"Unsupported JDBC driver '{driver}' of table {table}: only org.postgresql.Driver "
                             f"(PostgreSQL) is supported.")
    username = options.pop("username")
    password = options.pop("password")
    if password is not None and username is None:
        raise ConnectorError("Either all or none of the following options should be provided:\n"
                             "username\npassword")
    timeout = duration_ms(options.pop("connection.max-retry-timeout", "60s")) or 60_000
    pcol = options.pop("scan.partition.column")
    pnum = options.pop_int("scan.partition.num")
    low = options.pop_int("scan.partition.lower-bound")
    high = options.pop_int("scan.partition.upper-bound")
    given = [x is not None for x in (pcol, pnum, low, high)]
    if any(given) and not all(given):
        raise ConnectorError("Either all or none of the following options should be provided:\n"
                             "scan.partition.column\nscan.partition.num\nscan.partition.lower-bound\n"
                             "scan.partition.upper-bound")
    if low is not None and high is not None and low > high:
        raise ConnectorError(f"'scan.partition.lower-bound'='{low}' must not be larger than "
                             f"'scan.partition.upper-bound'='{high}'.")
    fetch = options.pop_int("scan.fetch-size", 0)
    options.pop_bool("scan.auto-commit", True)
    cache = (options.pop("lookup.cache") or "NONE").upper()
    if cache not in CACHES:
        raise ConnectorError(f"Invalid value for option 'lookup.cache' of connector 'jdbc': '{cache}'. "
                             f"Valid values: {', '.join(CACHES)}.")
    max_rows = options.pop_int("lookup.partial-cache.max-rows")
    legacy_rows = options.pop_int("lookup.cache.max-rows")
    ttl = options.pop("lookup.partial-cache.expire-after-write") or options.pop("lookup.cache.ttl")
    options.pop("lookup.partial-cache.expire-after-access")
    missing = options.pop_bool("lookup.partial-cache.cache-missing-key", True)
    options.pop_bool("lookup.cache.caching-missing-key", True)
    if legacy_rows is not None and cache == "NONE":
        cache, max_rows = "PARTIAL", legacy_rows
    retries = options.pop_int("lookup.max-retries", 3)
    for k in ("sink.buffer-flush.max-rows", "sink.buffer-flush.interval"):
        options.pop(k)
    sink_retries = options.pop_int("sink.max-retries", 3)
    par = options.pop_int("sink.parallelism")
    guarantee = options.pop_choice("sink.delivery-guarantee", GUARANTEES, "at-least-once")
    options.pop("filter.handling.policy")
    options.finish()
    return JdbcOptions(url=url, conninfo=libpq_url(url, table), username=username, password=password,
                       table=table_name, partition_column=pcol, partition_num=pnum, lower_bound=low,
                       upper_bound=high, fetch_size=fetch or 0, cache=cache, cache_max_rows=max_rows,
                       cache_ttl_ms=duration_ms(ttl) if ttl else None, cache_missing=missing,
                       lookup_retries=retries or 0, guarantee=guarantee, sink_parallelism=par,
                       max_retries=sink_retries or 0, timeout_s=timeout / 1000)
