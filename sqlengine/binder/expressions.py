"""Binding sqlglot expressions to typed plan expressions against a scope.

Names resolve as in Flink: ``t.col`` (relation alias), ``col``, and nested ROW
field access ``col.f.g`` or ``t.col.f``. A missing column is reported with Flink's
message (``Column 'x' not found in any table``), the place, and the columns that
do exist.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Optional

from sqlglot import exp

from sqlengine import types as T
from sqlengine.binder.literals import datetime_literal
from sqlengine.binder.types import to_flink
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import span_of
from sqlengine.errors import Span, UnsupportedError, ValidationError
from sqlengine.functions.base import calcite_name
from sqlengine.functions.registry import Arg, cast_allowed, lookup_aggregate, lookup_scalar, to_arg  # noqa: F401
from sqlengine.plan.nodes import Call, Cast, ColRef, Expr, Lit

UNITS = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND",
         "MICROSECOND", "NANOSECOND", "DOW", "DOY", "EPOCH", "DECADE", "CENTURY", "MILLENNIUM",
         "ISODOW", "ISOYEAR", "SQL_TSI_DAY"}
_UNIT_MS = {"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": 86400000,
            "WEEK": 7 * 86400000}
_UNIT_MONTHS = {"MONTH": 1, "YEAR": 12, "QUARTER": 3}

# sqlglot nodes whose extra arguments are dialect options, not Flink arguments.
ONLY_THIS = {"Initcap", "Upper", "Lower", "Reverse", "Md5", "Ascii"}

BINARY = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.EQ: "=",
    exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.And: "AND",
    exp.Or: "OR", exp.NullSafeEQ: "IS NOT DISTINCT FROM", exp.NullSafeNEQ: "IS DISTINCT FROM",
    exp.DPipe: "||", exp.Like: "LIKE", exp.SimilarTo: "SIMILAR TO",
}
RENAMES = {"Length": "CHAR_LENGTH", "StrPosition": "POSITION", "Initcap": "INITCAP", "StartsWith": "STARTSWITH",
           "JSONObjectAgg": "JSON_OBJECTAGG", "ArrayToString": "ARRAY_JOIN",
           "Nullif": "NULLIF", "Coalesce": "COALESCE", "If": "IF", "Ceil": "CEIL",
           "DayOfMonth": "DAYOFMONTH", "DayOfWeek": "DAYOFWEEK", "DayOfYear": "DAYOFYEAR",
           "RegexpExtract": "REGEXP_EXTRACT", "RegexpReplace": "REGEXP_REPLACE",
           "ConcatWs": "CONCAT_WS", "Substring": "SUBSTRING", "Pow": "POWER", "Ln": "LN",
           "DateFormat": "DATE_FORMAT", "TimeToStr": "DATE_FORMAT", "ToChar": "DATE_FORMAT",
           "StrToDate": "TO_DATE", "TsOrDsToDate": "TO_DATE", "StrToTime": "TO_TIMESTAMP",
           "SplitPart": "SPLIT_INDEX", "Levenshtein": "LEVENSHTEIN", "ArrayAgg": "ARRAY_AGG",
           "GroupConcat": "LISTAGG", "Stddev": "STDDEV_SAMP", "StddevPop": "STDDEV_POP",
           "StddevSamp": "STDDEV_SAMP", "Variance": "VAR_SAMP", "VariancePop": "VAR_POP",
           "ApproxDistinct": "APPROX_COUNT_DISTINCT", "LogicalAnd": "BOOL_AND", "LogicalOr": "BOOL_OR",
           "CurrentTimestamp": "CURRENT_TIMESTAMP", "CurrentDate": "CURRENT_DATE", "Rand": "RAND",
           "Sqrt": "SQRT", "Exp": "EXP", "Abs": "ABS", "Round": "ROUND", "Floor": "FLOOR",
           "Upper": "UPPER", "Lower": "LOWER", "Replace": "REPLACE", "Concat": "CONCAT",
           "Md5": "MD5", "SHA": "SHA1", "SHA2": "SHA256", "Reverse": "REVERSE", "Repeat": "REPEAT",
           "Left": "LEFT", "Right": "RIGHT", "Greatest": "GREATEST", "Least": "LEAST",
           "Sign": "SIGN", "Log": "LOG", "Month": "MONTH", "Year": "YEAR", "Quarter": "QUARTER",
           "Week": "WEEK", "Hour": "HOUR", "Minute": "MINUTE", "Second": "SECOND", "Day": "DAYOFMONTH",
           "Count": "COUNT", "Sum": "SUM", "Avg": "AVG", "Min": "MIN", "Max": "MAX",
           "First": "FIRST_VALUE", "Last": "LAST_VALUE", "FirstValue": "FIRST_VALUE",
           "LastValue": "LAST_VALUE", "Ascii": "ASCII", "Chr": "CHR", "ToBase64": "TO_BASE64",
           "FromBase64": "FROM_BASE64", "Hex": "HEX", "Unhex": "UNHEX", "UnixToTime": "FROM_UNIXTIME",
           "TimeToUnix": "UNIX_TIMESTAMP", "StrToUnix": "UNIX_TIMESTAMP", "ArraySize": "CARDINALITY",
           "Trunc": "TRUNCATE", "Truncate": "TRUNCATE", "Uuid": "UUID", "RegexpLike": "REGEXP",
           "Split": "SPLIT", "ConvertTimezone": "CONVERT_TZ", "Instr": "INSTR", "Overlay": "OVERLAY",
           "Locate": "LOCATE"}


# Functions called without parentheses (the parser sees a column name).
NILADIC = frozenset({"LOCALTIMESTAMP", "LOCALTIME", "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME"})


@dataclass(frozen=True)
class ScopeColumn:
    qualifier: Optional[str]
    name: str
    type: T.DataType
    index: int
    hidden: bool = False  # USING's per-side copies: reachable only qualified, not in ``*``


@dataclass
class Scope:
    """The columns visible to an expression: the input row of the current operator."""

    columns: list[ScopeColumn]
    source: str = ""  # script text, for spans
    # sqlglot subtree -> bound replacement (group keys / aggregate results after GROUP BY)
    replacements: list[tuple[exp.Expression, Expr]] = field(default_factory=list)
    allow_aggregates: bool = False
    on_aggregate: Optional[Callable[[exp.Expression], Expr]] = None
    # function name -> bound value (legacy group-window properties like TUMBLE_START)
    overrides: dict[str, Expr] = field(default_factory=dict)
    # IN / EXISTS / scalar subqueries: bound by the query binder (binder/subquery.py)
    on_subquery: Optional[Callable[[exp.Expression, bool], Expr]] = None
    # after GROUP BY: the input's columns, so a column that is not grouped is named as such
    ungrouped: Optional["Scope"] = None
    # a computed column's scope (the table's physical columns): Flink's "Unknown identifier"
    computed_column: bool = False
    # a join condition's scope: the number of columns of its left side
    join_split: Optional[int] = None

    def lookup(self, qualifier: Optional[str], name: str) -> list[ScopeColumn]:
        visible = [c for c in self.columns if (not c.hidden if qualifier is None else _same(c.qualifier, qualifier))]
        found = [c for c in visible if c.name == name]
        if not found:
            found = [c for c in visible if c.name.lower() == name.lower()]
        return found

    def has_qualifier(self, q: str) -> bool:
        return any(_same(c.qualifier, q) for c in self.columns)


def condition(cond: Expr, clause: str, span: Optional[Span]) -> Expr:
    """A WHERE / HAVING / ON condition: BOOLEAN (a NULL constant is an unknown BOOLEAN)."""
    if cond.type.root == "NULL":
        return Lit(T.BOOLEAN(True), None)
    if cond.type.root != "BOOLEAN":
        raise ValidationError(f"{clause} clause must be a condition", span)
    return cond


def _resolves(scope: Scope, parts: list[str]) -> bool:
    """Whether ``parts`` names a column of ``scope`` (qualified or not)."""
    if len(parts) > 1 and scope.has_qualifier(parts[0]):
        return bool(scope.lookup(parts[0], parts[1]))
    return bool(scope.lookup(None, parts[0]))


def _same(a: Optional[str], b: Optional[str]) -> bool:
    return a is not None and b is not None and a.lower() == b.lower()


class ExprBinder:
    """Binds one expression tree; dispatches on the sqlglot node class."""

    def __init__(self, scope: Scope):
        self.scope = scope

    def span(self, node: exp.Expression) -> Optional[Span]:
        return span_of(node, self.scope.source) if self.scope.source else None

    def error(self, message: str, node: exp.Expression, hint: Optional[str] = None) -> ValidationError:
        return ValidationError(message, self.span(node), hint)

    def bind(self, node: exp.Expression) -> Expr:
        for pattern, bound in self.scope.replacements:
            if node == pattern:
                return bound
        if self.scope.overrides and isinstance(node, exp.Func):
            fname = node.name.upper() if isinstance(node, exp.Anonymous) else node.sql_name().upper()
            if fname in self.scope.overrides:
                return self.scope.overrides[fname]
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is not None:
            return method(node)
        if type(node) in BINARY:
            return self.call(BINARY[type(node)], [node.this, node.expression], node)
        if isinstance(node, exp.Func):
            return self.visit_func(node)
        raise UnsupportedError(f"Unsupported expression: {node.sql()}", self.span(node))

    # -- leaves ----------------------------------------------------------------------
    def visit_Column(self, node: exp.Column) -> Expr:
        parts = [p.name for p in node.parts]
        ident = node.parts[0] if len(node.parts) == 1 else None
        if ident is not None and not ident.args.get("quoted") and parts[0].upper() in NILADIC:
            # Calcite's niladic functions (reserved words: a column of that name needs backticks)
            return self.call_bound(parts[0].upper(), [], node)
        return self.resolve(parts, node)

    def visit_Dot(self, node: exp.Dot) -> Expr:
        base = self.bind(node.this)
        return self.field_access(base, node.expression.name, node)

    def resolve(self, parts: list[str], node: exp.Expression) -> Expr:
        if len(parts) > 1 and self.scope.has_qualifier(parts[0]):
            cols, rest = self.scope.lookup(parts[0], parts[1]), parts[2:]
        else:
            cols, rest = self.scope.lookup(None, parts[0]), parts[1:]
            if not cols and len(parts) > 2 and self.scope.has_qualifier(parts[1]):
                cols, rest = self.scope.lookup(parts[1], parts[2]), parts[3:]
        if not cols:
            raise self.not_found(parts, node)
        if len({c.index for c in cols}) > 1:
            raise self.error(f"Column '{parts[-1]}' is ambiguous", node)
        col = cols[0]
        bound: Expr = ColRef(col.type, col.index, col.name)
        for name in rest:
            bound = self.field_access(bound, name, node)
        return bound

    def not_found(self, parts: list[str], node: exp.Expression) -> ValidationError:
        """Calcite's words for a name that resolves to no column of the scope."""
        scope = self.scope
        if scope.computed_column:
            return self.error(f"Unknown identifier '{parts[0]}'", node)
        if scope.ungrouped is not None and _resolves(scope.ungrouped, parts):
            return self.error(f"Expression '{'.'.join(parts)}' is not being grouped", node)
        names = ", ".join(dict.fromkeys(c.name for c in scope.columns if not c.hidden))
        hint = f"available columns: {names}" if names else None
        if len(parts) > 1 and scope.has_qualifier(parts[0]):
            return self.error(f"Column '{parts[1]}' not found in table '{parts[0]}'", node, hint)
        if len(parts) > 1 and not scope.lookup(None, parts[0]):
            return self.error(f"Table '{parts[0]}' not found", node, hint)
        return self.error(f"Column '{parts[0]}' not found in any table", node, hint)

    def field_access(self, base: Expr, name: str, node: exp.Expression) -> Expr:
        if base.type.root != "ROW":
            raise self.error(f"Cannot access field '{name}' of a value of type {base.type}", node)
        f = base.type.field(name)
        if f is None:
            fields = ", ".join(x.name for x in base.type.fields)
            raise self.error(f"Unknown field '{name}' in {base.type}", node, f"fields: {fields}")
        return Call(f.type.with_nullable(True), "FIELD", (base, Lit(T.STRING(False), f.name)))

    def visit_Literal(self, node: exp.Literal) -> Expr:
        text = node.this
        if node.is_string:
            return Lit(T.CHAR(max(len(text), 1), False) if text else T.CHAR(0, False) if False
                       else T.CHAR(len(text), False), text)
        low = text.lower()
        if "e" in low:
            return Lit(T.DOUBLE(False), float(text))
        if "." in text:
            d = Decimal(text)
            digits = len(d.as_tuple().digits)
            scale = max(0, -d.as_tuple().exponent)
            return Lit(T.DECIMAL(max(digits, scale, 1), scale, False), d)
        v = int(text)
        if -2 ** 31 <= v < 2 ** 31:
            return Lit(T.INT(False), v)
        if -2 ** 63 <= v < 2 ** 63:
            return Lit(T.BIGINT(False), v)
        return Lit(T.DECIMAL(len(text), 0, False), Decimal(text))

    def visit_UnicodeString(self, node: exp.UnicodeString) -> Expr:
        """``U&'\\0041\\+01F600'`` [``UESCAPE '!'``]: a string with Unicode escapes (SQL
        standard): the escape character then four hex digits, or ``+`` and six; doubled,
        the escape character itself."""
        escape = node.args.get("escape")
        esc = escape.name if isinstance(escape, exp.Literal) else "\\"
        text, out, i = node.this if isinstance(node.this, str) else node.name, [], 0
        while i < len(text):
            ch = text[i]
            if ch != esc:
                out.append(ch)
                i += 1
            elif text[i + 1:i + 2] == esc:
                out.append(esc)
                i += 2
            else:
                plus = text[i + 1:i + 2] == "+"
                digits = text[i + 2:i + 8] if plus else text[i + 1:i + 5]
                if not re.fullmatch(r"[0-9a-fA-F]{6}" if plus else r"[0-9a-fA-F]{4}", digits):
                    raise self.error(f"Unicode escape sequence at position {i} of {text!r} is invalid: "
                                     f"{esc} must be followed by four hex digits, + and six, or {esc}", node)
                out.append(chr(int(digits, 16)))
                i += 8 if plus else 5
        value = "".join(out)
        return Lit(T.CHAR(len(value), False), value)

    def visit_HexString(self, node: exp.HexString) -> Expr:
        """``X'41'``: a BINARY(n) literal of n bytes."""
        text = node.this if isinstance(node.this, str) else node.name
        if len(text) % 2:
            raise self.error("Binary literal string must contain an even number of hexits", node)
        try:
            value = bytes.fromhex(text)
        except ValueError:
            raise self.error(f"Invalid binary literal X'{text}'", node) from None
        return Lit(T.DataType("BINARY", False, precision=max(len(value), 1)), value)

    def visit_TypedLiteral(self, node: dn.TypedLiteral) -> Expr:
        """``TIMESTAMP '2020-04-15 08:05:00.12'``: a CAST of the checked text to the literal's
        own type (here TIMESTAMP(2) NOT NULL; see binder/literals.py)."""
        text = node.this.name
        try:
            target, normalized = datetime_literal(to_flink(node.args["to"]).root, text)
        except ValueError as err:
            raise self.error(str(err), node) from None
        return Cast(target, Lit(T.CHAR(max(len(normalized), 1), False), normalized))

    def visit_Null(self, node) -> Expr:
        return Lit(T.NULLTYPE(), None)

    def visit_Boolean(self, node: exp.Boolean) -> Expr:
        return Lit(T.BOOLEAN(False), bool(node.this))

    def visit_Paren(self, node: exp.Paren) -> Expr:
        return self.bind(node.this)

    def visit_Interval(self, node: exp.Interval) -> Expr:
        if isinstance(node.unit, exp.IntervalSpan):
            return self.interval_span(node)
        unit = (node.unit.name if node.unit else "SECOND").upper().rstrip("S") or "SECOND"
        if unit.endswith("TO_"):
            unit = unit[:-3]
        raw = node.this.name if isinstance(node.this, exp.Literal) else node.this.sql()
        value = Decimal(raw.strip())
        if unit in _UNIT_MONTHS:
            return Lit(T.INTERVAL_MONTHS(), int(value * _UNIT_MONTHS[unit]))
        if unit not in _UNIT_MS:
            raise UnsupportedError(f"Unsupported interval unit {unit}", self.span(node))
        return Lit(T.INTERVAL_MS(), int(value * _UNIT_MS[unit]))

    def interval_span(self, node: exp.Interval) -> Expr:
        """``INTERVAL '2-3' YEAR TO MONTH``, ``INTERVAL '1 02:03:04.5' DAY TO SECOND`` (and
        DAY TO HOUR/MINUTE, HOUR TO MINUTE/SECOND, MINUTE TO SECOND): fields separated by
        ``-`` (years-months), a space (days) or ``:``, one sign before them all."""
        first, last = node.unit.this.name.upper(), node.unit.expression.name.upper()
        text = (node.this.name if isinstance(node.this, exp.Literal) else node.this.sql()).strip()
        fields = ("YEAR", "MONTH") if first == "YEAR" else ("DAY", "HOUR", "MINUTE", "SECOND")
        if first not in fields or last not in fields or fields.index(last) <= fields.index(first):
            raise self.error(f"Unsupported interval qualifier {first} TO {last}", node)
        units = fields[fields.index(first):fields.index(last) + 1]
        sign = -1 if text.startswith("-") else 1
        parts = re.split(r"[- :]", text.lstrip("+-"))
        number = r"\d+(\.\d+)?" if last == "SECOND" else r"\d+"
        if len(parts) != len(units) or not all(re.fullmatch(r"\d+", p) for p in parts[:-1]) \
                or not re.fullmatch(number, parts[-1]):
            raise self.error(f"Illegal interval literal format '{text}' for INTERVAL {first} TO {last}", node)
        if first == "YEAR":
            return Lit(T.INTERVAL_MONTHS(), sign * (int(parts[0]) * 12 + int(parts[1])))
        ms = sum(Decimal(p) * _UNIT_MS[u] for p, u in zip(parts, units))
        return Lit(T.INTERVAL_MS(), sign * int(ms))

    # -- operators --------------------------------------------------------------------
    def visit_Neg(self, node: exp.Neg) -> Expr:
        inner = self.bind(node.this)
        if isinstance(inner, Lit) and inner.value is not None and inner.type.is_numeric:
            return Lit(inner.type, -inner.value)
        return self.call_bound("NEG", [inner], node)

    def visit_Not(self, node: exp.Not) -> Expr:
        inner = node.this
        if isinstance(inner, exp.Is):
            return self.visit_Is(inner, negate=True)
        if isinstance(inner, exp.In):
            return self.visit_In(inner, negate=True)
        if isinstance(inner, exp.Exists):
            return self.visit_Exists(inner, negate=True)
        if isinstance(inner, exp.Between):
            return self.visit_Between(inner, negate=True)
        if isinstance(inner, exp.Like):
            return self.call("NOT LIKE", [inner.this, inner.expression], node)
        if isinstance(inner, exp.Escape):
            return self.visit_Escape(inner, negate=True)
        return self.call("NOT", [inner], node)

    def visit_Like(self, node: exp.Like) -> Expr:
        """``s LIKE p``; sqlglot parses ``s NOT LIKE p`` as a Like with ``negate``."""
        name = "NOT LIKE" if node.args.get("negate") else "LIKE"
        return self.call(name, [node.this, node.expression], node)

    def visit_Escape(self, node: exp.Escape, negate: bool = False) -> Expr:
        """``s [NOT] LIKE | SIMILAR TO pattern ESCAPE 'c'``."""
        match = node.this
        name = {exp.Like: "LIKE", exp.SimilarTo: "SIMILAR TO"}.get(type(match))
        if name is None:
            raise UnsupportedError(f"Unsupported expression: {node.sql()}", self.span(node))
        negate = negate != bool(match.args.get("negate"))  # sqlglot: Like(negate=True) for NOT LIKE
        return self.call(("NOT " if negate else "") + name, [match.this, match.expression, node.expression], node)

    def visit_Is(self, node: exp.Is, negate: bool = False) -> Expr:
        target = node.expression
        if isinstance(target, exp.Null):
            name = "IS NULL"
            if isinstance(node.this, exp.Paren) and _is_boolean_expr(node.this.this):
                name = "IS UNKNOWN"
        elif isinstance(target, exp.Boolean):
            name = "IS TRUE" if target.this else "IS FALSE"
        elif target.name.upper() == "UNKNOWN":
            name = "IS UNKNOWN"
        elif isinstance(target, exp.JSON):
            kind = Lit(T.STRING(False), (target.name or "VALUE").upper())
            call = self.call_bound("IS JSON", [self.bind(node.this), kind], node)
            return self.call_bound("NOT", [call], node) if negate else call
        else:
            raise UnsupportedError(f"Unsupported IS expression: {node.sql()}", self.span(node))
        if negate:
            name = name.replace("IS ", "IS NOT ", 1)
        return self.call(name, [node.this], node)

    def visit_In(self, node: exp.In, negate: bool = False) -> Expr:
        if node.args.get("query") is not None:
            return self.subquery(node, negate)
        return self.call("NOT IN" if negate else "IN", [node.this, *node.expressions], node)

    def visit_Between(self, node: exp.Between, negate: bool = False) -> Expr:
        return self.call("NOT BETWEEN" if negate else "BETWEEN",
                         [node.this, node.args["low"], node.args["high"]], node)

    def visit_Case(self, node: exp.Case) -> Expr:
        base = node.this
        args: list[Expr] = []
        for branch in node.args.get("ifs") or []:
            cond = branch.this
            bound_cond = self.call_bound("=", [self.bind(base), self.bind(cond)], branch) \
                if base is not None else self.bind(cond)
            args += [bound_cond, self.bind(branch.args["true"])]
        if node.args.get("default") is not None:
            args.append(self.bind(node.args["default"]))
        return self.call_bound("CASE", args, node)

    def visit_If(self, node: exp.If) -> Expr:
        args = [node.this, node.args.get("true")]
        if node.args.get("false") is not None:
            args.append(node.args["false"])
        return self.call("IF", args, node)

    def visit_Cast(self, node: exp.Cast) -> Expr:
        return self._cast(node, safe=False)

    def visit_TryCast(self, node: exp.TryCast) -> Expr:
        return self._cast(node, safe=True)

    def _cast(self, node: exp.Cast, safe: bool) -> Expr:
        arg = self.bind(node.this)
        target = to_flink(node.args["to"])
        if isinstance(node.this, exp.Null) or arg.type.root == "NULL":
            return Lit(target.with_nullable(True), None)
        if not cast_allowed(arg.type, target):
            raise self.error(f"Cast function cannot convert value of type {arg.type} to type {target}", node)
        nullable = arg.type.nullable or safe
        return Cast(target.with_nullable(nullable), arg, safe)

    def visit_Bracket(self, node: exp.Bracket) -> Expr:
        return self.call("ITEM", [node.this, node.expressions[0]], node)

    def visit_Extract(self, node: exp.Extract) -> Expr:
        unit = Lit(T.STRING(False), node.this.name.upper())
        return self.call_bound("EXTRACT", [unit, self.bind(node.expression)], node)

    def visit_Floor(self, node: exp.Floor) -> Expr:
        return self._floor_ceil(node, "FLOOR")

    def visit_Ceil(self, node: exp.Ceil) -> Expr:
        return self._floor_ceil(node, "CEIL")

    def _floor_ceil(self, node, name: str) -> Expr:
        if node.args.get("to") is not None:
            unit = Lit(T.STRING(False), node.args["to"].name.upper())
            return self.call_bound(f"{name}_TO", [self.bind(node.this), unit], node)
        args = [node.this] + ([node.args["decimals"]] if node.args.get("decimals") else [])
        return self.call(name, args, node)

    def visit_Trim(self, node: exp.Trim) -> Expr:
        mode = (node.args.get("position") or "BOTH").upper()
        chars = self.bind(node.expression) if node.expression is not None else Lit(T.CHAR(1, False), " ")
        return self.call_bound("TRIM", [Lit(T.STRING(False), mode), chars, self.bind(node.this)], node)

    def visit_Pad(self, node: exp.Pad) -> Expr:
        args = [node.this, node.expression] + ([node.args["fill_pattern"]] if node.args.get("fill_pattern") else [])
        return self.call("LPAD" if node.args.get("is_left") else "RPAD", args, node)

    def visit_StrPosition(self, node: exp.StrPosition) -> Expr:
        args = [node.args["substr"], node.this] + ([node.args["position"]] if node.args.get("position") else [])
        return self.call("POSITION" if len(args) == 2 else "LOCATE", args, node)

    def visit_Substring(self, node: exp.Substring) -> Expr:
        args = [node.this, node.args["start"]] + ([node.args["length"]] if node.args.get("length") else [])
        return self.call("SUBSTRING", args, node)

    def visit_Anonymous(self, node: exp.Anonymous) -> Expr:
        name = node.name.upper()
        args = list(node.expressions)
        if name in ("TIMESTAMPADD", "TIMESTAMPDIFF") and args and isinstance(args[0], exp.Column):
            unit = Lit(T.STRING(False), args[0].name.upper())
            return self.call_bound(name, [unit] + [self.bind(a) for a in args[1:]], node)
        if name == "ROW":
            return self.call_bound("ROW", [self.bind(a) for a in args], node)
        if name in ("JSON_VALUE", "JSON_QUERY", "JSON_EXISTS", "JSON_ARRAY"):
            return self.json_call(name, args, node)
        return self.call(name, args, node)

    # -- SQL/JSON -----------------------------------------------------------------------
    def json_call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> Expr:
        """The SQL/JSON functions with their clauses (dialect/parser.py ``_parse_json_call``):
        RETURNING casts JSON_VALUE's text (NULL where it does not convert); the wrapper of
        JSON_QUERY, the null handling of JSON_ARRAY and the ON EMPTY / ON ERROR behaviours
        go to the function as trailing string literals (``EMPTY=DEFAULT;ERROR=NULL``),
        followed for JSON_VALUE by the two DEFAULT values (NULL when not given)."""
        values = [a for a in args if not isinstance(a, (dn.JsonReturning, dn.JsonWrapper, dn.JsonBehavior))]
        returning = next((a for a in args if isinstance(a, dn.JsonReturning)), None)
        wrapper = next((a for a in args if isinstance(a, dn.JsonWrapper)), None)
        null_on_null = "ABSENT ON NULL"
        behaviors: dict[str, str] = {}
        defaults: dict[str, Expr] = {}
        for b in (a for a in args if isinstance(a, dn.JsonBehavior)):
            behavior, on = b.name.upper(), b.args.get("on")
            if on == "NULL" and name == "JSON_ARRAY":
                null_on_null = f"{behavior} ON NULL"
                continue
            if behavior not in JSON_BEHAVIORS.get((name, on), ()):
                raise self.error(f"{name} does not take {behavior} ON {on}", b)
            behaviors[on] = behavior
            if behavior == "DEFAULT":
                defaults[on] = self.bind(b.expression)
        if name == "JSON_ARRAY":
            bound = [self.bind(v) for v in values]
            return self.call_bound(name, bound + [_json_options(null_on_null, bound)], node)
        bound = [self.bind(a) for a in values]
        if name == "JSON_QUERY" and (wrapper is not None or behaviors):
            bound.append(Lit(T.STRING(False), wrapper.name.upper() if wrapper is not None else "WITHOUT ARRAY"))
        if behaviors:
            bound.append(Lit(T.STRING(False), ";".join(f"{on}={b}" for on, b in sorted(behaviors.items()))))
            if name == "JSON_VALUE":
                bound += [defaults.get(on, Lit(T.NULLTYPE(), None)) for on in ("EMPTY", "ERROR")]
        call = self.call_bound(name, bound, node)
        if returning is not None:
            target = to_flink(returning.this)
            if not cast_allowed(call.type, target):
                raise self.error(f"Cast function cannot convert value of type {call.type} to type {target}", node)
            return Cast(target.with_nullable(True), call, True)
        return call

    def visit_JSONObject(self, node: exp.JSONObject) -> Expr:
        if node.args.get("star") or node.args.get("unique_keys") or node.args.get("return_type") not in (None, False):
            raise UnsupportedError(f"Unsupported JSON_OBJECT form: {node.sql()}", self.span(node))
        members: list[Expr] = []
        for kv in node.expressions:
            if not isinstance(kv, exp.JSONKeyValue):
                raise UnsupportedError(f"Unsupported JSON_OBJECT member: {kv.sql()}", self.span(kv))
            members += [self.bind(kv.this), self.bind(kv.expression)]
        pairs = [members[i:i + 2] for i in range(0, len(members), 2)]
        if all(isinstance(k, Lit) and isinstance(k.value, str) for k, _ in pairs):  # Flink writes keys sorted
            members = [m for pair in sorted(pairs, key=lambda p: p[0].value) for m in pair]
        null_handling = (node.args.get("null_handling") or "NULL ON NULL").upper()
        return self.call_bound("JSON_OBJECT", members + [_json_options(null_handling, members)], node)

    def visit_Struct(self, node: exp.Struct) -> Expr:
        return self.call("ROW", list(node.expressions), node)

    def visit_Array(self, node: exp.Array) -> Expr:
        return self.call("ARRAY", list(node.expressions), node)

    def visit_VarMap(self, node: exp.VarMap) -> Expr:
        """``MAP[k1, v1, k2, v2]``: the MAP constructor over the interleaved pairs."""
        keys, values = node.args["keys"].expressions, node.args["values"].expressions
        if len(keys) != len(values):
            raise self.error("Map requires an even number of arguments", node)
        pairs = zip(keys, values)
        return self.call("MAP", [x for pair in pairs for x in pair], node)

    def visit_Exists(self, node: exp.Exists, negate: bool = False) -> Expr:
        return self.subquery(node, negate)

    def visit_Subquery(self, node: exp.Subquery) -> Expr:
        return self.subquery(node, False)

    def subquery(self, node: exp.Expression, negate: bool) -> Expr:
        if self.scope.on_subquery is None:
            kind = "IN" if isinstance(node, exp.In) else "EXISTS" if isinstance(node, exp.Exists) else "Scalar"
            raise UnsupportedError(f"{kind} subqueries are supported only in WHERE (or as a scalar "
                                   f"subquery in SELECT)", self.span(node))
        return self.scope.on_subquery(node, negate)

    def visit_Grouping(self, node) -> Expr:
        return self.aggregate(node)

    def visit_GroupingId(self, node) -> Expr:
        return self.aggregate(node)

    def visit_Filter(self, node: exp.Filter) -> Expr:
        return self.aggregate(node)

    def visit_IgnoreNulls(self, node) -> Expr:
        return self.aggregate(node)

    visit_RespectNulls = visit_IgnoreNulls

    def visit_Window(self, node) -> Expr:
        raise UnsupportedError("OVER windows are not supported yet", self.span(node))

    def visit_func(self, node: exp.Func) -> Expr:
        name = RENAMES.get(type(node).__name__, node.sql_name().upper())
        if lookup_aggregate(name) is not None and lookup_scalar(name) is None:
            return self.aggregate(node)
        args: list[exp.Expression] = []
        if type(node).__name__ in ONLY_THIS:
            return self.call(name, [node.this], node)
        for key in node.arg_types:
            value = node.args.get(key)
            if value is None or isinstance(value, bool):
                continue
            if isinstance(value, list):
                args.extend(value)
            elif isinstance(value, exp.Expression):
                args.append(value)
        return self.call(name, args, node)

    def python_call(self, fn, name: str, args: list[Expr], node: exp.Expression) -> Expr:
        return _python_call(self, fn, name, args, node)

    # -- aggregates ---------------------------------------------------------------------
    def aggregate(self, node: exp.Expression) -> Expr:
        if self.scope.on_aggregate is None:
            raise self.error(f"Aggregate function is not allowed here: {node.sql()}", node)
        return self.scope.on_aggregate(node)

    # -- calls ------------------------------------------------------------------------
    def call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> Expr:
        if lookup_scalar(name) is None and lookup_aggregate(name) is not None:
            return self.aggregate(node)  # its arguments are bound by the aggregation, over its input
        from sqlengine.functions.python_udf import find_aggregate
        if find_aggregate(name, [node.name if isinstance(node, exp.Anonymous) else name]) is not None:
            return self.aggregate(node)
        return self.call_bound(name, [self.bind(a) for a in args], node)

    def call_bound(self, name: str, args: list[Expr], node: exp.Expression) -> Expr:
        from sqlengine.functions import python_udf
        user = python_udf.find_system(name)  # temporary system functions come before the built-ins
        fn = lookup_scalar(name)
        if user is None and fn is None and lookup_aggregate(name) is None:
            user = python_udf.find_catalog([node.name if isinstance(node, exp.Anonymous) else name])
        if user is not None:
            from sqlengine.functions.python_udf import is_aggregate
            if is_aggregate(user):
                return self.aggregate(node)
            if getattr(user, "func_type", "") == "table":
                raise self.error(f"'{node.name if isinstance(node, exp.Anonymous) else name.lower()}' is a table "
                                 "function: call it in FROM, as LATERAL TABLE(...)", node)
            return self.python_call(user, node.name if isinstance(node, exp.Anonymous) else name.lower(), args, node)
        if fn is None:
            if lookup_aggregate(name) is not None:
                return self.aggregate(node)
            if name in WINDOW_ONLY:
                raise self.error("OVER clause is necessary for window functions", node)
            if any(a.type.root == "NULL" for a in args):  # no signature to give an untyped NULL a type
                raise self.error("Illegal use of 'NULL'", node)
            typed = node.name if isinstance(node, exp.Anonymous) else name
            raise self.error(f"No match found for function signature {typed}"
                             f"({', '.join('<' + calcite_family(a.type) + '>' for a in args)})", node)
        if name in EQUALITIES:
            self.check_equality(name, args, node)
        try:
            result = fn.infer([to_arg(a) for a in args])
        except ValidationError as err:
            raise err.with_span(self.span(node))
        return Call(result, name, tuple(args))


    def check_equality(self, name: str, args: list[Expr], node: exp.Expression) -> None:
        """Flink compares no number with a character string for equality (its code generator's
        ``checkImplicitConversionValidity``), where Calcite would cast; a NULL constant passes."""
        a, b = (x.type for x in args[:2])
        if any(_is_null_constant(x) for x in args[:2]):
            return
        if a.is_numeric and b.is_string or a.is_string and b.is_numeric:
            split = self.scope.join_split
            if split is not None and all(isinstance(x, ColRef) for x in args[:2]) and \
                    (args[0].index < split) != (args[1].index < split):
                raise self.error(f"implicit type conversion between {calcite_name(a)} and {calcite_name(b)} "
                                 "is not supported on join's condition now", node)
            raise self.error(f"implicit type conversion between {_type_root(a)} and {_type_root(b)} "
                             "is not supported now", node)


