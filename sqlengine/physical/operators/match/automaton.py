"""MATCH_RECOGNIZE's pattern as the automaton Flink runs (flink-cep's ``NFACompiler`` for the
patterns Flink SQL builds: a sequence of distinct variables, strictly contiguous, each with a
quantifier).

An element is one variable with its quantifier (``Element``); a run is in a *state*
``(i, c)``: it has taken ``c`` rows for element ``i`` (``c`` capped where more rows change
nothing). From a state, the rows a run can take are the *edges*: take into element ``i``
while ``c`` is below its maximum, or, once ``c`` has reached its minimum, proceed (without
taking) to the next element's first state and take there. Flink's greedy quantifiers add
one rule (``NFACompiler.updateWithGreedyCondition``): every transition out of the first
state of the element after a greedy element ``i`` also requires that the row does *not*
satisfy ``i``'s condition, so a greedy loop keeps a row its condition accepts. After a
take, a match completes when the target is final, or when proceeding from the target
(each step under the same guards) reaches the final state
(``NFA.findFinalStateAfterProceed``).
"""
from __future__ import annotations

from dataclasses import dataclass
from sqlengine.plan import nodes as P

FINAL = -1


Element = P.PatternElement


Guard = tuple[int, bool]  # (element, the truth its condition must have)


@dataclass(frozen=True)
class Edge:
    guards: tuple[Guard, ...]  # besides the taking element's own condition
    take: int  # the element the row is taken for
    target: int  # a state, or FINAL
    finals: tuple[tuple[Guard, ...], ...]  # guard sets under which a match also completes


@dataclass(frozen=True)
class Automaton:
    elements: tuple[Element, ...]
    states: tuple[tuple[int, int], ...]  # state id -> (element, taken); state 0 starts
    edges: tuple[tuple[Edge, ...], ...]  # state id -> its edges, in Flink's branch order

    @property
    def conditions(self) -> list[set[int]]:
        """Per state, the elements whose conditions its edges read."""
        out = []
        for es in self.edges:
            need: set[int] = set()
            for e in es:
                need.add(e.take)
                need.update(g for g, _ in e.guards)
                for f in e.finals:
                    need.update(g for g, _ in f)
            out.append(need)
        return out


def compile_pattern(elements: tuple[Element, ...]) -> Automaton:
    n = len(elements)

    def cap(i: int) -> int:
        e = elements[i]
        return e.max if e.max is not None else max(e.min, 1)

    def norm(i: int, c: int) -> tuple[int, int]:
        e = elements[i]
        if e.max is not None and c >= e.max:
            return (i + 1, 0)
        return (i, min(c, cap(i)))

    def entry_guard(i: int, c: int) -> tuple[Guard, ...]:
        return ((i - 1, False),) if c == 0 and 0 < i < n and elements[i - 1].greedy else ()

    def paths(i: int, c: int, guards: tuple[Guard, ...]) -> list[tuple[tuple[Guard, ...], int, tuple[int, int]]]:
        if i == n:
            return []  # proceeding into the final state takes nothing
        g = guards + entry_guard(i, c)
        e = elements[i]
        out = []
        if e.max is None or c < e.max:
            out.append((g, i, norm(i, c + 1)))
        if c >= e.min:
            out += paths(i + 1, 0, g)
        return out

    def finals(i: int, c: int, guards: tuple[Guard, ...]) -> list[tuple[Guard, ...]]:
        if i == n:
            return [guards]
        g = guards + entry_guard(i, c)
        return finals(i + 1, 0, g) if c >= elements[i].min else []

    ids: dict[tuple[int, int], int] = {(0, 0): 0}
    order = [(0, 0)]
    edges: list[tuple[Edge, ...]] = []
    k = 0
    while k < len(order):
        i, c = order[k]
        out = []
        for guards, take, (ti, tc) in paths(i, c, ()):
            if ti == n:
                target, fin = FINAL, ((),)
            else:
                if (ti, tc) not in ids:
                    ids[(ti, tc)] = len(order)
                    order.append((ti, tc))
                target, fin = ids[(ti, tc)], tuple(finals(ti, tc, ()))
            out.append(Edge(_dedupe(guards), take, target, tuple(_dedupe(f) for f in fin)))
        edges.append(tuple(out))
        k += 1
    return Automaton(tuple(elements), tuple(order), tuple(edges))


def _dedupe(guards: tuple[Guard, ...]) -> tuple[Guard, ...]:
    return tuple(dict.fromkeys(guards))

