"""The Flink SQL generator: sqlglot's generator with Flink's spelling of statements, clauses
and functions, so that generated SQL is valid Flink SQL and parses back to the same tree.

Statement nodes of ``nodes.py`` are rendered by the functions of ``generate_statements``;
this module holds the expression-level transforms and the placement of CREATE TABLE
properties (``COMMENT``, ``PARTITIONED BY``, ``WITH (...)``, ``FRESHNESS``, ``LIKE``).
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.generator import Generator

from sqlengine.dialect import nodes as n
from sqlengine.dialect.generate_statements import STATEMENT_TRANSFORMS

# Named TVF arguments that are reserved words in Flink and must be back-quoted.
RESERVED_ARGUMENT_NAMES = {"OFFSET"}
# Properties written after WITH (...) in CREATE [MATERIALIZED] TABLE.
TRAILING_PROPERTIES = (n.FreshnessProperty, n.RefreshModeProperty)
JSON_CLAUSES = (n.JsonReturning, n.JsonWrapper, n.JsonBehavior)


def _func(name: str):
    """Render a one- or two-argument function node under Flink's name for it."""
    return lambda self, e: self.func(name, e.this, e.args.get("expression") or e.args.get("decimals"))


def _str_position_sql(self: Generator, e: exp.StrPosition) -> str:
    if e.args.get("position"):
        return self.func("LOCATE", e.args.get("substr"), e.this, e.args.get("position"))
    return f"POSITION({self.sql(e, 'substr')} IN {self.sql(e, 'this')})"


def _trim_sql(self: Generator, e: exp.Trim) -> str:
    position = self.sql(e, "position")
    chars = self.sql(e, "expression")
    if not chars:
        name = {"LEADING": "LTRIM", "TRAILING": "RTRIM"}.get(position, "TRIM")
        return self.func(name, e.this)
    head = " ".join(p for p in (position, chars) if p)
    return f"TRIM({head} FROM {self.sql(e, 'this')})"


def _substring_sql(self: Generator, e: exp.Substring) -> str:
    length = self.sql(e, "length")
    return f"SUBSTRING({self.sql(e, 'this')} FROM {self.sql(e, 'start')}" + \
        (f" FOR {length})" if length else ")")


def _version_sql(self: Generator, e: exp.Version) -> str:
    kind = "SYSTEM_TIME" if e.name.upper() == "TIMESTAMP" else e.name
    return f"FOR {kind} {e.text('kind')} {self.sql(e, 'expression')}"


def _kwarg_sql(self: Generator, e: exp.Kwarg) -> str:
    name = e.this.name
    name = f"`{name}`" if name.upper() in RESERVED_ARGUMENT_NAMES else name
    return f"{name} => {self.sql(e, 'expression')}"


def _json_behavior_sql(self: Generator, e: n.JsonBehavior) -> str:
    value = f" {self.sql(e, 'expression')}" if e.args.get("expression") else ""
    return f"{e.this}{value} ON {e.args['on']}"


def _property_sql(self: Generator, e: exp.Property) -> str:
    key = e.this
    key_sql = self.sql(key) if isinstance(key, (exp.Literal, exp.Table)) else f"'{e.name}'"
    return f"{key_sql} = {self.sql(e, 'value')}"


def _like_property_sql(self: Generator, e: exp.LikeProperty) -> str:
    options = " ".join(f"{o.name} {o.text('value')}" for o in e.expressions)
    return f"LIKE {self.sql(e, 'this')}" + (f" ({options})" if options else "")


def _row_field_sql(self: Generator, e: exp.ColumnDef) -> str:
    """A ROW field: ``name TYPE [NOT NULL] ['description']``."""
    parts = [self.sql(e, "this"), self.sql(e, "kind")]
    for c in e.args.get("constraints") or []:
        kind = c.args.get("kind")
        parts.append(self.sql(kind, "this") if isinstance(kind, exp.CommentColumnConstraint) else self.sql(c))
    return " ".join(p for p in parts if p)


