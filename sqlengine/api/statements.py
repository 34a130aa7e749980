"""One handler per statement kind, dispatched by AST node class."""
from __future__ import annotations

from sqlglot import exp

from catalog.factory import create_catalog
from catalog.objects import CatalogFunction, CatalogView, Column, TableSchema
from sqlengine.binder.ddl import options_of, table_from_create
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import Statement, generate
from sqlengine.api import alter, client, modify
from sqlengine.api.views import view_binder, view_expansion
from sqlengine.api.result import TableResult
from sqlengine.api.state import SessionState
from sqlengine.errors import UnsupportedError, ValidationError

HANDLERS = {}


def handles(*classes):
    def deco(fn):
        for c in classes:
            HANDLERS[c] = fn
        return fn
    return deco


def dispatch(session: SessionState, stmt: Statement, live: bool = False) -> TableResult:
    handler = HANDLERS.get(type(stmt.node))
    if getattr(session, "statement_set", None) is not None:  # after BEGIN STATEMENT SET;
        if isinstance(stmt.node, exp.Insert):
            return client.add_to_statement_set(session, stmt.node, stmt)
        if not isinstance(stmt.node, (dn.EndStatementSet, dn.BeginStatementSet)):
            client.reject_in_statement_set(stmt)
    if handler is None:
        raise UnsupportedError(f"Unsupported statement: {stmt.text[:60]}", stmt.span)
    if handler is _select:
        return _select(session, stmt.node, stmt, live)
    return handler(session, stmt.node, stmt)


handles(exp.Delete)(modify.delete)
handles(exp.Update)(modify.update)
handles(exp.TruncateTable)(modify.truncate)


@handles(exp.Set)
def _set(session: SessionState, node: exp.Set, stmt) -> TableResult:
    items = node.expressions
    if not items:
        rows = [[k, v] for k, v in sorted(session.conf.items())]
        return TableResult("ROWS", ["key", "value"], rows, show=True)
    from sqlengine.settings import warning
    warnings = []
    for item in items:
        eq = item.this
        key = eq.this.name
        value = eq.expression.name if isinstance(eq.expression, exp.Literal) else generate(eq.expression)
        _check_setting(key, value, stmt)
        session.conf[key] = value
        said = warning(key)
        if said:
            warnings.append(said)
    return TableResult("OK", text="\n".join(warnings + ["[INFO] Execute statement succeeded."]))


# Keys whose value Flink parses at SET time (an enum): (what the value must be, Flink's enum class).
ENUM_SETTINGS = {
    "execution.runtime-mode": (("STREAMING", "BATCH", "AUTOMATIC"), "org.apache.flink.api.common.RuntimeExecutionMode"),
}


def _check_setting(key: str, value: str, stmt) -> None:
    if key in ENUM_SETTINGS:
        allowed, enum = ENUM_SETTINGS[key]
        if value.strip().upper() not in allowed:
            raise ValidationError(f"Could not parse value for enum class {enum}. Expected one of: "
                                  f"[[{', '.join(allowed)}]]", stmt.span)


