"""SQL text as Calcite's ``SqlNode.toSqlString`` prints it with Flink's dialect (backquoted
identifiers, ``SqlPrettyWriter`` without indentation): the form of a view's expanded query
in SHOW CREATE VIEW (sqlengine/binder/expand.py).

Calcite starts each clause on a line of its own (``FROM``, ``WHERE``, ``GROUP BY``, a join,
a set operator and the query after it), puts a subquery's clauses on new lines too without
indenting them, keeps parentheses only where precedence needs them, and spells a few
things its own way: ``INTEGER``, ``BETWEEN ASYMMETRIC``, ``- x``, ``VALUES ROW(...)``,
``FETCH NEXT n ROWS ONLY``, ``AS `t` (`a`, `b`)``.
"""
from __future__ import annotations

from sqlglot import exp

from sqlengine.dialect import nodes as n
from sqlengine.dialect.generator import FlinkGenerator
from sqlengine.dialect.parser import POSTFIX_NOT

# Operator precedence as Calcite's unparser parenthesizes (higher binds tighter).
_PRECEDENCE = {exp.Or: 1, exp.And: 2, exp.Not: 3, exp.EQ: 4, exp.NEQ: 4, exp.GT: 4, exp.GTE: 4, exp.LT: 4,
               exp.LTE: 4, exp.Like: 4, exp.ILike: 4, exp.In: 4, exp.Between: 4, exp.Is: 4,
               exp.NullSafeEQ: 4, exp.NullSafeNEQ: 4, exp.Add: 5, exp.Sub: 5, exp.DPipe: 5, exp.Mul: 6,
               exp.Div: 6, exp.Mod: 6, exp.Neg: 7}
_TYPE_NAMES = {"INT": "INTEGER"}


def calcite_sql(query: exp.Expression) -> str:
    """``query`` (a SELECT, set operation or WITH) in Calcite's text."""
    from sqlengine.dialect.flink import Flink
    return CalciteGenerator(identify=True, dialect=Flink()).generate(_unparen(query.copy()))


def _unparen(node: exp.Expression) -> exp.Expression:
    """Parentheses around expressions go (Calcite adds those precedence needs); a
    parenthesized query stays a subquery."""
    def strip(e: exp.Expression):
        if isinstance(e, exp.Paren) and not isinstance(e.this, exp.Query):
            return e.this
        return e
    return node.transform(strip)


def _precedence(e: exp.Expression) -> int:
    return _PRECEDENCE.get(type(e), 9)


