"""The ``jdbc`` connector for PostgreSQL (Flink's option names and behaviour).

Source: a bounded scan of ``table-name`` (reader.py), in parallel ranges with
``scan.partition.*``; also the lookup side of a processing-time temporal join
(``FOR SYSTEM_TIME AS OF o.proc_time``), which reads the rows of each epoch's keys when
the epoch runs.

DELETE FROM / UPDATE / TRUNCATE TABLE (batch mode): one PostgreSQL statement (modify.py).

Sink: append (no PRIMARY KEY) or upsert on the PRIMARY KEY (updating queries: inserts and
updates become ``INSERT ... ON CONFLICT DO UPDATE``, deletes ``DELETE``; the ``-U`` half
of an update is dropped, and an epoch's changes are folded to the last per key), written
by writer.py with ``sink.delivery-guarantee`` (exactly-once: two-phase commit tied to the
epoch). The Flink table's column names are the PostgreSQL table's (quoted).
"""
from __future__ import annotations

import itertools
import json
import uuid
from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import (EOI, OP, PHASE_DATA, PHASE_EOI_PLANNED, ConnectorFactory, EndOfInput, Options,
                             ScanContext, ScanResult, Sink, SinkContext, TransactionalSink, fold_upserts,
                             is_deletion, progress_offset, register)
from connectors.abilities import SupportsRowLevelModify, SupportsTruncate
from connectors.formats import json as J
from connectors.formats.common import format_time
from connectors.jdbc import options as JO
from connectors.jdbc.pg import quote_ident
from connectors.jdbc.reader import register as register_source
from sqlengine.errors import ConnectorError
from sqlengine.types import STRING, DataType

_scan_ids = itertools.count(1)


def _connect_json(o: JO.JdbcOptions) -> str:
    return json.dumps(o.connect_kwargs())


# -- reading: PostgreSQL text -> Spark -------------------------------------------------------------
def select_expr(name: str, t: DataType) -> str:
    """The PostgreSQL expression that prints column ``name`` as text Spark casts to ``t``."""
    c = quote_ident(name)
    r = t.root
    if r == "TIMESTAMP":
        return f"to_char(({c})::timestamp, 'YYYY-MM-DD HH24:MI:SS.US')"
    if r == "TIMESTAMP_LTZ":
        return f"to_char(({c})::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') || 'Z'"
    if r == "DATE":
        return f"to_char(({c})::date, 'YYYY-MM-DD')"
    if r == "TIME":
        return f"(extract(epoch from ({c})::time) * 1000)::bigint::text"
    if r in ("BINARY", "VARBINARY"):
        return f"encode({c}, 'hex')"
    if r in ("ARRAY", "MAP", "MULTISET", "ROW"):
        return f"to_json({c})::text"
    return f"({c})::text"


def from_text(col: Column, t: DataType) -> Column:
    r = t.root
    if r in ("BINARY", "VARBINARY"):
        return F.unhex(col)
    if r in ("ARRAY", "MAP", "MULTISET", "ROW"):
        return F.from_json(col, t.to_spark())
    if r == "TIME":
        return col.cast("int")
    return col.cast(t.to_spark())


# -- writing: Spark -> JSON text that json_populate_recordset converts -----------------------------
def _json_columns(columns: list[tuple[str, DataType]]) -> list[tuple[Column, DataType, str]]:
    """Columns to encode: TIME and BYTES as PostgreSQL's text forms (strings)."""
    text = STRING()
    out = []
    for n, t in columns:
        c = F.col(f"`{n}`")
        if t.root == "TIME":
            out.append((format_time(c, with_fraction=True), text, n))
        elif t.root in ("BINARY", "VARBINARY"):
            out.append((F.concat(F.lit("\\x"), F.lower(F.hex(c))), text, n))
        else:
            out.append((c, t, n))
    return out


