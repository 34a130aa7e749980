"""The logical plan: frozen dataclass nodes with derived schemas.

Expressions are bound (columns are input positions, every node has a Flink type); one
generic ``Expr.transform`` rewrites them. ``children()`` and ``with_children()`` let rules
rewrite the tree bottom-up. How a node is explained and run is its operator's business
(``physical/operators``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

from sqlengine.errors import Span
from sqlengine.types import DataType


# -- bound expressions ----------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    type: DataType

    def children(self) -> tuple["Expr", ...]:
        return ()

    def with_children(self, children: tuple["Expr", ...]) -> "Expr":
        return self

    def transform(self, fn: Callable[["Expr"], Optional["Expr"]]) -> "Expr":
        """Rewrite bottom-up (sqlglot's ``transform``): children first, then ``fn`` on the
        node with its new children; ``fn`` returns a replacement, or None to keep it."""
        kids = self.children()
        new = tuple(k.transform(fn) for k in kids)
        node = self.with_children(new) if new != kids else self
        out = fn(node)
        return node if out is None else out


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

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return replace(self, args=children)

    def __str__(self) -> str:
        if self.name in ("+", "-", "*", "/", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "||") \
                and len(self.args) == 2:
            return f"{_wrap(self.args[0])} {self.name} {_wrap(self.args[1])}"
        return f"{self.name}({', '.join(str(a) for a in self.args)})"


@dataclass(frozen=True)
class PyCall(Call):
    """A call of a user-defined Python function (sqlengine/functions/python_udf.py);
    ``function`` is its ``UserDefinedScalarFunction``."""
    function: Any = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class Cast(Expr):
    arg: Expr
    safe: bool = False

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return replace(self, arg=children[0])

    def __str__(self) -> str:
        return f"{'TRY_CAST' if self.safe else 'CAST'}({self.arg} AS {self.type.sql(False)})"


@dataclass(frozen=True)
class AggCall:
    name: str
    args: tuple[Expr, ...]
    type: DataType
    distinct: bool = False
    filter: Optional[Expr] = None
    # a user-defined aggregate function's ``UserDefinedAggregateFunction`` (python_udaf.py)
    function: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        inner = ", ".join(str(a) for a in self.args) or ("*" if self.name == "COUNT" else "")
        text = f"{self.name}({'DISTINCT ' if self.distinct else ''}{inner})"
        return text + (f" FILTER (WHERE {self.filter})" if self.filter is not None else "")


def _wrap(e: Expr) -> str:
    return f"({e})" if isinstance(e, Call) and e.name in ("AND", "OR", "+", "-") else str(e)


def map_refs(e: Expr, fn: Callable[[ColRef], Expr]) -> Expr:
    """``e`` with every column reference replaced by ``fn(ref)``."""
    return e.transform(lambda x: fn(x) if isinstance(x, ColRef) else None)


def shift_refs(e: Expr, by: int, start: int = 0) -> Expr:
    """``e`` with the references at or after position ``start`` moved by ``by``."""
    return map_refs(e, lambda r: replace(r, index=r.index + by) if r.index >= start else r)


def conjuncts(e: Optional[Expr]) -> list[Expr]:
    """The operands of a condition's top-level ANDs (none for no condition)."""
    if e is None:
        return []
    if isinstance(e, Call) and e.name == "AND":
        return [c for a in e.args for c in conjuncts(a)]
    return [e]


def conjoin(parts: list[Expr]) -> Optional[Expr]:
    """``parts`` ANDed, left-deep (None for none)."""
    out: Optional[Expr] = None
    for p in parts:
        out = p if out is None else Call(DataType("BOOLEAN", out.type.nullable or p.type.nullable), "AND", (out, p))
    return out


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
    fields: tuple[Field, ...]  # physical columns, then the metadata columns
    options: tuple[tuple[str, str], ...]
    connector: str
    metadata: tuple[tuple[str, str], ...] = ()  # (column, metadata key) of the trailing fields
    primary_key: tuple[str, ...] = ()
    # The changelog the source emits (ConnectorFactory.source_changelog): "" insert-only,
    # "all" (+I -U +U -D), "upsert" (+U -D by primary key, normalized downstream).
    changelog: str = ""
    # Whether the table declares a watermark (the scan then carries its splits, for
    # per-split watermarks).
    watermarked: bool = False
    partition_keys: tuple[str, ...] = ()  # the table's PARTITIONED BY columns

    @property
    def schema(self) -> tuple[Field, ...]:
        return self.fields


@dataclass(frozen=True)
class ChangelogNormalize(Unary):
    """An upsert stream (``+U``/``-D`` by key, no ``-U``) made a full changelog: the last
    row per key is kept, so an update retracts the old row (``-U``) and a delete carries
    the whole row (Flink's StreamPhysicalChangelogNormalize)."""

    keys: tuple[int, ...]

    @property
    def schema(self) -> tuple[Field, ...]:
        return self.input.schema


@dataclass(frozen=True)
class Values(Node):
    rows: tuple[tuple[Expr, ...], ...]
    fields: tuple[Field, ...]

    @property
    def schema(self) -> tuple[Field, ...]:
        return self.fields


@dataclass(frozen=True)
class Calc(Unary):
    projections: tuple[Expr, ...]
    out_names: tuple[str, ...]
    condition: Optional[Expr] = None


    @property
    def schema(self) -> tuple[Field, ...]:
        return tuple(Field(n, e.type) for n, e in zip(self.out_names, self.projections))


@dataclass(frozen=True)
class WatermarkAssigner(Unary):
    rowtime: int
    delay_ms: int


    @property
    def schema(self):
        return self.input.schema


@dataclass(frozen=True)
class WindowSpec:
    kind: str  # TUMBLE | HOP | CUMULATE | SESSION
    time_col: int
    size_ms: int
    slide_ms: Optional[int] = None  # HOP slide / CUMULATE step
    gap_ms: Optional[int] = None
    offset_ms: int = 0
    partition_keys: tuple[int, ...] = ()
    # Flink's window-attached windowing (a window aggregation over the output of another,
    # grouped by its window_start and window_end): the input's (start, end) columns hold
    # each row's window, already assigned; the other fields describe that window.
    attached: Optional[tuple[int, int]] = None

    def describe(self, names: list[str]) -> str:
        if self.attached is not None:
            s, e = (names[i] for i in self.attached)
            sizes = {"TUMBLE": f"size=[{_ms(self.size_ms)}]",
                     "HOP": f"size=[{_ms(self.size_ms)}], slide=[{_ms(self.slide_ms)}]",
                     "CUMULATE": f"max_size=[{_ms(self.size_ms)}], step=[{_ms(self.slide_ms)}]",
                     "SESSION": f"gap=[{_ms(self.gap_ms)}]"}[self.kind]
            return f"{self.kind}(win_start=[{s}], win_end=[{e}], {sizes})"
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


@dataclass(frozen=True)
class Expand(Unary):
    """One row per grouping set for each input row (Flink's Expand, below an aggregate
    with GROUPING SETS / ROLLUP / CUBE in streaming mode or over a window): the input
    columns as they are (what the aggregates read), then a copy of each grouping key,
    NULL where the set does not group by it, then ``$e``, the set's position in
    ``sets``. The aggregate above groups by the copies and ``$e``."""

    keys: tuple[int, ...]  # input positions of every grouping key
    sets: tuple[tuple[int, ...], ...]  # per set, the input positions of its keys

    @property
    def schema(self):
        ins = self.input.schema
        copies = tuple(Field(ins[k].name, ins[k].type.with_nullable(True).with_time_attr(None))
                       if any(k not in s for s in self.sets) else Field(ins[k].name, ins[k].type.with_time_attr(None))
                       for k in self.keys)
        return ins + copies + (Field("$e", DataType("INT", False)),)


@dataclass(frozen=True)
class Aggregate(Unary):
    """GROUP BY keys with aggregate calls; output = keys then aggregates.

    ``grouping_sets`` (GROUPING SETS / ROLLUP / CUBE): one tuple per set of the input
    column positions grouped in that set (each a subset of ``keys``); in a set's rows the
    other keys are NULL (so they are nullable in the schema). ``GROUPING(k)`` and
    ``GROUPING_ID(k1, ..)`` are AggCalls named GROUPING / GROUPING_ID over key ColRefs
    (BIGINT NOT NULL; bit 1 = aggregated away, first argument most significant)."""

    keys: tuple[int, ...]
    aggs: tuple[AggCall, ...]
    agg_names: tuple[str, ...]
    grouping_sets: Optional[tuple[tuple[int, ...], ...]] = None


    @property
    def schema(self):
        ins = self.input.schema
        keys = tuple(ins[k] for k in self.keys)
        if self.grouping_sets is not None:  # a key outside some set is NULL in that set's rows
            keys = tuple(Field(f.name, f.type.with_nullable(True).with_time_attr(None))
                         if any(k not in s for s in self.grouping_sets) else f
                         for k, f in zip(self.keys, keys))
        return keys + tuple(Field(n, a.type) for n, a in zip(self.agg_names, self.aggs))


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


@dataclass(frozen=True)
class Sink(Unary):
    table: str
    fields: tuple[Field, ...]
    options: tuple[tuple[str, str], ...]
    connector: str
    overwrite: bool = False
    span: Optional[Span] = field(default=None, compare=False)
    metadata: tuple[tuple[str, str], ...] = ()  # (column, metadata key) of written metadata columns
    primary_key: tuple[str, ...] = ()
    partition_keys: tuple[str, ...] = ()  # the table's PARTITIONED BY columns

    @property
    def schema(self):
        return self.fields


def walk(node: Node):
    yield node
    for c in node.children():
        yield from walk(c)


# -- joins, OVER, ranking, UNNEST ---------------------------------------------------
# Contracts shared by the binder (which builds them), the batch lowering
# (sqlengine/runtime/ops/*: the operator over whole inputs) and the epoch runtime
# (sqlengine/runtime/streaming/*: the same operator, incrementally, per epoch).
JOIN_KINDS = ("INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI")


@dataclass(frozen=True)
class Join(Node):
    """A regular join. ``condition`` is bound over ``left.schema + right.schema`` (right
    columns at offset ``len(left.schema)``); it includes the equi-predicates whose
    positions are also listed in ``left_keys``/``right_keys`` (right_keys index
    ``right.schema``). SEMI/ANTI (IN/EXISTS subqueries) output only the left columns."""

    left: Node
    right: Node
    kind: str
    condition: Optional[Expr]
    left_keys: tuple[int, ...] = ()
    right_keys: tuple[int, ...] = ()

    def __post_init__(self):
        assert self.kind in JOIN_KINDS, self.kind
        assert len(self.left_keys) == len(self.right_keys)

    def children(self):
        return (self.left, self.right)

    def with_children(self, children):
        return replace(self, left=children[0], right=children[1])

    @property
    def schema(self):
        ls, rs = self.left.schema, self.right.schema
        if self.kind in ("SEMI", "ANTI"):
            return ls
        if not self.keeps_time_attributes():  # a regular join materializes rowtimes
            ls = tuple(Field(f.name, f.type.with_time_attr(None)) for f in ls)
            rs = tuple(Field(f.name, f.type.with_time_attr(None)) for f in rs)
        if self.kind in ("RIGHT", "FULL"):
            ls = tuple(Field(f.name, f.type.with_nullable(True).with_time_attr(None)) for f in ls)
        if self.kind in ("LEFT", "FULL"):
            rs = tuple(Field(f.name, f.type.with_nullable(True).with_time_attr(None)) for f in rs)
        return ls + rs

    def keeps_time_attributes(self) -> bool:
        return type(self) is not Join

    def join_type(self) -> str:
        return {"INNER": "InnerJoin", "LEFT": "LeftOuterJoin", "RIGHT": "RightOuterJoin",
                "FULL": "FullOuterJoin", "SEMI": "LeftSemiJoin", "ANTI": "LeftAntiJoin"}[self.kind]


@dataclass(frozen=True)
class IntervalJoin(Join):
    """A join whose condition bounds ``right.time`` around ``left.time``:
    ``left.time + lower_ms <= right.time <= left.time + upper_ms`` (both time
    attributes; ``right_time`` indexes ``right.schema``). Output time attributes stay."""

    left_time: int = -1
    right_time: int = -1
    lower_ms: int = 0
    upper_ms: int = 0


@dataclass(frozen=True)
class WindowJoin(Join):
    """A join of two window TVF outputs on equal windows: ``left_window``/``right_window``
    are the (window_start, window_end) column positions of each side. ``left_keys`` /
    ``right_keys`` hold the other equi keys (not the window columns); ``condition`` all."""

    left_window: tuple[int, int] = (-1, -1)
    right_window: tuple[int, int] = (-1, -1)


@dataclass(frozen=True)
class TemporalJoin(Join):
    """``left JOIN right FOR SYSTEM_TIME AS OF left.time``: each left row joins the version
    of ``right`` (keyed by its PRIMARY KEY = ``right_keys``) valid at the left row's time.
    Event time: ``right_time`` is right's rowtime; processing time (lookup): -1."""

    left_time: int = -1
    right_time: int = -1


@dataclass(frozen=True)
class Frame:
    """An OVER frame: ``ROWS`` (counts) or ``RANGE`` (ms on the order key);
    ``lower`` None = UNBOUNDED PRECEDING, else a non-negative offset preceding;
    ``upper`` 0 = CURRENT ROW (Flink streaming supports only that), +n = n FOLLOWING,
    None = UNBOUNDED FOLLOWING (batch only; also the frame of an OVER without ORDER BY).
    Ranking calls (ROW_NUMBER, RANK, DENSE_RANK) carry ``Frame("ROWS", None, 0)``."""

    kind: str = "RANGE"
    lower: Optional[int] = None
    upper: int = 0


@dataclass(frozen=True)
class OverCall:
    name: str  # an aggregate (SUM, COUNT, ...) or ROW_NUMBER | RANK | DENSE_RANK
    args: tuple[Expr, ...]
    type: DataType
    frame: Frame = Frame()
    distinct: bool = False
    function: Any = field(default=None, compare=False, hash=False, repr=False)  # a udaf (AggCall's)

    def __str__(self) -> str:
        inner = ", ".join(str(a) for a in self.args)
        return f"{self.name}({'DISTINCT ' if self.distinct else ''}{inner})"


@dataclass(frozen=True)
class Over(Unary):
    """OVER aggregation: the input columns, then one column per call (all calls share
    the partition, order and frame of one window)."""

    partition_keys: tuple[int, ...]
    order_keys: tuple["SortKey", ...]
    calls: tuple[OverCall, ...]
    call_names: tuple[str, ...]

    @property
    def schema(self):
        return self.input.schema + tuple(Field(n, c.type) for n, c in zip(self.call_names, self.calls))


@dataclass(frozen=True)
class Rank(Unary):
    """Top-N (``ROW_NUMBER() OVER (PARTITION BY .. ORDER BY ..)`` filtered to
    ``rank_start <= rn <= rank_end``) and deduplication (ROW_NUMBER, rank_end = 1).
    Output: the input columns, plus the rank (BIGINT) when ``output_rank``."""

    partition_keys: tuple[int, ...]
    order_keys: tuple["SortKey", ...]
    rank_fn: str  # ROW_NUMBER | RANK | DENSE_RANK
    rank_start: int
    rank_end: int
    output_rank: bool
    rank_name: str = "rn"

    @property
    def schema(self):
        extra = (Field(self.rank_name, DataType("BIGINT", False)),) if self.output_rank else ()
        return self.input.schema + extra

    def is_deduplicate(self) -> bool:
        """Flink's Deduplicate: ROW_NUMBER = 1 ordered by a time attribute, rank not selected."""
        return (self.rank_fn == "ROW_NUMBER" and self.rank_start == 1 and self.rank_end == 1
                and not self.output_rank and len(self.order_keys) == 1
                and self.input.schema[self.order_keys[0].index].type.time_attr is not None)


@dataclass(frozen=True)
class Unnest(Unary):
    """``CROSS JOIN UNNEST(expr) AS t(cols...)``: the input columns, then the element
    column(s) of the ARRAY/MAP/MULTISET ``expr`` (a ROW element expands to its
    fields; a MAP to key, value), then the ordinal when ``with_ordinality``.
    ``left_outer``: LEFT JOIN UNNEST ... ON TRUE keeps rows with empty collections."""

    expr: Expr
    out_fields: tuple[Field, ...]
    with_ordinality: bool = False
    left_outer: bool = False

    @property
    def schema(self):
        return self.input.schema + self.out_fields


# -- MATCH_RECOGNIZE ---------------------------------------------------------------------
@dataclass(frozen=True)
class PatternElement:
    """One variable of a MATCH_RECOGNIZE pattern with its quantifier: ``min`` to ``max``
    rows (None: unbounded); ``greedy``: Flink's GREEDY property (a loop or a range that is
    not reluctant; ``?`` and ``{n}`` have none)."""

    var: str
    min: int
    max: Optional[int]
    greedy: bool

    def __str__(self) -> str:
        q = {(1, 1): "", (0, None): "*", (1, None): "+", (0, 1): "?"}.get((self.min, self.max))
        if q is None:
            q = (f"{{{self.min},}}" if self.max is None else f"{{{self.min}}}" if self.min == self.max
                 else f"{{{self.min}, {self.max}}}")
        reluctant = q not in ("", "?") and self.min != self.max and not self.greedy
        return f"{self.var}{q}{'?' if reluctant else ''}"


@dataclass(frozen=True)
class MatchNav(Expr):
    """A value of a match (MATCH_RECOGNIZE's DEFINE and MEASURES): ``kind`` 'last' /
    'first' is ``arg`` (an expression over the input row) on the ``offset``-th row from
    the last / first mapped to ``var``; 'agg' is aggregate ``fn`` of ``arg`` over those
    rows (``arg`` None: COUNT(*)); 'rowtime' / 'proctime' are MATCH_ROWTIME() /
    MATCH_PROCTIME(). ``var`` '*' means every row of the match. In a DEFINE condition
    of variable v the row being tested counts as v's last row (Flink's running
    semantics); in MEASURES the match is complete."""

    kind: str
    var: str = "*"
    arg: Optional[Expr] = None
    offset: int = 0
    fn: str = ""

    def __str__(self) -> str:
        if self.kind in ("rowtime", "proctime"):
            return f"MATCH_{self.kind.upper()}()"
        inner = str(self.arg) if self.arg is not None else "*"
        inner = inner if self.var == "*" else f"{self.var}.{inner}" if self.arg is not None else f"{self.var}.*"
        if self.kind == "agg":
            return f"{self.fn}({inner})"
        return f"{self.kind.upper()}({inner}, {self.offset})"


@dataclass(frozen=True)
class Match(Unary):
    """MATCH_RECOGNIZE ... ONE ROW PER MATCH (Flink's Match node): per partition, in the
    order of ``order_keys`` (a time attribute first), the rows matching ``pattern`` with
    each variable's DEFINE condition. Output: the partition keys, then one column per
    value MEASURES reads (``navs``); a Calc above computes the measures from them.
    ``after``: the AFTER MATCH SKIP strategy (PAST LAST ROW | TO NEXT ROW | TO FIRST |
    TO LAST, the last two with ``after_var``); ``within_ms``: the WITHIN interval."""

    partition_keys: tuple[int, ...]
    order_keys: tuple["SortKey", ...]
    pattern: tuple[PatternElement, ...]
    defines: tuple[tuple[str, Expr], ...]
    navs: tuple[MatchNav, ...]
    nav_names: tuple[str, ...]
    after: str = "PAST LAST ROW"
    after_var: Optional[str] = None
    within_ms: Optional[int] = None

    @property
    def schema(self):
        keys = tuple(Field(self.input.schema[k].name, self.input.schema[k].type.with_time_attr(None))
                     for k in self.partition_keys)
        return keys + tuple(Field(n, v.type) for n, v in zip(self.nav_names, self.navs))
