"""Binding MATCH_RECOGNIZE into a ``Match`` node and a Calc of its MEASURES (Flink's
row pattern recognition: Calcite's validation, then Flink's planner checks, with their
messages).

A pattern is a sequence of distinct variables, each with a quantifier (``*``, ``+``,
``?``, ``{n}``, ``{n,}``, ``{,m}``, ``{n,m}``; a trailing ``?`` makes a loop reluctant);
Flink refuses alternation, groups, PERMUTE and exclusion, patterns that can match no row,
a greedy quantifier on the last variable and a reluctant optional one.

In DEFINE and MEASURES a column qualified by a variable (``A.price``) is that variable's
last row; ``FIRST(A.price, n)`` / ``LAST(A.price, n)`` navigate among its rows; an
aggregate (COUNT, SUM, AVG, MIN, MAX) runs over them; an unqualified column means every
row of the match (in DEFINE: the row being tested; in MEASURES: the match's last row, or
the partition key). These become ``MatchNav`` values (``plan/nodes.py``).
"""
from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp

from sqlengine import types as T
from sqlengine.binder.expressions import ExprBinder, Scope
from sqlengine.binder.relation import Relation
from sqlengine.errors import UnsupportedError, ValidationError
from sqlengine.functions.registry import lookup_aggregate, to_arg
from sqlengine.plan import nodes as P

AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX")
_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_$]*)|(\{-|-\}|\{[^}]*\}\??|[*+?]\??)|(.))")


class _Pattern:
    """A pattern's syntax tree: ("var", name) | ("concat", a, b) | ("alter", a, b) |
    ("quant", operand, min, max, reluctant) | ("permute", items) | ("exclude", item),
    parsed as Calcite parses PATTERN (concatenation and alternation left-associative)."""

    def __init__(self, text: str, span):
        self.text, self.span = text, span
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                break
            pos = m.end()
            name, quant, other = m.groups()
            if name is not None:
                kind = "permute" if name.upper() == "PERMUTE" and text[pos:].lstrip().startswith("(") else "name"
                self.tokens.append((kind, name[1:-1].replace("``", "`") if name.startswith("`") else name))
            elif quant is not None:
                self.tokens.append(("quant", quant))
            elif other.strip():
                self.tokens.append(("op", other))
        self.i = 0

    def error(self) -> ValidationError:
        return ValidationError(f"Invalid PATTERN ({self.text})", self.span)

    def peek(self) -> Optional[tuple[str, str]]:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def parse(self):
        tree = self.alternation()
        if self.peek() is not None:
            raise self.error()
        return tree

    def alternation(self):
        left = self.concatenation()
        while self.peek() == ("op", "|"):
            self.i += 1
            left = ("alter", left, self.concatenation())
        return left

    def concatenation(self):
        left = self.quantified()
        while self.peek() is not None and self.peek() not in (("op", "|"), ("op", ")"), ("op", ","), ("quant", "-}")):
            left = ("concat", left, self.quantified())
        return left

    def quantified(self):
        item = self.primary()
        tok = self.peek()
        while tok is not None and tok[0] == "quant" and tok[1] not in ("{-", "-}"):
            self.i += 1
            item = ("quant", item) + self.bounds(tok[1])
            tok = self.peek()
        return item

    def bounds(self, quant: str) -> tuple[int, Optional[int], bool]:
        reluctant = quant.endswith("?") and quant != "?"
        q = quant[:-1] if reluctant else quant
        if q in ("*", "+", "?"):
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[q] + (reluctant,)
        m = re.fullmatch(r"\{\s*(\d*)\s*(,?)\s*(\d*)\s*\}", q)
        if m is None or (not m.group(1) and not m.group(3)) or (not m.group(2) and not m.group(1)):
            raise self.error()
        lo = int(m.group(1) or 0)
        hi = (int(m.group(3)) if m.group(3) else None) if m.group(2) else lo
        if hi is not None and (hi < lo or hi == 0):
            raise self.error()
        return lo, hi, reluctant

    def primary(self):
        tok = self.peek()
        if tok is None:
            raise self.error()
        self.i += 1
        if tok[0] == "name":
            return ("var", tok[1])
        if tok[0] == "permute":
            self.expect("(")
            items = [self.alternation()]
            while self.peek() == ("op", ","):
                self.i += 1
                items.append(self.alternation())
            self.expect(")")
            return ("permute", items)
        if tok == ("op", "("):
            inner = self.alternation()
            self.expect(")")
            return inner
        if tok == ("quant", "{-"):
            inner = self.alternation()
            if self.peek() != ("quant", "-}"):
                raise self.error()
            self.i += 1
            return ("exclude", inner)
        raise self.error()

    def expect(self, op: str) -> None:
        if self.peek() != ("op", op):
            raise self.error()
        self.i += 1


