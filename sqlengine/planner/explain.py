"""EXPLAIN: the bound plan, then the operator DAG the job would run (the very DAG the
runtime lowers: ``Planner.plan``), as a tree and as tasks with their exchanges."""
from __future__ import annotations

from sqlengine.physical.operators import operator_for
from sqlengine.plan.dag import Dag, PhysicalNode, changelog_text
from sqlengine.planner import Planned
from sqlengine.planner.calcite_plan import render_calcite


def explain(planned: Planned, details: list[str]) -> str:
    dag = planned.dag
    parts = ["== Abstract Syntax Tree =="]
    parts += [render_calcite(p) for p in planned.bound]
    parts += ["", "== Optimized Physical Plan =="]
    parts += [render_tree(r, "CHANGELOG_MODE" in details) for r in dag.roots]
    parts += ["", "== Optimized Execution Plan =="]
    parts += [render_dag(dag)]
    return "\n".join(parts) + "\n"


def render_tree(root: PhysicalNode, with_changelog: bool) -> str:
    lines: list[str] = []

    def visit(node: PhysicalNode, depth: int) -> None:
        text = node.explain()
        if with_changelog:
            text += f", changelogMode=[{changelog_text(node.changelog)}]"
        lines.append(("   " * (depth - 1) + "+- " + text) if depth else text)
        for child in node.children:
            visit(child, depth + 1)
    visit(root, 0)
    return "\n".join(lines)


def render_dag(dag: Dag) -> str:
    """The tasks (chains of forward edges) with the parallel instances that run each, and
    the exchanges between them (a streaming hash exchange routes key groups to the
    tasks that own their range)."""
    tasks = dag.tasks()
    index = {op.id: t.number for t in tasks for op in t.operators}
    lines = []
    for t in tasks:
        for src, edge in t.head.inputs:
            if edge.exchange:
                groups = f", keyGroups={dag.max_parallelism}" if edge.kind == "hash" and dag.streaming else ""
                lines.append(f"  Exchange({edge.render()}{groups}) <- task {index[src.id]}")
            else:
                lines.append(f"  Forward <- task {index[src.id]}")
        lines.append(f"Task {t.number} (parallelism={t.parallelism}): " + " -> ".join(op.label for op in t.operators))
    return "\n".join(lines)
