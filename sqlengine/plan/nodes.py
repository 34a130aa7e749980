"""The logical plan: frozen dataclass nodes with derived schemas.

Expressions are bound (columns are input positions, every node has a Flink type).
Each relational node's class name is its EXPLAIN label; ``children()`` and
``with_children()`` let rules rewrite the tree bottom-up.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Optional

from sqlengine.errors import Span
from sqlengine.types import DataType


# -- bound expressions ----------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    type: DataType

    def children(self) -> tuple["Expr", ...]:
        return ()


@dataclass(frozen=True)
class ColRef(Expr):
    index: int
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Lit(Expr):
    value: Any

    def __str__(self) -> str:
        if self.value is None:
            return "null"
        if isinstance(self.value, str):
            return f"'{self.value}'"
        return str(self.value)


@dataclass(frozen=True)
class Call(Expr):
    name: str
    args: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def __str__(self) -> str:
        if self.name in ("+", "-", "*", "/", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "||") \
                and len(self.args) == 2:
            return f"{_wrap(self.args[0])} {self.name} {_wrap(self.args[1])}"
        return f"{self.name}({', '.join(str(a) for a in self.args)})"


@dataclass(frozen=True)
class Cast(Expr):
    arg: Expr
    safe: bool = False

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)

    def __str__(self) -> str:
        return f"{'TRY_CAST' if self.safe else 'CAST'}({self.arg} AS {self.type.sql(False)})"


@dataclass(frozen=True)
class AggCall:
    name: str
    args: tuple[Expr, ...]
    type: DataType
    distinct: bool = False
    filter: Optional[Expr] = None

    def __str__(self) -> str:
        inner = ", ".join(str(a) for a in self.args) or ("*" if self.name == "COUNT" else "")
        text = f"{self.name}({'DISTINCT ' if self.distinct else ''}{inner})"
        return text + (f" FILTER (WHERE {self.filter})" if self.filter is not None else "")


def _wrap(e: Expr) -> str:
    return f"({e})" if isinstance(e, Call) and e.name in ("AND", "OR", "+", "-") else str(e)


def refs(e: Expr) -> set[int]:
    if isinstance(e, ColRef):
        return {e.index}
    out: set[int] = set()
    for c in e.children():
        out |= refs(c)
    return out


# -- relational nodes ---------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    name: str
    type: DataType


@dataclass(frozen=True)
class Node:
    def children(self) -> tuple["Node", ...]:
        return ()

    def with_children(self, children: tuple["Node", ...]) -> "Node":
        return self

    @property
    def schema(self) -> tuple[Field, ...]:
        raise NotImplementedError

    @property
    def label(self) -> str:
        return type(self).__name__

    def names(self) -> list[str]:
        return [f.name for f in self.schema]


@dataclass(frozen=True)
class Unary(Node):
    """A node with exactly one input; ``input`` is the first field of every subclass."""

    input: Node

    def children(self) -> tuple[Node, ...]:
        return (self.input,)

    def with_children(self, children) -> Node:
        return replace(self, input=children[0])


@dataclass(frozen=True)
class TableScan(Node):
    table: str  # fully qualified
    fields: tuple[Field, ...]  # physical columns
    options: tuple[tuple[str, str], ...]
    connector: str

    @property
    def schema(self) -> tuple[Field, ...]:
        return self.fields

    def explain(self) -> str:
        return f"TableSourceScan(table=[[{self.table.replace('.', ', ')}]], fields=[{', '.join(self.names())}])"


@dataclass(frozen=True)
class Values(Node):
    rows: tuple[tuple[Expr, ...], ...]
    fields: tuple[Field, ...]

    @property
    def schema(self) -> tuple[Field, ...]:
        return self.fields

    def explain(self) -> str:
        return f"Values(tuples=[{', '.join('{' + ', '.join(map(str, r)) + '}' for r in self.rows)}])"


@dataclass(frozen=True)
class Calc(Unary):
    projections: tuple[Expr, ...]
    out_names: tuple[str, ...]
    condition: Optional[Expr] = None


    @property
    def schema(self) -> tuple[Field, ...]:
        return tuple(Field(n, e.type) for n, e in zip(self.out_names, self.projections))

    def explain(self) -> str:
        sel = ", ".join(str(e) if (isinstance(e, ColRef) and e.name == n) else f"{e} AS {n}"
                        for e, n in zip(self.projections, self.out_names))
        where = f", where=[{self.condition}]" if self.condition is not None else ""
        return f"Calc(select=[{sel}]{where})"


@dataclass(frozen=True)
class WatermarkAssigner(Unary):
    rowtime: int
    delay_ms: int


    @property
    def schema(self):
        return self.input.schema

    def explain(self) -> str:
        name = self.input.schema[self.rowtime].name
        return f"WatermarkAssigner(rowtime=[{name}], watermark=[({name} - {self.delay_ms}:INTERVAL SECOND)])"


@dataclass(frozen=True)
class WindowSpec:
    kind: str  # TUMBLE | HOP | CUMULATE | SESSION
    time_col: int
    size_ms: int
    slide_ms: Optional[int] = None  # HOP slide / CUMULATE step
    gap_ms: Optional[int] = None
    offset_ms: int = 0
    partition_keys: tuple[int, ...] = ()

    def describe(self, names: list[str]) -> str:
        t = names[self.time_col]
        if self.kind == "TUMBLE":
            return f"TUMBLE(time_col=[{t}], size=[{_ms(self.size_ms)}])"
        if self.kind == "HOP":
            return f"HOP(time_col=[{t}], size=[{_ms(self.size_ms)}], slide=[{_ms(self.slide_ms)}])"
        if self.kind == "CUMULATE":
            return f"CUMULATE(time_col=[{t}], max_size=[{_ms(self.size_ms)}], step=[{_ms(self.slide_ms)}])"
        return f"SESSION(time_col=[{t}], gap=[{_ms(self.gap_ms)}])"


def _ms(ms: Optional[int]) -> str:
    if ms is None:
        return "?"
    for unit, size in (("day", 86400000), ("h", 3600000), ("min", 60000), ("s", 1000)):
        if ms % size == 0:
            return f"{ms // size} {unit}"
    return f"{ms} ms"


@dataclass(frozen=True)
class WindowTableFunction(Unary):
    """The window TVF on its own: appends window_start, window_end, window_time."""

    window: WindowSpec
    streaming: bool = True


    @property
    def schema(self):
        t = self.input.schema[self.window.time_col].type
        ts = DataType("TIMESTAMP", False, precision=3)
        wt = DataType(t.root, False, precision=t.precision, time_attr=t.time_attr if self.streaming else None)
        return self.input.schema + (Field("window_start", ts), Field("window_end", ts), Field("window_time", wt))

    def explain(self) -> str:
        return f"WindowTableFunction(window=[{self.window.describe(self.input.names())}])"


@dataclass(frozen=True)
class Aggregate(Unary):
    """GROUP BY keys with aggregate calls; output = keys then aggregates."""

    keys: tuple[int, ...]
    aggs: tuple[AggCall, ...]
    agg_names: tuple[str, ...]
    grouping_sets: Optional[tuple[tuple[int, ...], ...]] = None


    @property
    def schema(self):
        ins = self.input.schema
        keys = tuple(ins[k] for k in self.keys)
        return keys + tuple(Field(n, a.type) for n, a in zip(self.agg_names, self.aggs))

    def explain(self) -> str:
        names = self.input.names()
        keys = ", ".join(names[k] for k in self.keys)
        sel = ", ".join([names[k] for k in self.keys] + [f"{a} AS {n}" for a, n in zip(self.aggs, self.agg_names)])
        return f"GroupAggregate(groupBy=[{keys}], select=[{sel}])"


@dataclass(frozen=True)
class WindowAggregate(Unary):
    """Aggregate over a window TVF grouped by window_start/window_end (+ keys).

    Output: keys, the window properties in ``props``, then aggregates
    (each one of window_start | window_end | window_time).
    """

    window: WindowSpec
    keys: tuple[int, ...]
    aggs: tuple[AggCall, ...]
    agg_names: tuple[str, ...]
    props: tuple[str, ...]
    prop_names: tuple[str, ...]
    streaming: bool = True


    @property
    def schema(self):
        ins = self.input.schema
        out = tuple(ins[k] for k in self.keys)
        t = ins[self.window.time_col].type
        for p, n in zip(self.props, self.prop_names):
            if p == "window_time":
                out += (Field(n, DataType(t.root, False, precision=t.precision,
                                          time_attr="ROWTIME" if self.streaming else None)),)
            else:
                out += (Field(n, DataType("TIMESTAMP", False, precision=3)),)
        return out + tuple(Field(n, a.type) for n, a in zip(self.agg_names, self.aggs))

    def explain(self) -> str:
        names = self.input.names()
        keys = ", ".join(names[k] for k in self.keys)
        sel = ", ".join([names[k] for k in self.keys] + [f"{a} AS {n}" for a, n in zip(self.aggs, self.agg_names)]
                        + [f"{p.replace('window_', '')}('w$) AS {n}" for p, n in zip(self.props, self.prop_names)])
        return (f"WindowAggregate(groupBy=[{keys}], window=[{self.window.describe(names)}], "
                f"select=[{sel}])")


@dataclass(frozen=True)
class Union(Node):
    inputs: tuple[Node, ...]

    def children(self):
        return self.inputs

    def with_children(self, children):
        return replace(self, inputs=tuple(children))

    @property
    def schema(self):
        return self.inputs[0].schema

    def explain(self) -> str:
        return f"Union(all=[true], union=[{', '.join(self.names())}])"


@dataclass(frozen=True)
class SortKey:
    index: int
    ascending: bool = True
    nulls_first: Optional[bool] = None


@dataclass(frozen=True)
class Sort(Unary):
    keys: tuple[SortKey, ...]
    limit: Optional[int] = None
    offset: int = 0


    @property
    def schema(self):
        return self.input.schema

    def explain(self) -> str:
        names = self.input.names()
        order = ", ".join(f"{names[k.index]} {'ASC' if k.ascending else 'DESC'}" for k in self.keys)
        lim = f", offset=[{self.offset}], fetch=[{self.limit}]" if self.limit is not None else ""
        return (f"SortLimit(orderBy=[{order}]{lim})" if self.limit is not None and self.keys
                else f"Limit(offset=[{self.offset}], fetch=[{self.limit}])" if not self.keys
                else f"Sort(orderBy=[{order}])")


@dataclass(frozen=True)
class Sink(Unary):
    table: str
    fields: tuple[Field, ...]
    options: tuple[tuple[str, str], ...]
    connector: str
    overwrite: bool = False
    span: Optional[Span] = field(default=None, compare=False)


    @property
    def schema(self):
        return self.fields

    def explain(self) -> str:
        return f"Sink(table=[{self.table}], fields=[{', '.join(f.name for f in self.fields)}])"


def walk(node: Node):
    yield node
    for c in node.children():
        yield from walk(c)
