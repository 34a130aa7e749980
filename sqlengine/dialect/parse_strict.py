"""Where sqlglot's parser is more lenient than Flink's, stop where Flink stops (statements,
lists, names, query clauses; expressions are in ``parse_expressions``).

sqlglot accepts trailing commas, DuckDB's ``FROM t SELECT ...``, reserved words as names
(``SELECT a FROM t ORDER`` reads ORDER as an alias), ``a IN ()``, clauses in any order and
more; Flink's parser rejects them. The rules here make the parser raise a ``ParseError``
carrying a ``Stop`` (errors.py): the token Flink names and how it prints it. Any other
error of sqlglot's is reported at sqlglot's current token.

A mixin of :class:`sqlengine.dialect.parser.FlinkParser`.
"""
from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.tokens import Token, TokenType

from sqlengine.dialect.errors import LIMIT_START_COUNT, NON_QUERY, Stop
from sqlengine.dialect.keywords import CONTEXT_VARIABLES, RESERVED, RESERVED_FUNCTIONS

# Words Flink reads as the first of two (ORDER BY, NULLS FIRST): it stops after them.
LEADING_WORDS = ("ORDER", "GROUP", "PARTITION", "NULLS")
TIME_UNITS = ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND",
              "MILLISECOND", "MICROSECOND", "NANOSECOND")
# Words of a join before JOIN: Flink looks two tokens ahead there (``Encountered "LEFT ;"``).
JOIN_WORDS = ("LEFT", "RIGHT", "FULL", "INNER", "OUTER", "CROSS", "NATURAL", "JOIN")
# Reserved words that begin an expression (a statement beginning with one is an
# expression where Flink wanted a query).
EXPRESSION_WORDS = ("CASE", "CAST", "TRY_CAST", "NOT", "NULL", "TRUE", "FALSE", "UNKNOWN",
                    "INTERVAL", "DATE", "TIME", "TIMESTAMP", "ARRAY", "ROW", "EXISTS", "MAP",
                    "CURRENT", "EXTRACT", "POSITION", "SUBSTRING", "TRIM", "OVERLAY",
                    "CONVERT", "TRANSLATE", "CEIL", "MULTISET", "NEW", "CURSOR", "UNIQUE")
# Tokens that end an operand.
OPERANDS = (TokenType.NUMBER, TokenType.STRING, TokenType.R_PAREN, TokenType.R_BRACKET,
            TokenType.IDENTIFIER)
EXPRESSION_TOKENS = (TokenType.STRING, TokenType.NUMBER, TokenType.PLUS, TokenType.DASH,
                     TokenType.PLACEHOLDER, TokenType.IDENTIFIER)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def is_reserved(node: Optional[exp.Expression]) -> bool:
    """An unquoted identifier that is one of Flink's reserved words."""
    return isinstance(node, exp.Identifier) and not node.quoted and node.name.upper() in RESERVED


def is_name(token: Optional[Token]) -> bool:
    """A token Flink reads as a name: back-quoted, or a word that is not reserved."""
    if not token:
        return False
    return token.token_type == TokenType.IDENTIFIER or (
        WORD.fullmatch(token.text) is not None and token.text.upper() not in RESERVED)


def starts_table(token: Optional[Token]) -> bool:
    """A token a table reference can begin with (a name, ``(``, LATERAL, TABLE, UNNEST)."""
    return is_name(token) or (token is not None and (
        token.token_type == TokenType.L_PAREN or token.text.upper() in ("LATERAL", "TABLE", "UNNEST")))


def starts_expression(token: Token) -> bool:
    word = token.text.upper()
    return token.token_type in EXPRESSION_TOKENS or is_name(token) or \
        word in RESERVED_FUNCTIONS or word in CONTEXT_VARIABLES or word in EXPRESSION_WORDS