@handles(dn.Reset)
def _reset(session: SessionState, node: dn.Reset, stmt) -> TableResult:
    if node.this is None:
        session.conf = dict(session._initial)
    else:
        key = node.this.name
        if key in session._initial:
            session.conf[key] = session._initial[key]
        else:
            session.conf.pop(key, None)
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(exp.Create)
def _create(session: SessionState, node: exp.Create, stmt) -> TableResult:
    kind = (node.args.get("kind") or "").upper()
    exists = bool(node.args.get("exists"))
    temporary = any(isinstance(p, exp.TemporaryProperty) for p in
                    (node.args["properties"].expressions if node.args.get("properties") else []))
    if kind == "TABLE":
        table_expr = node.this.this if isinstance(node.this, exp.Schema) else node.this
        path = session.catalogs.qualify([p.name for p in table_expr.parts])
        if node.expression is not None:
            return _create_table_as(session, node, stmt, table_expr, path, exists, temporary)
        table = table_from_create(node, stmt.span.source,
                                  lambda parts: session.catalogs.get_table(session.catalogs.qualify(parts)))
        if any(c.kind == "computed" for c in table.schema.columns):  # Flink checks them at DDL time
            session.binder(stmt.span.source).scan(str(path), table, table_expr)
        if temporary:
            session.catalogs.create_temporary_table(path, table, exists)
        else:
            session.catalogs.create_table(path, table, exists)
        return TableResult("OK", text="[INFO] Execute statement succeeded.")
    if kind == "VIEW":
        table_expr = node.this.this if isinstance(node.this, exp.Schema) else node.this
        path = session.catalogs.qualify([p.name for p in table_expr.parts])
        plan = view_binder(session, stmt.span.source).bind_query(node.expression)
        names = [c.name for c in node.this.expressions] if isinstance(node.this, exp.Schema) else plan.names()
        if len(names) != len(plan.schema):
            raise ValidationError(f"VIEW definition and input fields not match:\n\tDef fields: [{', '.join(names)}]."
                                  f"\n\tInput fields: [{', '.join(plan.names())}].", stmt.span)
        schema = TableSchema(tuple(Column(n, f.type.with_time_attr(None)) for n, f in zip(names, plan.schema)))
        query_sql = generate(node.expression)
        if isinstance(node.this, exp.Schema):
            query_sql = f"SELECT * FROM ({query_sql}) AS v({', '.join('`' + n + '`' for n in names)})"
        comment = (node.args.get("properties") or exp.Properties()).find(exp.SchemaCommentProperty)
        view = CatalogView(query_sql, schema, comment.name if comment is not None else None,
                           view_expansion(session, node.expression))
        if temporary:
            session.catalogs.create_temporary_view(path, view, exists)
        else:
            session.catalogs.create_table(path, view, exists)
        return TableResult("OK", text="[INFO] Execute statement succeeded.")
    if kind in ("DATABASE", "SCHEMA"):
        parts = [p.name for p in node.this.parts]
        catalog = parts[0] if len(parts) > 1 else None
        session.catalogs.create_database(parts[-1], exists, catalog=catalog) \
            if _accepts_catalog(session.catalogs.create_database) else \
            session.catalogs.create_database(parts[-1], exists)
        return TableResult("OK", text="[INFO] Execute statement succeeded.")
    raise UnsupportedError(f"CREATE {kind} is not supported", stmt.span)


def _accepts_catalog(fn) -> bool:
    import inspect
    return "catalog" in inspect.signature(fn).parameters


@handles(dn.CreateCatalog)
def _create_catalog(session: SessionState, node: dn.CreateCatalog, stmt) -> TableResult:
    name = node.this.name
    if node.args.get("exists") and name in session.catalogs.list_catalogs():
        return TableResult("OK", text="[INFO] Execute statement succeeded.")
    options = options_of(node.args.get("properties"))
    catalog = create_catalog(name, options)
    session.catalogs.register_catalog(name, catalog)
    session.catalog_options[name] = dict(options)
    if node.args.get("comment") is not None:
        session.catalog_comments[name] = node.args["comment"].name
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(dn.CreateFunction)
def _create_function(session: SessionState, node: dn.CreateFunction, stmt) -> TableResult:
    path = session.catalogs.qualify([p.name for p in node.this.parts])
    lang = (node.args.get("language").name.upper() if node.args.get("language") else "JAVA")
    fn = CatalogFunction(node.args["identifier"].name, lang, bool(node.args.get("temporary")))
    if node.args.get("temporary"):
        session.catalogs.create_temporary_function(path, fn, bool(node.args.get("exists")))
    else:
        session.catalogs.create_function(path, fn, bool(node.args.get("exists")))
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(exp.Drop)
def _drop(session: SessionState, node: exp.Drop, stmt) -> TableResult:
    kind = (node.args.get("kind") or "").upper()
    exists = bool(node.args.get("exists"))
    target = node.this if node.this is not None else (node.args.get("tables") or [None])[0]
    parts = [p.name for p in target.parts] if hasattr(target, "parts") else [target.name]
    if kind in ("TABLE", "VIEW"):
        path = session.catalogs.qualify(parts)
        if node.args.get("temporary"):
            (session.catalogs.drop_temporary_view if kind == "VIEW" else
             session.catalogs.drop_temporary_table)(path, exists)
        else:
            session.catalogs.drop_table(path, exists, is_view=(kind == "VIEW"))
    elif kind in ("DATABASE", "SCHEMA"):
        session.catalogs.drop_database(parts[-1], exists, cascade=bool(node.args.get("cascade")))
    elif kind == "CATALOG":
        session.catalogs.unregister_catalog(parts[-1], exists)
    else:
        raise UnsupportedError(f"DROP {kind} is not supported", stmt.span)
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(dn.AlterFunction)
def _alter_function(session: SessionState, node: dn.AlterFunction, stmt) -> TableResult:
    """``ALTER FUNCTION f AS 'cls' [LANGUAGE l]``: a catalog function gets a new implementation."""
    if node.args.get("temporary"):
        raise ValidationError("Alter temporary catalog function is not supported", stmt.span)
    path = session.catalogs.qualify([p.name for p in node.this.parts])
    catalog = session.catalogs.get_catalog(path.catalog)
    lang = (node.args.get("language").name.upper() if node.args.get("language") else "JAVA")
    try:
        catalog.get_function(path.database, path.name)
    except Exception:
        if node.args.get("exists"):
            return TableResult("OK", text="[INFO] Execute statement succeeded.")
        raise
    catalog.alter_function(path.database, path.name, CatalogFunction(node.args["identifier"].name, lang))
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(dn.DropFunction)
def _drop_function(session: SessionState, node: dn.DropFunction, stmt) -> TableResult:
    path = session.catalogs.qualify([p.name for p in node.this.parts])
    if node.args.get("temporary"):
        session.catalogs.drop_temporary_function(path, bool(node.args.get("exists")))
    else:
        session.catalogs.drop_function(path, bool(node.args.get("exists")))
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(exp.Use)
def _use(session: SessionState, node: exp.Use, stmt) -> TableResult:
    kind = (node.args.get("kind").name.upper() if node.args.get("kind") else "")
    parts = [p.name for p in node.this.parts] if hasattr(node.this, "parts") else [node.this.name]
    if kind == "CATALOG":
        session.catalogs.use_catalog(parts[-1])
    elif len(parts) == 2:
        session.catalogs.use_catalog(parts[0])
        session.catalogs.use_database(parts[1])
    else:
        session.catalogs.use_database(parts[-1])
    return TableResult("OK", text="[INFO] Execute statement succeeded.")


