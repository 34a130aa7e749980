"""MATCH_RECOGNIZE on Spark: one Python pass per task over Arrow batches.

Spark computes each row's *leaves* (``program.py``), routes rows by the partition keys
and sorts them by key, then time, the other ORDER BY keys and arrival; ``mapInArrow`` hands
each task's rows to the matcher (``matcher.py``), which works on all of the task's
partitions at once. The frame the pass reads holds, per partition key, rows of four kinds:

* 0: a row to feed (its time, sort keys, arrival and leaves),
* 1: a run carried from the previous epoch (state, first row, first time, slot values),
* 2: a completed match waiting for release (first row, prune row, measure values),
* 3: the partition's next row number (rows are numbered per partition, as Flink's
  event ids, so that runs and matches can be compared with the rows after them).

It writes the same kinds back (kind 0: an emitted match, with its emission time). Batch
mode is the same pass with no state and the final watermark.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as ST

from sqlengine.functions.varying import above, unanchored, varying
from sqlengine.hidden import TASK, Lowered
from sqlengine.hidden import fcol as col
from sqlengine.physical.operators.match.matcher import Completed, Matcher, Runs
from sqlengine.physical.operators.match.program import Compiled, compile_node
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext

KIND, TS, EP, ARR = "__kind", "__ts", "__ep", "__arr"
WM_END = 1 << 62


class Layout:
    """Column names and Spark types of the pass's frames."""

    def __init__(self, node: P.Match, compiled: Compiled):
        self.node = node
        self.compiled = compiled
        self.keys = [f"f{k}" for k in node.partition_keys]
        self.key_types = [node.input.schema[k].type.to_spark() for k in node.partition_keys]
        self.order = [f"o{i}" for i in range(len(node.order_keys) - 1)]
        self.leaves = [f"l{i}" for i in range(len(compiled.leaves))]
        self.leaf_types = [e.type.to_spark() for e in compiled.leaves]
        prog = compiled.program(node, [_arrow(t) for t in self.leaf_types])
        self.prog = prog
        self.slot_names = list(prog.slots.types())
        self.slot_types = [_spark(t) for t in prog.slots.types().values()]
        self.values = [f"v{i}" for i in range(len(node.navs))]
        self.value_types = [ST.LongType() if n.kind in ("rowtime", "proctime") else n.type.to_spark()
                            for n in node.navs]

    def slot_cols(self) -> list[str]:
        return [f"s{i}" for i in range(len(self.slot_names))]

    def event_fields(self) -> list[tuple[str, ST.DataType]]:
        order_types = [self.node.input.schema[k.index].type.to_spark() for k in self.node.order_keys[1:]]
        return ([(TS, ST.LongType())] + list(zip(self.order, order_types)) + [(EP, ST.LongType()), (ARR, ST.LongType())]
                + list(zip(self.leaves, self.leaf_types)))

    def state_fields(self) -> list[tuple[str, ST.DataType]]:
        return ([("r_state", ST.IntegerType()), ("r_start", ST.LongType()), ("r_start_ts", ST.LongType())]
                + list(zip(self.slot_cols(), self.slot_types))
                + [("w_start", ST.LongType()), ("w_prune", ST.LongType())]
                + list(zip(self.values, self.value_types))
                + [("q_next", ST.LongType())])

    def head(self, with_task: bool) -> list[tuple[str, ST.DataType]]:
        task = [(TASK, ST.IntegerType())] if with_task else []
        return task + list(zip(self.keys, self.key_types)) + [(KIND, ST.IntegerType())]

    def input_schema(self, with_task: bool) -> ST.StructType:
        return ST.StructType([ST.StructField(n, t) for n, t in
                              self.head(with_task) + self.event_fields() + self.state_fields()])

    def output_schema(self, with_task: bool) -> ST.StructType:
        return ST.StructType([ST.StructField(n, t) for n, t in
                              self.head(with_task) + [(TS, ST.LongType())] + self.state_fields()])


def _arrow(t: ST.DataType) -> pa.DataType:
    from pyspark.sql.pandas.types import to_arrow_type
    return to_arrow_type(t, timezone="UTC")


def _spark(t: pa.DataType) -> ST.DataType:
    from pyspark.sql.pandas.types import from_arrow_type
    return from_arrow_type(t, prefer_timestamp_ntz=False)


