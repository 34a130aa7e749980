"""Rendering Flink's statement nodes (``nodes.py``) back to Flink SQL.

Each function takes the generator and one node; ``STATEMENT_TRANSFORMS`` maps node classes
to them and is merged into ``FlinkGenerator.TRANSFORMS``.
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.generator import Generator

from sqlengine.dialect import nodes as n


def _options(self: Generator, props) -> str:
    """``('k' = 'v', ...)`` of a WITH / SET clause (``props`` is an exp.Properties)."""
    return "(" + ", ".join(self.sql(p) for p in props.expressions) + ")"


def _flag(e: exp.Expression, arg: str, text: str) -> str:
    return text if e.args.get(arg) else ""


# -- tables and statement sets ---------------------------------------------------------------
def window_tvf_sql(self: Generator, e: n.WindowTVF) -> str:
    alias = self.sql(e, "alias")
    return f"TABLE({self.sql(e, 'this')})" + (f" AS {alias}" if alias else "")


def table_arg_sql(self: Generator, e: n.TableArg) -> str:
    keys = e.args.get("partition") or []
    partition = ""
    if keys:
        cols = ", ".join(self.sql(k) for k in keys)
        partition = f" PARTITION BY {cols if len(keys) == 1 else '(' + cols + ')'}"
    return f"TABLE {self.sql(e, 'this')}{partition}"


def statement_set_sql(self: Generator, e: n.StatementSet, head: str = "EXECUTE STATEMENT SET") -> str:
    return f"{head} BEGIN\n" + "".join(self.sql(s) + ";\n" for s in e.expressions) + "END"


def explain_sql(self: Generator, e: n.FlinkExplain) -> str:
    details = ", ".join(self.sql(d) for d in e.args.get("details") or [])
    head = "EXPLAIN PLAN FOR" if e.args.get("plan_for") else "EXPLAIN" + (f" {details}" if details else "")
    if isinstance(e.this, n.StatementSet):
        return statement_set_sql(self, e.this, f"{head} STATEMENT SET")
    return f"{head} {self.sql(e, 'this')}"


# -- SHOW / DESCRIBE / SET ------------------------------------------------------------------
def show_sql(self: Generator, e: n.FlinkShow) -> str:
    text = f"SHOW {e.this}"
    if e.this.startswith("CREATE") or e.this == "PARTITIONS":
        partition = self.sql(e, "partition")
        return f"{text} {self.sql(e, 'target')}" + (f" {partition}" if partition else "")
    if e.args.get("target"):
        text += f" {e.args.get('scope') or 'FROM'} {self.sql(e, 'target')}"
    if e.args.get("like"):
        word = "ILIKE" if e.args.get("ilike") else "LIKE"
        text += _flag(e, "not_like", " NOT") + f" {word} {self.sql(e, 'like')}"
    return text


def describe_object_sql(kind: str):
    return lambda self, e: f"DESCRIBE {kind} " + _flag(e, "extended", "EXTENDED ") + self.sql(e, "this")


# -- CREATE / ALTER / DROP ----------------------------------------------------------------------
def create_catalog_sql(self: Generator, e: n.CreateCatalog) -> str:
    text = "CREATE CATALOG " + _flag(e, "exists", "IF NOT EXISTS ") + self.sql(e, "this")
    if e.args.get("comment"):
        text += f" COMMENT {self.sql(e, 'comment')}"
    if e.args.get("properties"):
        text += " WITH " + _options(self, e.args["properties"])
    return text


def _function_head(self: Generator, verb: str, e: exp.Expression, exists: str) -> str:
    text = f"{verb} " + _flag(e, "temporary", "TEMPORARY ") + _flag(e, "system", "SYSTEM ")
    return text + "FUNCTION " + _flag(e, "exists", exists) + self.sql(e, "this")


def function_definition_sql(verb: str, exists: str):
    def sql(self: Generator, e: exp.Expression) -> str:
        text = f"{_function_head(self, verb, e, exists)} AS {self.sql(e, 'identifier')}"
        if e.args.get("language"):
            text += f" LANGUAGE {self.sql(e, 'language')}"
        if e.args.get("resources"):
            text += " USING " + ", ".join(self.sql(r) for r in e.args["resources"])
        if e.args.get("properties"):
            text += " WITH " + _options(self, e.args["properties"])
        return text
    return sql


def drop_function_sql(self: Generator, e: n.DropFunction) -> str:
    return _function_head(self, "DROP", e, "IF EXISTS ")


def _schema_items(self: Generator, items) -> str:
    return "(" + ", ".join(self.sql(c) for c in items) + ")"


def alter_table_sql(self: Generator, e: n.AlterTableFlink) -> str:
    text = "ALTER TABLE " + _flag(e, "exists", "IF EXISTS ") + self.sql(e, "this")
    action = e.args["action"]
    columns = e.args.get("columns") or []
    if action in ("ADD", "MODIFY", "DROP"):
        return f"{text} {action} {_schema_items(self, columns)}"
    if action in ("DROP WATERMARK", "DROP PRIMARY KEY", "DROP DISTRIBUTION"):
        return f"{text} {action}"
    if action in ("ADD DISTRIBUTION", "MODIFY DISTRIBUTION"):
        dist = distribution_sql(self, e.args["properties"].expressions[0], "")
        return f"{text} {action}{dist}"
    if action == "DROP CONSTRAINT":
        return f"{text} DROP CONSTRAINT {self.sql(e.args['keys'][0])}"
    if action == "RENAME":
        return f"{text} RENAME TO {self.sql(e, 'rename')}"
    if action == "RENAME COLUMN":
        return f"{text} RENAME {self.sql(columns[0])} TO {self.sql(e, 'rename')}"
    if action == "SET":
        return f"{text} SET " + _options(self, e.args["properties"])
    return f"{text} RESET (" + ", ".join(self.sql(k) for k in e.args["keys"]) + ")"


def alter_view_sql(self: Generator, e: n.AlterView) -> str:
    if e.args.get("rename"):
        return f"ALTER VIEW {self.sql(e, 'this')} RENAME TO {self.sql(e, 'rename')}"
    return f"ALTER VIEW {self.sql(e, 'this')} AS {self.sql(e, 'expression')}"


def alter_catalog_sql(self: Generator, e: n.AlterCatalog) -> str:
    text = f"ALTER CATALOG {self.sql(e, 'this')} {e.args['action']}"
    if e.args["action"] == "SET":
        return f"{text} " + _options(self, e.args["properties"])
    if e.args["action"] == "RESET":
        return f"{text} (" + ", ".join(self.sql(k) for k in e.args["keys"]) + ")"
    return f"{text} {self.sql(e, 'comment')}"


def compile_plan_sql(self: Generator, e: n.CompilePlan) -> str:
    head = "COMPILE AND EXECUTE PLAN" if e.args.get("execute") else "COMPILE PLAN"
    head += f" {self.sql(e, 'this')}" + _flag(e, "exists", " IF NOT EXISTS") + " FOR"
    if isinstance(e.expression, n.StatementSet):
        return statement_set_sql(self, e.expression, f"{head} STATEMENT SET")
    return f"{head} {self.sql(e, 'expression')}"


def alter_materialized_table_sql(self: Generator, e: n.AlterMaterializedTable) -> str:
    text = f"ALTER MATERIALIZED TABLE {self.sql(e, 'this')} {e.args['action']}"
    if e.args.get("properties"):
        text += " WITH " + _options(self, e.args["properties"])
    if e.args.get("partition"):
        text += f" {self.sql(e, 'partition')}"
    return text


def distribution_sql(self: Generator, e: n.DistributionProperty, head: str = "DISTRIBUTED") -> str:
    text = head
    if e.expressions:
        kind = e.args.get("kind")
        text += (f" BY {kind}(" if kind else " BY (") + f"{self.expressions(e, flat=True)})"
    if e.args.get("buckets"):
        text += f" INTO {self.sql(e, 'buckets')} BUCKETS"
    return text


# -- the rest -----------------------------------------------------------------------------------
def stop_job_sql(self: Generator, e: n.StopJob) -> str:
    return f"STOP JOB {self.sql(e, 'this')}" + _flag(e, "savepoint", " WITH SAVEPOINT") + \
        _flag(e, "drain", " WITH DRAIN")


def load_module_sql(self: Generator, e: n.LoadModule) -> str:
    props = e.args.get("properties")
    return f"LOAD MODULE {self.sql(e, 'this')}" + (f" WITH {_options(self, props)}" if props else "")


STATEMENT_TRANSFORMS = {
    n.WindowTVF: window_tvf_sql,
    n.TableArg: table_arg_sql,
    n.Descriptor: lambda self, e: f"DESCRIPTOR({self.expressions(e, flat=True)})",
    n.StatementSet: statement_set_sql,
    n.BeginStatementSet: lambda self, e: "BEGIN STATEMENT SET",
    n.EndStatementSet: lambda self, e: "END",
    n.FlinkExplain: explain_sql,
    n.Reset: lambda self, e: "RESET" + (f" {self.sql(e, 'this')}" if e.this else ""),
    n.FlinkShow: show_sql,
    n.DescribeCatalog: describe_object_sql("CATALOG"),
    n.DescribeFunction: describe_object_sql("FUNCTION"),
    n.CreateCatalog: create_catalog_sql,
    n.CreateFunction: function_definition_sql("CREATE", "IF NOT EXISTS "),
    n.AlterFunction: function_definition_sql("ALTER", "IF EXISTS "),
    n.FunctionResource: lambda self, e: f"{e.args['kind']} {self.sql(e, 'this')}",
    n.DropFunction: drop_function_sql,
    n.AlterTableFlink: alter_table_sql,
    n.AlterView: alter_view_sql,
    n.AlterDatabase: lambda self, e: f"ALTER DATABASE {self.sql(e, 'this')} SET "
    + _options(self, e.args["properties"]),
    n.AlterMaterializedTable: alter_materialized_table_sql,
    n.AlterCatalog: alter_catalog_sql,
    n.CompilePlan: compile_plan_sql,
    n.ExecutePlan: lambda self, e: f"EXECUTE PLAN {self.sql(e, 'this')}",
    n.DistributionProperty: distribution_sql,
    n.StopJob: stop_job_sql,
    n.AddJar: lambda self, e: f"ADD JAR {self.sql(e, 'this')}",
    n.RemoveJar: lambda self, e: f"REMOVE JAR {self.sql(e, 'this')}",
    n.Call: lambda self, e: f"CALL {self.sql(e, 'this')}({self.expressions(e, flat=True)})",
    n.LoadModule: load_module_sql,
    n.UnloadModule: lambda self, e: f"UNLOAD MODULE {self.sql(e, 'this')}",
    n.UseModules: lambda self, e: f"USE MODULES {self.expressions(e, flat=True)}",
}
