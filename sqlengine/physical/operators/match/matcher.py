"""MATCH_RECOGNIZE's matching, vectorized across partitions (Flink's ``NFA`` and
``CepOperator`` semantics).

Flink feeds each partition's rows, in time order, one at a time to the partition's
automaton: every row may start a run (the start state never ends), each run takes the row
along every edge whose conditions hold (forking), runs no edge accepts die, and completed
matches are emitted under the AFTER MATCH strategy. Here step *k* feeds the *k*-th row of
every partition at once: runs are rows of arrays (their partition, state, start, and the
values their conditions and measures read), conditions are evaluated for all runs in one
Arrow expression, and forking is a gather. Python runs once per step, never per row or
per partition; the number of steps is the longest partition's row count in the batch.

What a run carries (``Slots``): per variable (and ``*``, every row of the match) the count
of rows taken, for each navigated column the last ``n`` and first ``n`` values it needs,
and aggregate accumulators (COUNT, SUM, AVG, MIN, MAX). In a DEFINE condition of variable
``v`` the current row counts as ``v``'s last row (and as a row of ``*``), as in Flink's
generated conditions; in MEASURES (and in other variables' conditions) a navigation reads
the rows taken.

Emission follows ``NFA.processMatchesAccordingToSkipStrategy``: completed matches are
released in order of their first row, and a completed match waits while a run that
started earlier is alive; releasing one prunes runs and waiting matches by the strategy
(SKIP PAST LAST ROW: those starting at or before its last row; TO NEXT ROW: at or before
its first row; TO FIRST/LAST v: before v's first/last row). ``WITHIN`` ends runs whose
first row is that long before the current row (or the watermark, at the end of a batch).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sqlengine.errors import SqlEngineError
from sqlengine.physical.operators.match.automaton import FINAL, Automaton
from sqlengine.physical.operators.match.evaluate import Leaf, evaluate, truth
from sqlengine.plan import nodes as P

BIG = np.iinfo(np.int64).max
AGG_FUNCTIONS = ("COUNT", "SUM", "AVG", "MIN", "MAX")


@dataclass(frozen=True)
class Nav(P.Expr):
    """A value of the match: ``kind`` 'last' / 'first' (the prepared column ``leaf`` of the
    ``offset``-th row from the last / first taken for ``var``), 'agg' (aggregate ``fn`` of
    column ``leaf`` over those rows; ``leaf`` None: COUNT(*)), 'rowtime' (MATCH_ROWTIME:
    when the match was emitted) or 'proctime'. ``var`` '*' means every row of the match."""
    kind: str
    var: str
    leaf: Optional[int] = None
    offset: int = 0
    fn: str = ""

    def __str__(self) -> str:
        inner = f"{self.var}.$leaf{self.leaf}"
        if self.kind == "agg":
            return f"{self.fn}({inner if self.leaf is not None else self.var + '.*'})"
        if self.kind in ("rowtime", "proctime"):
            return f"MATCH_{self.kind.upper()}()"
        return f"{self.kind.upper()}({inner}, {self.offset})"


class MatchError(SqlEngineError):
    """A failure Flink raises while matching (a skip target missing from a match)."""


@dataclass
class Program:
    """What the matcher runs: the automaton, one condition per element (None: always
    true; ``Leaf`` and ``Nav`` leaves), the navigations MEASURES read, the strategy."""
    automaton: Automaton
    conditions: tuple[Optional[P.Expr], ...]
    measures: tuple[Nav, ...]
    skip: str  # PAST LAST ROW | TO NEXT ROW | TO FIRST | TO LAST
    skip_var: Optional[str] = None
    within: Optional[int] = None  # ms
    leaf_types: tuple[pa.DataType, ...] = ()

    def __post_init__(self):
        self.slots = Slots(self)


def _navs(e: Optional[P.Expr]) -> list[Nav]:
    if e is None:
        return []
    if isinstance(e, Nav):
        return [e]
    return [n for c in e.children() for n in _navs(c)]


class Slots:
    """The columns a run carries (see the module docstring), named by strings."""

    def __init__(self, prog: Program):
        self.prog = prog
        navs = [n for c in prog.conditions for n in _navs(c)] + list(prog.measures)
        self.ring: dict[tuple[str, int], int] = {}  # (var, leaf) -> how many last values
        self.first: dict[tuple[str, int], int] = {}
        self.aggs: set[tuple[str, str, Optional[int]]] = set()
        for n in navs:
            if n.kind == "last":
                self.ring[(n.var, n.leaf)] = max(self.ring.get((n.var, n.leaf), 0), n.offset + 1)
            elif n.kind == "first":
                self.first[(n.var, n.leaf)] = max(self.first.get((n.var, n.leaf), 0), n.offset + 1)
            elif n.kind == "agg":
                self.aggs.add((n.var, n.fn, n.leaf))

    def types(self) -> dict[str, pa.DataType]:
        lt = self.prog.leaf_types
        out: dict[str, pa.DataType] = {}
        for v in sorted({v for v, _ in self.first}):
            out[f"n|{v}"] = pa.int64()
        if self.prog.skip_var is not None:
            out[f"fs|{self.prog.skip_var}"] = pa.int64()
            out[f"ls|{self.prog.skip_var}"] = pa.int64()
        for (v, leaf), size in self.ring.items():
            for k in range(size):
                out[f"r|{v}|{leaf}|{k}"] = lt[leaf]
        for (v, leaf), size in self.first.items():
            for k in range(size):
                out[f"f|{v}|{leaf}|{k}"] = lt[leaf]
        for v, fn, leaf in sorted(self.aggs, key=str):
            for part, t in _acc_parts(fn, lt[leaf] if leaf is not None else pa.int64()):
                out[f"a|{v}|{leaf}|{part}"] = t
        return out


def _acc_parts(fn: str, t: pa.DataType) -> list[tuple[str, pa.DataType]]:
    if fn == "COUNT":
        return [("count", pa.int64())]
    if fn in ("MIN", "MAX"):
        return [(fn.lower(), t)]
    if pa.types.is_integer(t):
        s = pa.int64()
    elif pa.types.is_decimal(t):
        s = pa.decimal128(38, t.scale)
    else:
        s = pa.float64()
    return [("sum", s), ("count", pa.int64())] if fn == "AVG" else [("sum", s)]


def _take(cols: dict[str, pa.Array], idx: np.ndarray) -> dict[str, pa.Array]:
    """Rows ``idx`` of every column, in one Arrow call."""
    if not cols:
        return {}
    table = pa.Table.from_arrays(list(cols.values()), names=list(cols)).take(pa.array(idx, pa.int64()))
    return {k: (c.chunk(0) if c.num_chunks == 1 else c.combine_chunks()) for k, c in zip(cols, table.columns)}


@dataclass
class Runs:
    """Rows of runs (or of completed matches): numpy control columns, Arrow values."""
    part: np.ndarray
    state: np.ndarray
    start: np.ndarray
    start_ts: np.ndarray
    cols: dict[str, pa.Array] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.part)

    def slice(self, a: int, b: int) -> "Runs":
        return Runs(self.part[a:b], self.state[a:b], self.start[a:b], self.start_ts[a:b],
                    {k: v.slice(a, b - a) for k, v in self.cols.items()})

    def take(self, idx: np.ndarray) -> "Runs":
        return Runs(self.part[idx], self.state[idx], self.start[idx], self.start_ts[idx], _take(self.cols, idx))

    @staticmethod
    def concat(parts: list["Runs"], types: dict[str, pa.DataType]) -> "Runs":
        parts = [p for p in parts if len(p)]
        if not parts:
            return Runs.empty(types)
        if len(parts) == 1:
            return parts[0]
        return Runs(np.concatenate([p.part for p in parts]), np.concatenate([p.state for p in parts]),
                    np.concatenate([p.start for p in parts]), np.concatenate([p.start_ts for p in parts]),
                    {k: pa.concat_arrays([p.cols[k] for p in parts]) for k in types})

    @staticmethod
    def empty(types: dict[str, pa.DataType]) -> "Runs":
        z = np.zeros(0, np.int64)
        return Runs(z, z.astype(np.int32), z, z, {k: pa.array([], t) for k, t in types.items()})


@dataclass
class Completed:
    """Completed matches waiting for release: the partition, the first row, the row the
    strategy prunes to (-1: the skip variable took no row; -2: it is the first row), and
    the measures' values (``rowtime``/``proctime`` filled at release)."""
    part: np.ndarray
    start: np.ndarray
    prune: np.ndarray
    values: dict[str, pa.Array]

    def __len__(self) -> int:
        return len(self.part)

    def slice(self, a: int, b: int) -> "Completed":
        return Completed(self.part[a:b], self.start[a:b], self.prune[a:b],
                         {k: v.slice(a, b - a) for k, v in self.values.items()})

    def take(self, idx) -> "Completed":
        return Completed(self.part[idx], self.start[idx], self.prune[idx], _take(self.values, idx))

    @staticmethod
    def concat(parts: list["Completed"], types: dict[str, pa.DataType]) -> "Completed":
        parts = [p for p in parts if len(p)]
        if not parts:
            z = np.zeros(0, np.int64)
            return Completed(z, z, z, {k: pa.array([], t) for k, t in types.items()})
        if len(parts) == 1:
            return parts[0]
        return Completed(np.concatenate([p.part for p in parts]), np.concatenate([p.start for p in parts]),
                         np.concatenate([p.prune for p in parts]),
                         {k: pa.concat_arrays([p.values[k] for p in parts]) for k in types})


