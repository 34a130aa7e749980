"""WindowJoin: a join of two window TVF outputs on equal windows, hashed on the equi keys
and the window bounds. Batch: one Spark join; per epoch: both sides wait in state until
the watermark closes their window, then the closed windows are joined as a batch (any
join kind), insert-only."""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.functions.varying import above
from sqlengine.hidden import COUNT, Lowered, fcols
from sqlengine.physical.operator import register
from sqlengine.physical.shared.joins import JoinOperator, join_frames, join_key
from sqlengine.physical.shared.windows import close, pend
from sqlengine.plan import nodes as P
from sqlengine.plan.lineage import fired_by
from sqlengine.plan.dag import Edge, hash_edge
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import expand


@register(P.WindowJoin)
class WindowJoin(JoinOperator):
    insert_only_inputs = "StreamPhysicalWindowJoin"
    kind = "WindowJoin"

    def reads_watermark(self, node: P.WindowJoin) -> bool:
        return True

    def edges(self, node: P.WindowJoin, streaming: bool) -> list[Edge]:
        return [hash_edge(node.left, node.left_keys + node.left_window),
                hash_edge(node.right, node.right_keys + node.right_window)]

    def lower_epoch(self, ctx: EpochContext, node: P.WindowJoin, left: Lowered, right: Lowered) -> Lowered:
        if ctx.idle((left, right), on_watermark=True):
            return ctx.nothing(updating=False)
        prev = ctx.previous_input_watermark
        nl, nr = len(node.left.schema), len(node.right.schema)
        lend, rend = f"f{node.left_window[1]}", f"f{node.right_window[1]}"
        lkey, rkey = join_key(node, (node.left_window, node.right_window))
        fl = left.df.select(*fcols(nl)).where(above(F.unix_millis(F.col(lend)), prev))
        fr = right.df.select(*fcols(nr)).where(above(F.unix_millis(F.col(rend)), prev))
        waiting = [pend(ctx, "left", ctx.exchange(fl, lkey), lkey, fired_by(node.left, node.left_window[1])),
                   pend(ctx, "right", ctx.exchange(fr, rkey), rkey, fired_by(node.right, node.right_window[1]))]
        ctx.settle(*(pending for _, pending in waiting))
        cl = close(ctx, waiting[0], lend).withColumn(COUNT, F.lit(1).cast("long"))
        cr = close(ctx, waiting[1], rend).withColumn(COUNT, F.lit(1).cast("long"))
        return Lowered(expand(join_frames(ctx, node, cl, cr, node.kind)).select(*fcols(len(node.schema))))
