"""Binding SQL without running it: a Session whose DDL runs and whose queries only bind."""
from __future__ import annotations

from sqlglot import exp

from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import parse_script
from sqlengine.plan import nodes as P
from sqlengine.rules import optimize
from sqlengine.api.session import Session


def session(mode: str = "streaming") -> Session:
    return Session({"execution.runtime-mode": mode})


def run_ddl(s: Session, script: str) -> list[P.Sink]:
    """Runs every statement but INSERTs (and SETs of the runtime mode); binds the INSERTs."""
    sinks = []
    for stmt in parse_script(script):
        node = stmt.node
        if isinstance(node, exp.Insert):
            sinks.append(s.binder(stmt.span.source).bind_insert(node))
        elif isinstance(node, dn.StatementSet):
            sinks += [s.binder(stmt.span.source).bind_insert(i) for i in node.expressions]
        elif isinstance(node, exp.Set) and "runtime-mode" in node.sql():
            continue
        else:
            s.execute_statement(stmt)
    return sinks


def bind(s: Session, sql: str, optimized: bool = True) -> P.Node:
    """The query's plan; the planner's checks of the whole plan run on it too."""
    stmt = parse_script(sql)[0]
    plan = s.binder(stmt.span.source).bind_query(stmt.node)
    s.planner().dag([plan])
    return optimize(plan) if optimized else plan


def nodes(plan: P.Node, cls: type) -> list:
    return [n for n in P.walk(plan) if type(n) is cls]


def rows(s: Session, sql: str) -> list[tuple]:
    return sorted((tuple(r) for r in s.execute_sql(sql).collect()), key=repr)


def updating_node(plan: P.Node, streaming: bool = True):
    """The first node (bottom-up) of ``plan``'s DAG whose changelog is updating (logical), or None."""
    from sqlengine.planner.changelog import updating_node as first
    from sqlengine.planner.physical import plan_dag
    found = first(plan_dag([plan], streaming, 2, 2).roots[0])
    return found.logical if found is not None else None
