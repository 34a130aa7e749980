"""Lowering a DAG over whole inputs (batch jobs, and the static part of a streaming
statement set): each node once, in dependency order, by its operator's ``lower``.

Spark's planner inserts the exchanges the DAG's edges name: a batch job's shuffles have
as many partitions as the job has tasks (``parallelism.default``), and each operator
lowers to the Spark operator whose required distribution is its edge
(tests/e2e/test_shuffles.py reads the executed plan to check it)."""
from __future__ import annotations

from sqlengine.hidden import Lowered
from sqlengine.plan.dag import Dag, PhysicalNode
from sqlengine.runtime.context import BatchContext, JobContext


def lower_batch(job: JobContext, dag: Dag) -> list[Lowered]:
    """The roots of ``dag`` as Spark DataFrames."""
    job.note_reads(dag)
    def lower_node(pn: PhysicalNode, inputs: list[Lowered]) -> Lowered:
        return pn.op.lower(BatchContext(job, pn), pn.logical, *inputs)
    return dag.run(lower_node)
