"""SELECT results for the client: batch rows, or the changelog of a bounded stream."""
from __future__ import annotations

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowerer, drop_eoi, release


def collect(session, plan: P.Node, stmt):
    from pyspark.sql import functions as F
    from connectors.base import OP
    from sqlengine.session import TableResult

    runner = session.runner()
    state = runner.state("select")
    from sqlengine.rules import optimize
    low = drop_eoi(Lowerer(state).lower(optimize(plan)))
    names = plan.names()
    types = [f.type for f in plan.schema]
    cols = [F.col(f"f{i}") for i in range(len(names))]
    if not (session.streaming and state.has_stream_source):
        try:
            rows = [list(r) for r in low.df.select(*cols).collect()]
        finally:
            release(state)
        return TableResult("ROWS", names, rows, types=types)
    out: list[list] = []
    op = F.col(OP) if low.updating else F.lit("+I")

    def batch(df, epoch_id):
        out.extend([[r[0], *r[1:]] for r in df.select(op, *cols).collect()])

    from sqlengine.runtime.job import Job, trigger_interval
    import tempfile
    query = low.df.writeStream.foreachBatch(batch).option(
        "checkpointLocation", tempfile.mkdtemp(prefix="sqlengine-select-")).trigger(
        processingTime=trigger_interval(state)).start()
    job = Job("select", [query])
    runner.wait(job, state)
    return TableResult("ROWS", ["op", *names], out, changelog=True, types=[None, *types])
