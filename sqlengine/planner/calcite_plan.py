"""EXPLAIN's "Abstract Syntax Tree" section as Flink prints it: the query's logical plan in
Calcite's nodes (``LogicalProject(user=[$0])``, ``LogicalFilter(condition=[>($2, 10)])``,
``LogicalAggregate(group=[{0}], cnt=[COUNT()])``, ``LogicalTableScan(table=[[c, d, t]])``,
...) and Calcite's tree layout (``:-`` for every input but the last).

Rendered from sqlengine's bound plan (``Planned.bound``), which the binder has already
shaped a little further than Calcite's converter: a Calc is Calcite's LogicalProject over a
LogicalFilter; an Aggregate gets Calcite's input projection (the group keys first, then
each aggregate's arguments and filter); a window aggregate is Calcite's aggregate over
the window table function; an OVER aggregate is folded into the projection that reads
it. Where the binder decided something Calcite leaves to the optimizer (an IN subquery
as a semi join, INTERSECT as a semi join) the node is printed in Calcite's nearest
logical form; a node with no Calcite counterpart falls back to sqlengine's own label.
Expressions are printed as Calcite's RexNodes: ``$i`` for input fields, calls in prefix
form (``>($2, 10)``, ``AND(...)``), literals with their type where Calcite shows it
(``1.5:DECIMAL(2, 1)``, ``_UTF-16LE'x'``, ``1000:INTERVAL SECOND``).
"""
from __future__ import annotations

from decimal import Decimal
from typing import Callable, Optional

from sqlengine.plan import nodes as P
from sqlengine.types import DataType

Ref = Callable[[int], str]
_BINARY = {"+", "-", "*", "/", "=", "<>", "<", "<=", ">", ">=", "||", "%"}
_RENAMED = {"NEG": "-", "POS": "+", "IS_NULL": "IS NULL", "IS_NOT_NULL": "IS NOT NULL", "MOD": "MOD",
            "IS_TRUE": "IS TRUE", "IS_FALSE": "IS FALSE", "IS_NOT_TRUE": "IS NOT TRUE",
            "IS_NOT_FALSE": "IS NOT FALSE", "IS_NOT_DISTINCT_FROM": "IS NOT DISTINCT FROM",
            "IS_DISTINCT_FROM": "IS DISTINCT FROM", "NOT_LIKE": "NOT LIKE"}
# NOT over a comparison, as Calcite's simplifier rewrites it while converting
_NEGATED = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "=": "<>", "<>": "="}
_UNITS = (("DAY", 86_400_000), ("HOUR", 3_600_000), ("MINUTE", 60_000), ("SECOND", 1000))


# -- the tree ---------------------------------------------------------------------------
class Line:
    """One node of the printed tree: its text and its inputs."""

    def __init__(self, text: str, inputs: tuple["Line", ...] = ()):
        self.text, self.inputs = text, inputs


def render_calcite(root: P.Node) -> str:
    """The plan under ``root`` as Flink's Abstract Syntax Tree section prints it."""
    lines: list[str] = []
    _layout(_query(root), "", "", lines)
    return "\n".join(lines)


def _layout(line: Line, head: str, rest: str, out: list[str]) -> None:
    out.append(head + line.text)
    for i, child in enumerate(line.inputs):
        last = i == len(line.inputs) - 1
        _layout(child, rest + ("+- " if last else ":- "), rest + ("   " if last else ":  "), out)


def _convert(node: P.Node) -> Line:
    fn = _CONVERTERS.get(type(node))
    if fn is None:
        for cls, f in _CONVERTERS.items():
            if isinstance(node, cls):
                fn = f
                break
    if fn is None:  # no Calcite counterpart: sqlengine's own node
        from sqlengine.physical.operators import operator_for
        return Line(operator_for(node).explain(node), tuple(_convert(c) for c in node.children()))
    return fn(node)


def _query(node: P.Node) -> Line:
    """A query block: Calcite's converter ends every SELECT with its select list's
    projection (kept even when it is the identity), which the binder leaves out when it
    selects every column; an aggregate's, a set operation's or a sort's own shape stays."""
    if isinstance(node, (P.Aggregate, P.WindowAggregate, P.Union, P.Sort, P.Sink)) or \
            (isinstance(node, P.Calc) and not _is_filter(node)):
        return _convert(node)
    names = [f.name for f in node.schema]
    return _project(names, [_dollar(i) for i in range(len(names))], _convert(node))


def _is_filter(node: P.Calc) -> bool:
    """A Calc that only filters (every input column, in order): Calcite's LogicalFilter."""
    return node.condition is not None and node.out_names == tuple(node.input.names()) and \
        all(isinstance(e, P.ColRef) and e.index == i for i, e in enumerate(node.projections))