def proctime(node: P.Match) -> bool:
    """Ordered by processing time: rows are fed as they come (Flink stamps each with the
    current processing time; here, the epoch's)."""
    return (node.input.schema[node.order_keys[0].index].type.time_attr or "").upper() == "PROCTIME"


def prepare(ctx: BatchContext, node: P.Match, child: DataFrame, lay: Layout, epoch: int) -> DataFrame:
    """The rows to feed (kind 0), before their exchange: keys, time, sort keys, leaves."""
    t = node.order_keys[0].index
    tcol = col(t)
    ts = F.unix_millis(tcol) if node.input.schema[t].type.root.startswith("TIMESTAMP") else \
        F.unix_date(tcol).cast("long") * 86400000
    if proctime(node) and isinstance(ctx, EpochContext):
        ts = unanchored(ctx.now_ms)  # the time column is a constant (current_timestamp)
    return child.select(*[col(k) for k in node.partition_keys], F.lit(0).alias(KIND), ts.alias(TS),
                        *[col(k.index).alias(o) for k, o in zip(node.order_keys[1:], lay.order)],
                        varying(epoch, ts).alias(EP), F.monotonically_increasing_id().alias(ARR),
                        *[ctx.expr(e).alias(n) for e, n in zip(lay.compiled.leaves, lay.leaves)])


def _with_all(df: DataFrame, lay: Layout, with_task: bool) -> DataFrame:
    """``df`` with every column of the pass's input (nulls where its kind has none)."""
    have = set(df.columns)
    return df.select(*[F.col(f.name) if f.name in have else F.lit(None).cast(f.dataType).alias(f.name)
                       for f in lay.input_schema(with_task)])


def sort_frame(df: DataFrame, node: P.Match, lay: Layout, with_task: bool) -> DataFrame:
    order = [F.col(c).asc_nulls_first() for c in ([TASK] if with_task else []) + lay.keys]
    order += [F.col(KIND).asc(), F.col(TS).asc()]
    order += [_order(o, k) for k, o in zip(node.order_keys[1:], lay.order)]
    # rows at one time, in the order their source produced them: by source partition
    # (monotonically_increasing_id's upper bits), then epoch, then position
    order += [F.shiftright(F.col(ARR), 33).asc(), F.col(EP).asc(), F.col(ARR).bitwiseAND(F.lit((1 << 33) - 1)).asc()]
    return df.sortWithinPartitions(*order)


def _order(name: str, k: P.SortKey):
    c = F.col(name)
    if k.ascending:
        return c.asc_nulls_last() if k.nulls_first is False else c.asc_nulls_first()
    return c.desc_nulls_first() if k.nulls_first else c.desc_nulls_last()


# Rows (of all kinds) a task's matcher takes at once: its input is cut at partition
# boundaries into passes of about this many, so its memory stays bounded whatever a task's
# state and epoch hold (a partition's rows always go through one pass).
ROWS_PER_PASS = "sqlengine.match.rows-per-pass"
DEFAULT_ROWS_PER_PASS = 1 << 18


def rows_per_pass(conf: dict) -> int:
    return max(1, int(conf.get(ROWS_PER_PASS, DEFAULT_ROWS_PER_PASS)))


def _starts(table: pa.Table, head: list[str]) -> np.ndarray:
    """Whether each row starts a partition (its keys differ from the row before it)."""
    n = table.num_rows
    new = np.zeros(n, bool)
    if n == 0:
        return new
    new[0] = True
    for c in head:
        a = table.column(c).combine_chunks()
        x, y = a.slice(1), a.slice(0, n - 1)
        differ = pc.or_(pc.fill_null(pc.not_equal(x, y), False), pc.not_equal(pc.is_null(x), pc.is_null(y)))
        new[1:] |= differ.to_numpy(zero_copy_only=False)
    return new


