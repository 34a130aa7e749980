"""PostgreSQL for the tests: a server (``postgres_server``) and small helpers."""
from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import Any, Iterator
from urllib.parse import urlparse


@dataclass(frozen=True)
class PG:
    url: str  # libpq URL (tests connect with psycopg)
    jdbc_url: str  # the table option 'url'
    user: str
    password: str

    def run(self, sql: str, params: Any = None) -> list[tuple]:
        import psycopg
        with psycopg.connect(self.url, autocommit=True) as c:
            cur = c.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def ddl(self, name: str, table: str, columns: str, extra: str = "") -> str:
        """A Flink ``CREATE TABLE`` of connector jdbc over PostgreSQL table ``table``."""
        return (f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'jdbc', 'url' = '{self.jdbc_url}', "
                f"'table-name' = '{table}', 'username' = '{self.user}', 'password' = '{self.password}'{extra})")

    def new_table(self, columns: str) -> str:
        name = f"t_{uuid.uuid4().hex[:10]}"
        self.run(f"CREATE TABLE {name} ({columns})")
        return name


def postgres_server() -> Iterator[PG]:
    external = os.environ.get("SQLENGINE_TEST_POSTGRES")
    if external:
        u = urlparse(external)
        yield PG(external, f"jdbc:postgresql://{u.hostname}:{u.port or 5432}{u.path or '/postgres'}",
                 u.username or "postgres", u.password or "")
        return
    from tests.connectors.jdbc.postgres import Postgres
    server = Postgres().start()
    try:
        yield PG(server.url, server.jdbc_url, "postgres", "s3cret-pw")
    finally:
        server.stop()