class CalciteGenerator(FlinkGenerator):
    def _operand(self, child: exp.Expression, parent: int, right: bool = False) -> str:
        text = self.sql(child)
        p = _precedence(child)
        return f"({text})" if p < parent or (right and p == parent and parent >= 4) else text

    def binary(self, expression: exp.Binary, op: str) -> str:
        p = _precedence(expression)
        return f"{self._operand(expression.left, p)} {op} {self._operand(expression.right, p, right=True)}"

    def and_sql(self, expression: exp.And, stack=None) -> str:
        return self.binary(expression, "AND")

    def or_sql(self, expression: exp.Or, stack=None) -> str:
        return self.binary(expression, "OR")

    def filter_sql(self, expression: exp.Filter) -> str:
        return f"{self.sql(expression, 'this')} FILTER ({self.sql(expression, 'expression').strip()})"

    def not_sql(self, expression: exp.Not) -> str:
        inner = expression.this
        if isinstance(inner, exp.In) and expression.meta.get(POSTFIX_NOT):
            return self.in_sql(inner).replace(" IN ", " NOT IN ", 1)
        if isinstance(inner, exp.Is):
            return f"{self._operand(inner.this, 4)} IS NOT {self.sql(inner, 'expression')}"
        if isinstance(inner, exp.Between) and expression.meta.get(POSTFIX_NOT):
            return self.between_sql(inner).replace(" BETWEEN ", " NOT BETWEEN ", 1)
        return f"NOT {self._operand(inner, 3)}"

    def neg_sql(self, expression: exp.Neg) -> str:
        return f"- {self._operand(expression.this, 7)}"

    def between_sql(self, expression: exp.Between) -> str:
        return (f"{self._operand(expression.this, 4)} BETWEEN ASYMMETRIC {self._operand(expression.args['low'], 5)}"
                f" AND {self._operand(expression.args['high'], 5)}")

    def in_sql(self, expression: exp.In) -> str:
        query = expression.args.get("query")
        inner = self.sql(query.this if isinstance(query, exp.Subquery) else query) if query is not None \
            else ", ".join(self.sql(e) for e in expression.expressions)
        return f"{self._operand(expression.this, 4)} IN ({inner})"

    def exists_sql(self, expression: exp.Exists) -> str:
        return f"EXISTS ({self.sql(expression, 'this')})"

    def datatype_sql(self, expression: exp.DataType) -> str:
        text = super().datatype_sql(expression)
        head, sep, rest = text.partition("(")
        return _TYPE_NAMES.get(head, head) + sep + rest

    # -- queries --------------------------------------------------------------------------
    def select_sql(self, expression: exp.Select) -> str:
        head = "SELECT " + ("DISTINCT " if expression.args.get("distinct") else "")
        lines = [head + ", ".join(self.sql(e) for e in expression.expressions)]
        if expression.args.get("from_") is not None:
            lines.append("FROM " + self.sql(expression.args["from_"].this))
        for join in expression.args.get("joins") or []:
            text = self.sql(join)
            if lines and text.startswith(","):
                lines[-1] += ","
                text = text[1:].lstrip()
            lines.append(text)
        if expression.args.get("where") is not None:
            lines.append("WHERE " + self.sql(expression.args["where"].this))
        if expression.args.get("group") is not None:
            lines.append("GROUP BY " + ", ".join(self.sql(e) for e in expression.args["group"].expressions))
        if expression.args.get("having") is not None:
            lines.append("HAVING " + self.sql(expression.args["having"].this))
        lines += self._order_fetch(expression)
        return self._with(expression, "\n".join(lines))

    def _order_fetch(self, expression: exp.Expression) -> list[str]:
        lines = []
        if expression.args.get("order") is not None:
            lines.append("ORDER BY " + ", ".join(self.sql(e) for e in expression.args["order"].expressions))
        if expression.args.get("offset") is not None:
            lines.append(f"OFFSET {self.sql(expression.args['offset'], 'expression')} ROWS")
        limit = expression.args.get("limit")
        if limit is not None:
            count = limit.args.get("count") if isinstance(limit, exp.Fetch) else limit.expression
            lines.append(f"FETCH NEXT {self.sql(count)} ROWS ONLY")
        return lines

    def _with(self, expression: exp.Expression, body: str) -> str:
        with_ = expression.args.get("with_")
        if with_ is None:
            return body
        ctes = ", ".join(f"{self.sql(c.args['alias'])} AS ({self.sql(c.this)})" for c in with_.expressions)
        if any(expression.args.get(k) is not None for k in ("order", "limit", "offset")):
            body = f"({body})"  # Calcite's ORDER BY node under WITH is parenthesized
        return f"WITH {ctes} {body}"

    def set_operations(self, expression: exp.SetOperation) -> str:
        op = {exp.Union: "UNION", exp.Intersect: "INTERSECT", exp.Except: "EXCEPT"}[type(expression)]
        op += "" if expression.args.get("distinct") else " ALL"
        body = "\n".join([self.sql(expression.left), op, self.sql(expression.right)] + self._order_fetch(expression))
        return self._with(expression, body)

    def union_sql(self, expression: exp.Union) -> str:
        return self.set_operations(expression)

    def intersect_sql(self, expression: exp.Intersect) -> str:
        return self.set_operations(expression)

    def except_sql(self, expression: exp.Except) -> str:
        return self.set_operations(expression)

    def subquery_sql(self, expression: exp.Subquery, sep: str = " AS ") -> str:
        alias = expression.args.get("alias")
        return f"({self.sql(expression.this)})" + (f" AS {self.sql(alias)}" if alias else "")

    def tablealias_sql(self, expression: exp.TableAlias) -> str:
        columns = expression.columns
        name = self.sql(expression, "this")
        return name + (f" ({', '.join(self.sql(c) for c in columns)})" if columns else "")

    def table_sql(self, expression: exp.Table, sep: str = " AS ") -> str:
        name = ".".join(self.sql(p) for p in expression.parts)
        alias = expression.args.get("alias")
        return name + (f" AS {self.sql(alias)}" if alias else "")

    def values_sql(self, expression: exp.Values, values_as_table: bool = True) -> str:
        rows = ",\n".join("ROW(" + ", ".join(self.sql(v) for v in t.expressions) + ")"
                          for t in expression.expressions)
        alias = expression.args.get("alias")
        return f"(VALUES {rows})" + (f" AS {self.sql(alias)}" if alias else "")

    def unnest_sql(self, expression: exp.Unnest) -> str:
        alias = expression.args.get("alias")
        return f"UNNEST({', '.join(self.sql(e) for e in expression.expressions)})" + \
            (f" AS {self.sql(alias)}" if alias else "")

    def join_sql(self, expression: exp.Join) -> str:
        side, kind = (expression.side or "").upper(), (expression.kind or "").upper()
        target = self.sql(expression.this)
        on = expression.args.get("on")
        if not side and not kind and on is None and not expression.args.get("using"):
            return f", {target}"
        word = {"LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL JOIN"}.get(side) or \
            ("CROSS JOIN" if kind == "CROSS" else "INNER JOIN")
        text = f"{word} {target}"
        if on is not None:
            text += f" ON {self.sql(on)}"
        if expression.args.get("using"):
            text += f" USING ({', '.join(self.sql(u) for u in expression.args['using'])})"
        return text

    def window_tvf(self, expression: n.WindowTVF) -> str:
        call = expression.this
        args = []
        for a in call.expressions:
            if isinstance(a, n.TableArg):
                args.append(self.sql(a.this))
            elif isinstance(a, n.Descriptor):
                args.append("DESCRIPTOR(" + ", ".join(self.sql(c) for c in a.expressions) + ")")
            else:
                args.append(self.sql(a))
        alias = expression.args.get("alias")
        return f"TABLE({call.name.upper()}({', '.join(args)}))" + (f" AS {self.sql(alias)}" if alias else "")


CalciteGenerator.TRANSFORMS = {**FlinkGenerator.TRANSFORMS, n.WindowTVF: CalciteGenerator.window_tvf}
