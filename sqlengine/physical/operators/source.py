"""Sources: a table scan (any connector) and a VALUES relation."""
from __future__ import annotations

from sqlengine.physical.node import ALL_KINDS, INSERT_ONLY, Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered


@register(P.TableScan)
class TableSourceScan(Operator):
    def label(self, node: P.TableScan) -> str:
        return f"Source: {node.table}"

    def changelog(self, node: P.TableScan, inputs: list[frozenset]) -> frozenset:
        """The connector's changelog (Flink: ``[I,UB,UA,D]`` for Debezium, ``[I,UA,D]``
        for an upsert source)."""
        if node.changelog == "all":
            return ALL_KINDS
        if node.changelog == "upsert":
            return frozenset({"I", "UA", "D"})
        return INSERT_ONLY

    def lower(self, lw, node: P.TableScan) -> Lowered:
        return lw.scan(node)

    def lower_epoch(self, lw, node: P.TableScan) -> Lowered:
        """The epoch's rows of this source; an ended bounded source holds the final watermark."""
        from sqlengine.runtime.streaming.epoch import WM_MAX, WM_MIN
        if node in lw.lookups:  # the table as it is now, for a lookup join; holds no time back
            lw.wm[node] = WM_MAX
            return lw.lookup_scan(node)
        lw.wm[node] = WM_MAX if lw.scan_ended(node) else WM_MIN
        return lw.scan_delta(node)


@register(P.Values)
class Values(Operator):
    def label(self, node: P.Values) -> str:
        return "Values"

    def lower(self, lw, node: P.Values) -> Lowered:
        spark = lw.state.spark
        if not node.fields:
            return Lowered(spark.range(1).select())
        rows = [spark.range(1).select(*[lw.exprs.lower(e).cast(f.type.to_spark()).alias(f"f{i}")
                                        for i, (e, f) in enumerate(zip(r, node.fields))]) for r in node.rows]
        out = rows[0]
        for r in rows[1:]:
            out = out.unionAll(r)
        return Lowered(out)

    def lower_epoch(self, lw, node: P.Values) -> Lowered:
        """A static relation in a streaming job: all its rows in the job's first epoch."""
        from sqlengine.runtime.streaming.epoch import WM_MAX
        lw.wm[node] = WM_MAX
        low = self.lower(lw, node)
        if lw.ep.meta_in.get("started"):
            return Lowered(low.df.limit(0), empty=True)
        return low
