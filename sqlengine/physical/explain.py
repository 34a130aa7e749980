"""EXPLAIN: the AST, the optimized plan and the execution plan (operator DAG)."""
from __future__ import annotations

from sqlglot import exp

from sqlengine.dialect import nodes as dn
from sqlengine.physical.dag import build_dag, render_dag, render_plan


def explain(session, node: dn.FlinkExplain, stmt) -> str:
    inner = node.this
    source = stmt.span.source
    if isinstance(inner, exp.Insert):
        plans = [session.plan_insert(inner, source)]
    elif isinstance(inner, dn.StatementSet):
        plans = [session.plan_insert(i, source) for i in inner.expressions]
    else:
        plans = [session.binder(source).bind_query(inner)]
    from sqlengine.rules import optimize
    optimized = [optimize(p) for p in plans]
    details = [d.name for d in node.args.get("details") or []]
    from sqlengine.config import max_parallelism, parallelism
    maxp = max_parallelism(session.conf)
    par = parallelism(session.conf)
    parts = ["== Abstract Syntax Tree =="]
    parts += [render_plan(p, session.streaming, False) for p in plans]
    parts += ["", "== Optimized Physical Plan =="]
    parts += [render_plan(p, session.streaming, "CHANGELOG_MODE" in details) for p in optimized]
    dag = build_dag(optimized, session.streaming, par, maxp)
    parts += ["", "== Optimized Execution Plan =="]
    parts += [render_dag(dag)]
    return "\n".join(parts) + "\n"
