"""The Flink SQL parser: sqlglot's parser extended through its dispatch tables.

Statement parsing lives in two mixins (``parse_commands`` for SET/SHOW/EXPLAIN/...,
``parse_ddl`` for CREATE/ALTER/DROP); this module wires their tables in and overrides the
few expression-level methods where Flink's grammar differs from sqlglot's: computed and
metadata columns, ``ROW(...)`` types, plural interval units, window TVFs in FROM (with
``TABLE t [PARTITION BY k]`` and named arguments), ``/*+ ... */`` hints after table names,
and the clauses of the SQL/JSON functions.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.parser import Parser, build_coalesce
from sqlglot.tokens import TokenType

from sqlengine.dialect import nodes as n
from sqlengine.dialect import parse_commands, parse_ddl
from sqlengine.dialect.parse_commands import CommandParser
from sqlengine.dialect.parse_ddl import DdlParser
from sqlengine.dialect.parse_expressions import StrictExpressionParser
from sqlengine.dialect.parse_strict import TIME_UNITS, StrictParser, is_name

PLURAL_UNITS = {
    "SECONDS": "SECOND", "MINUTES": "MINUTE", "HOURS": "HOUR", "DAYS": "DAY",
    "MONTHS": "MONTH", "YEARS": "YEAR", "MILLISECONDS": "MILLISECOND",
}
WINDOW_TVFS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")
INTERVAL_UNITS = (*TIME_UNITS, *PLURAL_UNITS)
JSON_CLAUSE_FUNCTIONS = ("JSON_VALUE", "JSON_QUERY", "JSON_EXISTS", "JSON_ARRAY", "JSON_ARRAYAGG")
JSON_BEHAVIORS = (("EMPTY", "ARRAY"), ("EMPTY", "OBJECT"), ("NULL",), ("ERROR",), ("TRUE",),
                  ("FALSE",), ("UNKNOWN",), ("ABSENT",))
# sqlglot's property parsers that Flink's CREATE statements use; everything else is an error.
_BASE_PROPERTIES = ("COMMENT", "PARTITIONED BY", "TEMPORARY", "MATERIALIZED")
# sqlglot's statement parsers for statements Flink has (GRANT, COPY, MERGE, ... are errors).
_BASE_STATEMENTS = (TokenType.ALTER, TokenType.ANALYZE, TokenType.CREATE, TokenType.DELETE,
                    TokenType.DROP, TokenType.INSERT, TokenType.TRUNCATE, TokenType.UPDATE)
# Tokens a query statement may start with.
QUERY_START = (TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.L_PAREN)
# Flink's query clauses in their order (parse_strict.StrictParser._clause).
CLAUSE_ORDER = {TokenType.MATCH_RECOGNIZE: 0, TokenType.WHERE: 1, TokenType.GROUP_BY: 2,
                TokenType.HAVING: 3, TokenType.WINDOW: 4, TokenType.QUALIFY: 5,
                TokenType.ORDER_BY: 6, TokenType.LIMIT: 7, TokenType.OFFSET: 8, TokenType.FETCH: 9}
# Flink's CREATE TABLE clauses in their order (_parse_property).
PROPERTY_ORDER = {"COMMENT": 1, "DISTRIBUTED": 2, "PARTITIONED BY": 3, "WITH": 4, "LIKE": 5,
                  "FRESHNESS": 6, "REFRESH_MODE": 7}
# Types whose ``TYPE 'text'`` form is a datetime literal (see nodes.TypedLiteral).
DATETIME_LITERAL_TYPES = (exp.DType.DATE, exp.DType.TIME, exp.DType.TIMESTAMP,
                          exp.DType.TIMESTAMPLTZ)


def _typed_literal(self: Parser, this: exp.Expression, data_type: exp.DataType) -> exp.Expression:
    """``TIMESTAMP '...'`` is a TypedLiteral; ``TIMESTAMP(3) '...'`` stays sqlglot's CAST."""
    if isinstance(this, exp.Literal) and this.is_string and not data_type.expressions:
        return self.expression(n.TypedLiteral(this=this, to=data_type))
    return self.expression(exp.Cast(this=this, to=data_type))


def _closed(parse):
    """A function's own parser, then its ``)`` (sqlglot would let it be missing)."""
    return lambda self: self._closed_call(parse)