def _dollar(i: int) -> str:
    return f"${i}"


# -- relational nodes -------------------------------------------------------------------------
def _scan(node: P.TableScan) -> Line:
    return Line(f"LogicalTableScan(table=[[{node.table.replace('.', ', ')}]])")


def _watermark(node: P.WatermarkAssigner) -> Line:
    rowtime = node.input.schema[node.rowtime]
    wm = _dollar(node.rowtime) if not node.delay_ms else \
        f"-({_dollar(node.rowtime)}, {_interval(node.delay_ms)})"
    return Line(f"LogicalWatermarkAssigner(rowtime=[{rowtime.name}], watermark=[{wm}])", (_convert(node.input),))


def _project(names, exprs: list[str], child: Line) -> Line:
    return Line("LogicalProject(" + ", ".join(f"{n}=[{e}]" for n, e in zip(names, exprs)) + ")", (child,))


def _calc(node: P.Calc) -> Line:
    if _is_filter(node) and not isinstance(node.input, (P.Aggregate, P.WindowAggregate)):
        return Line(f"LogicalFilter(condition=[{rex(node.condition, _dollar)}])", (_convert(node.input),))
    below, ref = _input_of_calc(node.input)
    if below is None:
        return _convert_identity_skipped(node)
    if node.condition is not None:
        below = Line(f"LogicalFilter(condition=[{rex(node.condition, ref)}])", (below,))
    return _project(node.out_names, [rex(e, ref) for e in node.projections], below)


def _convert_identity_skipped(node: P.Calc) -> Line:
    """A Calc directly over an aggregate: Calcite's converter builds the aggregate's final
    projection with RelBuilder, which drops an identity; else a project over the aggregate."""
    visible: dict[int, str] = {}
    for e, name in zip(node.projections, node.out_names):
        if isinstance(e, P.ColRef):
            visible.setdefault(e.index, name)
    agg, positions, width = _aggregate(node.input, visible)
    ref = (lambda i: _dollar(positions[i]))
    mapped = [positions[e.index] if isinstance(e, P.ColRef) else None for e in node.projections]
    if node.condition is None and mapped == list(range(width)):
        return agg
    below = agg
    if node.condition is not None:
        below = Line(f"LogicalFilter(condition=[{rex(node.condition, ref)}])", (below,))
    return _project(node.out_names, [rex(e, ref) for e in node.projections], below)


def _input_of_calc(node: P.Node) -> tuple[Optional[Line], Ref]:
    """The converted input of a Calc and how its columns print; None for an aggregate
    (handled by ``_convert_identity_skipped``); an OVER aggregate prints its calls inline."""
    if isinstance(node, (P.Aggregate, P.WindowAggregate)):
        return None, _dollar
    if isinstance(node, P.Over):
        width = len(node.input.schema)
        ref = _over_ref(node, width)
        return _convert(node.input), ref
    return _convert(node), _dollar


def _over_ref(node: P.Over, width: int) -> Ref:
    def ref(i: int) -> str:
        if i < width:
            return _dollar(i)
        return _over_call(node, node.calls[i - width])
    return ref


def _over_call(node: P.Over, call: P.OverCall) -> str:
    """``f(args) OVER (window)``; SUM as Calcite converts a windowed SUM:
    ``CASE(>(COUNT(x) OVER w, 0), $SUM0(x) OVER w, null:T)``."""
    if call.name == "SUM" and not call.distinct:
        count = _over_text(node, "COUNT", call)
        return f"CASE(>({count}, 0), {_over_text(node, '$SUM0', call)}, null:{_type(call.type, charset=True)})"
    return _over_text(node, call.name, call)


def _over_text(node: P.Over, name: str, call: P.OverCall) -> str:
    args = ", ".join(rex(a, _dollar) for a in call.args)
    window = []
    if node.partition_keys:
        window.append("PARTITION BY " + ", ".join(_dollar(k) for k in node.partition_keys))
    if node.order_keys:
        window.append("ORDER BY " + ", ".join(_sort_key(k) for k in node.order_keys))
    if call.name not in ("ROW_NUMBER", "RANK", "DENSE_RANK") and node.order_keys:
        window.append(_frame(call.frame))
    return f"{name}({'DISTINCT ' if call.distinct else ''}{args}) OVER ({' '.join(window)})"


def _sort_key(k: P.SortKey) -> str:
    nulls_first = k.nulls_first if k.nulls_first is not None else k.ascending
    return _dollar(k.index) + ("" if k.ascending else " DESC") + (" NULLS FIRST" if nulls_first else " NULLS LAST")