def _rex(tree) -> str:
    """The pattern node as Calcite prints it in Flink's messages."""
    kind = tree[0]
    if kind == "var":
        return f"_UTF-16LE'{tree[1]}'"
    if kind == "concat":
        return f"({_rex(tree[1])}, {_rex(tree[2])})"
    if kind == "alter":
        return f"|({_rex(tree[1])}, {_rex(tree[2])})"
    if kind == "quant":
        return f"PATTERN_QUANTIFIER({_rex(tree[1])}, {tree[2]}, {-1 if tree[3] is None else tree[3]}, " \
               f"{str(tree[4]).lower()})"
    if kind == "permute":
        return f"PATTERN_PERMUTE({', '.join(_rex(t) for t in tree[1])})"
    return f"{{-{_rex(tree[1])}-}}"


def parse_pattern(text: str, span) -> tuple[P.PatternElement, ...]:
    """The pattern's elements, translated as Flink's ``CommonExecMatch.PatternVisitor``
    translates them into a CEP pattern, with its checks and messages in its order."""
    tree = _Pattern(text, span).parse()
    elements: list[P.PatternElement] = []

    def visit(node) -> None:
        kind = node[0]
        if kind == "concat":
            visit(node[1])
            visit(node[2])
        elif kind == "var":
            add(node[1], 1, 1, False)
        elif kind == "quant":
            if node[1][0] != "var":
                raise UnsupportedError(f"Expression not supported: {_rex(node[1])} Group patterns are not "
                                       "supported yet.", span)
            add(node[1][1], node[2], node[3], node[4])
        elif kind == "alter":
            raise UnsupportedError(f"Expression not supported: {_rex(node)}. Currently, CEP doesn't support "
                                   "branching patterns.", span)
        elif kind == "permute":
            raise UnsupportedError(f"Expression not supported: {_rex(node)}. Currently, CEP doesn't support "
                                   "PERMUTE patterns.", span)
        else:
            raise UnsupportedError(f"Expression not supported: {_rex(node)}. Currently, CEP doesn't support "
                                   "'{-' '-}' patterns.", span)

    def add(var: str, lo: int, hi: Optional[int], reluctant: bool) -> None:
        if any(e.var == var for e in elements):
            raise UnsupportedError("Pattern variables must be unique. That might change in the future.", span)
        optional = (lo, hi) == (0, 1)
        # Pattern.optional() (``?``, ``*``, ``{0,}``) refuses a greedy predecessor; times(0, n) does not
        if (optional or hi is None and lo == 0) and elements and elements[-1].greedy:
            raise UnsupportedError("Optional pattern cannot be preceded by greedy pattern", span)
        if optional and reluctant:
            raise UnsupportedError("Reluctant optional variables are not supported yet.", span)
        elements.append(P.PatternElement(var, lo, hi, not reluctant and not optional and lo != hi))

    visit(tree)
    if all(e.min == 0 for e in elements):
        raise UnsupportedError("Patterns that can produce empty matches are not supported. There must be at "
                               "least one non-optional state.", span)
    if elements[-1].greedy:
        raise UnsupportedError("Greedy quantifiers are not allowed as the last element of a Pattern yet. Finish "
                               "your pattern with either a simple variable or reluctant quantifier.", span)
    return tuple(elements)


