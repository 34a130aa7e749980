"""The ``datagen`` connector: Flink's random/sequence data generator, lowered to native Spark.

Batch mode reads ``spark.range(n)``; streaming reads Spark's ``rate-micro-batch``
source, whose ``value`` column numbers the rows 0, 1, 2, ... with exactly
``rowsPerBatch`` rows per micro-batch. Every field is a Spark expression of that
row id (see ``draw.py``), so the hot path never leaves the JVM and a replayed
micro-batch (same offsets) yields the same rows: exactly-once downstream holds.

Boundedness (Flink's rule): ``number-of-rows`` and every sequence field bound the
source; the smallest bound wins. The epoch runtime reads the end from Spark's
offsets log (``RateEpochInfo``): the epoch that reads the last data row is the last,
so its watermark is the final one. The ``__eoi`` row (see ``connectors/base.py``),
placed at the first row id of the micro-batch after the last data row, tells the
same to a job that counts end-of-input rows instead.

``rows-per-second`` (throttling): the rate source produces one batch of
``rowsPerBatch`` rows per trigger, whatever the wall clock. ``rowsPerBatch`` is
``rows-per-second`` capped by admission control (``sqlengine.source.max-rows-per-epoch``,
``sqlengine/config.py``: giant batches only cost
memory and latency), and ``DataGenScanResult.trigger_interval_ms`` is the trigger
interval that yields ``rows-per-second`` rows per second, which the runtime uses
as the query's trigger (``sqlengine/runtime/job.py``, ``trigger_interval``); at
rates of 20 batches per second and more the batches simply run back to back.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import EOI, ConnectorFactory, ScanContext, ScanResult
from connectors.datagen.draw import Draw, salt_of
from connectors.datagen.fields import Field
from connectors.datagen.options import KIND, FieldOptions, key
from connectors.datagen.randomgen import random_column
from connectors.datagen.sequence import sequence_column
from sqlengine.errors import ConnectorError
from sqlengine.config import DEFAULT_MAX_ROWS_PER_EPOCH, checkpoint_interval_ms, max_rows_per_epoch

ROWS_PER_SECOND = "rows-per-second"
NUMBER_OF_ROWS = "number-of-rows"
SCAN_PARALLELISM = "scan.parallelism"
ROWS_PER_SECOND_DEFAULT = 10000
# Largest micro-batch the rate source is asked for by default; see the module docstring.
MAX_ROWS_PER_BATCH = DEFAULT_MAX_ROWS_PER_EPOCH
ROW_ID = "__datagen_row_id"


@dataclass
class DataGenScanResult(ScanResult):
    """A ScanResult plus the pacing hints of the rate source (streaming only)."""

    rows_per_batch: Optional[int] = None
    # Trigger interval at which rows_per_batch rows per trigger make rows-per-second.
    trigger_interval_ms: Optional[int] = None


@dataclass(frozen=True)
class EndAfterOffset:
    """``end_check``: true once a completed micro-batch started after row ``eoi_id``.

    Called with one entry of ``StreamingQueryProgress.sources``; the rate source's
    offsets are JSON like ``{"offset": 20, "timestamp": 2000}`` where ``offset`` is
    the number of rows produced so far (batch ``[startOffset, endOffset)``).
    """

    eoi_id: int
    # This scan's rate source announces ``startTimestamp=<tag>`` in its description, so a
    # progress entry of another rate source of the same query is not mistaken for it.
    tag: int

    def __call__(self, source_progress: dict) -> bool:
        return is_source(source_progress, self.tag) and \
            rate_offset(source_progress.get("startOffset")) > self.eoi_id


@dataclass(frozen=True)
class RateEpochInfo:
    """``epoch_info``: the epoch's rows are ids ``[start, end)``; data rows are those below
    ``rows``; the source has ended with the epoch that reads its last data row (that
    epoch is the job's last: its end is the final watermark, no extra epoch)."""

    rows: Optional[int]

    def __call__(self, start: Optional[dict], end: dict) -> tuple[bool, bool]:
        lo = max(0, rate_offset(start)) if start is not None else 0
        hi = rate_offset(end)
        data = hi > lo and (self.rows is None or lo < self.rows)
        return data, self.rows is not None and hi >= self.rows


@dataclass(frozen=True)
class DataEndedAt:
    """``data_end_check``: true once a completed micro-batch read up to row ``rows``."""

    rows: int
    tag: int

    def __call__(self, source_progress: dict) -> bool:
        return is_source(source_progress, self.tag) and rate_offset(source_progress.get("endOffset")) >= self.rows


def is_source(source_progress: dict, tag: int) -> bool:
    """Whether a progress entry is this scan's rate source (see ``EndAfterOffset.tag``)."""
    description = source_progress.get("description") or ""
    return "startTimestamp=" not in description or f"startTimestamp={tag}," in description


def rate_offset(raw: Any) -> int:
    """The row count in a rate-micro-batch offset (JSON text or dict); -1 when absent."""
    if isinstance(raw, str):
        raw = json.loads(raw) if raw.strip() not in ("", "null") else None
    if isinstance(raw, dict) and "offset" in raw:
        return int(raw["offset"])
    return -1


def source_tag(table_name: str) -> int:
    """A per-table ``startTimestamp`` for the rate source (its timestamp column is unused)."""
    return salt_of("rate-source", table_name) % 10 ** 12


@dataclass(frozen=True)
class GenPlan:
    """What the options and schema ask for, before choosing batch or streaming."""

    columns: list[tuple[str, Column]]
    rows: Optional[int]  # None: unbounded
    rows_per_second: int
    parallelism: int
    summary: str


class DataGenFactory(ConnectorFactory):
    identifier = "datagen"

    def scan(self, ctx: ScanContext) -> ScanResult:
        plan = plan_scan(ctx)
        return _scan_stream(ctx, plan) if ctx.streaming else _scan_batch(ctx, plan)


def plan_scan(ctx: ScanContext) -> GenPlan:
    """Validate the options (all of them, Flink's messages) and build every field."""
    opts = ctx.options
    rps = _positive(opts.pop_int(ROWS_PER_SECOND, ROWS_PER_SECOND_DEFAULT), ROWS_PER_SECOND)
    rows = opts.pop_int(NUMBER_OF_ROWS)
    if rows is not None and rows < 0:
        raise ConnectorError(f"Invalid value for option '{NUMBER_OF_ROWS}': {rows} is negative.")
    parallelism = _positive(opts.pop_int(SCAN_PARALLELISM, ctx.parallelism), SCAN_PARALLELISM)
    _check_field_names(ctx)
    columns, bounds, kinds = [], [], []
    for name, dtype in ctx.columns:
        kind = opts.pop_choice(key(name, KIND), ("random", "sequence"), "random")
        row_id = F.col(ROW_ID)
        field = Field(dtype, FieldOptions(opts, name), Draw(ctx.table_name, name, (row_id,)),
                      row_id, ctx.local_time_zone)
        if kind == "sequence":
            column, count = sequence_column(field)
            bounds.append(count)
        else:
            column = random_column(field)
        columns.append((name, column.cast(dtype.to_spark())))
        kinds.append(f"{name}:{kind}")
    opts.finish()
    limits = bounds + ([rows] if rows is not None else [])
    total = min(limits) if limits else None
    summary = f"fields=[{', '.join(kinds)}], rows={'unbounded' if total is None else total}"
    return GenPlan(columns, total, rps, parallelism, summary)


def _positive(value: int, option: str) -> int:
    if value <= 0:
        raise ConnectorError(f"Invalid value for option '{option}': {value} must be positive.")
    return value


def _check_field_names(ctx: ScanContext) -> None:
    names = [name for name, _ in ctx.columns]
    for option in ctx.options.remaining():
        if not option.startswith("fields.") or any(option.startswith(f"fields.{n}.") for n in names):
            continue
        field = option[len("fields."):].rsplit(".", 1)[0]
        if field in names:
            continue  # e.g. 'fields.a' without an option name: left for finish()
        raise ConnectorError(
            f"Unknown field '{field}' in option '{option}' of datagen table '{ctx.table_name}'. "
            f"The table's physical columns are: {', '.join(names)}.")


def _project(ids, plan: GenPlan, is_data: Optional[Column]):
    if is_data is None:
        cols = [c.alias(n) for n, c in plan.columns] + [F.lit(False).alias(EOI)]
    else:
        cols = [F.when(is_data, c).alias(n) for n, c in plan.columns] + [(~is_data).alias(EOI)]
    return ids.select(*cols)


def _scan_batch(ctx: ScanContext, plan: GenPlan) -> ScanResult:
    if plan.rows is None:
        raise ConnectorError(
            f"Querying an unbounded table '{ctx.table_name}' in batch mode is not allowed. "
            f"The table source is unbounded: set 'number-of-rows' or use a sequence field.")
    ids = ctx.spark.range(0, plan.rows, 1, plan.parallelism).select(F.col("id").alias(ROW_ID))
    explain = (f"DataGenTableSource(table=[{ctx.table_name}], {plan.summary}, "
               f"spark=range(0, {plan.rows}, numPartitions={plan.parallelism}))")
    return ScanResult(_project(ids, plan, None), explain)


def _scan_stream(ctx: ScanContext, plan: GenPlan) -> DataGenScanResult:
    cap = max_rows_per_epoch(ctx.conf)
    # A second's rows per micro-batch, or the checkpoint interval's when epochs are rarer.
    per_second = max(1.0, checkpoint_interval_ms(ctx.conf) / 1000)
    wanted = int(plan.rows_per_second * per_second)
    per_batch = min(wanted, cap) if cap else wanted
    tag = source_tag(ctx.table_name)
    stream = (ctx.spark.readStream.format("rate-micro-batch")
              .option("rowsPerBatch", per_batch)
              .option("numPartitions", plan.parallelism)
              .option("startTimestamp", tag)
              .load())
    ids = stream.select(F.col("value").alias(ROW_ID))
    end_check, data_end, is_data, eoi_id = None, None, None, None
    if plan.rows is not None:
        eoi_id = -(-plan.rows // per_batch) * per_batch  # first id of the batch after the data
        row_id = F.col(ROW_ID)
        ids = ids.where((row_id < F.lit(plan.rows)) | (row_id == F.lit(eoi_id)))
        is_data = row_id < F.lit(plan.rows)
        end_check = EndAfterOffset(eoi_id, tag)
        data_end = DataEndedAt(plan.rows, tag)
    interval: Optional[int] = max(1, round(1000 * per_batch / plan.rows_per_second))
    if plan.rows is not None and plan.rows <= per_batch:
        interval = None  # one micro-batch holds every row: Flink too emits them within a second
    pacing = f", triggerIntervalMs={interval}" if interval else ""
    explain = (f"DataGenTableSource(table=[{ctx.table_name}], {plan.summary}, "
               f"rows-per-second={plan.rows_per_second}, spark=rate-micro-batch(rowsPerBatch={per_batch}, "
               f"numPartitions={plan.parallelism}){pacing})")
    return DataGenScanResult(_project(ids, plan, is_data), explain, end_check, data_end_check=data_end,
                             epoch_info=RateEpochInfo(plan.rows),
                             rows_per_batch=per_batch, trigger_interval_ms=interval)