class JdbcFactory(ConnectorFactory, SupportsRowLevelModify, SupportsTruncate):
    identifier = "jdbc"
    accepts_updates = True  # upsert on the primary key; checked against the DDL at sink()
    lookup_source = True

    def scan(self, ctx: ScanContext) -> ScanResult:
        o = JO.parse(ctx.options, ctx.table_name)
        token = f"{ctx.table_name}#{next(_scan_ids)}-{uuid.uuid4().hex[:8]}"
        opts = self._read_options(o, ctx.columns, token)
        name = register_source(ctx.spark)
        reader = ctx.spark.readStream if ctx.streaming else ctx.spark.read
        raw = reader.format(name).options(**opts).load()
        df = raw.select(*[from_text(F.col(f"f{i}"), t).alias(n) for i, (n, t) in enumerate(ctx.columns)],
                        F.col(EOI))
        explain = f"JdbcSource(table={o.table})"
        if not ctx.streaming:
            return ScanResult(df, explain)
        return ScanResult(df, explain, EndOfInput(token), data_end_check=_EndOfData(token),
                          epoch_info=_epoch_info)

    def _read_options(self, o: JO.JdbcOptions, columns, token: str) -> dict[str, str]:
        out = {"connect_json": _connect_json(o), "url": o.url, "table": o.table, "source_id": token,
               "exprs": json.dumps([select_expr(n, t) for n, t in columns])}
        if o.partition_column:
            out.update({"pcol": o.partition_column, "pnum": str(o.partition_num), "plow": str(o.lower_bound),
                        "phigh": str(o.upper_bound)})
        return out

    def sink(self, ctx: SinkContext) -> Sink:
        o = JO.parse(ctx.options, ctx.table_name)
        if ctx.updating and not ctx.primary_key:
            raise ConnectorError("please declare primary key for sink table when query contains update/delete "
                                 f"record (table {ctx.table_name}).")
        return JdbcSink(ctx, o)

    def validate_sink_options(self, options: dict[str, str]) -> None:
        JO.parse(Options(self.identifier, options), "")

    # -- DELETE / UPDATE / TRUNCATE (batch statements), done by PostgreSQL (modify.py) ------
    def delete_rows(self, options, fields, condition) -> int:
        from connectors.jdbc.modify import delete_rows
        return delete_rows(options, fields, condition)

    def update_rows(self, options, fields, assignments, condition) -> int:
        from connectors.jdbc.modify import update_rows
        return update_rows(options, fields, assignments, condition)

    def truncate(self, options) -> None:
        from connectors.jdbc.modify import truncate
        truncate(options)


class _EndOfData:
    def __init__(self, token: str):
        self.token = token

    def __call__(self, source_progress: dict) -> bool:
        return progress_offset(source_progress, self.token).get("phase", PHASE_DATA) >= PHASE_EOI_PLANNED


def _epoch_info(start: Optional[dict], end: dict) -> tuple[bool, bool]:
    ended = end.get("phase", PHASE_DATA) >= PHASE_EOI_PLANNED
    rows = (start is None or start.get("phase", PHASE_DATA) == PHASE_DATA) and ended
    return rows, ended


class JdbcSink(TransactionalSink):
    def __init__(self, ctx: SinkContext, o: JO.JdbcOptions):
        self.ctx, self.o = ctx, o
        self.keys = list(ctx.primary_key)
        self.explain = f"JdbcSink(table={o.table}, {'upsert' if self.keys else 'append'}, guarantee={o.guarantee})"
        self.exactly_once = o.guarantee == "exactly-once"

    def rows(self, df):
        """``__json`` (the row), ``__del`` (upsert: delete the key), ``__k<i>`` (the key, to
        distribute on; dropped by ``finish``)."""
        cols = [(n, t) for n, t in self.ctx.columns]
        out = []
        if self.keys and OP in df.columns:
            df = fold_upserts(df, [n for n, _ in cols], self.keys)
            out.append(is_deletion(F.col(OP)).alias("__del"))
        elif OP in df.columns:
            df = df.where(F.col(OP).isin("+I", "+U"))
        text = J.encode_with(_json_columns(cols), J.JsonOptions())
        return df.select(text.alias("__json"), *out, *[F.col(f"`{k}`").alias(f"__k{i}")
                                                      for i, k in enumerate(self.keys)])

    def writer(self, options: dict[str, str]):
        from connectors.jdbc.writer import JdbcBatchWriter
        return JdbcBatchWriter(options)

    def writer_options(self, epoch: Optional[int], query_id: str) -> dict[str, str]:
        o = self.o
        return {"connect_json": _connect_json(o), "url": o.url, "table": o.table,
                "cols": json.dumps([n for n, _ in self.ctx.columns]), "pk": json.dumps(self.keys),
                "guarantee": o.guarantee, "sink_id": self._sink_key(), "query_id": query_id,
                "epoch": str(epoch if epoch is not None else 0)}

    def _sink_key(self) -> str:
        """The sink's identity in PostgreSQL (its prepared transactions' ids, its marker rows):
        the job's sink and the table it writes, so two jobs with one statement text writing
        to different tables never resolve each other's transactions."""
        import hashlib
        return hashlib.sha1(f"{self.ctx.sink_id}/{self.o.url}/{self.o.table}".encode()).hexdigest()[:16]

    def recover(self, query_id: str) -> None:
        from connectors.jdbc.writer import recover
        recover(self.writer_options(None, query_id))

    def _keys(self) -> list:
        return [F.col(f"__k{i}") for i in range(len(self.keys))] or [F.col("__json")]

    def distribution(self, rows):
        """A writer task's marker row records its epoch: a replay must give it the same rows."""
        return self._keys()

    def spread(self, rows):
        return rows.repartition(self.o.sink_parallelism, *self._keys()) if self.o.sink_parallelism else rows

    def finish(self, rows):
        return rows.drop(*[f"__k{i}" for i in range(len(self.keys))])


JDBC = register(JdbcFactory())