class MatchExprBinder(ExprBinder):
    """DEFINE (``current``: the variable being defined) and MEASURES (``current`` None)."""

    def __init__(self, scope: Scope, variables: list[str], current: Optional[str], keys: dict[int, int],
                 time_types: Optional[dict[str, T.DataType]] = None):
        super().__init__(scope)
        self.time_types = time_types or {}
        self.variables = variables
        self.current = current
        self.keys = keys  # input position of a partition key -> its output position
        self._arg_vars: Optional[set[str]] = None  # inside a navigation's argument
        scope.on_aggregate = self._aggregate

    def variable(self, name: str) -> Optional[str]:
        for v in self.variables:
            if v == name:
                return v
        for v in self.variables:
            if v.lower() == name.lower():
                return v
        return None

    def nav(self, kind: str, var: str, arg: Optional[P.Expr], offset: int = 0, fn: str = "",
            type_: Optional[T.DataType] = None) -> P.Expr:
        if kind == "last" and offset == 0 and self.current is not None and var in (self.current, "*"):
            return arg  # the row being tested
        t = type_ if type_ is not None else arg.type.with_nullable(True).with_time_attr(None)
        return P.MatchNav(t, kind, var, arg, offset, fn)

    def visit_Column(self, node: exp.Column) -> P.Expr:
        parts = [p.name for p in node.parts]
        var = self.variable(parts[0]) if len(parts) > 1 else None
        if var is None:
            row = super().visit_Column(node)
            if self._arg_vars is not None:
                self._arg_vars.add("*")
                return row
            if self.current is None and isinstance(row, P.ColRef) and row.index in self.keys:
                return P.MatchNav(row.type.with_time_attr(None), "key", "*", row, self.keys[row.index])
            return self.nav("last", "*", row)
        row = self.resolve(parts[1:], node)
        if self._arg_vars is not None:
            self._arg_vars.add(var)
            return row
        return self.nav("last", var, row)

    def _navigation(self, node: exp.Expression, kind: str) -> P.Expr:
        if self._arg_vars is not None:
            raise self.error(f"{kind.upper()} cannot be nested in a navigation or an aggregate", node)
        offset = 0
        if node.expression is not None:
            off = self.bind(node.expression)
            if not isinstance(off, P.Lit) or not isinstance(off.value, int) or off.value < 0:
                raise self.error(f"The offset of {kind.upper()} must be a non-negative integer literal", node)
            offset = off.value
        arg, var = self._argument(node.this, node, f"{kind.upper()}({_calcite(node.this)}, {offset})")
        return self.nav(kind, var, arg, offset)

    def _argument(self, node: exp.Expression, where: exp.Expression, text: str) -> tuple[P.Expr, str]:
        self._arg_vars = set()
        try:
            arg = self.bind(node)
        finally:
            used, self._arg_vars = self._arg_vars, None
        named = used - {"*"}
        if len(named) > 1:
            raise self.error(f"Multiple pattern variables in '{text}'", where)
        return arg, (named.pop() if named else "*")

    def visit_First(self, node: exp.First) -> P.Expr:
        return self._navigation(node, "first")

    def visit_Last(self, node: exp.Last) -> P.Expr:
        return self._navigation(node, "last")

    def visit_Anonymous(self, node: exp.Anonymous) -> P.Expr:
        name = node.name.upper()
        if name in ("MATCH_ROWTIME", "MATCH_PROCTIME"):
            if self.current is not None:
                raise self.error(f"{name}() can be used only in MEASURES", node)
            kind = name[6:].lower()
            return P.MatchNav(self.time_types[kind], kind)
        if name in ("PREV", "NEXT"):
            offset = 1
            if len(node.expressions) > 1:
                off = self.bind(node.expressions[1])
                offset = off.value if isinstance(off, P.Lit) else 1
            if offset != 0:
                raise UnsupportedError("Flink does not support physical offsets within partition.", self.span(node))
            return self.bind(node.expressions[0])
        if name in ("CLASSIFIER", "MATCH_NUMBER"):
            raise UnsupportedError(f"Unsupported call: {name}() ", self.span(node))
        return super().visit_Anonymous(node)

    def _aggregate(self, node: exp.Expression) -> P.Expr:
        from sqlengine.binder.expressions import RENAMES
        if self._arg_vars is not None:
            raise self.error("An aggregate cannot be nested in a navigation or an aggregate", node)
        if isinstance(node, exp.Filter):
            raise UnsupportedError("FILTER is not supported in MATCH_RECOGNIZE", self.span(node))
        name = node.name.upper() if isinstance(node, exp.Anonymous) else \
            RENAMES.get(type(node).__name__, node.sql_name().upper())
        raw = list(node.expressions) if isinstance(node, exp.Anonymous) else \
            ([node.this] if node.this is not None else [])
        if raw and isinstance(raw[0], exp.Distinct):
            raise self.error(f"DISTINCT/ALL not allowed with {_calcite(node)} function", node)
        if name not in AGGREGATES:
            raise UnsupportedError(f"{name} is not supported in MATCH_RECOGNIZE (supported aggregates: "
                                   f"{', '.join(AGGREGATES)})", self.span(node))
        star = not raw or isinstance(raw[0], exp.Star)
        if star:
            arg, var = None, "*"
        else:
            arg, var = self._argument(raw[0], node, _calcite(node))
        fn = lookup_aggregate(name)
        rtype = fn.infer([to_arg(arg)] if arg is not None else [], False)
        return P.MatchNav(rtype.with_nullable(name != "COUNT"), "agg", var, arg, 0, name)


