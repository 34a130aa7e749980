"""Parsing Flink's non-DDL statements: SET / RESET, SHOW, DESCRIBE, EXPLAIN, USE [MODULES],
LOAD / UNLOAD MODULE, ADD / REMOVE JAR, CALL, EXECUTE [STATEMENT SET | INSERT | PLAN],
COMPILE [AND EXECUTE] PLAN, STOP JOB and the interactive ``BEGIN STATEMENT SET`` / ``END``.

A mixin of :class:`sqlengine.dialect.parser.FlinkParser`; the dispatch tables at the bottom
are merged into the parser's ``STATEMENT_PARSERS`` (keyed by token type) and
``WORD_STATEMENT_PARSERS`` (keyed by the first word, for words that are not keywords).
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from sqlengine.dialect import nodes as n
from sqlengine.dialect.errors import EXPLAIN_CREATE

SHOW_KINDS = (
    ("CURRENT", "CATALOG"), ("CURRENT", "DATABASE"), ("CATALOGS",), ("DATABASES",),
    ("TABLES",), ("VIEWS",), ("USER", "FUNCTIONS"), ("FUNCTIONS",), ("MODULES",),
    ("FULL", "MODULES"), ("JOBS",), ("COLUMNS",), ("JARS",), ("PROCEDURES",),
    ("MATERIALIZED", "TABLES"), ("PARTITIONS",), ("MODELS",),
)
LIKE_ONLY = ("TABLES", "COLUMNS", "VIEWS", "MATERIALIZED TABLES")  # Flink's grammar: no ILIKE after them
SHOW_CREATE = ("MATERIALIZED TABLE", "TABLE", "VIEW", "CATALOG", "FUNCTION", "MODEL")
EXPLAIN_DETAILS = ("ESTIMATED_COST", "CHANGELOG_MODE", "JSON_EXECUTION_PLAN", "PLAN_ADVICE")


class CommandParser:
    """Parse methods for the statements that are neither queries, DML nor DDL."""

    # -- helpers ---------------------------------------------------------------------
    def _raw_text(self, first: Token, last: Token) -> str:
        """The source text from ``first`` to ``last`` (legacy unquoted SET/RESET keys)."""
        return self.sql[first.start: last.end + 1].strip()

    def _parse_raw_until(self, stop: Optional[TokenType] = None) -> Optional[exp.Literal]:
        first = self._curr
        while self._curr and (stop is None or self._curr.token_type != stop):
            self._advance()
        if not first or first is self._curr:
            return None
        return exp.Literal.string(self._raw_text(first, self._prev))

    def _parse_required_string(self, what: str) -> exp.Expression:
        value = self._parse_string()
        if value is None:
            self.raise_error(f"Expected a string literal for {what}")
        return value

    # -- SET / RESET -----------------------------------------------------------------
    def _parse_flink_set(self) -> exp.Set:
        """``SET``, ``SET 'k' = 'v'`` or the legacy client form ``SET k = v`` (raw text)."""
        if not self._curr:
            return self.expression(exp.Set(expressions=[]))
        if self._curr.token_type == TokenType.STRING:
            key = self._parse_option_string()
            if not self._match(TokenType.EQ):
                self._stop(ident_ok=False)
            value = self._parse_option_string()
        else:
            key = self._parse_raw_until(TokenType.EQ)
            if not self._match(TokenType.EQ):
                self.raise_error("Expected '=' in SET key = value")
            value = self._parse_raw_until()
            if key is None or value is None:
                self.raise_error("Expected SET key = value")
        item = exp.SetItem(this=exp.EQ(this=key, expression=value))
        return self.expression(exp.Set(expressions=[item]))

    def _parse_flink_reset(self) -> n.Reset:
        if self._curr and self._curr.token_type == TokenType.STRING:
            return self.expression(n.Reset(this=self._parse_option_string()))
        return self.expression(n.Reset(this=self._parse_raw_until()))

    # -- SHOW ------------------------------------------------------------------------
    def _parse_flink_show(self) -> n.FlinkShow:
        if self._match(TokenType.CREATE):
            for kind in SHOW_CREATE:
                if self._match_text_seq(*kind.split()):
                    return self.expression(n.FlinkShow(this=f"CREATE {kind}",
                                                       target=self._parse_table_parts()))
            self.raise_error(f"Expected one of {', '.join(SHOW_CREATE)} after SHOW CREATE")
        for words in SHOW_KINDS:
            if self._match_text_seq(*words):
                node = n.FlinkShow(this=" ".join(words))
                if words == ("PARTITIONS",):
                    node.set("target", self._parse_table_parts())
                    if self._match(TokenType.PARTITION, advance=False):
                        node.set("partition", self._parse_partition())
                    return self.expression(node)
                return self.expression(self._parse_show_filters(node))
        self._stop(self._index - 1)  # Flink chose among SHOW's forms by the words after it
        return n.FlinkShow(this="?")

    def _parse_show_filters(self, node: n.FlinkShow) -> n.FlinkShow:
        if self._match_set((TokenType.FROM, TokenType.IN)):
            node.set("scope", self._prev.text.upper())
            node.set("target", self._parse_table_parts())
        not_like = self._match(TokenType.NOT)
        if node.this in LIKE_ONLY and self._match(TokenType.ILIKE, advance=False):
            self._stop(ident_ok=False)
        if self._match_set((TokenType.LIKE, TokenType.ILIKE)):
            node.set("ilike", True if self._prev.token_type == TokenType.ILIKE else None)
            node.set("not_like", True if not_like else None)
            node.set("like", self._parse_required_string("the LIKE pattern"))
        elif not_like:
            self.raise_error("Expected LIKE or ILIKE after NOT")
        return node

    # -- DESCRIBE / EXPLAIN ------------------------------------------------------------
    def _parse_flink_describe(self) -> exp.Expression:
        if self._match_text_seq("CATALOG"):
            extended = self._match_text_seq("EXTENDED") or None
            return self.expression(n.DescribeCatalog(this=self._parse_id_var(), extended=extended))
        if self._match(TokenType.FUNCTION):
            extended = self._match_text_seq("EXTENDED") or None
            return self.expression(n.DescribeFunction(this=self._parse_table_parts(), extended=extended))
        extended = self._match_text_seq("EXTENDED")
        return self.expression(exp.Describe(this=self._parse_table_parts(),
                                            style="EXTENDED" if extended else None))

    def _parse_flink_explain(self) -> n.FlinkExplain:
        plan_for = self._match_text_seq("PLAN", "FOR") or None
        details = []
        while not plan_for and self._curr and self._curr.text.upper() in EXPLAIN_DETAILS:
            details.append(exp.var(self._curr.text.upper()))
            self._advance()
            if not self._match(TokenType.COMMA):
                break
            if not (self._curr and self._curr.text.upper() in EXPLAIN_DETAILS):
                self._stop(ident_ok=False)
        start = self._index
        statement = self._parse_statement_set_head() or self._parse_statement()
        if statement is None:
            self.raise_error("Expected a statement to explain")
        if isinstance(statement, exp.Create) and (statement.args.get("kind") or "").upper() == "TABLE" \
                and statement.expression is None:  # Flink explains CTAS / RTAS only
            self._stop(start, message=EXPLAIN_CREATE)
        return self.expression(n.FlinkExplain(this=statement, details=details or None,
                                              plan_for=plan_for))

    # -- EXECUTE / statement sets / jobs -------------------------------------------------
    def _parse_flink_execute(self) -> exp.Expression:
        if not self._curr:
            self._stop(self._index - 1)  # Flink chose among EXECUTE's forms by the word after it
        if self._match_text_seq("PLAN"):
            return self.expression(n.ExecutePlan(this=self._parse_required_string("the plan file")))
        statement = self._parse_statement_set_head() or (
            self._match(TokenType.INSERT, advance=False) and self._parse_statement())
        if not statement:
            self.raise_error("Expected STATEMENT SET, INSERT or PLAN after EXECUTE")
        return statement

    def _parse_statement_set_head(self) -> Optional[n.StatementSet]:
        """``STATEMENT SET BEGIN``: the script parser cuts the block at BEGIN and fills in
        the INSERTs of the returned (empty) StatementSet."""
        if not self._match_text_seq("STATEMENT", "SET"):
            return None
        if not self._match(TokenType.BEGIN):
            self._stop(ident_ok=False)
        return n.StatementSet(expressions=[])

    def _parse_compile_plan(self) -> n.CompilePlan:
        execute = self._match_text_seq("AND", "EXECUTE") or None
        if not self._match_text_seq("PLAN"):
            self.raise_error("Expected PLAN after COMPILE")
        path = self._parse_required_string("the plan file")
        exists = self._parse_exists(not_=True) or None
        if not self._match(TokenType.FOR):
            self.raise_error("Expected FOR <INSERT | STATEMENT SET> after the plan file")
        statement = self._parse_statement_set_head() or (
            self._match(TokenType.INSERT, advance=False) and self._parse_statement())
        if not statement:
            self.raise_error("Expected INSERT or STATEMENT SET after FOR")
        return self.expression(n.CompilePlan(this=path, expression=statement, exists=exists,
                                             execute=execute))

    def _parse_begin_statement_set(self) -> n.BeginStatementSet:
        if not self._match_text_seq("STATEMENT", "SET"):
            self.raise_error("Expected STATEMENT SET after BEGIN")
        return self.expression(n.BeginStatementSet())

    def _parse_stop_job(self) -> n.StopJob:
        if not self._match_text_seq("JOB"):
            self.raise_error("Expected JOB after STOP")
        job = self._parse_required_string("the job id")
        savepoint = self._match_text_seq("WITH", "SAVEPOINT") or None
        drain = self._match_text_seq("WITH", "DRAIN") or None
        return self.expression(n.StopJob(this=job, savepoint=savepoint, drain=drain))

    # -- USE / modules / jars / procedures ----------------------------------------------
    def _parse_flink_use(self) -> exp.Expression:
        if not self._curr:
            self._stop(self._index - 1)  # Flink chose among USE's forms by the word after it
        if self._match_text_seq("MODULES"):
            return self.expression(n.UseModules(expressions=self._parse_csv(self._parse_id_var)))
        return self.expression(exp.Use(
            kind=self._parse_var_from_options(self.USABLES, raise_unmatched=False),
            this=self._parse_table(schema=True)))  # a name, no alias

    def _parse_load_module(self) -> n.LoadModule:
        if not self._match_text_seq("MODULE"):
            self.raise_error("Expected MODULE after LOAD")
        name = self._parse_id_var()
        props = self._parse_options_property() if self._match(TokenType.WITH) else None
        return self.expression(n.LoadModule(this=name, properties=props))

    def _parse_unload_module(self) -> n.UnloadModule:
        if not self._match_text_seq("MODULE"):
            self.raise_error("Expected MODULE after UNLOAD")
        return self.expression(n.UnloadModule(this=self._parse_id_var()))

    def _parse_jar(self, node_class: type) -> exp.Expression:
        if not self._match_text_seq("JAR"):
            self.raise_error("Expected JAR")
        return self.expression(node_class(this=self._parse_required_string("the jar path")))

    def _parse_call(self) -> n.Call:
        name = self._parse_table_parts(schema=True)
        args = self._parse_wrapped_csv(self._parse_lambda, optional=True)
        return self.expression(n.Call(this=name, expressions=args))


STATEMENTS = {
    TokenType.SET: lambda self: self._parse_flink_set(),
    TokenType.SHOW: lambda self: self._parse_flink_show(),
    TokenType.DESCRIBE: lambda self: self._parse_flink_describe(),
    TokenType.DESC: lambda self: self._parse_flink_describe(),
    TokenType.EXECUTE: lambda self: self._parse_flink_execute(),
    TokenType.BEGIN: lambda self: self._parse_begin_statement_set(),
    TokenType.END: lambda self: self.expression(n.EndStatementSet()),
    TokenType.USE: lambda self: self._parse_flink_use(),
    TokenType.LOAD: lambda self: self._parse_load_module(),
}

WORD_STATEMENTS = {
    "RESET": lambda self: self._parse_flink_reset(),
    "EXPLAIN": lambda self: self._parse_flink_explain(),
    "UNLOAD": lambda self: self._parse_unload_module(),
    "ADD": lambda self: self._parse_jar(n.AddJar),
    "REMOVE": lambda self: self._parse_jar(n.RemoveJar),
    "STOP": lambda self: self._parse_stop_job(),
    "CALL": lambda self: self._parse_call(),
    "COMPILE": lambda self: self._parse_compile_plan(),
}