def _in_order(rank: int, parse):
    return lambda self: self._clause(rank, parse)


def _is_map_keyword(node: Optional[exp.Expression]) -> bool:
    """The unquoted word ``MAP`` that sqlglot read as a column name."""
    return isinstance(node, exp.Column) and not node.table and \
        isinstance(node.this, exp.Identifier) and not node.this.quoted and node.name.upper() == "MAP"


POSTFIX_NOT = "postfix_not"


class FlinkParser(StrictParser, StrictExpressionParser, DdlParser, CommandParser, Parser):
    def _negate_range(self, this=None):
        """``x NOT IN (...)`` / ``x NOT BETWEEN ...``: sqlglot's ``Not`` as for ``NOT x IN``,
        marked so that a view's expanded query prints it as written (dialect/calcite.py)."""
        negated = super()._negate_range(this)
        if isinstance(negated, exp.Not):
            negated.meta[POSTFIX_NOT] = True
        return negated

    STATEMENT_PARSERS = {
        **{token: Parser.STATEMENT_PARSERS[token] for token in _BASE_STATEMENTS},
        **parse_commands.STATEMENTS,
        **parse_ddl.STATEMENTS,
    }
    WORD_STATEMENT_PARSERS = parse_commands.WORD_STATEMENTS

    PROPERTY_PARSERS = {
        **{key: Parser.PROPERTY_PARSERS[key] for key in _BASE_PROPERTIES},
        **parse_ddl.PROPERTIES,
    }

    # Flink's column and table constraints (sqlglot's others are errors, as in Flink).
    CONSTRAINT_PARSERS = {
        **{key: Parser.CONSTRAINT_PARSERS[key] for key in ("COMMENT", "NULL", "PRIMARY KEY", "UNIQUE")},
        "WATERMARK": lambda self: self._parse_watermark(),
        "METADATA": lambda self: self._parse_metadata_constraint(),
        "NOT": lambda self: self._parse_not_constraint_flink(),
    }
    SCHEMA_UNNAMED_CONSTRAINTS = {"PRIMARY KEY", "UNIQUE", "WATERMARK"}

    FUNCTIONS = {
        **Parser.FUNCTIONS,
        "IFNULL": lambda args: build_coalesce(args, is_null=True),
        # Flink's own functions (Math.log10 / log2), not sqlglot's LOG(10, x) / LOG(2, x)
        "LOG10": lambda args: exp.Anonymous(this="LOG10", expressions=args),
        "LOG2": lambda args: exp.Anonymous(this="LOG2", expressions=args),
        # INSTR(s, sub [, start [, nth]]) searches backwards from a negative start (sqlglot
        # would make it a LOCATE)
        "INSTR": lambda args: exp.Anonymous(this="INSTR", expressions=args),
    }
    FUNCTION_PARSERS = {name: _closed(parse) for name, parse in {
        **Parser.FUNCTION_PARSERS,
        "EXISTS": lambda self: self.expression(exp.Exists(this=self._required(self._parse_select))),
        "EXTRACT": lambda self: self._unit_first(Parser.FUNCTION_PARSERS["EXTRACT"]),
        "DESCRIPTOR": lambda self: n.Descriptor(expressions=self._parse_csv(self._parse_column)),
        "TIMESTAMPDIFF": lambda self: self._parse_timestamp_function("TIMESTAMPDIFF"),
        "TIMESTAMPADD": lambda self: self._parse_timestamp_function("TIMESTAMPADD"),
        **{name: (lambda name: lambda self: self._parse_json_call(name))(name)
           for name in JSON_CLAUSE_FUNCTIONS},
    }.items()}
    LAMBDAS = {
        **Parser.LAMBDAS,
        TokenType.FARROW: lambda self, expressions: self.expression(
            exp.Kwarg(this=exp.var(expressions[0].name),
                      expression=self._parse_table_arg() or self._parse_disjunction()
                      or self._parse_select())),
    }
    TYPE_LITERAL_PARSERS = {
        **Parser.TYPE_LITERAL_PARSERS,
        **{dtype: _typed_literal for dtype in DATETIME_LITERAL_TYPES},
    }
    QUERY_MODIFIER_PARSERS = {token: _in_order(rank, Parser.QUERY_MODIFIER_PARSERS[token])
                              for token, rank in CLAUSE_ORDER.items()}
    QUERY_MODIFIER_TOKENS = set(QUERY_MODIFIER_PARSERS)
    CONFLICT_ACTIONS = {**Parser.CONFLICT_ACTIONS, "DO": ("NOTHING", "ERROR", "DEDUPLICATE")}
    TABLE_POSTFIX_TOKENS = {*Parser.TABLE_POSTFIX_TOKENS, TokenType.HINT}
    OPTIONAL_ALIAS_TOKEN_CTE = False  # WITH name AS (query)

    # -- errors and statements ----------------------------------------------------------
    def reset(self) -> None:
        super().reset()
        self._name_slot = -1  # the last token where a name could have stood (an alias, a type)
        self._in_create = False  # in CREATE TABLE / VIEW (their query follows AS)
        self._csv_ahead = False  # the next list is one where Flink looks two tokens ahead
        self._depth = 0  # nesting of statements (EXPLAIN <statement>, WITH ... <query>)
        self._clause_rank = -1  # the last query clause parsed (CLAUSE_ORDER)
        self._table_end = -1  # where the last FROM item ended (a comma there continues FROM)
        self._property_rank = 0  # the last CREATE clause parsed (PROPERTY_ORDER)
        self._pending_table_hints = None  # a /*+ hint */ between a table name and its alias
        self._type_depth = 0  # nesting of the type being parsed (NOT NULL of element types)

    def _parse_as_command(self, start):
        """Flink has no opaque commands: where sqlglot would keep the rest as raw text,
        Flink stops at the token sqlglot could not read."""
        self.raise_error("Invalid expression / Unexpected token")

    def _parse_command(self):
        self._stop(self._index - 1)

    def _parse_statement(self):
        """One statement, to its last token (Flink stops at the first token left over)."""
        if not self._curr:
            return None
        self._depth += 1
        try:
            node = self._parse_one_statement()
        finally:
            self._depth -= 1
        if self._depth == 0 and self._curr:
            self._stop_at_leftover()
        return node

    def _parse_one_statement(self):
        parser = self.WORD_STATEMENT_PARSERS.get(self._curr.text.upper())
        if parser and self._curr.token_type in (TokenType.VAR, TokenType.COMMAND):
            self._advance()
            return parser(self)
        if self._curr.token_type not in self.STATEMENT_PARSERS and \
                self._curr.token_type not in QUERY_START:
            self._stop_at_statement_start()
        return super()._parse_statement()

    def _parse_property(self):
        """Flink's CREATE clauses, each once and in its order (PROPERTY_ORDER)."""
        if not self._match_texts(self.PROPERTY_PARSERS):
            return None
        key = self._prev.text.upper()
        rank = PROPERTY_ORDER.get(key, 0)
        if rank and rank <= self._property_rank:
            self._stop(self._index - 1, ident_ok=False)
        self._property_rank = rank
        return self.PROPERTY_PARSERS[key](self)

    def _parse_property_before(self):
        return None

    def _parse_function_call(self, functions=None, anonymous: bool = False,
                             optional_parens: bool = True, any_token: bool = False):
        """A call whose arguments do not fit sqlglot's builtin of that name (e.g. a one-argument
        ``split(s)`` UDF) is a plain call of a user-defined function."""
        index = self._index
        try:
            return super()._parse_function_call(functions, anonymous, optional_parens, any_token)
        except ParseError as err:
            if anonymous or not str(err).startswith("Required keyword"):
                raise
        self._retreat(index)
        return super()._parse_function_call(functions, True, optional_parens, any_token)

    # -- GROUP BY ------------------------------------------------------------------------
    # Calcite takes any expression in ROLLUP, CUBE and GROUPING SETS (``CUBE (region,
    # amount > 20)``); sqlglot's parser stops at comparisons there.
    def _parse_cube_or_rollup(self, with_prefix: bool = False):
        if not self._match_set((TokenType.CUBE, TokenType.ROLLUP)):
            return None
        kind = exp.Cube if self._prev.token_type == TokenType.CUBE else exp.Rollup
        return self.expression(kind(expressions=[] if with_prefix else self._looking_ahead(
            self._parse_wrapped_csv, self._parse_disjunction)))

    def _parse_grouping_sets(self):
        if not self._match(TokenType.GROUPING_SETS):
            return None
        return self.expression(exp.GroupingSets(
            expressions=self._looking_ahead(self._parse_wrapped_csv, self._parse_grouping_set)))

    def _parse_timestamp_function(self, name: str) -> exp.Anonymous:
        """``TIMESTAMPDIFF(unit, a, b)`` / ``TIMESTAMPADD(unit, n, t)``: the unit is a word
        (DAY, a reserved word, is no column name; the binder reads it as a Column)."""
        unit = self._advance_any() and exp.column(self._prev.text)
        args = self._parse_csv(self._parse_disjunction) if self._match(TokenType.COMMA) else []
        return exp.Anonymous(this=name, expressions=[unit, *args] if unit else args)

    def _parse_grouping_set(self):
        return self._parse_grouping_sets() or self._parse_cube_or_rollup() or self._parse_disjunction()

    # -- columns ------------------------------------------------------------------------
    def _parse_metadata_constraint(self) -> exp.Expression:
        key = self._parse_option_string() if self._match(TokenType.FROM) else None
        virtual = self._match_text_seq("VIRTUAL")
        return n.MetadataColumnConstraint(this=key, virtual=virtual or None)

    def _parse_not_constraint_flink(self) -> Optional[exp.Expression]:
        if self._match_text_seq("ENFORCED"):
            return n.NotEnforced()
        if not self._match(TokenType.NULL, advance=False):
            self._stop(ident_ok=False)
        return self._parse_not_constraint()

    def _parse_column_def(self, this, computed_column: bool = True):
        """``name AS expr [COMMENT 'c'] [FIRST | AFTER col]`` is a computed column."""
        if this is None:
            return None
        if isinstance(this, exp.Column):
            this = this.this
        if computed_column and self._match(TokenType.ALIAS):
            expression = self._required(self._parse_disjunction)
            constraints = [exp.ColumnConstraint(kind=exp.ComputedColumnConstraint(this=expression))]
            comment = self._parse_column_constraint()
            if comment:
                constraints.append(comment)
            position = None
            if self._match_texts(("FIRST", "AFTER")):
                pos = self._prev.text.upper()
                position = exp.ColumnPosition(this=self._parse_column() if pos == "AFTER" else None,
                                              position=pos)
            return self.expression(exp.ColumnDef(this=this, constraints=constraints,
                                                 position=position))
        return super()._parse_column_def(this, computed_column)

    # -- types ----------------------------------------------------------------------------
    def _parse_types(self, *args, **kwargs):
        """Flink types: ``ROW(name TYPE, ...)``, ``TIMESTAMP WITH LOCAL TIME ZONE``,
        ``MULTISET<T>`` (DType.LIST) and ``NOT NULL`` on nested types (``ARRAY<INT NOT NULL>``,
        kept as ``nullable=False``)."""
        multiset = self._curr and self._curr.text.upper() == "MULTISET"
        self._name_slot = self._index  # a type may be a name (a user-defined type)
        self._type_depth += 1
        try:
            constructor = multiset or (self._curr and self._curr.token_type == TokenType.ARRAY)
            parse = super()._parse_types
            dtype = self._parse_row_type() or (  # ARRAY[1, 2]: Flink looks two tokens ahead
                self._looking_ahead(parse, *args, **kwargs) if constructor and self._next and
                self._next.token_type == TokenType.L_BRACKET else parse(*args, **kwargs))
        finally:
            self._type_depth -= 1
        if dtype is None:
            return None
        if multiset and isinstance(dtype, exp.DataType) and dtype.this == exp.DType.ARRAY:
            dtype.set("this", exp.DType.LIST)  # MULTISET<T>: a bag, not an ARRAY
        dtype = self._parse_type_suffix(dtype)
        if self._type_depth > 0 and isinstance(dtype, exp.DataType) and \
                self._match_text_seq("NOT", "NULL"):
            dtype.set("nullable", False)
        return dtype

    def _parse_row_type(self) -> Optional[exp.DataType]:
        index = self._index
        if self._match(TokenType.STRUCT) and self._match(TokenType.L_PAREN):
            # ROW(name TYPE, ...) is ROW<name TYPE, ...>; ROW(expr, ...) is a constructor.
            if self._curr and self._next and self._next.token_type in self.TYPE_TOKENS | {
                    TokenType.STRUCT}:
                fields = self._parse_csv(lambda: self._parse_struct_types(type_required=True))
                if self._match(TokenType.R_PAREN):
                    return exp.DataType(this=exp.DType.STRUCT, expressions=fields, nested=True)
        self._retreat(index)
        return None

    def _parse_struct_types(self, type_required: bool = False):
        """A ROW field: ``name TYPE [NOT NULL] ['description']``; its NOT NULL stays a
        column constraint of the field (only element types get ``nullable=False``)."""
        depth, self._type_depth = self._type_depth, 0
        try:
            field = super()._parse_struct_types(type_required=type_required)
        finally:
            self._type_depth = depth
        if isinstance(field, exp.ColumnDef) and field.args.get("kind") is None:
            self._stop()  # a field has a type
        if isinstance(field, exp.ColumnDef) and self._match(TokenType.STRING, advance=False):
            field.append("constraints", exp.ColumnConstraint(
                kind=exp.CommentColumnConstraint(this=self._parse_string())))
        return field

    def _parse_type_suffix(self, dtype):
        if isinstance(dtype, exp.DataType) and dtype.this == exp.DType.TIMESTAMP and \
                self._match_text_seq("WITH", "LOCAL", "TIME", "ZONE"):
            dtype = exp.DataType(this=exp.DType.TIMESTAMPLTZ, expressions=dtype.expressions)
        elif isinstance(dtype, exp.DataType) and dtype.this == exp.DType.TIMESTAMP and \
                self._match_text_seq("WITHOUT", "TIME", "ZONE"):
            pass
        return dtype

    # -- MAP[k, v, ...] ---------------------------------------------------------------------
    def _parse_bracket(self, this: Optional[exp.Expression] = None) -> Optional[exp.Expression]:
        """``MAP['a', 1, 'b', 2]`` is the MAP value constructor (a VarMap, keys and values
        split as sqlglot's ``build_var_map`` does), not element access of a column ``MAP``;
        an odd number of arguments is the binder's error, as in Flink."""
        if not (_is_map_keyword(this) and self._match(TokenType.L_BRACKET)):
            return self._looking_ahead(super()._parse_bracket, this)
        args = self._looking_ahead(self._parse_csv, self._parse_disjunction)
        if not self._match(TokenType.R_BRACKET):
            self.raise_error("Expected ]")
        return self._parse_bracket(self.expression(exp.VarMap(
            keys=exp.array(*args[::2], copy=False), values=exp.array(*args[1::2], copy=False))))

    # -- intervals with plural units -------------------------------------------------------
    def _parse_interval(self, require_interval: bool = True, parse_function_unit: bool = True):
        """``INTERVAL '5' MINUTES`` (plural units, as Flink allows) is ``INTERVAL '5' MINUTE``."""
        if self._curr and self._match(TokenType.INTERVAL, advance=False):
            self._check_interval()
            units = self._tokens[self._index + 2: self._index + 5: 2]  # '5' MINUTES [TO SECONDS]
            if len(units) == 2 and self._tokens[self._index + 3].text.upper() != "TO":
                units = units[:1]
            for tok in units:
                if tok.token_type == TokenType.VAR and tok.text.upper() in PLURAL_UNITS:
                    tok.text = PLURAL_UNITS[tok.text.upper()]
        return super()._parse_interval(require_interval, parse_function_unit)

    def _check_interval(self) -> None:
        """``INTERVAL [-] 'text' unit [TO unit]``: Flink stops at INTERVAL without its
        literal (at the operator before it, if any), after the literal without a unit."""
        at = self._index + 1 + (self._word_at(self._index + 1) in ("-", "+"))
        literal = self._tokens[at] if at < len(self._tokens) else None
        if literal is None or literal.token_type not in (TokenType.STRING, TokenType.NUMBER):
            if self._is_operator(self._index - 1):
                self._stop_at_operator(self._index - 1, "Expected an interval literal")
            self._stop(width=2)
        if self._word_at(at + 1) not in INTERVAL_UNITS:
            self._stop(at + 1, ident_ok=False)

    # -- FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(c), ...)) -----------------------------------
    def _parse_table(self, schema: bool = False, joins: bool = False, alias_tokens=None,
                     parse_bracket: bool = False, is_db_reference: bool = False,
                     parse_partition: bool = False, consume_pipe: bool = False):
        if self._pending_table_hints:
            self.raise_error("A /*+ hint */ is only allowed after a table name")
        if (not schema and self._curr and self._curr.token_type == TokenType.TABLE
                and self._next and self._next.token_type == TokenType.L_PAREN):
            self._advance(2)
            call = self._parse_function()
            self._match_r_paren()
            alias = self._parse_table_alias(alias_tokens=alias_tokens or self.TABLE_ALIAS_TOKENS)
            return self._table_ends(self.expression(n.WindowTVF(this=call, alias=alias)))
        return super()._parse_table(schema=schema, joins=joins, alias_tokens=alias_tokens,
                                    parse_bracket=parse_bracket, is_db_reference=is_db_reference,
                                    parse_partition=parse_partition, consume_pipe=consume_pipe)

    def _parse_table_arg(self) -> Optional[n.TableArg]:
        """``TABLE t [PARTITION BY k | PARTITION BY (k, ...)]`` as a TVF argument."""
        if not (self._curr and self._curr.token_type == TokenType.TABLE):
            return None
        if not is_name(self._next):
            self._stop(self._index + 1, ident_ok=False)
        self._advance()
        node = n.TableArg(this=self._parse_table_parts())
        if self._match(TokenType.PARTITION_BY):
            keys = (self._parse_wrapped_csv(self._parse_column)
                    if self._match(TokenType.L_PAREN, advance=False) else [self._parse_column()])
            node.set("partition", keys)
        return self.expression(node)

    # -- MATCH_RECOGNIZE (...) ----------------------------------------------------------------
    def _parse_match_recognize(self) -> Optional[exp.MatchRecognize]:
        """sqlglot's clause, with Flink's ``WITHIN <interval>`` after the pattern; the
        pattern stays text (``binder/match.py`` parses it)."""
        if not self._match(TokenType.MATCH_RECOGNIZE):
            return None
        self._match_l_paren()
        partition = self._parse_partition_by()
        order = self._parse_order()
        measures = (self._parse_csv(self._parse_match_recognize_measure)
                    if self._match_text_seq("MEASURES") else None)
        rows = None
        if self._match_text_seq("ONE", "ROW", "PER", "MATCH"):
            rows = exp.var("ONE ROW PER MATCH")
        elif self._match_text_seq("ALL", "ROWS", "PER", "MATCH"):
            rows = exp.var("ALL ROWS PER MATCH")
        after = None
        if self._match_text_seq("AFTER", "MATCH", "SKIP"):
            text = "AFTER MATCH SKIP"
            if self._match_text_seq("PAST", "LAST", "ROW"):
                text += " PAST LAST ROW"
            elif self._match_text_seq("TO", "NEXT", "ROW"):
                text += " TO NEXT ROW"
            elif self._match_text_seq("TO", "FIRST") or self._match_text_seq("TO", "LAST"):
                direction = self._prev.text.upper()
                var = self._advance_any()
                if not var:
                    self.raise_error(f"Expecting pattern variable after AFTER MATCH SKIP TO {direction}")
                text += f" TO {direction} {var.text}"
            else:
                self.raise_error("Expecting PAST LAST ROW, TO NEXT ROW, TO FIRST or TO LAST")
            after = exp.var(text)
        pattern = None
        if self._match_text_seq("PATTERN"):
            self._match_l_paren()
            depth, start, end = 1, self._curr, None
            while self._curr and depth > 0:
                if self._curr.token_type == TokenType.L_PAREN:
                    depth += 1
                elif self._curr.token_type == TokenType.R_PAREN:
                    depth -= 1
                end = self._prev
                self._advance()
            if depth > 0 or start is None or end is None:
                self.raise_error("Expecting )", self._curr)
            pattern = exp.var(self._find_sql(start, end))
            pattern.meta.update(start=start.start, end=end.end)  # errors in the pattern point at it
        within = self._parse_interval() if self._match_text_seq("WITHIN") else None
        define = (self._parse_csv(self._parse_name_as_expression)
                  if self._match_text_seq("DEFINE") else None)
        self._match_r_paren()
        return self.expression(n.MatchRecognize(
            partition_by=partition, order=order, measures=measures, rows=rows, after=after,
            pattern=pattern, define=define, within=within, alias=self._parse_table_alias()))

    def _parse_lambda(self, alias: bool = False):
        return self._parse_table_arg() or super()._parse_lambda(alias=alias)

    # -- /*+ hints */ -----------------------------------------------------------------------
    def _parse_table_alias(self, alias_tokens=None):
        """A ``/*+ OPTIONS(...) */`` hint sits between a table name and its alias; it is kept
        until ``_parse_table_hints`` attaches it to the same table."""
        if self._match(TokenType.HINT, advance=False):
            self._pending_table_hints = self._parse_flink_hints()
        return super()._parse_table_alias(alias_tokens=alias_tokens)

    def _parse_table_hints(self):
        hints, self._pending_table_hints = self._pending_table_hints, None
        return hints or super()._parse_table_hints()

    def _parse_flink_hints(self) -> Optional[list[exp.Expression]]:
        hint = self._parse_hint()
        return [hint] if hint else None

    def _parse_insert_table(self):
        table = self._parse_table_parts(schema=True)
        if self._match(TokenType.HINT, advance=False):
            table.set("hints", self._parse_flink_hints())
        if self._match(TokenType.PARTITION, advance=False):
            table.set("partition", self._parse_partition())
            self._check_partition_values(table.args["partition"])
        return self._parse_schema(this=table)

    def _check_partition_values(self, partition: exp.Partition) -> None:
        """An INSERT's static partition gives each column a value (``a = 'x'``)."""
        for item in partition.expressions:
            if isinstance(item, exp.Column):
                self._stop(self._index_at(item.this.meta.get("start")) + 1, ident_ok=False)

    def _parse_hint_function_call(self) -> Optional[exp.Expression]:
        """``NAME(arg, ...)`` where an argument is ``'key' = 'value'``, an identifier or a literal."""
        if not (self._curr and self._next and self._next.token_type == TokenType.L_PAREN):
            return None
        name = self._curr.text.upper()
        self._advance(2)
        args = self._parse_csv(self._parse_hint_argument)
        self._match_r_paren()
        return self.expression(exp.Anonymous(this=name, expressions=args))

    def _parse_hint_argument(self) -> Optional[exp.Expression]:
        key = self._parse_string() or self._parse_table_parts(schema=True)
        if self._match(TokenType.EQ):
            return self.expression(exp.Property(this=key, value=self._parse_primary()))
        return key

    # -- SQL/JSON functions --------------------------------------------------------------------
    def _parse_json_call(self, name: str) -> exp.Anonymous:
        """``JSON_VALUE(v, path [RETURNING t] [b ON EMPTY] [b ON ERROR])`` and friends; the
        clauses follow the arguments as JsonReturning / JsonWrapper / JsonBehavior nodes."""
        args = self._parse_csv(self._parse_disjunction)
        while True:
            clause = self._parse_json_clause()
            if clause is None:
                break
            args.append(clause)
        return self.expression(exp.Anonymous(this=name, expressions=args))

    def _parse_json_clause(self) -> Optional[exp.Expression]:
        if self._match(TokenType.RETURNING):
            return self.expression(n.JsonReturning(this=self._required(self._parse_types)))
        return self._parse_json_wrapper() or self._parse_json_behavior()

    def _parse_json_wrapper(self) -> Optional[n.JsonWrapper]:
        index = self._index
        if self._match_text_seq("WITHOUT"):
            words = ["WITHOUT"]
        elif self._match(TokenType.WITH):
            words = ["WITH"]
            if self._match_texts(("CONDITIONAL", "UNCONDITIONAL")):
                words.append(self._prev.text.upper())
        else:
            return None
        if self._match(TokenType.ARRAY):
            words.append("ARRAY")
        if not self._match_text_seq("WRAPPER"):
            self._retreat(index)
            return None
        return self.expression(n.JsonWrapper(this=" ".join(words)))

    def _parse_json_behavior(self) -> Optional[n.JsonBehavior]:
        index = self._index
        value = None
        for words in JSON_BEHAVIORS:
            if self._match_text_seq(*words):
                behavior = " ".join(words)
                break
        else:
            if not self._match(TokenType.DEFAULT):
                return None
            behavior, value = "DEFAULT", self._parse_bitwise()
        if self._match_text_seq("ON") and self._match_texts(("EMPTY", "ERROR", "NULL")):
            return self.expression(n.JsonBehavior(this=behavior, on=self._prev.text.upper(),
                                                  expression=value))
        self._retreat(index)
        return None
