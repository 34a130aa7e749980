"""Match: MATCH_RECOGNIZE (Flink's row pattern recognition), hashed on the partition keys.

The pattern runs as Flink's automaton (``automaton.py``) in a matcher vectorized across
partitions (``matcher.py``), fed by Spark in one Python pass per task (``lower.py``).
Batch: every row, then the final watermark. Per epoch: rows wait until the watermark
passes them (late rows are dropped, as Flink drops them), then are fed in time order;
runs, matches waiting for release and each partition's row count are kept as state.
Output: insert-only, one row per match.
"""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.match.lower import batch_match, epoch_match
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import INSERT_ONLY, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.Match)
class Match(Operator):
    stateful = True
    insert_only_inputs = "Match Recognize"

    def materializes(self, node: P.Node) -> bool:
        """Per epoch the rows and the state meet in a persisted frame, and the matches come from it."""
        return True

    def explain(self, node: P.Match) -> str:
        names = node.input.names()
        order = ", ".join(f"{names[k.index]} {'ASC' if k.ascending else 'DESC'}" for k in node.order_keys)
        after = node.after + (f" {node.after_var}" if node.after_var else "")
        define = ", ".join(f"{v}={_expr(e, names)}" for v, e in node.defines)
        navs = ", ".join(f"{_expr(n, names)} AS {name}" for n, name in zip(node.navs, node.nav_names))
        within = f", within=[{node.within_ms}ms]" if node.within_ms is not None else ""
        return (f"Match(partitionBy=[{', '.join(names[k] for k in node.partition_keys)}], orderBy=[{order}], "
                f"measures=[{navs}], rowsPerMatch=[ONE ROW PER MATCH], after=[SKIP {after}], "
                f"pattern=[{' '.join(str(e) for e in node.pattern)}]{within}, define=[{{{define}}}])")

    def reads_watermark(self, node: P.Match) -> bool:
        return True

    def edges(self, node: P.Match, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.partition_keys)]

    def changelog(self, node: P.Node, inputs: list[frozenset]) -> frozenset:
        return INSERT_ONLY

    def lower(self, ctx: BatchContext, node: P.Match, child: Lowered) -> Lowered:
        return batch_match(ctx, node, drop_eoi(child).df)

    def lower_epoch(self, ctx: EpochContext, node: P.Match, child: Lowered) -> Lowered:
        if ctx.idle((child,), on_watermark=True):
            return ctx.nothing(updating=False)
        return epoch_match(ctx, node, drop_eoi(child))


def _expr(e: P.Expr, names: list[str]) -> str:
    return str(e.transform(lambda x: P.ColRef(x.type, x.index, names[x.index]) if isinstance(x, P.ColRef) else None))
