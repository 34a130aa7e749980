"""Parsing Flink's DDL where it differs from sqlglot's: CREATE CATALOG / FUNCTION, the
``LIKE`` clause and ``FRESHNESS`` of CREATE TABLE, DROP CATALOG / FUNCTION and every ALTER
(TABLE, VIEW, FUNCTION, DATABASE, MATERIALIZED TABLE).

A mixin of :class:`sqlengine.dialect.parser.FlinkParser`. CREATE TABLE / VIEW / DATABASE
themselves go through sqlglot's ``_parse_create`` driven by the parser's Flink-only
``PROPERTY_PARSERS``; ALTER TABLE actions are a dispatch table (``ALTER_TABLE_ACTIONS``).
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp
from sqlglot.tokens import TokenType

from sqlengine.dialect import nodes as n
from sqlengine.dialect.parse_strict import is_name

LIKE_OPTIONS = {
    "INCLUDING": ("ALL", "CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS",
                  "PARTITIONS", "WATERMARKS"),
    "EXCLUDING": ("ALL", "CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS",
                  "PARTITIONS", "WATERMARKS"),
    "OVERWRITING": ("GENERATED", "METADATA", "OPTIONS", "WATERMARKS"),
}
FUNCTION_LANGUAGES = ("JAVA", "SCALA", "PYTHON", "SQL")
MATERIALIZED_TABLE_ACTIONS = ("SUSPEND", "RESUME", "REFRESH")
UNTYPED_COLUMNS = ("Columns identifiers without types in the schema are supported on CTAS/RTAS "
                   "statements only.")


def _untyped(column: exp.Expression) -> bool:
    """A column of a schema with neither a type nor a computed expression (sqlglot keeps
    a bare name as an Identifier)."""
    return not isinstance(column, exp.ColumnDef) or (
        column.args.get("kind") is None and not column.find(exp.ComputedColumnConstraint))


def _name_of(column: exp.Expression) -> exp.Expression:
    return column.this if isinstance(column, (exp.ColumnDef, exp.Column)) else column


class DdlParser:
    """Parse methods for Flink DDL statements and clauses."""

    # -- WITH ('k' = 'v', ...) ---------------------------------------------------------
    def _parse_option(self) -> exp.Property:
        key = self._parse_option_string()
        if not self._match(TokenType.EQ):
            self._stop(ident_ok=False)
        return self.expression(exp.Property(this=key, value=self._parse_option_string()))

    def _parse_option_string(self) -> exp.Expression:
        """A string literal; adjacent literals are one (``'a' 'b'`` is ``'ab'``)."""
        if not self._match(TokenType.STRING, advance=False):
            self._stop(ident_ok=False)
        literal = self._parse_string()
        while self._match(TokenType.STRING):
            literal.set("this", literal.this + self._prev.text)
        return literal

    def _parse_wrapped_options(self) -> list[exp.Expression]:
        """``('k' = 'v', ...)``, possibly empty."""
        if self._match(TokenType.L_PAREN, advance=False) and self._next and \
                self._next.token_type == TokenType.R_PAREN:
            self._advance(2)
            return []
        return self._parse_wrapped_csv(self._parse_option)

    def _parse_options_property(self) -> exp.Properties:
        return exp.Properties(expressions=self._parse_wrapped_options())

    # -- CREATE ----------------------------------------------------------------------------
    def _parse_create(self):
        index = self._index
        temporary = self._match(TokenType.TEMPORARY) or None
        system = (temporary and self._match_text_seq("SYSTEM")) or None
        if not temporary and self._match_text_seq("CATALOG"):
            return self._parse_create_catalog()
        if self._match(TokenType.FUNCTION):
            exists = self._parse_exists(not_=True) or None
            return self._parse_function_definition(n.CreateFunction, temporary, system, exists)
        if self._match_set((TokenType.TABLE, TokenType.VIEW)):
            self._parse_exists(not_=True)
            if not is_name(self._curr):
                self._stop()
        self._retreat(index)
        self._in_create, self._property_rank = True, 0
        try:
            return self._check_create(super()._parse_create())
        finally:
            self._in_create = False

    def _check_create(self, create: exp.Expression) -> exp.Expression:
        """A view has its query; a table's columns have types unless it is CREATE TABLE AS."""
        kind = create.args.get("kind") if isinstance(create, exp.Create) else None
        if kind == "VIEW" and create.expression is None:
            self._stop_for_query()
        schema = create.this if kind == "TABLE" else None
        if isinstance(schema, exp.Schema):
            columns = [c for c in schema.expressions
                       if isinstance(c, (exp.ColumnDef, exp.Identifier, exp.Column))]
            if columns and _untyped(columns[0]) and create.expression is None:
                self._stop(message=UNTYPED_COLUMNS)
            later = next((c for c in columns if _untyped(c)), None)
            if columns and not _untyped(columns[0]) and later is not None:
                self._stop(self._index_at(_name_of(later).meta.get("start")) + 1)
        return create

    def _parse_ddl_select(self):
        """The query of CREATE TABLE / VIEW ... AS follows AS."""
        if self._in_create and self._prev.token_type != TokenType.ALIAS:
            return None
        return super()._parse_ddl_select()

    def _parse_schema(self, this=None):
        """``(column, ...)``: at least one."""
        if self._match(TokenType.L_PAREN, advance=False) and self._next and \
                self._next.token_type == TokenType.R_PAREN:
            self._stop(self._index + 1)
        return super()._parse_schema(this=this)

    def _parse_watermark(self) -> exp.Expression:
        """``WATERMARK FOR column AS expression``."""
        if not self._match(TokenType.FOR):
            self._stop(ident_ok=False)
        column = self._required(self._parse_column)
        if not self._match(TokenType.ALIAS):
            self._stop(ident_ok=False)
        return self.expression(exp.WatermarkColumnConstraint(
            this=column, expression=self._required(self._parse_disjunction)))

    def _parse_create_catalog(self) -> n.CreateCatalog:
        exists = self._parse_exists(not_=True) or None
        name = self._parse_id_var()
        comment = self._parse_string() if self._match(TokenType.COMMENT) else None
        props = self._parse_options_property() if self._match(TokenType.WITH) else None
        return self.expression(n.CreateCatalog(this=name, exists=exists, properties=props,
                                               comment=comment))

    def _parse_function_definition(self, node_class, temporary, system, exists) -> exp.Expression:
        """``f AS 'identifier' [LANGUAGE l] [USING JAR 'p', ...] [WITH (...)]`` of CREATE/ALTER."""
        name = self._parse_table_parts()
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expected AS 'class name' in the function definition")
        args = {"this": name, "identifier": self._parse_required_string("the function identifier"),
                "temporary": temporary, "system": system, "exists": exists}
        if self._match_text_seq("LANGUAGE"):
            if not self._match_texts(FUNCTION_LANGUAGES):
                self.raise_error(f"Expected one of {', '.join(FUNCTION_LANGUAGES)} after LANGUAGE")
            args["language"] = exp.var(self._prev.text.upper())
        if node_class is n.CreateFunction:
            if self._match(TokenType.USING):
                args["resources"] = self._parse_csv(self._parse_function_resource)
            if self._match(TokenType.WITH):
                args["properties"] = self._parse_options_property()
        return self.expression(node_class(**args))

    def _parse_function_resource(self) -> n.FunctionResource:
        if not self._match_texts(("JAR", "ARTIFACT")):
            self.raise_error("Expected JAR or ARTIFACT in USING")
        kind = self._prev.text.upper()
        return self.expression(n.FunctionResource(this=self._parse_required_string("the path"),
                                                  kind=kind))

    def _parse_create_like(self) -> exp.LikeProperty:
        """``LIKE source [(INCLUDING ALL OVERWRITING OPTIONS ...)]``."""
        table = self._parse_table_parts(schema=True)
        options = []
        if self._match(TokenType.L_PAREN):
            while self._curr and not self._match(TokenType.R_PAREN):
                options.append(self._parse_like_option())
                self._match(TokenType.COMMA)
        return self.expression(exp.LikeProperty(this=table, expressions=options))

    def _parse_like_option(self) -> exp.Property:
        if not self._match_texts(LIKE_OPTIONS):
            self.raise_error("Expected INCLUDING, EXCLUDING or OVERWRITING in the LIKE options")
        mode = self._prev.text.upper()
        if not self._match_texts(LIKE_OPTIONS[mode]):
            self.raise_error(f"Expected one of {', '.join(LIKE_OPTIONS[mode])} after {mode}")
        return self.expression(exp.Property(this=exp.var(mode), value=exp.var(self._prev.text.upper())))

    def _parse_flink_partitioned_by(self) -> exp.Expression:
        """``PARTITIONED BY (column, ...)``."""
        if not self._match(TokenType.L_PAREN, advance=False):
            self._stop(ident_ok=False)
        return self._parse_partitioned_by()

    def _parse_freshness(self) -> n.FreshnessProperty:
        self._match(TokenType.EQ)
        interval = self._parse_interval()
        if interval is None:
            self.raise_error("Expected FRESHNESS = INTERVAL ...")
        return self.expression(n.FreshnessProperty(this=interval))

    def _parse_distribution(self) -> n.DistributionProperty:
        """``[BY [HASH | RANGE] (k, ...)] [INTO n BUCKETS]`` after DISTRIBUTED / DISTRIBUTION."""
        node = n.DistributionProperty()
        if self._match_text_seq("BY"):
            if self._match_texts(("HASH", "RANGE")):
                node.set("kind", self._prev.text.upper())
            node.set("expressions", self._parse_wrapped_csv(self._parse_id_var))
        if self._match(TokenType.INTO):
            node.set("buckets", self._parse_number())
            if not self._match_text_seq("BUCKETS"):
                self.raise_error("Expected BUCKETS after INTO n")
        if not node.expressions and not node.args.get("buckets"):
            self.raise_error("Expected BY (columns) or INTO n BUCKETS")
        return self.expression(node)

    def _parse_refresh_mode(self) -> n.RefreshModeProperty:
        self._match(TokenType.EQ)
        if not self._match_texts(("FULL", "CONTINUOUS")):
            self.raise_error("Expected REFRESH_MODE = FULL or CONTINUOUS")
        return self.expression(n.RefreshModeProperty(this=exp.var(self._prev.text.upper())))

    # -- DROP ------------------------------------------------------------------------------
    def _parse_drop(self, exists: bool = False, kind: Optional[str] = None):
        if kind is None:
            index = self._index
            temporary = self._match(TokenType.TEMPORARY) or None
            system = (temporary and self._match_text_seq("SYSTEM")) or None
            if self._match(TokenType.FUNCTION):
                if not (is_name(self._curr) or self._match_text_seq("IF", advance=False)):
                    self._stop(self._index - 1)  # Flink looked past FUNCTION for the name
                exists_ = self._parse_exists() or None
                return self.expression(n.DropFunction(this=self._parse_table_parts(),
                                                      temporary=temporary, system=system,
                                                      exists=exists_))
            if not temporary and self._match_text_seq("CATALOG"):
                exists_ = self._parse_exists()
                return self.expression(exp.Drop(kind="CATALOG", exists=exists_,
                                                tables=[self._parse_table_parts()]))
            self._retreat(index)
        drop = super()._parse_drop(exists=exists, kind=kind)
        tables = drop.args.get("tables") or [] if isinstance(drop, exp.Drop) else []
        if len(tables) > 1:  # DROP TABLE names one table
            self._stop(self._index_at(tables[1].this.meta.get("start")) - 1, ident_ok=False)
        return drop

    # -- ALTER -----------------------------------------------------------------------------
    def _parse_flink_alter(self) -> exp.Expression:
        temporary = self._match(TokenType.TEMPORARY) or None
        system = (temporary and self._match_text_seq("SYSTEM")) or None
        if self._match(TokenType.FUNCTION):
            exists = self._parse_exists() or None
            return self._parse_function_definition(n.AlterFunction, temporary, system, exists)
        if not temporary:
            for words, method in ALTER_TARGETS:
                if self._match_text_seq(*words):
                    return method(self)
        self.raise_error("Expected TABLE, VIEW, FUNCTION, DATABASE, CATALOG or MATERIALIZED TABLE after ALTER")
        return None

    def _parse_replace_table(self) -> exp.Expression:
        """``REPLACE TABLE t WITH (...) AS <query>`` (Flink's RTAS): a CREATE with ``replace``
        whose table must exist (``meta['replace_only']``)."""
        create = self._parse_create()
        if not isinstance(create, exp.Create) or (create.args.get("kind") or "").upper() != "TABLE":
            self.raise_error("Expected TABLE after REPLACE")
        create.meta["replace_only"] = True
        return create

    def _parse_alter_table_flink(self) -> n.AlterTableFlink:
        exists = self._parse_exists() or None
        table = self._parse_table_parts()
        if not self._match_texts(ALTER_TABLE_ACTIONS):
            self.raise_error(f"Expected one of {', '.join(ALTER_TABLE_ACTIONS)} after ALTER TABLE {table.sql()}")
        args = ALTER_TABLE_ACTIONS[self._prev.text.upper()](self)
        return self.expression(n.AlterTableFlink(this=table, exists=exists, **args))

    def _parse_schema_item(self) -> Optional[exp.Expression]:
        return self._parse_constraint() or self._parse_field_def()

    def _parse_schema_items(self) -> list[exp.Expression]:
        if self._match(TokenType.L_PAREN, advance=False):
            return self._parse_wrapped_csv(self._parse_schema_item)
        return [self._required(self._parse_schema_item)]

    def _parse_alter_table_add_flink(self, action: str) -> dict:
        if self._match_text_seq("DISTRIBUTION"):
            return {"action": f"{action} DISTRIBUTION",
                    "properties": exp.Properties(expressions=[self._parse_distribution()])}
        return {"action": action, "columns": self._parse_schema_items()}

    def _parse_alter_table_drop_flink(self) -> dict:
        for words in (("WATERMARK",), ("DISTRIBUTION",)):
            if self._match_text_seq(*words):
                return {"action": f"DROP {words[0]}"}
        if self._match(TokenType.PRIMARY_KEY):
            return {"action": "DROP PRIMARY KEY"}
        if self._match(TokenType.CONSTRAINT):
            return {"action": "DROP CONSTRAINT", "keys": [self._parse_id_var()]}
        if self._match(TokenType.L_PAREN, advance=False):
            return {"action": "DROP", "columns": self._parse_wrapped_csv(self._parse_id_var)}
        return {"action": "DROP", "columns": [self._parse_id_var()]}

    def _parse_alter_table_rename_flink(self) -> dict:
        if self._match_text_seq("TO"):
            return {"action": "RENAME", "rename": self._parse_table_parts()}
        old = self._parse_id_var()
        if not self._match_text_seq("TO"):
            self.raise_error("Expected TO in ALTER TABLE ... RENAME old TO new")
        return {"action": "RENAME COLUMN", "columns": [old], "rename": self._required(self._parse_id_var)}

    def _parse_alter_view(self) -> n.AlterView:
        view = self._parse_table_parts()
        if self._match_text_seq("RENAME", "TO"):
            return self.expression(n.AlterView(this=view, rename=self._parse_table_parts()))
        if self._match(TokenType.ALIAS):
            return self.expression(n.AlterView(this=view, expression=self._parse_ddl_select()))
        self.raise_error("Expected RENAME TO or AS after ALTER VIEW")
        return None

    def _parse_alter_database(self) -> n.AlterDatabase:
        name = self._parse_table_parts()
        if not self._match(TokenType.SET):
            self.raise_error("Expected SET (...) after ALTER DATABASE")
        return self.expression(n.AlterDatabase(this=name, properties=self._parse_options_property()))

    def _parse_alter_catalog(self) -> n.AlterCatalog:
        name = self._parse_id_var()
        if self._match(TokenType.SET):
            args = {"action": "SET", "properties": self._parse_options_property()}
        elif self._match_text_seq("RESET"):
            args = {"action": "RESET", "keys": self._parse_wrapped_csv(
                lambda: self._parse_required_string("the option key"))}
        elif self._match(TokenType.COMMENT):
            args = {"action": "COMMENT", "comment": self._parse_required_string("the comment")}
        else:
            self.raise_error("Expected SET, RESET or COMMENT after ALTER CATALOG name")
        return self.expression(n.AlterCatalog(this=name, **args))

    def _parse_alter_materialized_table(self) -> n.AlterMaterializedTable:
        name = self._parse_table_parts()
        if not self._match_texts(MATERIALIZED_TABLE_ACTIONS):
            self.raise_error(f"Expected one of {', '.join(MATERIALIZED_TABLE_ACTIONS)}")
        node = n.AlterMaterializedTable(this=name, action=self._prev.text.upper())
        if node.args["action"] == "RESUME" and self._match(TokenType.WITH):
            node.set("properties", self._parse_options_property())
        if node.args["action"] == "REFRESH" and self._match(TokenType.PARTITION, advance=False):
            node.set("partition", self._parse_partition())
        return self.expression(node)