# Functions that exist only with OVER (Calcite: "OVER clause is necessary for window functions").
WINDOW_ONLY = frozenset({"ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE", "LAG", "LEAD"})
# Calls Flink generates as an equality (NULLIF is CASE WHEN a = b).
EQUALITIES = frozenset({"=", "<>", "IS DISTINCT FROM", "IS NOT DISTINCT FROM", "NULLIF"})


def calcite_family(t: T.DataType) -> str:
    """A type as Calcite names its family in 'No match found for function signature'."""
    families = {"CHAR": "CHARACTER", "VARCHAR": "CHARACTER", "BINARY": "BINARY", "VARBINARY": "BINARY",
                "TIMESTAMP_LTZ": "TIMESTAMP", "INTERVAL_DAY_TIME": "INTERVAL_DAY_TIME",
                "INTERVAL_YEAR_MONTH": "INTERVAL_YEAR_MONTH"}
    if t.is_numeric:
        return "NUMERIC"
    if t.root in families:
        return families[t.root]
    if t.root in ("ARRAY", "MULTISET"):
        return f"{calcite_name(t.element)} {t.root}"
    if t.root == "MAP":
        return f"({calcite_name(t.key)}, {calcite_name(t.value)}) MAP"
    if t.root == "ROW":
        return "RecordType:peek_no_expand(" + ", ".join(f"{calcite_name(f.type)} {f.name}" for f in t.fields) + ")"
    return t.root


