"""Reading a PostgreSQL table: the ``sqlengine_jdbc`` Python data source.

Each task runs ``COPY (SELECT ...) TO STDOUT (FORMAT csv)`` over its share of the table
(``scan.partition.*``: ranges of a numeric column, as Flink's
``JdbcNumericBetweenParametersProvider``) and hands the CSV to Arrow's parser: every
column arrives as text in a form Spark casts natively (factory.py builds the
expressions), so no Python runs per row.

A jdbc table is bounded. In streaming mode the first micro-batch reads the whole table and
carries the end-of-input row; the next one is empty (the ``__eoi`` protocol of
connectors/base.py), as the Kafka reader does for its last records.

The lookup side (``FOR SYSTEM_TIME AS OF`` a processing-time attribute) is ``lookup``:
per Arrow batch of an epoch's distinct join keys, one query for the rows with those keys,
at the time the epoch runs (Flink's lookup without a cache).
"""
from __future__ import annotations

import io
import json
from typing import Iterator

import pyarrow as pa
import pyarrow.csv as pacsv
from pyspark.sql.datasource import (DataSource, DataSourceReader, DataSourceStreamReader, InputPartition)

from connectors.base import PHASE_DATA, PHASE_DONE, PHASE_EOI_PLANNED
from connectors.jdbc.pg import PostgresError, connect, describe, error_text, quote_ident, quote_table

SOURCE_NAME = "sqlengine_jdbc"


class Slice(InputPartition):
    """One task's rows: ``lo <= column <= hi``, or the whole table (``column`` None)."""

    def __init__(self, column, lo, hi):
        super().__init__(None)
        self.column, self.lo, self.hi = column, lo, hi


class EoiPartition(InputPartition):
    def __init__(self) -> None:
        super().__init__(None)


def slices(options: dict) -> list[Slice]:
    col = options.get("pcol") or None
    if col is None:
        return [Slice(None, None, None)]
    n, lo, hi = int(options["pnum"]), int(options["plow"]), int(options["phigh"])
    count = hi - lo + 1
    n = max(1, min(n, count))
    size, extra = divmod(count, n)
    out, start = [], lo
    for i in range(n):
        end = start + size - 1 + (1 if i < extra else 0)
        out.append(Slice(col, start, end))
        start = end + 1
    return out


def read_slice(options: dict, fields: int, part: Slice) -> Iterator[pa.RecordBatch]:
    exprs = json.loads(options["exprs"])
    where = ""
    params: tuple = ()
    if part.column is not None:
        where = f" WHERE {quote_ident(part.column)} BETWEEN %s AND %s"
        params = (part.lo, part.hi)
    query = f"SELECT {', '.join(exprs)} FROM {quote_table(options['table'])}{where}"
    names = [f"f{i}" for i in range(fields)]
    buf = io.BytesIO()
    conn = connect(options, autocommit=True)
    try:
        with conn.cursor() as cur:
            with cur.copy(f"COPY ({query}) TO STDOUT (FORMAT csv)", params) as copy:
                for chunk in copy:
                    buf.write(chunk)
    except PostgresError:
        raise
    except Exception as e:  # noqa: BLE001 - psycopg errors: one line naming the table
        raise PostgresError(f"Reading PostgreSQL table {describe(options)} failed: {error_text(e)}") from None
    finally:
        conn.close()
    if buf.tell() == 0:
        return
    buf.seek(0)
    table = pacsv.read_csv(
        buf, read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
        convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                             strings_can_be_null=True, quoted_strings_can_be_null=False,
                                             null_values=[""]))
    for batch in table.to_batches(max_chunksize=10_000):
        flags = pa.repeat(False, batch.num_rows)
        yield pa.RecordBatch.from_arrays(list(batch.columns) + [flags], names=names + ["__eoi"])


def eoi_batch(fields: int) -> pa.RecordBatch:
    arrays = [pa.nulls(1, pa.string()) for _ in range(fields)] + [pa.array([True])]
    return pa.RecordBatch.from_arrays(arrays, names=[f"f{i}" for i in range(fields)] + ["__eoi"])


class JdbcBatchReader(DataSourceReader):
    def __init__(self, options: dict, fields: int):
        self.options, self.fields = options, fields

    def partitions(self) -> list[InputPartition]:
        return slices(self.options)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return read_slice(self.options, self.fields, partition)


class JdbcStreamReader(DataSourceStreamReader):
    """The whole table in the first micro-batch, with the end-of-input row."""

    def __init__(self, options: dict, fields: int):
        self.options, self.fields = options, fields
        self.token = options.get("source_id", "")

    def initialOffset(self) -> dict:
        return {"src": self.token, "phase": PHASE_DATA}

    def latestOffset(self, start: dict, limit) -> dict:
        nxt = PHASE_EOI_PLANNED if start.get("phase", PHASE_DATA) == PHASE_DATA else PHASE_DONE
        return {"src": self.token, "phase": nxt}

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        if start.get("phase", PHASE_DATA) != PHASE_DATA or end.get("phase") != PHASE_EOI_PLANNED:
            return []
        return [*slices(self.options), EoiPartition()]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if isinstance(partition, EoiPartition):
            yield eoi_batch(self.fields)
            return
        yield from read_slice(self.options, self.fields, partition)

    def commit(self, end: dict) -> None:
        pass


class JdbcDataSource(DataSource):
    """``spark.read[Stream].format("sqlengine_jdbc")``; options set by connectors/jdbc/factory.py."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def _fields(self) -> int:
        return len(json.loads(self.options.get("exprs", "[]")))

    def schema(self) -> str:
        cols = [f"f{i} string" for i in range(self._fields())]
        return ", ".join(cols + ["__eoi boolean"])

    def reader(self, schema) -> DataSourceReader:
        return JdbcBatchReader(dict(self.options), self._fields())

    def streamReader(self, schema) -> DataSourceStreamReader:
        return JdbcStreamReader(dict(self.options), self._fields())


def register(spark) -> str:
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(JdbcDataSource)
    return SOURCE_NAME
