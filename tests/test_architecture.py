"""The architecture, checked: the layers and contracts of ``.importlinter`` (clients use
only the public API, operators are closed units, the runtime never names an operator),
and no import cycle anywhere, counting the imports inside functions."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sqlengine", "shell", "connectors", "catalog")


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--config", str(ROOT / ".importlinter"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout and "ignore_imports" not in (ROOT / ".importlinter").read_text()


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    import grimp
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    modules = {m for m in graph.modules if m.split(".")[0] in PACKAGES}
    edges = {m: {d for d in graph.find_modules_directly_imported_by(m) if d in modules} for m in modules}
    # A package's __init__ importing its own modules is not a cycle of the design, but a
    # module importing its package's __init__ back would be: both are edges here.
    assert len(modules) > 150
    assert strongly_connected(edges) == []


def test_the_cycle_check_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_logical_node_has_an_operator():
    from sqlengine.physical.operators import OPERATORS
    from sqlengine.plan import nodes as P
    relational = [c for c in vars(P).values() if isinstance(c, type) and issubclass(c, P.Node)
                  and c not in (P.Node, P.Unary)]
    assert sorted(c.__name__ for c in relational if c not in OPERATORS) == []
