"""The one plan path: a statement and the session's configuration to the operator DAG.

``Planner.plan`` binds an INSERT, a statement set or a query (``binder``), optimizes
each root (``rules``), builds one DAG for all of them with every node's edges,
changelog and tasks (``physical.plan_dag``), and checks it (``changelog.check_dag``).
EXPLAIN prints that DAG, and INSERT, statement sets, streaming and batch SELECT and the
Python API run it: the operator ids and task numbers EXPLAIN shows are the ones that run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from sqlglot import exp

from connectors.base import factory_for
from sqlengine.binder.query import QueryBinder
from sqlengine.config import max_parallelism, parallelism, streaming
from sqlengine.dialect import nodes as dn
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Dag
from sqlengine.planner.changelog import check_dag
from sqlengine.planner.physical import plan_dag
from sqlengine.rules import optimize


@dataclass
class Planned:
    bound: list[P.Node]  # the bound roots, before optimization (EXPLAIN's syntax tree)
    dag: Dag


class Planner:
    """Plans statements against a catalog with a configuration (see the module docstring)."""

    def __init__(self, catalogs: Any, conf: Mapping[str, str]):
        self.catalogs = catalogs
        self.conf = conf

    @property
    def streaming(self) -> bool:
        return streaming(self.conf)

    def binder(self, source: str) -> QueryBinder:
        return QueryBinder(self.catalogs, source, self.streaming, conf=dict(self.conf))

    def bind(self, node: exp.Expression, source: str) -> list[P.Node]:
        """The bound roots of an INSERT (a sink), a statement set (its sinks) or a query."""
        if isinstance(node, exp.Insert):
            return [self.bind_insert(node, source)]
        if isinstance(node, dn.StatementSet):
            return [self.bind_insert(i, source) for i in node.expressions]
        return [self.binder(source).bind_query(node)]

    def bind_insert(self, node: exp.Insert, source: str) -> P.Sink:
        sink = self.binder(source).bind_insert(node)
        factory_for(sink.connector or None, sink.table).validate_sink_options(dict(sink.options))
        return sink

    def dag(self, roots: list[P.Node]) -> Dag:
        """The DAG of bound roots: optimized, planned, checked."""
        dag = plan_dag([optimize(r) for r in roots], self.streaming, parallelism(self.conf),
                       max_parallelism(self.conf))
        check_dag(dag)
        return dag

    def plan(self, node: exp.Expression, source: str) -> Planned:
        """The one path from a statement to the DAG that runs (see the module docstring)."""
        bound = self.bind(node, source)
        return Planned(bound, self.dag(bound))