ALTER_TABLE_ACTIONS = {
    "ADD": lambda self: self._parse_alter_table_add_flink("ADD"),
    "MODIFY": lambda self: self._parse_alter_table_add_flink("MODIFY"),
    "DROP": lambda self: self._parse_alter_table_drop_flink(),
    "RENAME": lambda self: self._parse_alter_table_rename_flink(),
    "SET": lambda self: {"action": "SET", "properties": self._parse_options_property()},
    "RESET": lambda self: {"action": "RESET", "keys": self._parse_wrapped_csv(
        lambda: self._parse_required_string("the option key"))},
}

ALTER_TARGETS = (
    (("TABLE",), DdlParser._parse_alter_table_flink),
    (("VIEW",), DdlParser._parse_alter_view),
    (("DATABASE",), DdlParser._parse_alter_database),
    (("CATALOG",), DdlParser._parse_alter_catalog),
    (("MATERIALIZED", "TABLE"), DdlParser._parse_alter_materialized_table),
)

STATEMENTS = {
    TokenType.ALTER: lambda self: self._parse_flink_alter(),
    TokenType.REPLACE: lambda self: self._parse_replace_table(),
}

PROPERTIES = {
    "COMMENT": lambda self: self.expression(
        exp.SchemaCommentProperty(this=self._parse_option_string())),
    "PARTITIONED BY": lambda self: self._parse_flink_partitioned_by(),
    "WITH": lambda self: self._parse_wrapped_options(),
    "LIKE": lambda self: self._parse_create_like(),
    "FRESHNESS": lambda self: self._parse_freshness(),
    "DISTRIBUTED": lambda self: self._parse_distribution(),
    "REFRESH_MODE": lambda self: self._parse_refresh_mode(),
}
