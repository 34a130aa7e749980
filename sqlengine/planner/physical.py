"""From the optimized logical plan to the operator DAG that runs (and EXPLAIN prints)."""
from __future__ import annotations

from sqlengine.physical.operators import operator_for
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import INSERT_ONLY, Dag, PhysicalNode


def plan_dag(roots: list[P.Node], streaming: bool, parallelism: int, max_parallelism: int) -> Dag:
    """One physical node per distinct logical subtree, numbered in dependency order, with
    its input edges, the changelog it emits (streaming; derived here, once) and the
    tasks that run it.

    The ids (``003-Aggregate``) name the operators' state folders: the same SQL plans
    to the same ids, so a restarted job finds its state.
    """
    dag = Dag([], [], streaming, parallelism, max_parallelism)

    def visit(node: P.Node) -> PhysicalNode:
        found = dag.by_logical.get(node)
        if found is not None:
            return found
        kids = [visit(c) for c in node.children()]
        op = operator_for(node)
        op.validate(node, streaming and (op.source or any(_reads_table(k) for k in kids)))
        edges = op.edges(node, streaming)
        changelog = op.changelog(node, [k.changelog for k in kids]) if streaming else INSERT_ONLY
        pn = PhysicalNode(f"{len(dag.nodes):03d}-{type(node).__name__}", node, op, list(zip(kids, edges)),
                          changelog, _tasks(kids, edges, parallelism))
        dag.nodes.append(pn)
        dag.by_logical[node] = pn
        return pn

    dag.roots = [visit(r) for r in roots]
    return dag


def _reads_table(pn: PhysicalNode) -> bool:
    return pn.op.source or any(_reads_table(c) for c in pn.children)


def _tasks(kids: list[PhysicalNode], edges: list, parallelism: int) -> int:
    """A node's tasks: one behind a ``single`` edge, its inputs' when chained to them by
    forward edges, else the job's parallelism."""
    if not kids:
        return parallelism
    if any(e.kind == "single" for e in edges):
        return 1
    if all(e.kind == "forward" for e in edges):
        return max(k.parallelism for k in kids)
    return parallelism
