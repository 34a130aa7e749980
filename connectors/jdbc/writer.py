"""Writing rows into a PostgreSQL table from Spark tasks.

Input rows: ``__json`` (the row as a JSON object keyed by column name, encoded natively
in Spark by connectors/jdbc/factory.py) and, for an upsert table, ``__del`` (true: delete
the row with this key). Each Arrow batch becomes one statement over
``json_populate_recordset(NULL::<table>, <batch as a JSON array>)``: PostgreSQL converts
the values to the table's column types and there is no per-row Python.

* append (no PRIMARY KEY): ``INSERT INTO t (cols) SELECT cols FROM ...``
* upsert (PRIMARY KEY): ``INSERT ... ON CONFLICT (key) DO UPDATE SET ...`` and
  ``DELETE ... USING ...`` for deletions (Flink's PostgreSQL dialect). An epoch's
  changes arrive folded to one per key, hashed onto tasks by key.

``sink.delivery-guarantee``:

* ``at-least-once`` / ``none``: each task writes its rows of the epoch in one transaction
  and commits it; a task retry or a replayed epoch writes them again.
* ``exactly-once`` (DESIGN.md, "Exactly once"): two-phase commit tied to the epoch.
  Writer task ``i`` of epoch ``e`` writes its rows and the row ``(sink, query, i) -> e``
  of the marker table ``sqlengine_sink_epochs`` in one transaction and prepares it
  (``PREPARE TRANSACTION 'sqlengine:<sink>:<query>:<e>:<i>'``): prepared transactions
  survive a crash of the job and of the server. The driver commits them all
  (``COMMIT PREPARED``) once every task has prepared. A replayed epoch finds its marker
  committed and writes nothing (idempotent: committing an epoch twice is a no-op); a
  transaction a crash left prepared belongs to an epoch the runtime has not recorded,
  which will be replayed: the job's recovery at start rolls it back (``recover``), and a
  task attempt rolls back its own earlier attempt's. A task with no rows writes nothing.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from connectors.jdbc.pg import (MARKERS, PostgresError, connect, describe, error_text, gid, quote_ident,
                                quote_table, sink_gid_prefix)
from sqlengine.faults import reached

log = logging.getLogger("sqlengine.jdbc")


@dataclass
class Prepared(WriterCommitMessage):
    task: int
    rows: int
    gid: Optional[str] = None  # exactly-once: the prepared transaction to commit
    skipped: bool = False  # exactly-once: the epoch had been committed by an earlier run


def marker_table(table: str) -> str:
    """The marker table, in the sink table's schema."""
    parts = table.split(".")
    return quote_table(".".join(parts[:-1] + [MARKERS]))


class Statements:
    def __init__(self, options: dict):
        self.table = quote_table(options["table"])
        self.cols = json.loads(options["cols"])
        self.keys = json.loads(options.get("pk", "[]"))
        names = ", ".join(quote_ident(c) for c in self.cols)
        source = f"json_populate_recordset(NULL::{self.table}, %s::json)"
        self.insert = f"INSERT INTO {self.table} ({names}) SELECT {names} FROM {source}"
        if self.keys:
            keys = ", ".join(quote_ident(k) for k in self.keys)
            rest = [c for c in self.cols if c not in self.keys]
            action = ("DO UPDATE SET " + ", ".join(f"{quote_ident(c)} = EXCLUDED.{quote_ident(c)}" for c in rest)
                      if rest else "DO NOTHING")
            self.insert += f" ON CONFLICT ({keys}) {action}"
            match = " AND ".join(f"d.{quote_ident(k)} = x.{quote_ident(k)}" for k in self.keys)
            self.delete = f"DELETE FROM {self.table} AS d USING {source} AS x WHERE {match}"


def _json_array(texts: pa.Array) -> str:
    """``[t1,t2,...]`` from a string array, joined by Arrow (no Python per row)."""
    lists = pa.ListArray.from_arrays(pa.array([0, len(texts)], pa.int32()), texts.cast(pa.string()))
    return "[" + pc.binary_join(lists, ",")[0].as_py() + "]"


def write_rows(cur, st: Statements, batches: Iterator[pa.RecordBatch]) -> int:
    n = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        names = batch.schema.names
        texts = batch.column(names.index("__json"))
        if "__del" in names:
            dels = batch.column(names.index("__del"))
            gone = texts.filter(dels)
            if len(gone):
                cur.execute(st.delete, (_json_array(gone),))
            texts = texts.filter(pc.invert(dels))
        if len(texts):
            cur.execute(st.insert, (_json_array(texts),))
        n += batch.num_rows
    return n