@handles(dn.FlinkShow)
def _show(session: SessionState, node: dn.FlinkShow, stmt) -> TableResult:
    from sqlengine.api.show import show
    return show(session, node, stmt)


@handles(exp.Describe)
def _describe(session: SessionState, node: exp.Describe, stmt) -> TableResult:
    from sqlengine.api.show import describe_table
    header, rows = describe_table(session, node.this, stmt)
    return TableResult("ROWS", header, rows, show=True)


@handles(dn.FlinkExplain)
def _explain(session: SessionState, node: dn.FlinkExplain, stmt) -> TableResult:
    from sqlengine.planner.explain import explain
    planned = session.planner().plan(node.this, stmt.span.source)
    return TableResult("OK", text=explain(planned, [d.name for d in node.args.get("details") or []]))


@handles(exp.Insert, dn.StatementSet)
def run_insert(session: SessionState, node: exp.Expression, stmt) -> TableResult:
    """An INSERT, or a statement set (its INSERTs as one job)."""
    if isinstance(node, dn.StatementSet) and not node.expressions:
        raise ValidationError("A statement set needs at least one INSERT statement", stmt.span)
    planned = session.planner().plan(node, stmt.span.source)
    return _submitted(session, session.runner().run(planned.dag, stmt.text, wait=session.dml_sync, jobs=session.jobs))


@handles(dn.EndStatementSet)
def _end_statement_set(session: SessionState, node: dn.EndStatementSet, stmt) -> TableResult:
    """``END;`` after ``BEGIN STATEMENT SET;``: the INSERTs typed since, as one job."""
    statement_set = client.take_statement_set(session, stmt)
    if statement_set is None:
        return TableResult("OK", text="[INFO] Execute statement succeeded.")
    return run_insert(session, statement_set, stmt)