def _frame(f: P.Frame) -> str:
    def bound(v: Optional[int], side: str) -> str:
        if v is None:
            return f"UNBOUNDED {side}"
        if v == 0:
            return "CURRENT ROW"
        return f"{v if f.kind == 'ROWS' else _interval(v)} {side}"
    if f.upper == 0:
        return f"{f.kind} {bound(f.lower, 'PRECEDING')}"
    return f"{f.kind} BETWEEN {bound(f.lower, 'PRECEDING')} AND {bound(f.upper, 'FOLLOWING')}"


def _over(node: P.Over) -> Line:
    width = len(node.input.schema)
    ref = _over_ref(node, width)
    names = [f.name for f in node.schema]
    return _project(names, [ref(i) for i in range(len(names))], _convert(node.input))


def _aggregate(node: P.Node, visible: Optional[dict] = None) -> tuple[Line, list[int], int]:
    """An Aggregate or WindowAggregate as Calcite's LogicalAggregate over its input
    projection; with, per output column of sqlengine's node, its position in Calcite's,
    and the number of Calcite's output columns."""
    if isinstance(node, P.WindowAggregate):
        return _window_aggregate(node, visible)
    assert isinstance(node, P.Aggregate)
    ins = node.input.schema
    pre, index = _pre_projection(list(node.keys), ins)
    aggs = [_agg_call(a, pre, index, ins) for a in node.aggs]
    child = _convert(node.input)
    if [e for e, _ in pre] != [_dollar(i) for i in range(len(ins))]:
        child = _project([n for _, n in pre], [e for e, _ in pre], child)
    group = "{" + ", ".join(str(i) for i in range(len(node.keys))) + "}"
    text = f"LogicalAggregate(group=[{group}]" + "".join(f", {n}=[{a}]" for n, a in zip(_agg_names(node, visible, len(node.keys)), aggs)) + ")"
    return Line(text, (child,)), list(range(len(node.schema))), len(node.schema)


def _agg_names(node, visible: Optional[dict], first: int) -> list[str]:
    """Each aggregate call's name: the select list's name for it (``visible``: sqlengine's
    output position -> the name the projection above gives it); one only HAVING reads is
    Calcite's ``agg#i``."""
    if visible is None:
        return list(node.agg_names)
    return [visible.get(first + i, f"agg#{i}") for i in range(len(node.agg_names))]


def _pre_projection(keys: list[int], ins) -> tuple[list[tuple[str, str]], dict]:
    pre = [(_dollar(k), ins[k].name) for k in keys]
    index = {_dollar(k): i for i, k in enumerate(keys)}
    return pre, index


def _agg_call(a: P.AggCall, pre: list, index: dict, ins) -> str:
    args = []
    for arg in a.args:
        text = rex(arg, _dollar)
        if text not in index:
            index[text] = len(pre)
            pre.append((text, ins[arg.index].name if isinstance(arg, P.ColRef) else f"$f{len(pre)}"))
        args.append(f"${index[text]}")
    call = f"{a.name}({'DISTINCT ' if a.distinct else ''}{', '.join(args)})"
    if a.filter is not None:
        text = f"IS TRUE({rex(a.filter, _dollar)})"
        if text not in index:
            index[text] = len(pre)
            pre.append((text, f"$f{len(pre)}"))
        call += f" FILTER ${index[text]}"
    return call


def _window_aggregate(node: P.WindowAggregate, visible: Optional[dict]) -> tuple[Line, list[int], int]:
    """Calcite: LogicalAggregate(group by window_start, window_end, keys) over a projection
    of the window table function's output (the input's columns, then window_start,
    window_end, window_time)."""
    ins = node.input.schema
    width = len(ins)
    tvf_fields = [f.name for f in ins] + ["window_start", "window_end", "window_time"]
    group = [width, width + 1] + list(node.keys)
    pre = [(_dollar(g), tvf_fields[g]) for g in group]
    index = {_dollar(g): i for i, g in enumerate(group)}
    aggs = [_agg_call(a, pre, index, ins) for a in node.aggs]
    tvf = _tvf_line(node.window, node.input, node.streaming)
    child = _project([n for _, n in pre], [e for e, _ in pre], tvf)
    text = "LogicalAggregate(group=[{" + ", ".join(str(i) for i in range(len(group))) + "}]" + \
        "".join(f", {n}=[{a}]" for n, a in zip(_agg_names(node, visible, len(node.keys) + len(node.props)),
                                                aggs)) + ")"
    # sqlengine's output: keys, the window properties, aggregates
    positions = [2 + i for i in range(len(node.keys))]
    props = {"window_start": 0, "window_end": 1}
    positions += [props.get(p, 0) for p in node.props]
    positions += [len(group) + i for i in range(len(node.aggs))]
    return Line(text, (child,)), positions, len(group) + len(node.aggs)