def _type_root(t: T.DataType) -> str:
    """Flink's LogicalTypeRoot name of a type."""
    return {"INT": "INTEGER", "TIMESTAMP": "TIMESTAMP_WITHOUT_TIME_ZONE",
            "TIMESTAMP_LTZ": "TIMESTAMP_WITH_LOCAL_TIME_ZONE"}.get(t.root, t.root)


def _is_null_constant(e: Expr) -> bool:
    while isinstance(e, Cast):
        e = e.arg
    return isinstance(e, Lit) and e.value is None


def _python_call(binder: "ExprBinder", fn, name: str, args: list[Expr], node: exp.Expression) -> Expr:
    """A user-defined Python function's call: its arguments cast to its ``input_types``."""
    from sqlengine.plan.nodes import PyCall
    return PyCall(fn.result_type, name, tuple(_cast_arguments(binder, fn, name, args, node)), fn)


def _cast_arguments(binder: "ExprBinder", fn, name: str, args: list[Expr], node: exp.Expression) -> list[Expr]:
    """A Python function's arguments cast to its ``input_types`` (when it has them)."""
    from sqlengine.functions.casts import cast_allowed
    if fn.input_types is not None:
        if len(fn.input_types) != len(args):
            raise binder.error(f"Function '{name}' takes {len(fn.input_types)} argument(s), "
                               f"{len(args)} given", node)
        cast = []
        for a, t in zip(args, fn.input_types):
            if a.type.sql(False) == t.sql(False):
                cast.append(a)
            elif a.type.root == "NULL" or cast_allowed(a.type, t):
                cast.append(Cast(t, a))
            else:
                raise binder.error(f"Function '{name}' takes {t.sql(False)} where {a.type.sql(False)} "
                                   f"was given", node)
        args = cast
    return args