def _calcite(node: exp.Expression) -> str:
    """An expression as Calcite prints it in its messages (identifiers back-quoted)."""
    from sqlengine.dialect.flink import Flink
    return node.sql(dialect=Flink, identify=True)


def bind_match(qb, rel: Relation, mr: exp.MatchRecognize) -> Relation:
    span = qb.span(mr)
    node = rel.node
    if mr.args.get("rows") is not None and mr.args["rows"].name.upper().startswith("ALL"):
        raise UnsupportedError("All rows per match mode is not supported yet.", span)
    scope = rel.scope(qb.source)
    plain = ExprBinder(scope)
    keys: list[int] = []
    for k in mr.args.get("partition_by") or []:
        e = plain.bind(k)
        if not isinstance(e, P.ColRef):
            raise ValidationError(f"PARTITION BY of MATCH_RECOGNIZE takes columns: {k.sql()}", qb.span(k))
        keys.append(e.index)
    order: list[P.SortKey] = []
    for o in (mr.args["order"].expressions if mr.args.get("order") is not None else []):
        e = plain.bind(o.this)
        if not isinstance(e, P.ColRef):
            raise ValidationError(f"ORDER BY of MATCH_RECOGNIZE takes columns: {o.this.sql()}", qb.span(o))
        order.append(P.SortKey(e.index, not o.args.get("desc"), o.args.get("nulls_first")))
    _check_order(qb, node, order, span)
    pattern_text = mr.args["pattern"].name if mr.args.get("pattern") is not None else ""
    elements = parse_pattern(pattern_text, qb.span(mr.args["pattern"]) if mr.args.get("pattern") is not None else span)
    variables = [e.var for e in elements]
    after, after_var = "PAST LAST ROW", None
    if mr.args.get("after") is not None:
        text = mr.args["after"].name.upper()[len("AFTER MATCH SKIP "):]
        if text.startswith("TO FIRST ") or text.startswith("TO LAST "):
            words = mr.args["after"].name.split()
            after, target = " ".join(words[3:5]).upper(), words[5]
            after_var = next((v for v in variables if v == target), None) or \
                next((v for v in variables if v.lower() == target.lower()), None)
            if after_var is None:
                raise ValidationError(f"Unknown pattern variable '{target}' in AFTER MATCH SKIP", span)
        else:
            after = text
    within = None
    if mr.args.get("within") is not None:
        w = plain.bind(mr.args["within"])
        if not isinstance(w, P.Lit) or w.type.root != "INTERVAL_DAY_TIME":
            raise UnsupportedError("Only constant intervals with millisecond resolution are supported as time "
                                   "constraints of patterns.", span)
        within = int(w.value)
    key_pos = {k: i for i, k in enumerate(keys)}
    defines: list[tuple[str, P.Expr]] = []
    for d in mr.args.get("define") or []:
        name = d.alias
        var = next((v for v in variables if v == name), None) or \
            next((v for v in variables if v.lower() == name.lower()), None)
        if var is None:
            continue  # Flink ignores the condition of a variable the pattern does not name
        binder = MatchExprBinder(rel.scope(qb.source), variables, var, key_pos)
        cond = binder.bind(d.this)
        if cond.type.root not in ("BOOLEAN", "NULL"):
            raise ValidationError(f"The condition of {var} must be a boolean: {d.this.sql()}", qb.span(d))
        defines.append((var, cond))
    time_types = {"rowtime": _time_attr_type(node, order),
                  "proctime": T.DataType("TIMESTAMP_LTZ", False, precision=3).with_time_attr(
                      "PROCTIME" if qb.streaming else None)}
    measures: list[tuple[str, P.Expr]] = []
    for m in mr.args.get("measures") or []:
        e = m.this
        if not isinstance(e, exp.Alias):
            raise ValidationError(f"A measure needs a name (AS alias): {e.sql()}", qb.span(m))
        binder = MatchExprBinder(rel.scope(qb.source), variables, None, key_pos, time_types)
        measures.append((e.alias, binder.bind(e.this)))
    key_names = [node.schema[k].name for k in keys]
    clash = sorted({n for n, _ in measures} & set(key_names))
    if clash:
        raise ValidationError(f"Columns ambiguously defined: {{{', '.join(clash)}}}", span)
    navs: list[P.MatchNav] = []

    def collect(e: P.Expr) -> Optional[P.Expr]:
        if isinstance(e, P.MatchNav) and e.kind != "key":
            if e not in navs:
                navs.append(e)
            return P.ColRef(e.type, len(keys) + navs.index(e), f"$m{navs.index(e)}")
        if isinstance(e, P.MatchNav):
            return P.ColRef(e.type, e.offset, key_names[e.offset])
        return None

    exprs = [e.transform(collect) for _, e in measures]
    match = P.Match(node, tuple(keys), tuple(order), elements, tuple(defines), tuple(navs),
                    tuple(f"$m{i}" for i in range(len(navs))), after, after_var, within)
    out = tuple(P.ColRef(match.schema[i].type, i, key_names[i]) for i in range(len(keys))) + tuple(exprs)
    plan = P.Calc(match, out, tuple(key_names + [n for n, _ in measures]))
    alias = mr.alias or None
    return Relation(plan, [alias] * len(plan.schema))


def _check_order(qb, node: P.Node, order: list[P.SortKey], span) -> None:
    if qb.streaming:
        if not order:
            raise UnsupportedError("You must specify either rowtime or proctime for order by.", span)
        t = node.schema[order[0].index].type
        if t.time_attr is None:
            raise UnsupportedError("You must specify either rowtime or proctime for order by as the first one.",
                                   span)
        if not order[0].ascending:
            raise UnsupportedError("Primary sort order of a streaming table must be ascending on time.", span)
    else:
        if not order:
            raise UnsupportedError("You must specify non-empty order by.", span)
        if node.schema[order[0].index].type.root not in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME"):
            raise UnsupportedError("You must specify time point for order by as the first one.", span)
        if not order[0].ascending:
            raise UnsupportedError("Primary sort order of a table must be ascending on time.", span)


def _time_attr_type(node: P.Node, order: list[P.SortKey]) -> T.DataType:
    t = node.schema[order[0].index].type
    root = "TIMESTAMP_LTZ" if t.root == "TIMESTAMP_LTZ" else "TIMESTAMP"
    return T.DataType(root, False, precision=3).with_time_attr("ROWTIME" if t.time_attr else None)