def _window_tvf(node: P.WindowTableFunction) -> Line:
    return _tvf_line(node.window, node.input, node.streaming)


def _tvf_line(w: P.WindowSpec, input_: P.Node, streaming: bool) -> Line:
    ins = input_.schema
    args = ["TABLE(#0)", f"DESCRIPTOR(_UTF-16LE'{ins[w.time_col].name}')"]
    if w.kind == "HOP":
        args += [_interval(w.slide_ms), _interval(w.size_ms)]
    elif w.kind == "CUMULATE":
        args += [_interval(w.slide_ms), _interval(w.size_ms)]
    elif w.kind == "SESSION":
        args += [_interval(w.gap_ms)]
    else:
        args += [_interval(w.size_ms)]
    if w.offset_ms:
        args.append(_interval(w.offset_ms))
    t = ins[w.time_col].type
    window_time = _type(t, rowtime=streaming)
    fields = [f"{_type(f.type, rowtime=streaming)} {f.name}" for f in ins] + \
        ["TIMESTAMP(3) window_start", "TIMESTAMP(3) window_end", f"{window_time} window_time"]
    project = _project([f.name for f in ins], [_dollar(i) for i in range(len(ins))], _convert(input_))
    return Line(f"LogicalTableFunctionScan(invocation=[{w.kind}({', '.join(args)})], "
                f"rowType=[RecordType({', '.join(fields)})])", (project,))


def _join(node: P.Join) -> Line:
    cond = rex(node.condition, _dollar) if node.condition is not None else "true"
    kind = node.kind.lower()
    return Line(f"LogicalJoin(condition=[{cond}], joinType=[{kind}])", (_convert(node.left), _convert(node.right)))


def _union(node: P.Union) -> Line:
    return Line("LogicalUnion(all=[true])", tuple(_query(c) for c in node.inputs))


def _sort(node: P.Sort) -> Line:
    parts = []
    for i, k in enumerate(node.keys):
        nulls_first = k.nulls_first if k.nulls_first is not None else k.ascending
        direction = "ASC" if k.ascending else "DESC"
        parts += [f"sort{i}=[{_dollar(k.index)}]", f"dir{i}=[{direction}-nulls-{'first' if nulls_first else 'last'}]"]
    if node.offset:
        parts.append(f"offset=[{node.offset}]")
    if node.limit is not None:
        parts.append(f"fetch=[{node.limit}]")
    return Line(f"LogicalSort({', '.join(parts)})", (_query(node.input),))


def _values(node: P.Values) -> Line:
    def value(v: P.Expr) -> str:  # Calcite's tuples hold the literals; the row type is the VALUES'
        return rex(v.arg if isinstance(v, P.Cast) and isinstance(v.arg, P.Lit) else v, _dollar)
    rows = ", ".join("{ " + ", ".join(value(v) for v in row) + " }" for row in node.rows)
    return Line(f"LogicalValues(tuples=[[{rows}]])")


def _sink(node: P.Sink) -> Line:
    return Line(f"LogicalSink(table=[{node.table}], fields=[{', '.join(f.name for f in node.fields)}])",
                (_query(node.input),))


def _unnest(node: P.Unnest) -> Line:
    """``CROSS JOIN UNNEST(t.col)``: Calcite's correlate over the collection of the outer row."""
    ins = node.input.schema
    used = sorted(P.refs(node.expr))
    expr = rex(node.expr, lambda i: f"$cor0.{ins[i].name}")
    name = ins[node.expr.index].name if isinstance(node.expr, P.ColRef) else "$f0"
    values = Line("LogicalValues(tuples=[[{ 0 }]])")
    uncollect = Line("Uncollect" + (" withOrdinality" if node.with_ordinality else ""),
                     (_project([name], [expr], values),))
    right = _project([f.name for f in node.out_fields], [_dollar(i) for i in range(len(node.out_fields))], uncollect)
    return Line(f"LogicalCorrelate(correlation=[$cor0], joinType=[{'left' if node.left_outer else 'inner'}], "
                f"requiredColumns=[{{{', '.join(str(i) for i in used)}}}])", (_convert(node.input), right))


def _aggregate_line(node: P.Node) -> Line:
    return _aggregate(node)[0]