def _create_table_as(session: SessionState, node: exp.Create, stmt, table_expr, path, exists: bool,
                     temporary: bool) -> TableResult:
    """``CREATE TABLE t WITH (...) AS SELECT ...`` (Flink's CTAS): the table gets the query's
    columns (time attributes as plain timestamps), then the query is inserted into it as
    ``INSERT INTO t`` would (a job; the table stays if the job fails, as in Flink)."""
    from catalog.objects import CatalogTable
    if isinstance(node.this, exp.Schema):
        raise UnsupportedError("CREATE TABLE ... AS SELECT with a column list is not supported", stmt.span)
    existing = session.catalogs.find_table(path)
    if node.meta.get("replace_only") and existing is None:
        raise ValidationError(f"The table {path.quoted()} to be replaced doesn't exist. You can try to use CREATE "
                              f"TABLE AS statement or CREATE OR REPLACE TABLE AS statement.", stmt.span)
    if existing is not None and node.args.get("replace"):  # RTAS: the old definition goes
        if temporary:
            session.catalogs.drop_temporary_table(path)
        else:
            session.catalogs.drop_table(path, False)
    elif existing is not None:
        if exists:  # Flink: IF NOT EXISTS keeps the table and still inserts the query into it
            return _insert_query(session, node, stmt, table_expr)
        raise ValidationError(f"Table (or view) {path.database}.{path.name} already exists in Catalog "
                              f"{path.catalog}.", stmt.span)
    plan = session.binder(stmt.span.source).bind_query(node.expression)
    props = node.args.get("properties")
    columns = tuple(Column(f.name, f.type.with_time_attr(None)) for f in plan.schema)
    table = CatalogTable(TableSchema(columns), tuple(options_of(props).items()))
    if temporary:
        session.catalogs.create_temporary_table(path, table, False)
    else:
        session.catalogs.create_table(path, table, False)
    return _insert_query(session, node, stmt, table_expr)


def _insert_query(session: SessionState, node: exp.Create, stmt, table_expr) -> TableResult:
    insert = exp.Insert(this=table_expr.copy(), expression=node.expression)
    planned = session.planner().plan(insert, stmt.span.source)
    return _submitted(session, session.runner().run(planned.dag, stmt.text, wait=session.dml_sync, jobs=session.jobs))


def _submitted(session: SessionState, job) -> TableResult:
    session.jobs[job.job_id] = job
    result = TableResult("JOB", job=job, messages=job.messages)
    if str(session.conf.get("table.dml-sync", "")).strip().lower() == "true":  # Flink's sync-mode line
        result.text = "[INFO] Complete execution of the SQL update statement."
    return result


@handles(exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery, exp.Values)
def _select(session: SessionState, node, stmt, live: bool = False) -> TableResult:
    from sqlengine.api.collect import collect
    return collect(session, session.planner().plan(node, stmt.span.source), live)


@handles(dn.StopJob)
def _stop_job(session: SessionState, node: dn.StopJob, stmt) -> TableResult:
    """``STOP JOB '<id>' [WITH SAVEPOINT] [WITH DRAIN]``: stop at an epoch boundary (the
    running epoch commits); with a savepoint, the path to restore from."""
    from sqlengine.api.result import job_status
    from sqlengine.errors import ExecutionError
    job_id = node.this.name
    job = session.jobs.get(job_id)
    if job is None:
        raise ExecutionError(f"Could not stop job '{job_id}': no job with this id was submitted in this "
                             f"session (SHOW JOBS lists them).", stmt.span)
    if job.done.is_set():
        raise ExecutionError(f"Could not stop job '{job_id}': it is not running (status {job_status(job)}).",
                             stmt.span)
    if node.args.get("savepoint"):
        from sqlengine.api.jobs import stop_job
        from sqlengine.runtime.savepoint import default_savepoint_dir
        path = stop_job(session, job_id, default_savepoint_dir(session.conf, job.checkpoint_root),
                        drain=bool(node.args.get("drain")))
        if path is None:
            return TableResult("OK", text=f"[INFO] Job {job_id} stopped before its first checkpoint completed: there "
                                          f"is nothing to restore (run the statement again to start over).")
        return TableResult("ROWS", ["savepoint path"], [[path]], show=True)
    job.stop(drain=bool(node.args.get("drain")))
    return TableResult("OK")


# -- the SQL Client's session statements (sqlengine/api/client.py, sqlengine/api/alter.py) --------
HANDLERS.update({
    dn.BeginStatementSet: client.begin_statement_set,
    dn.LoadModule: client.load_module,
    dn.UnloadModule: client.unload_module,
    dn.UseModules: client.use_modules,
    dn.AddJar: client.add_jar,
    dn.RemoveJar: client.remove_jar,
    dn.DescribeCatalog: client.describe_catalog,
    dn.AlterCatalog: client.alter_catalog,
    dn.AlterTableFlink: alter.alter_table,
    dn.AlterView: alter.alter_view,
    dn.AlterDatabase: alter.alter_database,
})