def in_passes(batches, head: list[str], rows: int):
    """A task's sorted input as tables of whole partitions, each of about ``rows`` rows
    or one partition (a larger one is never cut)."""
    pending: list = []
    have, wanted = 0, rows
    for b in batches:
        if b.num_rows == 0:
            continue
        pending.append(pa.Table.from_batches([b]))
        have += b.num_rows
        if have < wanted:
            continue
        table = pa.concat_tables(pending).combine_chunks()
        cut = int(np.nonzero(_starts(table, head))[0][-1])  # where the last partition (maybe unfinished) starts
        if cut == 0:  # one partition so far: wait for it to end (rows doubled before looking again)
            pending, wanted = [table], 2 * have
            continue
        yield table.slice(0, cut)
        rest = table.slice(cut)
        pending, have, wanted = [rest], rest.num_rows, rows
    if pending:
        yield pa.concat_tables(pending).combine_chunks()


def matching(lay: Layout, watermark: Optional[int], with_task: bool, pass_rows: int = DEFAULT_ROWS_PER_PASS):
    """The function ``mapInArrow`` runs on each task (see the module docstring): the
    matcher over each pass of whole partitions (``in_passes``), one after another."""
    prog = lay.prog
    measure_types = {f"m{i}": (pa.int64() if n.kind in ("rowtime", "proctime") else _arrow(t))
                     for i, (n, t) in enumerate(zip(prog.measures, lay.value_types))}
    head = ([TASK] if with_task else []) + lay.keys
    slot_cols, slot_names = lay.slot_cols(), lay.slot_names
    out_schema = _arrow_schema(lay.output_schema(with_task))
    nleaves = len(lay.leaves)

    def run(batches):
        for table in in_passes(batches, head, pass_rows):
            yield from one_pass(table)

    def one_pass(table: pa.Table):
        n = table.num_rows
        if n == 0:
            return
        new = _starts(table, head)
        part = np.cumsum(new) - 1
        nparts = int(part[-1]) + 1
        first_row = np.nonzero(new)[0]
        kind = table.column(KIND).to_numpy()
        matcher = Matcher(prog, measure_types)

        def rows(k):
            return np.nonzero(kind == k)[0]
        ev = rows(0)
        evt = table.take(pa.array(ev, pa.int64()))
        leaves = [evt.column(f"l{i}").combine_chunks() for i in range(nleaves)]
        ev_ts = evt.column(TS).to_numpy()
        ri = rows(1)
        rt = table.take(pa.array(ri, pa.int64()))
        runs = Runs(part[ri], rt.column("r_state").to_numpy().astype(np.int32),
                    rt.column("r_start").to_numpy().astype(np.int64), rt.column("r_start_ts").to_numpy().astype(np.int64),
                    {name: _cast(rt.column(c).combine_chunks(), t)
                     for name, c, t in zip(slot_names, slot_cols, matcher.types.values())})
        wi = rows(2)
        wt = table.take(pa.array(wi, pa.int64()))
        waiting = Completed(part[wi], wt.column("w_start").to_numpy().astype(np.int64),
                            wt.column("w_prune").to_numpy().astype(np.int64),
                            {f"m{i}": _cast(wt.column(f"v{i}").combine_chunks(), t)
                             for i, t in enumerate(measure_types.values())})
        next_seq = np.zeros(nparts, np.int64)
        qi = rows(3)
        if len(qi):
            next_seq[part[qi]] = table.column("q_next").to_numpy()[qi]
        res = matcher.run(part[ev], ev_ts, leaves, nparts, next_seq, runs, waiting, watermark)
        out = []
        keys = table.select(head)

        def frame(k: int, parts: np.ndarray, cols: dict) -> pa.RecordBatch:
            m = len(parts)
            base = keys.take(pa.array(first_row[parts], pa.int64()))
            arrays = {c: base.column(c).combine_chunks() for c in head}
            arrays[KIND] = pa.array(np.full(m, k, np.int32))
            arrays.update(cols)
            return pa.RecordBatch.from_arrays(
                [arrays[f.name] if f.name in arrays else pa.nulls(m, f.type) for f in out_schema],
                schema=out_schema)

        def typed(name, a):
            return _cast(a, out_schema.field(name).type)
        if len(res.match_part):
            now = np.full(len(res.match_part), int(time.time() * 1000), np.int64)
            values = {f"v{i}": typed(f"v{i}", pa.array(res.match_ts) if prog.measures[i].kind == "rowtime"
                                     else pa.array(now) if prog.measures[i].kind == "proctime"
                                     else res.match_values[f"m{i}"]) for i in range(len(prog.measures))}
            out.append(frame(0, res.match_part, values))
        r = res.runs
        if len(r):
            cols = {"r_state": pa.array(r.state.astype(np.int32)), "r_start": pa.array(r.start),
                    "r_start_ts": pa.array(r.start_ts)}
            cols.update({c: typed(c, r.cols[name]) for name, c in zip(slot_names, slot_cols)})
            out.append(frame(1, r.part, cols))
        w = res.waiting
        if len(w):
            cols = {"w_start": pa.array(w.start), "w_prune": pa.array(w.prune)}
            cols.update({f"v{i}": typed(f"v{i}", w.values[f"m{i}"]) for i in range(len(prog.measures))})
            out.append(frame(2, w.part, cols))
        live = np.unique(np.concatenate([r.part, w.part])).astype(np.int64)
        if len(live):
            out.append(frame(3, live, {"q_next": pa.array(res.next_seq[live])}))
        yield from out

    return run