@dataclass
class Result:
    match_part: np.ndarray
    match_ts: np.ndarray  # when each match was emitted (MATCH_ROWTIME)
    match_values: dict[str, pa.Array]
    runs: Runs
    waiting: Completed
    next_seq: np.ndarray  # per partition


class Matcher:
    def __init__(self, prog: Program, measure_types: dict[str, pa.DataType]):
        self.prog = prog
        self.aut = prog.automaton
        self.types = prog.slots.types()
        self.measure_types = measure_types  # measure key -> arrow type
        self.var_of = [e.var for e in self.aut.elements]
        self.needs = self.aut.conditions

    # -- values of runs ------------------------------------------------------------
    def _start_runs(self, parts: np.ndarray) -> Runs:
        n = len(parts)
        cols = {}
        for k, t in self.types.items():
            if k.startswith("n|") or k.endswith("|count"):
                cols[k] = pa.array(np.zeros(n, np.int64))
            elif k.startswith(("fs|", "ls|")):
                cols[k] = pa.array(np.full(n, -1, np.int64))
            else:
                cols[k] = pa.nulls(n, t)
        return Runs(parts, np.zeros(n, np.int32), np.full(n, -1, np.int64), np.zeros(n, np.int64), cols)

    def _nav_value(self, runs: Runs, nav: Nav, current: Optional[str], cur) -> object:
        """``nav`` for each run; ``current``: the variable whose condition is evaluated
        (the current row counts as its last row, and as one of ``*``'s)."""
        inc = current is not None and nav.var in (current, "*")
        if nav.kind == "last":
            if inc:
                if nav.offset == 0:
                    return cur(nav.leaf)
                return runs.cols[f"r|{nav.var}|{nav.leaf}|{nav.offset - 1}"]
            return runs.cols[f"r|{nav.var}|{nav.leaf}|{nav.offset}"]
        if nav.kind == "first":
            stored = runs.cols[f"f|{nav.var}|{nav.leaf}|{nav.offset}"]
            if inc:
                n = runs.cols[f"n|{nav.var}"]
                return pc.if_else(pc.equal(n, nav.offset), cur(nav.leaf), stored)
            return stored
        if nav.kind == "agg":
            acc = {p: runs.cols[f"a|{nav.var}|{nav.leaf}|{p}"]
                   for p, _ in _acc_parts(nav.fn, self._leaf_type(nav.leaf))}
            if inc:
                acc = self._acc_update(acc, cur(nav.leaf) if nav.leaf is not None else None, len(runs))
            return self._acc_final(nav.fn, acc)
        raise MatchError(f"{nav} cannot be used here")

    def _leaf_type(self, leaf: Optional[int]) -> pa.DataType:
        return self.prog.leaf_types[leaf] if leaf is not None else pa.int64()

    @staticmethod
    def _acc_update(acc: dict, value, n: int) -> dict:
        out = dict(acc)
        if "count" in acc:
            add = pa.array(np.ones(n, np.int64)) if value is None else pc.cast(pc.is_valid(value), pa.int64())
            out["count"] = pc.add(acc["count"], add)
        if value is None:
            return out
        valid = pc.is_valid(value)
        if "sum" in acc:
            s = acc["sum"]
            v = pc.cast(value, s.type)
            out["sum"] = pc.if_else(valid, pc.if_else(pc.is_null(s), v, pc.add(s, v)), s)
        for p, f in (("min", pc.min_element_wise), ("max", pc.max_element_wise)):
            if p in acc:
                m = acc[p]
                out[p] = pc.if_else(valid, pc.if_else(pc.is_null(m), value, f(m, value)), m)
        return out

    @staticmethod
    def _acc_final(fn: str, acc: dict):
        if fn == "COUNT":
            return acc["count"]
        if fn == "SUM":
            return acc["sum"]
        if fn in ("MIN", "MAX"):
            return acc[fn.lower()]
        s, c = acc["sum"], acc["count"]
        nonzero = pc.greater(c, 0)
        if pa.types.is_decimal(s.type):
            c = pc.cast(c, pa.decimal128(19, 0))
        elif pa.types.is_floating(s.type):
            c = pc.cast(c, pa.float64())
        safe_c = pc.if_else(nonzero, c, pa.scalar(1, c.type))
        return pc.if_else(nonzero, pc.divide(s, safe_c), pa.scalar(None, pc.divide(s, safe_c).type))

    def _take_row(self, runs: Runs, elem: int, cur, seq: np.ndarray) -> Runs:
        """``runs`` after taking the current row for ``elem``."""
        cols = dict(runs.cols)
        for v in (self.var_of[elem], "*"):
            n_old = cols.get(f"n|{v}")
            for (rv, leaf), size in self.prog.slots.ring.items():
                if rv != v:
                    continue
                for k in range(size - 1, 0, -1):
                    cols[f"r|{v}|{leaf}|{k}"] = cols[f"r|{v}|{leaf}|{k - 1}"]
                cols[f"r|{v}|{leaf}|0"] = cur(leaf)
            for (fv, leaf), size in self.prog.slots.first.items():
                if fv != v:
                    continue
                for k in range(size):
                    key = f"f|{v}|{leaf}|{k}"
                    cols[key] = pc.if_else(pc.equal(n_old, k), cur(leaf), cols[key])
            parts_of: dict[Optional[int], set[str]] = {}
            for av, fn, leaf in self.prog.slots.aggs:
                if av == v:
                    parts_of.setdefault(leaf, set()).update(p for p, _ in _acc_parts(fn, self._leaf_type(leaf)))
            for leaf, names in parts_of.items():  # each accumulator once, whichever aggregates share it
                parts = {p: cols[f"a|{v}|{leaf}|{p}"] for p in names}
                for p, value in self._acc_update(parts, cur(leaf) if leaf is not None else None,
                                                 len(runs)).items():
                    cols[f"a|{v}|{leaf}|{p}"] = value
            if f"fs|{v}" in cols:
                first_seq = cols[f"fs|{v}"].to_numpy(zero_copy_only=False)
                cols[f"fs|{v}"] = pa.array(np.where(first_seq < 0, seq, first_seq))
                cols[f"ls|{v}"] = pa.array(seq)
            if n_old is not None:
                cols[f"n|{v}"] = pc.add(n_old, 1)
        return Runs(runs.part, runs.state, runs.start, runs.start_ts, cols)

    def _complete(self, runs: Runs, end_seq: np.ndarray) -> Completed:
        values = {}
        for i, nav in enumerate(self.prog.measures):
            key = f"m{i}"
            if nav.kind in ("rowtime", "proctime"):
                values[key] = pa.nulls(len(runs), pa.int64())
            else:
                values[key] = _as(self._nav_value(runs, nav, None, None), self.measure_types[key], len(runs))
        skip, var = self.prog.skip, self.prog.skip_var
        if skip == "PAST LAST ROW":
            prune = end_seq
        elif skip == "TO NEXT ROW":
            prune = runs.start
        else:
            prune = runs.cols[f"{'fs' if skip == 'TO FIRST' else 'ls'}|{var}"].to_numpy(zero_copy_only=False).copy()
            prune[(prune == runs.start) & (prune >= 0)] = -2
        return Completed(runs.part, runs.start.copy(), np.asarray(prune, np.int64).copy(), values)

    # -- one batch -----------------------------------------------------------------
    def run(self, ev_part: np.ndarray, ev_ts: np.ndarray, leaves: list[pa.Array], nparts: int,
            next_seq: np.ndarray, runs: Runs, waiting: Completed, watermark: Optional[int]) -> Result:
        """Feed the rows (sorted by partition, then in processing order) to the runs."""
        counts = np.bincount(ev_part, minlength=nparts).astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        seq = next_seq[ev_part] + (np.arange(len(ev_part)) - starts[ev_part])
        # partitions by rank: most rows first, so those with more than k rows are ranks < m_k
        order = np.argsort(-counts, kind="stable")
        rank = np.empty(nparts, np.int64)
        rank[order] = np.arange(nparts)
        counts_r, starts_r = counts[order], starts[order]
        runs = _by_rank(runs, rank)
        waiting = _by_rank(waiting, rank)
        steps = int(counts.max()) if len(counts) else 0
        out_parts, out_ts, out_vals = [], [], []
        parked_runs, parked_wait = [], []
        mtypes = dict(self.measure_types)
        neg = -counts_r  # ascending
        for k in range(steps):
            m = int(np.searchsorted(neg, -k, side="left"))  # ranks 0 .. m-1 have a k-th row
            cut = int(np.searchsorted(runs.part, m))
            if cut < len(runs):
                parked_runs.append(runs.slice(cut, len(runs)))
                runs = runs.slice(0, cut)
            cut = int(np.searchsorted(waiting.part, m))
            if cut < len(waiting):
                parked_wait.append(waiting.slice(cut, len(waiting)))
                waiting = waiting.slice(0, cut)
            ev_of = starts_r[:m] + k  # the row each active partition feeds now
            now = ev_ts[ev_of]
            if self.prog.within is not None and len(runs):
                keep = now[runs.part] - runs.start_ts < self.prog.within
                if not keep.all():  # Flink's advanceTime before the row: timed-out runs end
                    runs = runs.take(np.nonzero(keep)[0])
                    runs, waiting, emitted = self._release(runs, waiting, m)
                    if len(emitted):
                        out_parts.append(emitted.part)
                        out_ts.append(now[emitted.part])
                        out_vals.append(emitted.values)
            cand = Runs.concat([runs, self._start_runs(np.arange(m, dtype=np.int64))], self.types)
            new_runs, done = self._step(cand, ev_of, ev_ts, seq, leaves)
            waiting = _sorted(Completed.concat([waiting, done], mtypes))
            runs, waiting, emitted = self._release(_sorted(new_runs), waiting, m)
            if len(emitted):
                out_parts.append(emitted.part)
                out_ts.append(now[emitted.part])
                out_vals.append(emitted.values)
        runs = Runs.concat([runs] + parked_runs[::-1], self.types)
        waiting = Completed.concat([waiting] + parked_wait[::-1], mtypes)
        if self.prog.within is not None and watermark is not None and len(runs):
            keep = watermark - runs.start_ts < self.prog.within
            if not keep.all():
                runs = runs.take(np.nonzero(keep)[0])
                runs, waiting, emitted = self._release(runs, waiting, nparts)
                if len(emitted):
                    out_parts.append(emitted.part)
                    out_ts.append(np.full(len(emitted), watermark, np.int64))
                    out_vals.append(emitted.values)
        runs.part = order[runs.part]
        waiting.part = order[waiting.part]
        nxt = next_seq + counts
        values = {k: pa.concat_arrays([v[k] for v in out_vals]) if out_vals else pa.array([], t)
                  for k, t in mtypes.items()}
        return Result(order[np.concatenate(out_parts)] if out_parts else np.zeros(0, np.int64),
                      np.concatenate(out_ts) if out_ts else np.zeros(0, np.int64), values, runs, waiting, nxt)

    def _step(self, cand: Runs, ev_of: np.ndarray, ev_ts: np.ndarray, seq: np.ndarray, leaves):
        ev = ev_of[cand.part]
        cache: dict[int, pa.Array] = {}
        idx_arrow = pa.array(ev, pa.int64())

        def cur(leaf: int):
            if leaf not in cache:
                cache[leaf] = leaves[leaf].take(idx_arrow)
            return cache[leaf]

        present = np.unique(cand.state)
        needed = set().union(*(self.needs[s] for s in present))
        truth_of: dict[int, np.ndarray] = {}
        n = len(cand)
        for j in sorted(needed):
            cond = self.prog.conditions[j]
            if cond is None:
                truth_of[j] = np.ones(n, bool)
                continue
            var = self.var_of[j]

            def resolve(e, var=var):
                if isinstance(e, Leaf):
                    return cur(e.index)
                if isinstance(e, Nav):
                    return self._nav_value(cand, e, var, cur)
                raise MatchError(f"Unexpected expression in a condition: {e}")
            try:
                truth_of[j] = truth(evaluate(cond, resolve), n)
            except NotImplementedError as err:
                raise MatchError(f"Function {err} is not supported in DEFINE over pattern variables") from None
        children: list[Runs] = []
        done: list[Completed] = []
        for s in present:
            in_state = cand.state == s
            for edge in self.aut.edges[s]:
                mask = in_state & truth_of[edge.take]
                for g, want in edge.guards:
                    mask &= truth_of[g] == want
                idx = np.nonzero(mask)[0]
                if not len(idx):
                    continue
                child = cand.take(idx)
                cev = ev[idx]
                if s == 0:
                    child.start = seq[cev].astype(np.int64)
                    child.start_ts = ev_ts[cev].astype(np.int64)
                sub_cache: dict[int, pa.Array] = {}
                ia = pa.array(cev, pa.int64())

                def cur_child(leaf: int, sub_cache=sub_cache, ia=ia):
                    if leaf not in sub_cache:
                        sub_cache[leaf] = leaves[leaf].take(ia)
                    return sub_cache[leaf]
                child = self._take_row(child, edge.take, cur_child, seq[cev])
                if edge.target == FINAL:
                    fin = np.ones(len(idx), bool)
                else:
                    fin = np.zeros(len(idx), bool)
                    for guards in edge.finals:
                        ok = np.ones(len(idx), bool)
                        for g, want in guards:
                            ok &= truth_of[g][idx] == want
                        fin |= ok
                if fin.any():
                    fi = np.nonzero(fin)[0]
                    done.append(self._complete(child.take(fi) if not fin.all() else child, seq[cev][fi]))
                if edge.target != FINAL:
                    child.state = np.full(len(idx), edge.target, np.int32)
                    children.append(child)
        return (Runs.concat(children, self.types),
                Completed.concat(done, self.measure_types))

    def _release(self, runs: Runs, waiting: Completed, nparts: int):
        """Emit what may go out (see the module docstring); partitions are ids < ``nparts``."""
        emitted: list[Completed] = []
        strict = self.prog.skip in ("TO FIRST", "TO LAST")
        while len(waiting):
            min_c = np.full(nparts, BIG, np.int64)
            np.minimum.at(min_c, waiting.part, waiting.start)
            min_p = np.full(nparts, BIG, np.int64)
            if len(runs):
                np.minimum.at(min_p, runs.part, runs.start)
            rel = (min_c < BIG) & ~(min_p < min_c)
            if not rel.any():
                break
            pick = np.nonzero(rel[waiting.part] & (waiting.start == min_c[waiting.part]))[0]
            _, first = np.unique(waiting.part[pick], return_index=True)
            chosen = pick[first]
            prune = waiting.prune[chosen]
            if (prune == -1).any():
                raise MatchError(f"Could not skip to {self.prog.skip_var}. No such element in the found match")
            if (prune == -2).any():
                raise MatchError("Could not skip to first element of a match.")
            emitted.append(waiting.take(chosen))
            pid = np.full(nparts, -1, np.int64)
            pid[waiting.part[chosen]] = prune
            hit = rel
            if len(runs):
                p = pid[runs.part]
                drop = hit[runs.part] & ((runs.start < p) if strict else (runs.start <= p))
                if drop.any():
                    runs = runs.take(np.nonzero(~drop)[0])
            p = pid[waiting.part]
            drop = hit[waiting.part] & ((waiting.start < p) if strict else (waiting.start <= p))
            drop[chosen] = True
            waiting = waiting.take(np.nonzero(~drop)[0])
        return runs, waiting, Completed.concat(emitted, self.measure_types)


def _by_rank(rows, rank: np.ndarray):
    if not len(rows):
        rows.part = rank[rows.part]
        return rows
    rows.part = rank[rows.part]
    return _sorted(rows)


def _sorted(rows):
    """``rows`` ordered by partition (stable: their order within a partition is kept)."""
    if len(rows) < 2 or (np.diff(rows.part) >= 0).all():
        return rows
    return rows.take(np.argsort(rows.part, kind="stable"))


def _as(v, t: pa.DataType, n: int):
    if isinstance(v, pa.Scalar):
        v = pa.array([v.as_py()] * n, v.type)
    if isinstance(v, pa.ChunkedArray):
        v = v.combine_chunks()
    return v if v.type == t else pc.cast(v, t, safe=False)
