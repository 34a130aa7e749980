"""EXPLAIN: the bound plan, then the operator DAG the job would run (the same object
the runtime lowers, ``physical/planner.plan_dag``), as a tree and as tasks."""
from __future__ import annotations

from sqlglot import exp

from sqlengine.dialect import nodes as dn
from sqlengine.physical.planner import plan_dag
from sqlengine.physical.render import render_dag, render_logical, render_tree


def explain(session, node: dn.FlinkExplain, stmt) -> str:
    inner = node.this
    source = stmt.span.source
    if isinstance(inner, exp.Insert):
        plans = [session.plan_insert(inner, source)]
    elif isinstance(inner, dn.StatementSet):
        plans = [session.plan_insert(i, source) for i in inner.expressions]
    else:
        plans = [session.binder(source).bind_query(inner)]
    from sqlengine.config import max_parallelism, parallelism
    from sqlengine.rules import optimize
    optimized = [optimize(p) for p in plans]
    details = [d.name for d in node.args.get("details") or []]
    dag = plan_dag(optimized, session.streaming, parallelism(session.conf), max_parallelism(session.conf))
    parts = ["== Abstract Syntax Tree =="]
    parts += [render_logical(p) for p in plans]
    parts += ["", "== Optimized Physical Plan =="]
    parts += [render_tree(dag, r, "CHANGELOG_MODE" in details) for r in dag.roots]
    parts += ["", "== Optimized Execution Plan =="]
    parts += [render_dag(dag)]
    return "\n".join(parts) + "\n"
