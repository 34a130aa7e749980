"""TableSourceScan: reads a table through its connector (``connectors.base.factory_for``).

Batch: the connector's DataFrame. Streaming: the job opens every source once before its
first epoch (the runtime calls ``lower`` of each source node to build the job's one
streaming query); each epoch then hands the source its rows of the epoch, and a bounded
source that has ended holds the final watermark. A scan read by a processing-time
temporal join as a lookup table is read as it is in each epoch instead.
"""
from __future__ import annotations

from sqlengine.hidden import Lowered
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.source.scan import lookup_scan, scan
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, INSERT_ONLY
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.watermarks import WM_MAX, WM_MIN


@register(P.TableScan)
class TableSourceScan(Operator):
    source = True

    def label(self, node: P.TableScan) -> str:
        return f"Source: {node.table}"

    def explain(self, node: P.TableScan) -> str:
        return f"TableSourceScan(table=[[{node.table.replace('.', ', ')}]], fields=[{', '.join(node.names())}])"

    def changelog(self, node: P.TableScan, inputs: list[frozenset]) -> frozenset:
        """The connector's changelog (Flink: ``[I,UB,UA,D]`` for Debezium, ``[I,UA,D]``
        for an upsert source)."""
        if node.changelog == "all":
            return ALL_KINDS
        if node.changelog == "upsert":
            return frozenset({"I", "UA", "D"})
        return INSERT_ONLY

    def lower(self, ctx: BatchContext, node: P.TableScan) -> Lowered:
        return scan(ctx, node)

    def lower_epoch(self, ctx: EpochContext, node: P.TableScan) -> Lowered:
        """The epoch's rows of this source; an ended bounded source holds the final watermark."""
        if ctx.is_lookup(node):  # the table as it is now, for a lookup join; holds no time back
            ctx.set_watermark(WM_MAX)
            return lookup_scan(ctx, node)
        ctx.set_watermark(WM_MAX if ctx.source_ended(node) else WM_MIN)
        return ctx.source_rows(node)
