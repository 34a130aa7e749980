"""Nexmark's queries as upstream wrote them (queries/, queries-cep/: nexmark-flink at commit
6b3646c), turned into the statements one engine runs, and how outputs are compared.

Only the DDL is adapted (``ADAPTED``): the source table, q14's function (a Python UDF,
benchmarks/nexmark/udf.py, for upstream's Java ``CountChar``) and q13's side input (a
modern ``filesystem`` table for upstream's legacy ``connector.type`` one). One query's text
is adapted too (``QUOTED``): Flink 2.3 refuses upstream's q23 as written, and so does
sqlengine, with the same error (``statements(..., upstream=True)``;
tests/nexmark/test_nexmark_queries.py). A query's
result is its INSERT's SELECT, collected as a changelog and materialized (an append-only
query's rows are its changelog's inserts), then compared by row count and a digest of the
sorted canonical rows. Plain Python: the Flink oracle (tests/nexmark/flink_oracle.py)
imports it too.
"""
from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

HERE = Path(__file__).resolve().parent
QUERIES = [f"q{i}" for i in range(24) if i != 6]
CEP = ["cep-q0", "cep-q1", "cep-q2", "cep-q3"]
SCHEMA = """
    event_type int,
    person ROW<
        id  BIGINT, name  VARCHAR, emailAddress  VARCHAR, creditCard  VARCHAR, city  VARCHAR, state  VARCHAR,
        `dateTime` TIMESTAMP(3), extra  VARCHAR>,
    auction ROW<
        id  BIGINT, itemName  VARCHAR, description  VARCHAR, initialBid  BIGINT, reserve  BIGINT,
        `dateTime`  TIMESTAMP(3), expires  TIMESTAMP(3), seller  BIGINT, category  BIGINT, extra  VARCHAR>,
    bid ROW<
        auction  BIGINT, bidder  BIGINT, price  BIGINT, channel  VARCHAR, url  VARCHAR, `dateTime`  TIMESTAMP(3),
        extra  VARCHAR>,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person.`dateTime`
            WHEN event_type = 1 THEN auction.`dateTime`
            ELSE bid.`dateTime`
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND"""


def nexmark_source(events: int, rate: int = 10_000, base_time: int | None = None) -> str:
    """``ddl_gen.sql``'s table on sqlengine's nexmark connector (``base-time``: sqlengine's,
    to make the events' times reproducible)."""
    base = f",\n    'base-time' = '{base_time}'" if base_time is not None else ""
    return (f"CREATE TABLE datagen ({SCHEMA}\n) WITH (\n    'connector' = 'nexmark',\n"
            f"    'first-event.rate' = '{rate}',\n    'next-event.rate' = '{rate}',\n"
            f"    'events.num' = '{events}',\n    'person.proportion' = '1',\n    'auction.proportion' = '3',\n"
            f"    'bid.proportion' = '46'{base}\n)")


def file_source(path: str) -> str:
    """The same table over JSON lines of events (the Flink oracle's source)."""
    return (f"CREATE TABLE datagen ({SCHEMA}\n) WITH (\n    'connector' = 'filesystem',\n    'path' = '{path}',\n"
            f"    'format' = 'json'\n)")


def split(sql: str) -> list[str]:
    """Statements of a script (no ';' inside the queries' literals); comments dropped."""
    text = re.sub(r"--[^\n]*", "", sql)
    return [s.strip() for s in text.split(";") if s.strip()]


def _file(query: str) -> Path:
    if query.startswith("cep-"):
        return HERE / "queries-cep" / f"{query[4:]}.sql"
    return HERE / "queries" / f"{query}.sql"


ADAPTED = {
    # upstream: CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar'
    "CREATE FUNCTION count_char": "CREATE FUNCTION count_char AS 'benchmarks.nexmark.udf.count_char' LANGUAGE PYTHON",
}