def _json_options(null_handling: str, members: list[Expr]) -> Lit:
    """JSON_OBJECT / JSON_ARRAY's trailing literal: the null handling, then the positions of
    the members made by JSON_OBJECT or JSON_ARRAY, which nest as JSON, not as strings."""
    raw = [str(i) for i, m in enumerate(members) if isinstance(m, Call) and m.name in ("JSON_OBJECT", "JSON_ARRAY", "JSON")]
    return Lit(T.STRING(False), f"{null_handling};{','.join(raw)}")


def _is_boolean_expr(node: exp.Expression) -> bool:
    return isinstance(node, (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.NEQ, exp.And, exp.Or, exp.Not))


# The ON EMPTY / ON ERROR behaviours each SQL/JSON function takes (Flink 2.3).
JSON_BEHAVIORS = {
    ("JSON_VALUE", "EMPTY"): ("NULL", "ERROR", "DEFAULT"), ("JSON_VALUE", "ERROR"): ("NULL", "ERROR", "DEFAULT"),
    ("JSON_QUERY", "EMPTY"): ("NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT"),
    ("JSON_QUERY", "ERROR"): ("NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT"),
    ("JSON_EXISTS", "ERROR"): ("TRUE", "FALSE", "UNKNOWN", "ERROR"),
}