def _column_def_sql(self: Generator, e: exp.ColumnDef) -> str:
    if isinstance(e.parent, exp.DataType):
        return _row_field_sql(self, e)
    constraints = e.args.get("constraints") or []
    if constraints and isinstance(constraints[0].args.get("kind"), exp.ComputedColumnConstraint) \
            and not e.args.get("kind"):
        rest = " ".join(self.sql(c) for c in constraints[1:])
        computed = self.sql(constraints[0].args["kind"], "this")
        position = self.sql(e, "position")
        return f"{self.sql(e, 'this')} AS {computed}" + (f" {rest}" if rest else "") + \
            (f" {position}" if position else "")
    return Generator.columndef_sql(self, e)


def _typed_literal_sql(self: Generator, e: n.TypedLiteral) -> str:
    """``TIMESTAMP '...'``; a TIMESTAMP_LTZ literal in Flink's (Calcite's) long spelling."""
    to = e.args["to"]
    kind = "TIMESTAMP WITH LOCAL TIME ZONE" if to.this == exp.DType.TIMESTAMPLTZ else self.sql(to)
    return f"{kind} {self.sql(e, 'this')}"


def _var_map_sql(self: Generator, e: exp.VarMap) -> str:
    """``MAP[k1, v1, k2, v2]``: keys and values interleaved again."""
    pairs = zip(e.args["keys"].expressions, e.args["values"].expressions)
    return f"MAP[{', '.join(self.sql(x) for pair in pairs for x in pair)}]"


def _no_paren(name: str):
    return lambda self, e: name