class JdbcBatchWriter(DataSourceArrowWriter):
    def __init__(self, options: dict):
        self.options = options
        self.guarantee = options.get("guarantee", "at-least-once")

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Prepared:
        task = TaskContext.get().partitionId()
        batches = _non_empty(iterator)
        first = next(batches, None)
        if first is None:
            return Prepared(task, 0)
        rows = _chain(first, batches)
        st = Statements(self.options)
        if self.guarantee == "exactly-once":
            return self._prepare(st, rows, task)
        conn = connect(self.options)
        try:
            with conn.cursor() as cur:
                n = write_rows(cur, st, rows)
            conn.commit()
            return Prepared(task, n)
        except PostgresError:
            raise
        except Exception as e:  # noqa: BLE001 - psycopg errors: one line naming the table
            raise PostgresError(f"Writing to PostgreSQL table {describe(self.options)} failed: {error_text(e)}") from None
        finally:
            conn.close()

    def _prepare(self, st: Statements, rows, task: int) -> Prepared:
        o = self.options
        epoch = int(o["epoch"])
        xid = gid(o["sink_id"], o["query_id"], epoch, task)
        conn = connect(o, autocommit=True)
        try:
            if conn.execute("SELECT 1 FROM pg_prepared_xacts WHERE gid = %s", (xid,)).fetchone():
                finish_prepared(conn, "ROLLBACK", xid)  # an earlier attempt of this task prepared, then failed
            conn.autocommit = False
            conn.tpc_begin(xid)
            with conn.cursor() as cur:
                cur.execute(f"SELECT epoch FROM {marker_table(o['table'])} WHERE sink = %s AND query = %s "
                            f"AND task = %s", (o["sink_id"], o["query_id"], task))
                row = cur.fetchone()
                if row is not None and row[0] >= epoch:
                    conn.tpc_rollback()
                    return Prepared(task, 0, skipped=True)
                n = write_rows(cur, st, rows)
                reached("jdbc-written")
                cur.execute(f"INSERT INTO {marker_table(o['table'])} (sink, query, task, epoch) "
                            f"VALUES (%s, %s, %s, %s) ON CONFLICT (sink, query, task) DO UPDATE SET epoch = "
                            f"EXCLUDED.epoch", (o["sink_id"], o["query_id"], task, epoch))
            conn.tpc_prepare()
            reached("jdbc-prepared")
            return Prepared(task, n, gid=xid)
        except PostgresError:
            raise
        except Exception as e:  # noqa: BLE001
            raise PostgresError(f"Writing to PostgreSQL table {describe(o)} failed: {error_text(e)}") from None
        finally:
            conn.close()

    def commit(self, messages: list[Optional[Prepared]]) -> None:
        """On the driver, once every task has prepared: commit the epoch's transactions."""
        xids = [m.gid for m in messages if m is not None and m.gid]
        if not xids:
            return
        conn = connect(self.options, autocommit=True)
        try:
            for i, xid in enumerate(xids):
                _commit_prepared(conn, xid, self.options)
                if i == 0:
                    reached("jdbc-committing")
            reached("jdbc-committed")
        finally:
            conn.close()

    def abort(self, messages: list[Optional[Prepared]]) -> None:
        xids = [m.gid for m in messages if m is not None and m.gid]
        if not xids:
            return
        try:
            conn = connect(self.options, autocommit=True)
        except PostgresError as e:  # recovery at the next start rolls them back
            log.warning("could not roll back prepared transactions: %s", e)
            return
        try:
            for xid in xids:
                try:
                    finish_prepared(conn, "ROLLBACK", xid)
                except Exception as e:  # noqa: BLE001 - gone already, or the server is down
                    log.warning("could not roll back %s: %s", xid, error_text(e))
        finally:
            conn.close()


def finish_prepared(conn, verb: str, xid: str) -> None:
    """``COMMIT PREPARED`` / ``ROLLBACK PREPARED`` on an autocommit connection."""
    from psycopg import sql
    conn.execute(sql.SQL(verb + " PREPARED {}").format(sql.Literal(xid)))


def _commit_prepared(conn, xid: str, options: dict) -> None:
    try:
        finish_prepared(conn, "COMMIT", xid)
    except Exception as e:  # noqa: BLE001
        import psycopg
        if isinstance(e, psycopg.errors.UndefinedObject):
            # Not prepared (any more): committed by an earlier call, if the marker says so.
            _, sink, query, epoch, task = xid.rsplit(":", 4)
            row = conn.execute(f"SELECT epoch FROM {marker_table(options['table'])} WHERE sink = %s AND "
                               f"query = %s AND task = %s", (options["sink_id"], query, int(task))).fetchone()
            if row is not None and row[0] >= int(epoch):
                return
        raise PostgresError(f"Committing epoch {options.get('epoch')} to PostgreSQL table {describe(options)} "
                            f"failed: {error_text(e)}") from None


def _non_empty(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    return (b for b in batches if b.num_rows)


def _chain(first, rest):
    yield first
    yield from rest


def recover(options: dict) -> None:
    """On the driver at job start (exactly-once): create the marker table, and roll back
    what a killed run left prepared for this sink (its epoch will be replayed)."""
    import psycopg
    conn = connect(options, autocommit=True)
    try:
        try:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {marker_table(options['table'])} (sink text NOT NULL, "
                         f"query text NOT NULL, task int NOT NULL, epoch bigint NOT NULL, "
                         f"PRIMARY KEY (sink, query, task))")
        except psycopg.errors.UniqueViolation:
            pass  # created concurrently by another sink
        left = conn.execute("SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND "
                            "starts_with(gid, %s)", (sink_gid_prefix(options["sink_id"]),)).fetchall()
        from sqlengine.faults import reached
        for (xid,) in left:
            try:
                finish_prepared(conn, "ROLLBACK", xid)
            except psycopg.errors.UndefinedObject:
                pass
            reached("recovering")  # one prepared transaction rolled back, maybe not all
    except PostgresError:
        raise
    except Exception as e:  # noqa: BLE001
        raise PostgresError(f"Recovering the sink into PostgreSQL table {describe(options)} failed: "
                            f"{error_text(e)}") from None
    finally:
        conn.close()
