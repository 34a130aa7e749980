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
    names = plan.names()
    types = [f.type for f in plan.schema]
    cols = [F.col(f"f{i}") for i in range(len(names))]
    streamed = session.streaming and any(isinstance(n, P.TableScan) for n in P.walk(plan))
    if not streamed:
        low = drop_eoi(Lowerer(state).lower(optimize(plan)))
        try:
            rows = [list(r) for r in low.df.select(*cols).collect()]
        finally:
            release(state)
        return TableResult("ROWS", names, rows, types=types)
    out: list[list] = []

    def consume(low, epoch_id):
        if low.empty:
            return
        df = drop_eoi(low).df
        op = F.col(OP) if low.updating else F.lit("+I")
        out.extend([list(r) for r in df.select(op, *cols).collect()])

    import os
    import shutil
    import tempfile
    import uuid
    from sqlengine.runtime.job import Job
    from sqlengine.runtime.streaming.runner import start_epoch_query
    base = session.conf.get("execution.checkpointing.dir")
    # A query's result goes to the client only: its checkpoint is kept only where asked for.
    checkpoint = os.path.join(base, f"select-{uuid.uuid4().hex}") if base else \
        tempfile.mkdtemp(prefix="sqlengine-select-")
    try:
        query, _ = start_epoch_query(state, Lowerer(state).plan([optimize(plan)]), [consume], checkpoint,
                                     "select")
        runner.wait(Job("select", [query]), state)
    finally:
        if not base:
            shutil.rmtree(checkpoint, ignore_errors=True)
    return TableResult("ROWS", ["op", *names], out, changelog=True, types=[None, *types])
