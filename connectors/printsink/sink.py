"""The ``print`` sink: every change printed as Flink prints it, ``+I[1, Bob]``.

Options (Flink's): ``print-identifier`` (a prefix), ``standard-error`` (print to
stderr), ``sink.parallelism``. Flink's ``PrintSinkOutputWriter`` prefixes each line
with ``<identifier>> `` at parallelism 1, ``<identifier>:<task>> `` above (task =
subtask index + 1), ``<task>> `` without an identifier; here the task is the Spark
partition (modulo the sink parallelism) + 1.

The line is formatted by one Spark expression (``rowstring.py``); each micro-batch's
lines are then streamed to the driver (``toLocalIterator``, a partition at a time)
and written to the driver's stdout/stderr, flushed per batch. Like Flink's, the sink
is at-least-once: a micro-batch replayed after a failure is printed again.
"""
from __future__ import annotations

import sys
from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import OP, ConnectorFactory, Options, Sink, SinkContext
from connectors.printsink.rowstring import row_text
from sqlengine.errors import ConnectorError

PRINT_IDENTIFIER = "print-identifier"
STANDARD_ERROR = "standard-error"
SINK_PARALLELISM = "sink.parallelism"
LINE = "__print_line"
_CHUNK = 1000  # lines per write() call


class PrintSettings:
    """The parsed options of one print table."""

    def __init__(self, options: Options, default_parallelism: int):
        self.identifier: Optional[str] = options.pop(PRINT_IDENTIFIER)
        self.stderr: bool = options.pop_bool(STANDARD_ERROR, False)
        parallelism = options.pop_int(SINK_PARALLELISM, default_parallelism)
        if parallelism is None or parallelism <= 0:
            raise ConnectorError(
                f"Invalid value for option '{SINK_PARALLELISM}': {parallelism} must be positive.")
        self.parallelism: int = parallelism
        options.finish()

    def prefix(self) -> Column:
        """Flink's ``completedPrefix``: identifier, ``:task`` above parallelism 1, ``> ``."""
        ident = self.identifier or ""
        if self.parallelism <= 1:
            return F.lit(f"{ident}> " if ident else "")
        task = (F.pmod(F.spark_partition_id(), F.lit(self.parallelism)) + 1).cast("string")
        return F.concat(F.lit(f"{ident}:" if ident else ""), task, F.lit("> "))


def _column(name: str) -> Column:
    """A top-level column by its exact name (dots and backticks included)."""
    return F.col("`" + name.replace("`", "``") + "`")


class LinePrinter:
    """Writes a DataFrame of one string column to stdout or stderr (on the driver).

    A plain object (not a closure) so ``foreachBatch`` can also pickle it.
    """

    def __init__(self, stderr: bool):
        self.stderr = stderr

    def __call__(self, batch_df: Any, epoch_id: int = 0) -> None:
        stream = sys.stderr if self.stderr else sys.stdout
        chunk: list[str] = []
        for row in batch_df.toLocalIterator():
            chunk.append(row[0])
            if len(chunk) >= _CHUNK:
                stream.write("\n".join(chunk) + "\n")
                chunk = []
        if chunk:
            stream.write("\n".join(chunk) + "\n")
        stream.flush()


class PrintSink(Sink):
    def __init__(self, ctx: SinkContext, settings: PrintSettings):
        self.ctx = ctx
        self.settings = settings
        self.explain = f"Print to {'System.err' if settings.stderr else 'System.out'}"

    def lines(self, df: Any) -> Any:
        """One string column: the printed line of each row."""
        kind = F.col(OP) if self.ctx.updating else F.lit("+I")
        text = row_text([(_column(name), dtype) for name, dtype in self.ctx.columns], kind)
        return df.select(F.concat(self.settings.prefix(), text).alias(LINE))

    def write_batch(self, df: Any) -> None:
        LinePrinter(self.settings.stderr)(self.lines(df))


class PrintFactory(ConnectorFactory):
    identifier = "print"
    accepts_updates = True

    def sink(self, ctx: SinkContext) -> Sink:
        return PrintSink(ctx, PrintSettings(ctx.options, ctx.parallelism))

    def validate_sink_options(self, options: dict[str, str]) -> None:
        PrintSettings(Options(self.identifier, options), 1)