class StrictParser:
    """Parse methods that stop where Flink's parser stops (see the module docstring)."""

    # -- raising ---------------------------------------------------------------------------
    def _stop(self, index: Optional[int] = None, width: int = 1, ident_ok: bool = True,
              message: Optional[str] = None, text: str = "Invalid expression") -> None:
        """Raise a ParseError (``text``: sqlglot's words, for callers that retry) that says
        where Flink stops."""
        err = ParseError.new(message or text, description=message or text)
        err.stop = Stop(self._index if index is None else index, width, ident_ok, message)
        raise err

    def _token_index(self, token: Optional[Token]) -> int:
        return next((i for i, tok in enumerate(self._tokens) if tok is token), self._index)

    def _word_at(self, index: int) -> str:
        return self._tokens[index].text.upper() if index < len(self._tokens) else ""

    def raise_error(self, message: str, token: Optional[Token] = None) -> None:
        """Any other error of sqlglot's: at its token. There a keyword reads as one only
        where an alias could have stood; ``ORDER`` without ``BY``: at the token after it."""
        index = self._token_index(token) if token is not None else self._index
        if self._word_at(index) in LEADING_WORDS:
            self._stop(index + 1, ident_ok=False, text=message)
        if self._word_at(index) in ("NOT", "SIMILAR") and index > 0 and self._ends_operand(index - 1):
            # after an operand: no NOT LIKE / IN / BETWEEN, no SIMILAR TO
            self._stop(index, width=2, ident_ok=False, text=message)
        self._stop(index, ident_ok=index == self._name_slot, text=message)

    def _ends_operand(self, index: int) -> bool:
        """Token ``index`` ends an operand: a literal, ``)``, a name (IF of IF NOT EXISTS
        is none)."""
        tok = self._tokens[index]
        return tok.token_type in OPERANDS or (is_name(tok) and tok.text.upper() != "IF")

    def _required(self, parse, *args):
        """What ``parse`` returns; Flink stops here when there is nothing."""
        node = parse(*args)
        if node is None:
            self._stop()
        return node

    def _unit_first(self, parse):
        """``parse`` where Flink wants a time unit first (``EXTRACT(unit FROM ...)``)."""
        if not (is_name(self._curr) or self._word_at(self._index) in TIME_UNITS):
            self._stop()
        return parse(self)

    def _closed_call(self, parse):
        node = parse(self)
        if not self._match(TokenType.R_PAREN, advance=False):
            self.raise_error("Expecting )")
        return node

    # -- statements ------------------------------------------------------------------------
    def _stop_at_statement_start(self) -> None:
        """A statement that starts with neither a statement keyword nor a query: an
        expression (Calcite's own sentence for that), else Flink stops at its first token."""
        if starts_expression(self._curr):
            self._stop(message=NON_QUERY)
        self._stop(0)

    def _stop_at_leftover(self) -> None:
        """Tokens after a complete statement: Flink read the first as the start of a clause."""
        index = self._index
        if self._word_at(index) in JOIN_WORDS:
            self._stop(index, width=2, ident_ok=index == self._name_slot)
        self.raise_error("Invalid expression / Unexpected token")

    def _parse_insert(self, *args, **kwargs):
        """``INSERT INTO | OVERWRITE table ... query``."""
        if not self._match_texts(("INTO", "OVERWRITE"), advance=False):
            self._stop(ident_ok=False)
        if not is_name(self._next):
            self._stop(self._index + 1)
        node = super()._parse_insert(*args, **kwargs)
        if isinstance(node, exp.Insert) and node.expression is None:
            self._stop_for_query()
        return node

    def _stop_for_query(self) -> None:
        """A query was required here: an expression is Calcite's "Non-query expression"."""
        if self._curr and starts_expression(self._curr):
            self._stop(message=NON_QUERY)
        self._stop()

    def parse_set_operation(self, this, consume_pipe: bool = False, intersect_only: bool = False):
        """UNION, EXCEPT, INTERSECT: not after ORDER BY or LIMIT; a query after them (an
        expression there is Calcite's "Non-query expression")."""
        if self._curr and self._curr.token_type in self.SET_OPERATIONS:
            operand = this.expression if isinstance(this, exp.SetOperation) else this
            if isinstance(operand, exp.Select) and any(
                    operand.args.get(k) for k in ("order", "limit", "offset")):
                self._stop(ident_ok=False)
            index = self._index + 1
            index += self._word_at(index) in ("ALL", "DISTINCT")
            if index < len(self._tokens) and starts_expression(self._tokens[index]):
                self._stop(index, message=NON_QUERY)
        return super().parse_set_operation(this, consume_pipe=consume_pipe,
                                           intersect_only=intersect_only)

    # -- lists ------------------------------------------------------------------------------
    def _parse_csv(self, parse_method, sep: TokenType = TokenType.COMMA) -> list:
        """An item is required after a separator, and before one: Flink names the token
        found there (where it looks two tokens ahead -- ORDER BY, GROUP BY, FROM, VALUES,
        ARRAY[...] -- the separator and that token)."""
        ahead, self._csv_ahead = self._csv_ahead, False
        item = parse_method()
        if item is None and self._match(sep, advance=False):
            self._stop()
        items = [] if item is None else [item]
        while self._match(sep):
            comma = self._index - 1
            if isinstance(item, exp.Expression):
                self._add_comments(item)
            item = parse_method()
            if item is None and ahead:
                self._stop(comma, width=2, ident_ok=False)
            if item is None:
                self._stop()
            items.append(item)
        return items

    def _looking_ahead(self, parse, *args, **kwargs):
        self._csv_ahead = True
        try:
            return parse(*args, **kwargs)
        finally:
            self._csv_ahead = False

    def _parse_order(self, this=None, skip_order_token: bool = False):
        node = self._looking_ahead(super()._parse_order, this, skip_order_token)
        if isinstance(node, exp.Order) and not node.expressions:
            self._stop()
        return node

    def _parse_group(self, skip_group_by_token: bool = False):
        node = self._looking_ahead(super()._parse_group, skip_group_by_token)
        if node is not None and not any(node.args.get(k) for k in (
                "expressions", "grouping_sets", "cube", "rollup")):
            self._stop()
        return node

    def _parse_partition_by(self):
        by = self._match(TokenType.PARTITION_BY, advance=False)
        keys = self._looking_ahead(super()._parse_partition_by)
        if by and not keys:
            self._stop()
        return keys

    def _parse_derived_table_values(self, allow_value_synonym: bool = False):
        return self._looking_ahead(super()._parse_derived_table_values, allow_value_synonym)

    def _parse_partition(self):
        """``PARTITION (name = value, ...)``: names, not expressions."""
        if not self._match_texts(self.PARTITION_KEYWORDS):
            return None
        sub = self._prev.text.upper() == "SUBPARTITION"
        return self.expression(exp.Partition(
            subpartition=sub, expressions=self._parse_wrapped_csv(self._parse_partition_item)))

    def _parse_partition_item(self):
        if not is_name(self._curr):
            self._stop()
        return self._parse_disjunction()

    def _parse_using_identifiers(self):
        if not self._match(TokenType.L_PAREN, advance=False):
            self._stop(ident_ok=False)
        if self._next and self._next.token_type == TokenType.R_PAREN:
            self._stop(self._index + 1)
        return super()._parse_using_identifiers()

    # -- names ------------------------------------------------------------------------------
    def _parse_id_var(self, any_token: bool = True, tokens=None):
        """A reserved word is not a name (``t ORDER`` is no alias); back-quoted it is. After
        a dot a name is required: Flink stops at the dot."""
        index = self._index
        node = super()._parse_id_var(any_token=any_token, tokens=tokens)
        constructor = self._curr and self._curr.token_type == TokenType.L_BRACKET and \
            self._prev.text.upper() in ("ARRAY", "MULTISET")  # ARRAY[1, 2]: sqlglot reads a name first
        if (is_reserved(node) and not constructor) or (
                node is not None and self._prev.token_type == TokenType.UNKNOWN):
            self._retreat(index)
            node = None
        if node is None and index > 0 and self._tokens[index - 1].token_type == TokenType.DOT:
            self._stop(index - 1, width=2, ident_ok=False)
        return node

    def _parse_alias(self, this, explicit: bool = False):
        """``AS`` needs a name after it; without one the place may still take an alias."""
        if this is None:
            return None
        index = self._index
        as_ = self._match(TokenType.ALIAS, advance=False)
        node = super()._parse_alias(this, explicit=explicit)
        if as_ and node is this:
            self._stop(index + 1)
        if self._index == index:
            self._name_slot = index
        return node

    def _parse_table_alias(self, alias_tokens=None):
        index = self._index
        as_ = self._match(TokenType.ALIAS, advance=False)
        node = super()._parse_table_alias(alias_tokens=alias_tokens)
        if as_ and node is None:
            self._stop(index + 1)
        if self._index == index:
            self._name_slot = index
        elif self._match(TokenType.L_PAREN, advance=False) and not is_name(self._next):
            self._stop(self._index + 1)  # the alias's column list: names
        return node

    def _parse_cte(self):
        if not is_name(self._curr):
            self._stop()
        return super()._parse_cte()

    def _parse_table(self, *args, **kwargs):
        return self._table_ends(super()._parse_table(*args, **kwargs))

    def _table_ends(self, table: Optional[exp.Expression]) -> Optional[exp.Expression]:
        """After a FROM item: an alias may follow when it has none, and a comma."""
        if table is not None and not table.args.get("alias"):
            self._name_slot = self._index
        self._table_end = self._index
        return table

    def _index_at(self, offset: Optional[int]) -> int:
        return next((i for i, t in enumerate(self._tokens) if t.start == offset), self._index)

    # -- queries ----------------------------------------------------------------------------
    def _parse_projections(self):
        """A select list has an item (``SELECT DISTINCT;``: Flink stops after DISTINCT)."""
        if self._word_at(self._index) in ("DISTINCT", "ALL"):
            self._stop(self._index + (self._index + 1 == len(self._tokens)))
        projections, exclude = super()._parse_projections()
        if not projections:
            self._stop()
        return projections, exclude

    def _parse_select_query(self, nested: bool = False, table: bool = False,
                            parse_subquery_alias: bool = True, parse_set_operation: bool = True):
        """No ``FROM t SELECT ...`` (DuckDB's FROM-first query); in ``FROM (FROM t)`` Flink
        stops at the parenthesis it looked past."""
        if self._match(TokenType.FROM, advance=False):
            if self._index > 1 and self._tokens[self._index - 1].token_type == TokenType.L_PAREN \
                    and self._word_at(self._index - 2) in ("FROM", "JOIN"):
                self._stop(self._index - 1, width=2, ident_ok=False)
            self._stop()
        return super()._parse_select_query(nested=nested, table=table,
                                           parse_subquery_alias=parse_subquery_alias,
                                           parse_set_operation=parse_set_operation)

    def _parse_query_modifiers(self, this):
        """Clauses in Flink's order (WHERE, GROUP BY, HAVING, WINDOW, QUALIFY, ORDER BY,
        LIMIT, OFFSET, FETCH): a clause out of order is where Flink stops."""
        outer, self._clause_rank = self._clause_rank, -1
        try:
            return super()._parse_query_modifiers(this)
        finally:
            self._clause_rank = outer

    def _clause(self, rank: int, parse):
        if rank <= self._clause_rank:
            self._stop(ident_ok=False)
        self._clause_rank = rank
        return parse(self)

    def _parse_join(self, skip_join_token: bool = False, parse_bracket: bool = False,
                    alias_tokens=None):
        """A table after ``,`` (Flink names the comma and what follows) and after JOIN
        (Flink stops at the join's first word); a condition after ON. The join keeps where
        its JOIN keyword is (``meta["join_token"]``: Flink's place for a join without
        condition) or that it was a comma."""
        start = self._index
        if self._match(TokenType.COMMA, advance=False):
            if start != self._table_end:
                return None  # a comma after a WHERE, GROUP BY ...: no FROM list
            join = super()._parse_join(skip_join_token, parse_bracket, alias_tokens)
            if join is None:
                self._stop(start, width=2, ident_ok=False)
            join.meta["comma"] = True
            return join
        self._check_join_table(start)
        join = super()._parse_join(skip_join_token, parse_bracket, alias_tokens)
        if join is not None and self._prev.token_type == TokenType.ON:
            self._stop()
        keyword = next((t for t in self._tokens[start: self._index] if t.token_type == TokenType.JOIN), None)
        if join is not None and keyword is not None:
            join.meta["join_token"] = (keyword.start, keyword.end + 1)
        if join is not None:
            self._table_end = self._index
        return join

    def _check_join_table(self, start: int) -> None:
        """Without a table after JOIN Flink stops at the join's first word (after CROSS,
        which it reads alone) and prints the words up to the token after JOIN."""
        start += self._word_at(start) == "CROSS"
        i = start
        while self._word_at(i) in JOIN_WORDS and self._word_at(i) != "JOIN":
            i += 1
        if self._word_at(i) != "JOIN":
            return
        if not starts_table(self._tokens[i + 1] if i + 1 < len(self._tokens) else None):
            self._stop(start, width=i - start + 2)

    def _parse_from(self, joins: bool = False, skip_from_token: bool = False,
                    consume_pipe: bool = False):
        """A table after FROM."""
        if self._match(TokenType.FROM, advance=False) and not starts_table(self._next):
            self._stop(self._index + 1)
        return super()._parse_from(joins=joins, skip_from_token=skip_from_token,
                                   consume_pipe=consume_pipe)

    def _parse_limit(self, this=None, top: bool = False, skip_limit_token: bool = False):
        """``LIMIT`` takes a number, ``?`` or ALL (not ``LIMIT start, count``)."""
        if self._match(TokenType.LIMIT, advance=False) and not top:
            self._check_count(self._index + 1)
            if self._index + 2 < len(self._tokens) and \
                    self._tokens[self._index + 2].token_type == TokenType.COMMA:
                self._stop(message=LIMIT_START_COUNT)
        fetch = self._match(TokenType.FETCH, advance=False)
        node = super()._parse_limit(this, top=top, skip_limit_token=skip_limit_token)
        if fetch and self._word_at(self._index - 1) != "ONLY":
            self._stop(ident_ok=False)  # FETCH FIRST n ROWS ONLY
        return node

    def _parse_offset(self, this=None):
        if self._match(TokenType.OFFSET, advance=False):
            self._check_count(self._index + 1)
        return super()._parse_offset(this)

    def _check_count(self, index: int) -> None:
        tok = self._tokens[index] if index < len(self._tokens) else None
        if tok is None or not (tok.token_type in (TokenType.NUMBER, TokenType.PLACEHOLDER)
                               or tok.text.upper() == "ALL"):
            self._stop(index, ident_ok=False)
