"""EXPLAIN text of the operator DAG: the plan tree (with changelog modes) and the
execution plan (tasks = chains of forward edges, exchanges with their key groups)."""
from __future__ import annotations

from sqlengine.physical.node import Dag, PhysicalNode


def changelog_text(kinds: frozenset) -> str:
    return ",".join(k for k in ("I", "UB", "UA", "D") if k in kinds)


def render_tree(dag: Dag, root: PhysicalNode, with_changelog: bool) -> str:
    lines: list[str] = []

    def visit(node: PhysicalNode, depth: int) -> None:
        text = node.explain()
        if with_changelog:
            text += f", changelogMode=[{changelog_text(node.changelog)}]"
        lines.append(("   " * (depth - 1) + "+- " + text) if depth else text)
        for child, _ in node.inputs:
            visit(child, depth + 1)
    visit(root, 0)
    return "\n".join(lines)


def chains(dag: Dag) -> list[list[PhysicalNode]]:
    """Maximal runs of operators joined by forward edges (one task each)."""
    consumers: dict[str, list[tuple[PhysicalNode, object]]] = {}
    for node in dag.nodes:
        for src, edge in node.inputs:
            consumers.setdefault(src.id, []).append((node, edge))

    def chained(node: PhysicalNode) -> bool:
        return (len(node.inputs) == 1 and not node.inputs[0][1].exchange
                and len(consumers.get(node.inputs[0][0].id, [])) == 1)
    out = []
    for head in [n for n in dag.nodes if not chained(n)]:
        chain = [head]
        while True:
            nxt = consumers.get(chain[-1].id, [])
            if len(nxt) == 1 and chained(nxt[0][0]):
                chain.append(nxt[0][0])
            else:
                break
        out.append(chain)
    return out


def render_dag(dag: Dag) -> str:
    tasks = chains(dag)
    index = {op.id: i for i, chain in enumerate(tasks) for op in chain}
    lines = []
    for i, chain in enumerate(tasks):
        for src, edge in chain[0].inputs:
            if edge.exchange:
                groups = dag.max_parallelism if edge.kind == "hash" else 1
                lines.append(f"  Exchange({edge.render()}, keyGroups={groups}) <- task {index[src.id] + 1}")
            else:
                lines.append(f"  Forward <- task {index[src.id] + 1}")
        par = 1 if any(e.kind == "single" for _, e in chain[0].inputs) else dag.parallelism
        lines.append(f"Task {i + 1} (parallelism={par}): " + " -> ".join(op.label for op in chain))
    return "\n".join(lines)


def render_logical(node, depth: int = 0) -> str:
    """The bound (unoptimized) logical plan, one node per line."""
    text = node.explain() if hasattr(node, "explain") else type(node).__name__
    lines = [("   " * (depth - 1) + "+- " + text) if depth else text]
    lines += [render_logical(c, depth + 1) for c in node.children()]
    return "\n".join(lines)
