"""The sqlglot dialect ``flink``: Flink SQL's tokenizer, parser and generator.

It extends sqlglot's base dialect through its dispatch tables (statement, constraint
and function parsers; generator transforms) and overrides a few parse methods where
Flink's grammar differs: computed and metadata columns, window TVFs in FROM,
``EXECUTE STATEMENT SET``, plural interval units and ``ROW<...>`` types.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.generator import Generator
from sqlglot.parser import Parser
from sqlglot.tokens import Tokenizer, TokenType

from sqlengine.dialect import nodes as n

_PLURAL_UNITS = {
    "SECONDS": "SECOND", "MINUTES": "MINUTE", "HOURS": "HOUR", "DAYS": "DAY",
    "MONTHS": "MONTH", "YEARS": "YEAR", "MILLISECONDS": "MILLISECOND",
}
WINDOW_TVFS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")
SHOW_KINDS = (
    ("CURRENT", "CATALOG"), ("CURRENT", "DATABASE"), ("CATALOGS",), ("DATABASES",),
    ("TABLES",), ("VIEWS",), ("USER", "FUNCTIONS"), ("FUNCTIONS",), ("MODULES",),
    ("FULL", "MODULES"), ("JOBS",), ("COLUMNS",), ("JARS",), ("PROCEDURES",),
    ("MATERIALIZED", "TABLES"), ("PARTITIONS",), ("MODELS",),
)
SHOW_CREATE = ("TABLE", "VIEW", "CATALOG", "FUNCTION", "MATERIALIZED TABLE", "MODEL")


class FlinkTokenizer(Tokenizer):
    IDENTIFIERS = ["`"]
    QUOTES = ["'"]
    STRING_ESCAPES = ["'"]
    KEYWORDS = {
        **Tokenizer.KEYWORDS,
        "STRING": TokenType.TEXT,
        "BYTES": TokenType.VARBINARY,
        "ROW": TokenType.STRUCT,
        "TIMESTAMP_LTZ": TokenType.TIMESTAMPLTZ,
        "MULTISET": TokenType.ARRAY,
        "EXPLAIN": TokenType.VAR,
    }
    KEYWORDS.pop("SESSION", None)
    KEYWORDS.pop("/*+", None)
    COMMANDS = Tokenizer.COMMANDS - {TokenType.SHOW, TokenType.EXECUTE}


class FlinkParser(Parser):
    STATEMENT_PARSERS = {
        **Parser.STATEMENT_PARSERS,
        TokenType.EXECUTE: lambda self: self._parse_execute(),
        TokenType.SHOW: lambda self: self._parse_flink_show(),
        TokenType.DESCRIBE: lambda self: self._parse_flink_describe(),
        TokenType.ALTER: lambda self: self._parse_flink_alter(),
    }

    CONSTRAINT_PARSERS = {
        **Parser.CONSTRAINT_PARSERS,
        "WATERMARK": lambda self: self.expression(
            exp.WatermarkColumnConstraint(
                this=self._match(TokenType.FOR) and self._parse_column(),
                expression=self._match(TokenType.ALIAS) and self._parse_disjunction(),
            )
        ),
        "METADATA": lambda self: self._parse_metadata_constraint(),
        "NOT": lambda self: self._parse_not_constraint_flink(),
    }
    SCHEMA_UNNAMED_CONSTRAINTS = {*Parser.SCHEMA_UNNAMED_CONSTRAINTS, "WATERMARK"}

    FUNCTION_PARSERS = {
        **Parser.FUNCTION_PARSERS,
        "DESCRIPTOR": lambda self: n.Descriptor(expressions=self._parse_csv(self._parse_column)),
        "TIMESTAMPDIFF": lambda self: exp.Anonymous(
            this="TIMESTAMPDIFF", expressions=self._parse_csv(self._parse_disjunction)),
        "TIMESTAMPADD": lambda self: exp.Anonymous(
            this="TIMESTAMPADD", expressions=self._parse_csv(self._parse_disjunction)),
    }
    NO_PAREN_FUNCTION_PARSERS = {**Parser.NO_PAREN_FUNCTION_PARSERS}

    def raise_error(self, message: str, token=None) -> None:
        """Remember the offending token so the script parser can point a caret at it."""
        if getattr(self, "error_token", None) is None:
            self.error_token = token or self._curr or self._prev
        super().raise_error(message, token) if token is not None else super().raise_error(message)

    def _parse_metadata_constraint(self) -> exp.Expression:
        key = self._parse_string() if self._match(TokenType.FROM) else None
        virtual = self._match_text_seq("VIRTUAL")
        return n.MetadataColumnConstraint(this=key, virtual=virtual or None)

    def _parse_not_constraint_flink(self) -> Optional[exp.Expression]:
        if self._match_text_seq("ENFORCED"):
            return n.NotEnforced()
        return self._parse_not_constraint()

    # -- column definitions: `name AS expr` computed columns ------------------
    def _parse_column_def(self, this, computed_column: bool = True):
        if isinstance(this, exp.Column):
            this = this.this
        if computed_column and self._match(TokenType.ALIAS):
            expression = self._parse_disjunction()
            constraints = [exp.ColumnConstraint(kind=exp.ComputedColumnConstraint(this=expression))]
            comment = self._parse_column_constraint()
            if comment:
                constraints.append(comment)
            return self.expression(exp.ColumnDef(this=this, constraints=constraints))
        return super()._parse_column_def(this, computed_column)

    # -- types -----------------------------------------------------------------
    def _parse_types(self, *args, **kwargs):
        index = self._index
        if self._match(TokenType.STRUCT) and self._match(TokenType.L_PAREN):
            # ROW(name TYPE, ...) is ROW<name TYPE, ...>; ROW(expr, ...) is a constructor.
            if self._curr and self._next and self._next.token_type in self.TYPE_TOKENS | {
                    TokenType.STRUCT}:
                fields = self._parse_csv(lambda: self._parse_struct_types(type_required=True))
                if self._match(TokenType.R_PAREN):
                    return self._parse_type_suffix(exp.DataType(
                        this=exp.DType.STRUCT, expressions=fields, nested=True))
            self._retreat(index)
        elif self._index != index:
            self._retreat(index)
        dtype = super()._parse_types(*args, **kwargs)
        return self._parse_type_suffix(dtype) if dtype is not None else dtype

    def _parse_type_suffix(self, dtype):
        if isinstance(dtype, exp.DataType) and dtype.this == exp.DType.TIMESTAMP and \
                self._match_text_seq("WITH", "LOCAL", "TIME", "ZONE"):
            dtype = exp.DataType(this=exp.DType.TIMESTAMPLTZ, expressions=dtype.expressions)
        elif isinstance(dtype, exp.DataType) and dtype.this == exp.DType.TIMESTAMP and \
                self._match_text_seq("WITHOUT", "TIME", "ZONE"):
            pass
        return dtype

    # -- intervals with plural units -------------------------------------------
    def _parse_interval(self, require_interval: bool = True, parse_function_unit: bool = True):
        if self._curr is not None and self._match(TokenType.INTERVAL, advance=False):
            for tok in self._tokens[self._index: self._index + 4]:
                if tok.token_type == TokenType.VAR and tok.text.upper() in _PLURAL_UNITS:
                    tok.text = _PLURAL_UNITS[tok.text.upper()]
        return super()._parse_interval(require_interval, parse_function_unit)

    # -- FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(c), ...)) ---------------------
    def _parse_table(self, schema: bool = False, joins: bool = False, alias_tokens=None,
                     parse_bracket: bool = False, is_db_reference: bool = False,
                     parse_partition: bool = False, consume_pipe: bool = False):
        if (not schema and self._curr and self._curr.token_type == TokenType.TABLE
                and self._next and self._next.token_type == TokenType.L_PAREN):
            self._advance(2)
            call = self._parse_function()
            self._match_r_paren()
            alias = self._parse_table_alias(alias_tokens=alias_tokens or self.TABLE_ALIAS_TOKENS)
            return self.expression(n.WindowTVF(this=call, alias=alias))
        return super()._parse_table(schema=schema, joins=joins, alias_tokens=alias_tokens,
                                    parse_bracket=parse_bracket, is_db_reference=is_db_reference,
                                    parse_partition=parse_partition, consume_pipe=consume_pipe)

    def _parse_lambda(self, alias: bool = False):
        if self._curr and self._curr.token_type == TokenType.TABLE and self._next and \
                self._next.token_type in {TokenType.VAR, TokenType.IDENTIFIER} | self.ID_VAR_TOKENS:
            self._advance()
            return self.expression(n.TableArg(this=self._parse_table_parts()))
        return super()._parse_lambda(alias=alias)

    # -- statements ----------------------------------------------------------------
    def _parse_execute(self) -> exp.Expression:
        if self._match_text_seq("STATEMENT", "SET"):
            self._match_text_seq("BEGIN")
            inserts = []
            while self._curr and not self._match(TokenType.END):
                if self._match(TokenType.SEMICOLON):
                    continue
                inserts.append(self._parse_statement())
            return self.expression(n.StatementSet(expressions=inserts))
        if self._match(TokenType.INSERT, advance=False) or self._match(TokenType.SELECT, advance=False):
            return self._parse_statement()
        return self._parse_command()

    def _parse_flink_show(self) -> exp.Expression:
        if self._match(TokenType.CREATE):
            for kind in SHOW_CREATE:
                if self._match_text_seq(*kind.split()):
                    return n.FlinkShow(this=f"CREATE {kind}", target=self._parse_table_parts())
            self.raise_error("Expected TABLE, VIEW, CATALOG or FUNCTION after SHOW CREATE")
        for words in SHOW_KINDS:
            if self._match_text_seq(*words):
                kind = " ".join(words)
                node = n.FlinkShow(this=kind)
                if self._match_set((TokenType.FROM, TokenType.IN)):
                    node.set("scope", self._prev.text.upper())
                    node.set("target", self._parse_table_parts())
                if self._match_text_seq("NOT", "LIKE") or self._match_text_seq("NOT", "ILIKE"):
                    node.set("not_like", True)
                    node.set("like", self._parse_string())
                elif self._match_set((TokenType.LIKE, TokenType.ILIKE)):
                    node.set("like", self._parse_string())
                return node
        self.raise_error("Unsupported SHOW statement")
        return n.FlinkShow(this="?")

    def _parse_flink_describe(self) -> exp.Expression:
        extended = self._match_text_seq("EXTENDED")
        return exp.Describe(this=self._parse_table_parts(), style="EXTENDED" if extended else None)

    def _parse_flink_alter(self) -> exp.Expression:
        index = self._index
        if self._match(TokenType.TABLE):
            exists = self._parse_exists()
            table = self._parse_table_parts()
            if self._match_text_seq("RENAME", "TO"):
                return n.AlterTableFlink(this=table, action="RENAME", rename=self._parse_table_parts(),
                                         exists=exists)
            if self._match(TokenType.SET):
                return n.AlterTableFlink(this=table, action="SET", exists=exists,
                                         properties=exp.Properties(expressions=self._parse_wrapped_properties()))
            if self._match_text_seq("RESET"):
                return n.AlterTableFlink(this=table, action="RESET", exists=exists,
                                         keys=self._parse_wrapped_csv(self._parse_string))
        self._retreat(index)
        return self._parse_alter()

    def _parse_statement(self):
        if self._match_text_seq("RESET"):
            return n.Reset(this=self._parse_string())
        if self._curr and self._curr.text.upper() == "EXPLAIN":
            self._advance()
            return self._parse_explain()
        if self._match_text_seq("STOP", "JOB"):
            job = self._parse_string()
            savepoint = self._match_text_seq("WITH", "SAVEPOINT")
            drain = self._match_text_seq("WITH", "DRAIN")
            return n.StopJob(this=job, savepoint=savepoint or None, drain=drain or None)
        if self._match_text_seq("BEGIN", "STATEMENT", "SET"):
            return n.StatementSet(expressions=[])
        return super()._parse_statement()

    def _parse_explain(self) -> exp.Expression:
        details = []
        plan_for = None
        if self._match_text_seq("PLAN", "FOR"):
            plan_for = True
        else:
            words = ("ESTIMATED_COST", "CHANGELOG_MODE", "JSON_EXECUTION_PLAN", "PLAN_ADVICE")
            while self._curr and self._curr.text.upper() in words:
                details.append(self._curr.text.upper())
                self._advance()
                self._match(TokenType.COMMA)
        return n.FlinkExplain(this=self._parse_statement(),
                              details=[exp.var(d) for d in details] or None, plan_for=plan_for)

    def _parse_create(self):
        index = self._index
        temporary = self._match(TokenType.TEMPORARY)
        system = temporary and self._match_text_seq("SYSTEM")
        if self._match_text_seq("CATALOG"):
            exists = self._parse_exists(not_=True)
            name = self._parse_id_var()
            comment = self._parse_string() if self._match(TokenType.COMMENT) else None
            props = None
            if self._match(TokenType.WITH):
                props = exp.Properties(expressions=self._parse_wrapped_properties())
            return n.CreateCatalog(this=name, exists=exists, properties=props, comment=comment)
        if self._match(TokenType.FUNCTION):
            exists = self._parse_exists(not_=True)
            name = self._parse_table_parts()
            self._match(TokenType.ALIAS)
            ident = self._parse_string()
            language = None
            if self._match_text_seq("LANGUAGE"):
                language = self._parse_var(any_token=True)
            if self._match_text_seq("USING"):
                self._parse_csv(lambda: self._match_text_seq("JAR") and self._parse_string())
            return n.CreateFunction(this=name, identifier=ident, temporary=temporary or None,
                                    system=system or None, exists=exists, language=language)
        self._retreat(index)
        return super()._parse_create()

    def _parse_drop(self, exists: bool = False):
        index = self._index
        temporary = self._match(TokenType.TEMPORARY)
        system = temporary and self._match_text_seq("SYSTEM")
        if self._match(TokenType.FUNCTION):
            exists_ = self._parse_exists()
            return n.DropFunction(this=self._parse_table_parts(), temporary=temporary or None,
                                  system=system or None, exists=exists_)
        self._retreat(index)
        return super()._parse_drop(exists=exists)


def _window_tvf_sql(self: Generator, e: n.WindowTVF) -> str:
    alias = self.sql(e, "alias")
    return f"TABLE({self.sql(e, 'this')})" + (f" AS {alias}" if alias else "")


def _show_sql(self: Generator, e: n.FlinkShow) -> str:
    text = f"SHOW {e.this}"
    if e.this.startswith("CREATE"):
        return f"{text} {self.sql(e, 'target')}"
    if e.args.get("target"):
        text += f" {e.args.get('scope') or 'FROM'} {self.sql(e, 'target')}"
    if e.args.get("like"):
        text += (" NOT" if e.args.get("not_like") else "") + f" LIKE {self.sql(e, 'like')}"
    return text


def _explain_sql(self: Generator, e: n.FlinkExplain) -> str:
    details = ", ".join(self.sql(d) for d in e.args.get("details") or [])
    head = "EXPLAIN PLAN FOR" if e.args.get("plan_for") else "EXPLAIN" + (f" {details}" if details else "")
    return f"{head} {self.sql(e, 'this')}"


def _create_function_sql(self: Generator, e: n.CreateFunction) -> str:
    text = "CREATE " + ("TEMPORARY " if e.args.get("temporary") else "")
    text += "SYSTEM " if e.args.get("system") else ""
    text += "FUNCTION " + ("IF NOT EXISTS " if e.args.get("exists") else "")
    text += f"{self.sql(e, 'this')} AS {self.sql(e, 'identifier')}"
    if e.args.get("language"):
        text += f" LANGUAGE {self.sql(e, 'language')}"
    return text


def _drop_function_sql(self: Generator, e: n.DropFunction) -> str:
    text = "DROP " + ("TEMPORARY " if e.args.get("temporary") else "")
    text += "SYSTEM " if e.args.get("system") else ""
    return text + "FUNCTION " + ("IF EXISTS " if e.args.get("exists") else "") + self.sql(e, "this")


def _create_catalog_sql(self: Generator, e: n.CreateCatalog) -> str:
    text = "CREATE CATALOG " + ("IF NOT EXISTS " if e.args.get("exists") else "") + self.sql(e, "this")
    if e.args.get("comment"):
        text += f" COMMENT {self.sql(e, 'comment')}"
    if e.args.get("properties"):
        text += " WITH (" + ", ".join(self.sql(p) for p in e.args["properties"].expressions) + ")"
    return text


def _alter_sql(self: Generator, e: n.AlterTableFlink) -> str:
    text = "ALTER TABLE " + ("IF EXISTS " if e.args.get("exists") else "") + self.sql(e, "this")
    action = e.args["action"]
    if action == "RENAME":
        return f"{text} RENAME TO {self.sql(e, 'rename')}"
    if action == "SET":
        return f"{text} SET (" + ", ".join(self.sql(p) for p in e.args["properties"].expressions) + ")"
    return f"{text} RESET (" + ", ".join(self.sql(k) for k in e.args["keys"]) + ")"


def _stop_job_sql(self: Generator, e: n.StopJob) -> str:
    text = f"STOP JOB {self.sql(e, 'this')}"
    if e.args.get("savepoint"):
        text += " WITH SAVEPOINT"
    if e.args.get("drain"):
        text += " WITH DRAIN"
    return text


def _metadata_sql(self: Generator, e: n.MetadataColumnConstraint) -> str:
    text = "METADATA"
    if e.this:
        text += f" FROM {self.sql(e, 'this')}"
    return text + (" VIRTUAL" if e.args.get("virtual") else "")


def _property_sql(self: Generator, e: exp.Property) -> str:
    key = e.this
    key_sql = self.sql(key) if isinstance(key, exp.Literal) else f"'{e.name}'"
    return f"{key_sql} = {self.sql(e, 'value')}"


def _column_def_sql(self: Generator, e: exp.ColumnDef) -> str:
    constraints = e.args.get("constraints") or []
    if constraints and isinstance(constraints[0].args.get("kind"), exp.ComputedColumnConstraint) \
            and not e.args.get("kind"):
        rest = " ".join(self.sql(c) for c in constraints[1:])
        computed = self.sql(constraints[0].args["kind"], "this")
        return f"{self.sql(e, 'this')} AS {computed}" + (f" {rest}" if rest else "")
    return Generator.columndef_sql(self, e)


class FlinkGenerator(Generator):
    TRANSFORMS = {
        **Generator.TRANSFORMS,
        n.WindowTVF: _window_tvf_sql,
        n.TableArg: lambda self, e: f"TABLE {self.sql(e, 'this')}",
        n.Descriptor: lambda self, e: f"DESCRIPTOR({self.expressions(e, flat=True)})",
        n.StatementSet: lambda self, e: "EXECUTE STATEMENT SET BEGIN\n"
        + "".join(self.sql(s) + ";\n" for s in e.expressions) + "END",
        n.Reset: lambda self, e: "RESET" + (f" {self.sql(e, 'this')}" if e.this else ""),
        n.FlinkShow: _show_sql,
        n.FlinkExplain: _explain_sql,
        n.CreateCatalog: _create_catalog_sql,
        n.CreateFunction: _create_function_sql,
        n.DropFunction: _drop_function_sql,
        n.AlterTableFlink: _alter_sql,
        n.StopJob: _stop_job_sql,
        n.MetadataColumnConstraint: _metadata_sql,
        n.NotEnforced: lambda self, e: "NOT ENFORCED",
        exp.Property: _property_sql,
        exp.ColumnDef: _column_def_sql,
    }
    TYPE_MAPPING = {
        **Generator.TYPE_MAPPING,
        exp.DType.TEXT: "STRING",
        exp.DType.VARBINARY: "BYTES",
        exp.DType.TIMESTAMPLTZ: "TIMESTAMP_LTZ",
        exp.DType.STRUCT: "ROW",
    }


class Flink(Dialect):
    """Flink SQL (Apache Flink 2.x, Calcite-based)."""

    NORMALIZE_FUNCTIONS = False
    Tokenizer = FlinkTokenizer
    Parser = FlinkParser
    Generator = FlinkGenerator