def _arrow_schema(schema: ST.StructType) -> pa.Schema:
    return pa.schema([pa.field(f.name, _arrow(f.dataType)) for f in schema])


def _cast(a, t: pa.DataType):
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks()
    return a if a.type == t else pc.cast(a, t, safe=False)


def emitted(node: P.Match, lay: Layout, out: DataFrame) -> DataFrame:
    """The matches: the node's columns ``f0..``."""
    nk = len(lay.keys)
    cols = [F.col(k).alias(f"f{i}") for i, k in enumerate(lay.keys)]
    for i, (n, v) in enumerate(zip(node.navs, lay.values)):
        c = F.col(v)
        if n.kind in ("rowtime", "proctime"):
            c = F.timestamp_millis(F.least(c, F.lit(253402300799999)))
        cols.append(c.cast(n.type.to_spark()).alias(f"f{nk + i}"))
    return out.where(F.col(KIND) == 0).select(*cols)


def batch_match(ctx: BatchContext, node: P.Match, df: DataFrame) -> Lowered:
    compiled = compile_node(node)
    lay = Layout(node, compiled)
    rows = prepare(ctx, node, df, lay, 0)
    keys = [F.col(k) for k in lay.keys]
    rows = rows.repartition(ctx.shuffle_partitions, *keys) if keys else rows.coalesce(1)
    rows = sort_frame(_with_all(rows, lay, False), node, lay, False)
    out = rows.mapInArrow(matching(lay, WM_END, False, rows_per_pass(ctx.conf)), lay.output_schema(False))
    return Lowered(emitted(node, lay, out))


def epoch_match(ctx: EpochContext, node: P.Match, child: Lowered) -> Lowered:
    """One epoch: this epoch's rows (late ones dropped) and the state (rows still waiting
    for the watermark, runs, waiting matches, row numbers) meet on their task through
    the edge's exchange; the rows the watermark passed are fed, the others kept."""
    compiled = compile_node(node)
    lay = Layout(node, compiled)
    by_proctime = proctime(node)
    prev = ctx.previous_input_watermark
    fresh = prepare(ctx, node, child.df, lay, ctx.epoch)
    if not by_proctime:  # late rows are dropped, as Flink's CepOperator drops them
        fresh = fresh.where(above(F.col(TS), prev))
    schema = lay.input_schema(False)
    state_t = ctx.table("state", schema, lay.keys)
    rows = _with_all(fresh, lay, False).unionByName(state_t.read(ctx.epoch).select(*schema.names))
    rows = ctx.persist(ctx.exchange(rows, [F.col(k) for k in lay.keys]))
    ctx.settle(rows)
    wm = ctx.now_ms if by_proctime else ctx.input_watermark
    waiting = (F.col(KIND) == 0) & above(F.col(TS), wm)
    fed = sort_frame(rows.where(~waiting), node, lay, True)
    out = ctx.persist(fed.mapInArrow(matching(lay, wm, True, rows_per_pass(ctx.conf)), lay.output_schema(True)))
    result = ctx.persist(emitted(node, lay, out))
    kept = _with_all(out.where(F.col(KIND) > 0), lay, False).unionByName(_with_all(rows.where(waiting), lay, False))
    state_t.write(ctx.epoch, kept, snapshot=True)
    return Lowered(result)