# Aggregates taking IGNORE NULLS / RESPECT NULLS (the default): the aggregate that ignores them.
NULL_TREATMENT = {"ARRAY_AGG": "ARRAY_AGG IGNORE NULLS"}


def bind_aggregate_call(binder: ExprBinder, node: exp.Expression):
    """Resolve an aggregate call node (with DISTINCT / FILTER) into its parts."""
    from sqlengine.plan.nodes import AggCall

    filt = None
    if isinstance(node, exp.Filter):
        filt = binder.bind(node.expression.this)
        node = node.this
    # ``agg(x IGNORE NULLS)``: sqlglot wraps the call, or (under FILTER) its argument.
    nulls = None
    if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)):
        nulls, node = type(node), node.this
    if isinstance(node, exp.Anonymous):
        name, raw = node.name.upper(), list(node.expressions)
    else:
        name = RENAMES.get(type(node).__name__, node.sql_name().upper())
        raw = [node.this] if node.this is not None else []
        raw += list(node.expressions) if name not in ("COUNT",) else []
    distinct = False
    if raw and isinstance(raw[0], exp.Distinct):
        distinct = True
        raw = list(raw[0].expressions) + raw[1:]
    if raw and isinstance(raw[0], (exp.IgnoreNulls, exp.RespectNulls)):
        nulls, raw = type(raw[0]), [raw[0].this] + raw[1:]
    # JSON_OBJECTAGG(k VALUE v [x ON NULL]) / JSON_ARRAYAGG(v [x ON NULL]): the key and value
    # (or value), then the null handling as a string literal
    null_handling = None
    if name == "JSON_OBJECTAGG":
        raw = [part for kv in raw if isinstance(kv, exp.JSONKeyValue) for part in (kv.this, kv.expression)]
        null_handling = (node.args.get("null_handling") or "NULL ON NULL").upper()
    elif name == "JSON_ARRAYAGG":
        clauses = [a for a in raw if isinstance(a, dn.JsonBehavior)]
        raw = [a for a in raw if not isinstance(a, dn.JsonBehavior)]
        null_handling = f"{clauses[-1].name.upper()} ON NULL" if clauses else "ABSENT ON NULL"
    if raw and isinstance(raw[0], exp.Star):
        raw = []
    if nulls is not None:
        if name not in NULL_TREATMENT:
            raise binder.error(f"{'IGNORE' if nulls is exp.IgnoreNulls else 'RESPECT'} NULLS is not "
                               f"supported by {name}", node)
        name = NULL_TREATMENT[name] if nulls is exp.IgnoreNulls else name
    from sqlengine.functions.python_udf import find_aggregate
    user = find_aggregate(name, [node.name if isinstance(node, exp.Anonymous) else name])
    if user is not None:
        shown = node.name if isinstance(node, exp.Anonymous) else name.lower()
        args = tuple(_cast_arguments(binder, user, shown, [binder.bind(a) for a in raw], node))
        return AggCall(shown, args, user.result_type, distinct, filt, function=user)
    fn = lookup_aggregate(name)
    if fn is None:
        raise binder.error(f"Unknown aggregate function {name}", node)
    args = tuple(binder.bind(a) for a in raw)
    if null_handling is not None:
        args += (Lit(T.STRING(False), null_handling),)
    try:
        rtype = fn.infer([to_arg(a) for a in args], distinct)
    except ValidationError as err:
        raise err.with_span(binder.span(node))
    return AggCall(name, args, rtype, distinct, filt)
