"""The condition a scan's used rows meet, as a connector evaluates it (connectors/predicate.py):
Arrow's evaluation gives SQL's three-valued answer on every row, and ``restrict`` only
ever weakens a condition. Random conditions over columns with NULLs, against a reference
evaluation written here."""
from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from connectors.predicate import arrow_mask, paths, restrict

PATHS = [["a"], ["s"], ["b"], ["r", "x"]]
VALUES = {"a": [None, -3, 0, 2, 7], "s": [None, "", "a", "b", "é"], "b": [None, True, False], "x": [None, -1, 5, 1 << 40]}


def rows(rng: random.Random, n: int) -> list[dict]:
    out = []
    for _ in range(n):
        r = None if rng.random() < 0.2 else {"x": rng.choice(VALUES["x"])}
        out.append({"a": rng.choice(VALUES["a"]), "s": rng.choice(VALUES["s"]), "b": rng.choice(VALUES["b"]), "r": r})
    return out


def condition(rng: random.Random, depth: int) -> list:
    k = rng.random()
    if depth and k < 0.3:
        return [rng.choice(["and", "or"])] + [condition(rng, depth - 1) for _ in range(rng.randint(2, 3))]
    if depth and k < 0.4:
        return ["not", condition(rng, depth - 1)]
    path = rng.choice(PATHS)
    if k < 0.5:
        return [rng.choice(["null", "notnull"]), path]
    op = rng.choice(["=", "<>", "<", "<=", ">", ">="]) if path[-1] != "b" else rng.choice(["=", "<>"])
    value = rng.choice([v for v in VALUES[path[-1]] if v is not None] + ([1 << 35] if path[-1] == "a" else []))
    return ["cmp", op, path, value]


def value_at(row: dict, path: list):
    v = row
    for name in path:
        v = None if v is None else v[name]
    return v


def truth(p: list, row: dict):
    """SQL's answer: True, False or None (unknown)."""
    op = p[0]
    if op in ("and", "or"):
        got = [truth(q, row) for q in p[1:]]
        decisive = op == "or"  # OR: any TRUE decides; AND: any FALSE decides
        if decisive in got:
            return decisive
        return None if None in got else not decisive
    if op == "not":
        t = truth(p[1], row)
        return None if t is None else not t
    if op in ("null", "notnull"):
        return (value_at(row, p[1]) is None) == (op == "null")
    _, cmp, path, value = p
    v = value_at(row, path)
    if v is None:
        return None
    return {"=": v == value, "<>": v != value, "<": v < value, "<=": v <= value, ">": v > value,
            ">=": v >= value}[cmp]


def arrow_rows(data: list[dict]) -> pa.StructArray:
    t = pa.struct([("a", pa.int32()), ("s", pa.string()), ("b", pa.bool_()), ("r", pa.struct([("x", pa.int64())]))])
    return pa.array(data, t)


def column_of(arr: pa.StructArray):
    def column(path: list):
        values = arr
        for name in path:
            values = pc.struct_field(values, [values.type.get_field_index(name)])
        return values
    return column


@pytest.mark.parametrize("seed", range(4))
def test_arrow_gives_sqls_three_valued_answer(seed):
    rng = random.Random(seed)
    data = rows(rng, 300)
    arr = arrow_rows(data)
    for _ in range(150):
        p = condition(rng, 3)
        got = arrow_mask(p, column_of(arr)).to_pylist()
        assert got == [truth(p, r) for r in data], p


@pytest.mark.parametrize("seed", range(4))
def test_restrict_only_weakens(seed):
    """Every row the condition is TRUE for, its restriction is TRUE for; a condition whose
    paths are all usable is kept as it is."""
    rng = random.Random(100 + seed)
    data = rows(rng, 200)
    for _ in range(200):
        p = condition(rng, 3)
        usable = {tuple(x) for x in PATHS if rng.random() < 0.5}
        weaker = restrict(p, lambda path: tuple(path) in usable)
        assert weaker is None or all(tuple(x) in usable for x in paths(weaker))
        for r in data:
            if truth(p, r) is True:
                assert weaker is None or truth(weaker, r) is True, (p, weaker, r)
        assert restrict(p, lambda path: True) == p


def test_each_splits_largest_value_is_kept():
    """``top_rows``: per split, exactly one row holding the largest non-NULL value of a
    searched CASE over two TIMESTAMP columns (a computed rowtime's form), none for a split
    whose values are all NULL."""
    import datetime as dt

    import numpy as np

    from connectors.predicate import arrow_values, top_rows
    rng = random.Random(7)
    n = 400
    kind = [rng.choice([None, 0, 1, 2]) for _ in range(n)]
    base = dt.datetime(2024, 1, 1)
    t1 = [None if rng.random() < 0.2 else base + dt.timedelta(microseconds=rng.randrange(10 ** 9)) for _ in range(n)]
    t2 = [None if rng.random() < 0.2 else base + dt.timedelta(microseconds=rng.randrange(10 ** 9)) for _ in range(n)]
    splits = np.array([rng.randrange(5) for _ in range(n)], np.int32)
    splits[splits == 4] = 3  # split 4: none
    arr = pa.StructArray.from_arrays([pa.array(kind, pa.int32()), pa.array(t1, pa.timestamp("us", "UTC")),
                                      pa.array(t2, pa.timestamp("us", "UTC"))], names=["k", "t1", "t2"])
    top = ["case", ["cmp", "=", ["k"], 0], ["path", ["t1"]], ["cmp", "=", ["k"], 1], ["path", ["t1"]],
           ["path", ["t2"]]]
    values = arrow_values(top, column_of(arr)).to_pylist()
    expected = [(t1[i] if kind[i] in (0, 1) else t2[i]) for i in range(n)]
    assert [v.replace(tzinfo=None) if v else None for v in values] == expected
    keep = top_rows([top], column_of(arr), splits)
    for s in range(5):
        rows_s = [i for i in range(n) if splits[i] == s]
        present = [expected[i] for i in rows_s if expected[i] is not None]
        kept = [i for i in rows_s if keep[i]]
        if not present:
            assert kept == []
        else:
            assert len(kept) == 1 and expected[kept[0]] == max(present)
    # without splits: one row, the largest of all
    (only,) = np.flatnonzero(top_rows([top], column_of(arr)))
    assert expected[only] == max(v for v in expected if v is not None)
