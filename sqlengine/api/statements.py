"""One handler per statement kind, dispatched by AST node class."""
from __future__ import annotations

from sqlglot import exp

from catalog.factory import create_catalog
from catalog.objects import CatalogFunction, CatalogView, Column, TableSchema
from catalog.show import describe_rows
from sqlengine.binder.ddl import options_of, table_from_create
from sqlengine.dialect import nodes as dn
from sqlengine.dialect.script import Statement, generate
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
    if handler is None:
        raise UnsupportedError(f"Unsupported statement: {stmt.text[:60]}", stmt.span)
    if handler is _select:
        return _select(session, stmt.node, stmt, live)
    return handler(session, stmt.node, stmt)


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
        session.conf[key] = value
        said = warning(key)
        if said:
            warnings.append(said)
    return TableResult("OK", text="\n".join(warnings + ["[INFO] Execute statement succeeded."]))


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
        if temporary:
            session.catalogs.create_temporary_table(path, table, exists)
        else:
            session.catalogs.create_table(path, table, exists)
        return TableResult("OK", text="[INFO] Execute statement succeeded.")
    if kind == "VIEW":
        table_expr = node.this.this if isinstance(node.this, exp.Schema) else node.this
        path = session.catalogs.qualify([p.name for p in table_expr.parts])
        plan = session.binder(stmt.span.source).bind_query(node.expression)
        names = [c.name for c in node.this.expressions] if isinstance(node.this, exp.Schema) else plan.names()
        schema = TableSchema(tuple(Column(n, f.type.with_time_attr(None)) for n, f in zip(names, plan.schema)))
        query_sql = generate(node.expression)
        if isinstance(node.this, exp.Schema):
            query_sql = f"SELECT * FROM ({query_sql}) AS v({', '.join('`' + n + '`' for n in names)})"
        view = CatalogView(query_sql, schema)
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
    catalog = create_catalog(name, options_of(node.args.get("properties")))
    session.catalogs.register_catalog(name, catalog)
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
    path = session.catalogs.qualify([p.name for p in node.this.parts])
    table = session.catalogs.get_table(path)
    header, rows = describe_rows(_typed(session, path, table, node.this, stmt.span.source))
    return TableResult("ROWS", list(header), [list(r) for r in rows], show=True)


def _typed(session: SessionState, path, table, node, source: str):
    """The table with its computed columns' types (the catalog keeps their SQL text; the
    type comes from binding it, as Flink's DESCRIBE shows it)."""
    import dataclasses

    from catalog.objects import CatalogTable
    if not isinstance(table, CatalogTable) or not any(
            c.kind == "computed" and c.type.root == "NULL" for c in table.schema.columns):
        return table
    try:
        plan = session.binder(source).scan(str(path), table, node)
    except Exception:  # noqa: BLE001 - DESCRIBE still shows the rest
        return table
    types = {f.name: f.type for f in plan.schema}
    columns = [dataclasses.replace(c, type=types[c.name]) if c.kind == "computed" and c.name in types else c
               for c in table.schema.columns]
    return dataclasses.replace(table, schema=dataclasses.replace(table.schema, columns=columns))


@handles(dn.FlinkExplain)
def _explain(session: SessionState, node: dn.FlinkExplain, stmt) -> TableResult:
    from sqlengine.planner.explain import explain
    planned = session.planner().plan(node.this, stmt.span.source)
    return TableResult("OK", text=explain(planned, [d.name for d in node.args.get("details") or []]))


@handles(exp.Insert, dn.StatementSet)
def _insert(session: SessionState, node: exp.Expression, stmt) -> TableResult:
    """An INSERT, or a statement set (its INSERTs as one job)."""
    if isinstance(node, dn.StatementSet) and not node.expressions:
        raise ValidationError("A statement set needs at least one INSERT statement", stmt.span)
    planned = session.planner().plan(node, stmt.span.source)
    return _submitted(session, session.runner().run(planned.dag, stmt.text, wait=session.dml_sync, jobs=session.jobs))


def _create_table_as(session: SessionState, node: exp.Create, stmt, table_expr, path, exists: bool,
                     temporary: bool) -> TableResult:
    """``CREATE TABLE t WITH (...) AS SELECT ...`` (Flink's CTAS): the table gets the query's
    columns (time attributes as plain timestamps), then the query is inserted into it as
    ``INSERT INTO t`` would (a job; the table stays if the job fails, as in Flink)."""
    from catalog.objects import CatalogTable
    if isinstance(node.this, exp.Schema):
        raise UnsupportedError("CREATE TABLE ... AS SELECT with a column list is not supported", stmt.span)
    if session.catalogs.find_table(path) is not None:
        if exists:
            return TableResult("OK", text="[INFO] Execute statement succeeded.")
        raise ValidationError(f"Table {path} already exists.", stmt.span)
    plan = session.binder(stmt.span.source).bind_query(node.expression)
    props = node.args.get("properties")
    columns = tuple(Column(f.name, f.type.with_time_attr(None)) for f in plan.schema)
    table = CatalogTable(TableSchema(columns), tuple(options_of(props).items()))
    if temporary:
        session.catalogs.create_temporary_table(path, table, False)
    else:
        session.catalogs.create_table(path, table, False)
    insert = exp.Insert(this=table_expr.copy(), expression=node.expression)
    planned = session.planner().plan(insert, stmt.span.source)
    return _submitted(session, session.runner().run(planned.dag, stmt.text, wait=session.dml_sync, jobs=session.jobs))


def _submitted(session: SessionState, job) -> TableResult:
    session.jobs[job.job_id] = job
    return TableResult("JOB", job=job, messages=job.messages)


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
