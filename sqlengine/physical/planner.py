"""From the optimized logical plan to the operator DAG that runs (and EXPLAIN prints)."""
from __future__ import annotations

from sqlengine.physical.node import Dag, PhysicalNode, operator_for
from sqlengine.plan import nodes as P


def plan_dag(roots: list[P.Node], streaming: bool, parallelism: int, max_parallelism: int) -> Dag:
    """One physical node per distinct logical subtree, numbered in dependency order.

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
        op.validate(node, streaming and any(isinstance(n, P.TableScan) for n in P.walk(node)))
        edges = op.edges(node, streaming)
        changelog = op.changelog(node, [k.changelog for k in kids]) if streaming else frozenset({"I"})
        pn = PhysicalNode(f"{len(dag.nodes):03d}-{type(node).__name__}", node, op, list(zip(kids, edges)),
                          changelog)
        dag.nodes.append(pn)
        dag.by_logical[node] = pn
        return pn

    dag.roots = [visit(r) for r in roots]
    return dag
