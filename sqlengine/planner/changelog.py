"""Changelog checks on the planned DAG (the changelog of every node is derived once, by
``physical.plan_dag``, from the operators' contracts): an operator that takes only
insert-only inputs, and a sink that takes no updates, fail at planning with Flink's
messages."""
from __future__ import annotations

from typing import Optional

from connectors.base import factory_for
from sqlengine.errors import UnsupportedError, ValidationError
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import INSERT_ONLY, Dag, PhysicalNode


def updating_node(node: PhysicalNode) -> Optional[PhysicalNode]:
    """The first node (bottom-up) that turns an insert-only stream into an updating one."""
    for child in node.children:
        found = updating_node(child)
        if found is not None:
            return found
    return node if node.changelog != INSERT_ONLY else None


def check_dag(dag: Dag) -> None:
    """Every check that needs the whole optimized plan (see the module docstring)."""
    if not dag.streaming:
        return
    for n in dag.nodes:
        _check_inputs(dag, n)
        _check_ranking(n)
        _check_retraction(dag, n)
    for root in dag.roots:
        if isinstance(root.logical, P.Sink):
            _check_sink(root)


def _check_inputs(dag: Dag, n: PhysicalNode) -> None:
    label = n.op.insert_only_inputs
    if label is None:
        return
    for child in n.op.checked_inputs(n.logical):
        found = updating_node(dag.node(child))
        if found is not None:
            changes = " and ".join(k for k, on in (("update", bool({"UB", "UA"} & found.changelog)),
                                                   ("delete", "D" in found.changelog)) if on)
            raise ValidationError(f"{label} doesn't support consuming {changes} changes "
                                  f"which is produced by node {found.explain()}")


def _changes(found: PhysicalNode) -> str:
    return " and ".join(k for k, on in (("update", bool({"UB", "UA"} & found.changelog)),
                                        ("delete", "D" in found.changelog)) if on)


def _check_retraction(dag: Dag, n: PhysicalNode) -> None:
    """A Python aggregate function without ``retract`` over an updating input. Flink 2.3
    plans it and fails the job at the first retraction (``RuntimeError: Method retract is
    not implemented``); here it fails at planning, with that text."""
    from sqlengine.functions.python_udaf import folds, retracts
    if not isinstance(n.logical, P.Aggregate):
        return
    found = updating_node(dag.node(n.logical.input))
    if found is None:
        return
    for a in n.logical.aggs:
        if a.function is not None and folds(a.function) and not retracts(a.function):
            raise ValidationError(
                f"Python aggregate function '{a.name}' cannot consume the {_changes(found)} changes which is "
                f"produced by node {found.explain()}: Method retract is not implemented (implement "
                f"retract(accumulator, *args) in its AggregateFunction)")


def _check_ranking(n: PhysicalNode) -> None:
    """A ranking function whose result no filter turned into a Top-N runs only in batch."""
    if isinstance(n.logical, P.Over):
        for c in n.logical.calls:
            if c.name in ("ROW_NUMBER", "RANK", "DENSE_RANK"):
                raise UnsupportedError(
                    f"{c.name}() OVER without a filter on its result (Top-N: WHERE rn <= N) is not "
                    "supported in streaming mode; it is supported in batch mode.")


def _check_sink(root: PhysicalNode) -> None:
    """Flink's planning error when an updating result goes into an append-only sink."""
    sink = root.logical
    found = updating_node(root)
    if found is not None and not factory_for(sink.connector or None, sink.table).sink_accepts_updates(
            dict(sink.options)):
        raise ValidationError(
            f"Table sink '{sink.table}' doesn't support consuming update changes which is "
            f"produced by node {found.explain()}")