# Upstream's q23 names the auction's time ``A.dateTime``; Flink 2.3's parser takes an unquoted
# ``dateTime`` for its DATETIME keyword and fails ("SQL parse failed. Encountered ". dateTime"
# at line 19, column 9"). Every other query, and the DDL, write it quoted: so does this one.
QUOTED = {"q23": [("A.dateTime AS auction_dateTime", "A.`dateTime` AS auction_dateTime")]}


def statements(query: str, source: str, side_input: str | None = None,
               upstream: bool = False) -> tuple[list[str], str]:
    """(the statements before the query: source, views, functions; the query's SELECT);
    ``upstream``: the query's text as upstream wrote it, not quoted as ``QUOTED`` says."""
    views = (HERE / ("queries-cep" if query.startswith("cep-") else "queries") / "ddl_views.sql").read_text()
    before = [source] + split(views.replace("${NEXMARK_TABLE}", "datagen"))
    select = None
    for st in split(_file(query).read_text()):
        head = re.sub(r"\s+", " ", st).upper()
        if head.startswith("INSERT INTO"):
            select = re.sub(r"(?is)^\s*INSERT\s+INTO\s+\S+\s*", "", st)
        elif head.startswith("CREATE FUNCTION COUNT_CHAR"):
            before.append(ADAPTED["CREATE FUNCTION count_char"])
        elif head.startswith("CREATE TABLE SIDE_INPUT"):
            if side_input is None:
                raise ValueError(f"{query} needs its side input file")
            before.append("CREATE TABLE side_input (key BIGINT, `value` VARCHAR) WITH ("
                          f"'connector' = 'filesystem', 'path' = '{side_input}', 'format' = 'csv')")
        elif head.startswith("CREATE TABLE"):
            continue  # the query's sink: its SELECT is collected instead
        else:
            before.append(st)
    if select is None:
        raise ValueError(f"{query} has no INSERT")
    return before, select if upstream else quoted(query, select)


def quoted(query: str, text: str) -> str:
    """The query's text (its INSERT or SELECT) with what ``QUOTED`` quotes quoted."""
    for old, new in QUOTED.get(query, []):
        if old not in text:
            raise ValueError(f"{query}: upstream's text changed, {old!r} is not in it")
        text = text.replace(old, new)
    return text


# -- outputs -----------------------------------------------------------------------------


def canonical(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.") + f"{value.microsecond // 1000:03d}"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def materialize(changes: Iterable[tuple[str, tuple]]) -> Counter:
    """The table a changelog of (row kind, row) ends as."""
    table: Counter = Counter()
    for kind, row in changes:
        key = tuple(canonical(v) for v in row)
        if kind in ("+I", "+U", "INSERT", "UPDATE_AFTER"):
            table[key] += 1
        else:
            table[key] -= 1
            if table[key] <= 0:
                del table[key]
    return table


# Queries whose rows are chosen among ties (equal ORDER BY keys, e.g. two bids of one bidder
# on one auction in the same millisecond: the two generators make events at the same
# times), which Flink and sqlengine may break differently: compared on these columns only.
TIES = {
    "q18": (0, 1, 5),  # ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC): auction, bidder, dateTime
    "q19": (0, 2, 7),  # ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) <= 10: auction, price, rank
}


def digest(table: Counter, query: str = "") -> dict:
    rows = sorted("\t".join(r) for r in table.elements())
    out = {"rows": len(rows), "sha256": hashlib.sha256("\n".join(rows).encode()).hexdigest(), "head": rows[:5]}
    if query in TIES:
        keys = sorted("\t".join(r[i] for i in TIES[query]) for r in table.elements())
        out = {"rows": len(rows), "sha256_of_columns": hashlib.sha256("\n".join(keys).encode()).hexdigest(),
               "columns": list(TIES[query]), "head": keys[:5]}
    return out


def load_expected(path: Path) -> dict:
    return json.loads(path.read_text())