class FlinkGenerator(Generator):
    INSERT_OVERWRITE = " OVERWRITE"
    TABLE_HINTS = False  # rendered right after the table name, see table_parts
    QUERY_HINTS = True
    SUPPORTS_BETWEEN_FLAGS = True
    SUPPORTS_UESCAPE = True

    TRANSFORMS = {
        **Generator.TRANSFORMS,
        **STATEMENT_TRANSFORMS,
        n.MatchRecognize: lambda self, e: self.matchrecognize_sql(e),
        n.MetadataColumnConstraint: lambda self, e: "METADATA"
        + (f" FROM {self.sql(e, 'this')}" if e.this else "")
        + (" VIRTUAL" if e.args.get("virtual") else ""),
        n.NotEnforced: lambda self, e: "NOT ENFORCED",
        n.FreshnessProperty: lambda self, e: f"FRESHNESS = {self.sql(e, 'this')}",
        n.RefreshModeProperty: lambda self, e: f"REFRESH_MODE = {self.sql(e, 'this')}",
        n.JsonReturning: lambda self, e: f"RETURNING {self.sql(e, 'this')}",
        n.JsonWrapper: lambda self, e: f"{e.this} WRAPPER",
        n.JsonBehavior: _json_behavior_sql,
        exp.Property: _property_sql,
        exp.ColumnDef: _column_def_sql,
        exp.SchemaCommentProperty: lambda self, e: f"COMMENT {self.sql(e, 'this')}",
        exp.LikeProperty: _like_property_sql,
        exp.PartitionedByProperty: lambda self, e: f"PARTITIONED BY {self.sql(e, 'this')}",
        exp.Version: _version_sql,
        exp.Kwarg: _kwarg_sql,
        exp.JSONKeyValue: lambda self, e: f"KEY {self.sql(e, 'this')} VALUE {self.sql(e, 'expression')}",
        # functions sqlglot would spell differently
        exp.Length: lambda self, e: self.func("CHAR_LENGTH", e.this),
        exp.StrPosition: _str_position_sql,
        exp.Trim: _trim_sql,
        exp.Substring: _substring_sql,
        exp.Trunc: _func("TRUNCATE"),
        exp.DayOfMonth: _func("DAYOFMONTH"),
        exp.DayOfWeek: _func("DAYOFWEEK"),
        exp.DayOfYear: _func("DAYOFYEAR"),
        exp.If: lambda self, e: self.func("IF", e.this, e.args.get("true"), e.args.get("false")),
        exp.Coalesce: lambda self, e: self.func(
            "IFNULL" if e.args.get("is_null") else "COALESCE", e.this, *e.expressions),
        exp.ArrayToString: _func("ARRAY_JOIN"),
        exp.Array: lambda self, e: f"ARRAY[{self.expressions(e, flat=True)}]",
        exp.VarMap: _var_map_sql,
        n.TypedLiteral: _typed_literal_sql,
        exp.SHA: _func("SHA1"),
        exp.VariancePop: _func("VAR_POP"),
        exp.Variance: _func("VAR_SAMP"),
        exp.StartsWith: _func("STARTSWITH"),
        exp.EndsWith: _func("ENDSWITH"),
        exp.Mod: _func("MOD"),
        exp.CurrentTimestamp: _no_paren("CURRENT_TIMESTAMP"),
        exp.CurrentTime: _no_paren("CURRENT_TIME"),
        exp.CurrentDate: _no_paren("CURRENT_DATE"),
        exp.Localtime: _no_paren("LOCALTIME"),
        exp.Localtimestamp: _no_paren("LOCALTIMESTAMP"),
    }
    TYPE_MAPPING = {
        **Generator.TYPE_MAPPING,
        exp.DType.TEXT: "STRING",
        exp.DType.VARBINARY: "BYTES",
        exp.DType.TIMESTAMPLTZ: "TIMESTAMP_LTZ",
        exp.DType.STRUCT: "ROW",
        exp.DType.LIST: "MULTISET",
    }
    PROPERTIES_LOCATION = {
        **Generator.PROPERTIES_LOCATION,
        exp.SchemaCommentProperty: exp.Properties.Location.POST_SCHEMA,
        exp.PartitionedByProperty: exp.Properties.Location.POST_SCHEMA,
        exp.LikeProperty: exp.Properties.Location.POST_EXPRESSION,
        n.DistributionProperty: exp.Properties.Location.POST_SCHEMA,
        n.FreshnessProperty: exp.Properties.Location.POST_WITH,
        n.RefreshModeProperty: exp.Properties.Location.POST_WITH,
    }

    def properties_sql(self, expression: exp.Properties) -> str:
        """``COMMENT`` / ``PARTITIONED BY``, then ``WITH (...)``, then ``FRESHNESS`` etc."""
        trailing = [p for p in expression.expressions if isinstance(p, TRAILING_PROPERTIES)]
        if not trailing:
            return super().properties_sql(expression)
        rest = exp.Properties(expressions=[p for p in expression.expressions if p not in trailing])
        rest.parent = expression.parent
        head = super().properties_sql(rest)
        tail = " ".join(self.sql(p) for p in trailing)
        return f"{head} {tail}" if head else f" {tail}"

    def datatype_sql(self, expression: exp.DataType) -> str:
        text = super().datatype_sql(expression)
        return f"{text} NOT NULL" if expression.args.get("nullable") is False else text

    def table_parts(self, expression: exp.Table) -> str:
        hints = "".join(self.sql(h) for h in expression.args.get("hints") or [])
        return super().table_parts(expression) + hints

    def matchrecognize_sql(self, expression: exp.MatchRecognize) -> str:
        """sqlglot's text, with Flink's ``WITHIN <interval>`` after the pattern."""
        text = super().matchrecognize_sql(expression)
        within = expression.args.get("within")
        if within is None:
            return text
        pattern = f"PATTERN ({self.sql(expression, 'pattern')})"
        return text.replace(pattern, f"{pattern} WITHIN {self.sql(within)}", 1)

    def anonymous_sql(self, expression: exp.Anonymous) -> str:
        clauses = [a for a in expression.expressions if isinstance(a, JSON_CLAUSES)]
        if not clauses:
            return super().anonymous_sql(expression)
        args = [a for a in expression.expressions if not isinstance(a, JSON_CLAUSES)]
        tail = " ".join(self.sql(c) for c in clauses)
        return self.func(self.sql(expression, "this"), *args, suffix=f" {tail})")