_CONVERTERS: dict[type, Callable[[P.Node], Line]] = {
    P.TableScan: _scan, P.WatermarkAssigner: _watermark, P.Calc: _calc, P.Aggregate: _aggregate_line,
    P.WindowAggregate: _aggregate_line, P.WindowTableFunction: _window_tvf, P.Over: _over,
    P.Union: _union, P.Sort: _sort, P.Values: _values, P.Sink: _sink, P.Join: _join, P.Unnest: _unnest,
}


# -- expressions ------------------------------------------------------------------------------
def rex(e: P.Expr, ref: Ref) -> str:
    """An expression as Calcite's RexNode prints."""
    if isinstance(e, P.ColRef):
        return ref(e.index)
    if isinstance(e, P.Lit):
        return _literal(e)
    if isinstance(e, P.Cast):
        if isinstance(e.arg, P.Lit) and isinstance(e.arg.value, str) and e.type.root in ("TIMESTAMP", "DATE", "TIME"):
            return e.arg.value  # a TIMESTAMP '...' literal
        return f"{'TRY_CAST' if e.safe else 'CAST'}({rex(e.arg, ref)}):{_type(e.type, charset=True)}"
    if isinstance(e, P.Call):
        name = _RENAMED.get(e.name, e.name)
        if name == "NOT" and isinstance(e.args[0], P.Call) and e.args[0].name in _NEGATED:
            inner = e.args[0]
            return f"{_NEGATED[inner.name]}(" + ", ".join(rex(a, ref) for a in inner.args) + ")"
        if name == "BETWEEN" and len(e.args) == 3 and all(isinstance(a, P.Lit) for a in e.args[1:]):
            return f"SEARCH({rex(e.args[0], ref)}, Sarg[[{e.args[1].value}..{e.args[2].value}]])"
        if name in ("AND", "OR"):
            return f"{name}(" + ", ".join(rex(a, ref) for a in _flatten(e, e.name)) + ")"
        return f"{name}(" + ", ".join(rex(a, ref) for a in e.args) + ")"
    return str(e)


def _flatten(e: P.Expr, name: str) -> list[P.Expr]:
    if isinstance(e, P.Call) and e.name == name:
        return [x for a in e.args for x in _flatten(a, name)]
    return [e]


def _literal(e: P.Lit) -> str:
    t, v = e.type, e.value
    if v is None:
        return f"null:{_type(t, charset=True)}"
    if t.root == "BOOLEAN":
        return "true" if v else "false"
    if t.root in ("CHAR", "VARCHAR"):
        return "_UTF-16LE'" + str(v).replace("'", "''") + "'"
    if t.root == "INT":
        return str(v)
    if t.root == "DECIMAL":
        return f"{Decimal(v)}:{_type(t)}"
    if t.root in ("DOUBLE", "FLOAT"):
        return f"{float(v):E}".replace("E+0", "E").replace("E+", "E") + f":{_type(t)}"
    if t.root in ("INTERVAL_DAY_TIME",) and isinstance(v, int):
        return _interval(v)
    if t.root in ("TIMESTAMP", "DATE", "TIME"):
        return str(v)
    return f"{v}:{_type(t)}"


def _interval(ms: Optional[int]) -> str:
    ms = ms or 0
    for unit, size in _UNITS:
        if ms and ms % size == 0:
            return f"{ms}:INTERVAL {unit}"
    return f"{ms}:INTERVAL SECOND"


def _type(t: DataType, charset: bool = False, rowtime: bool = False) -> str:
    """A type as Calcite prints it (``VARCHAR(2147483647)``, ``INTEGER``, ``*ROWTIME*``)."""
    root = t.root
    if root in ("VARCHAR", "CHAR"):
        n = t.precision if t.precision is not None else 2147483647
        text = f"{root}({n})" + (' CHARACTER SET "UTF-16LE"' if charset else "")
    elif root == "INT":
        text = "INTEGER"
    elif root == "DECIMAL":
        text = f"DECIMAL({t.precision}, {t.scale})"
    elif root in ("TIMESTAMP", "TIME"):
        text = f"{root}({t.precision if t.precision is not None else 6 if root == 'TIMESTAMP' else 0})"
    elif root == "TIMESTAMP_LTZ":
        text = f"TIMESTAMP_WITH_LOCAL_TIME_ZONE({t.precision if t.precision is not None else 6})"
    elif root == "ARRAY" and t.element is not None:
        text = f"{_type(t.element, charset)} ARRAY"
    else:
        text = root
    if rowtime and t.time_attr == "ROWTIME":
        text += " *ROWTIME*"
    elif rowtime and t.time_attr == "PROCTIME":
        text += " *PROCTIME*"
    return text
