"""Sink: the root of an INSERT. The job opens the connector's writer (``writer``) and
hands it the lowered input with the sink's column names (``rows``): ``write_batch`` in
batch, ``write_epoch`` per epoch (exactly-once sinks make a replayed epoch a no-op)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from connectors.base import Options, SinkContext, check_metadata, factory_for
from sqlengine.errors import ConnectorError
from sqlengine.hidden import OP, Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.Sink)
class Sink(Operator):
    sink = True

    def label(self, node: P.Sink) -> str:
        return f"Sink: {node.table}"

    def explain(self, node: P.Sink) -> str:
        return f"Sink(table=[{node.table}], fields=[{', '.join(f.name for f in node.fields)}])"

    def lower(self, ctx: BatchContext, node: P.Sink, child: Lowered) -> Lowered:
        return child

    def lower_epoch(self, ctx: EpochContext, node: P.Sink, child: Lowered) -> Lowered:
        """The rows, with the input watermark after the epoch for ``Sink.end_epoch``."""
        return replace(child, wm=ctx.upstream_watermark)

    def reads_watermark(self, node: P.Sink) -> bool:
        """A sink that acts on the watermark (a filesystem sink's partition-time commit)."""
        try:
            factory = factory_for(node.connector or None, node.table)
        except ConnectorError:  # reported when the sink is opened
            return False
        return factory.sink_reads_watermark(dict(node.options), node.partition_keys)

    def writer(self, ctx: BatchContext, node: P.Sink, sink_id: str, updating: bool) -> Any:
        """The connector's writer for this sink (``connectors.base.Sink``)."""
        factory = factory_for(node.connector or None, node.table)
        check_metadata(factory, node.table, [k for _, k in node.metadata], source=False)
        job = ctx.job
        sctx = SinkContext(job.spark, job.streaming, job.parallelism, node.table,
                           [(f.name, f.type) for f in node.fields], Options(node.connector, dict(node.options)),
                           updating, job.functions.local_time_zone, job.job_id, sink_id, job.conf,
                           list(node.metadata), node.primary_key, job.writer_tasks, node.partition_keys)
        return factory.sink(sctx)

    def rows(self, node: P.Sink, low: Lowered, updating: Optional[bool] = None) -> DataFrame:
        """The rows to write, with the sink's column names (and ``__op`` when updating)."""
        cols = [F.col(f"f{i}").alias(f.name) for i, f in enumerate(node.fields)]
        if low.updating:
            cols.append(F.col(OP))
        elif updating:
            cols.append(F.lit("+I").alias(OP))
        return drop_eoi(low).df.select(*cols)
