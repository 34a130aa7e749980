"""SHOW statements."""
from __future__ import annotations

import fnmatch

from sqlglot import exp

from catalog.show import describe_rows, show_create_table, show_create_view
from catalog.objects import CatalogView
from sqlengine.dialect import nodes as dn
from sqlengine.errors import UnsupportedError, ValidationError
from sqlengine.api.result import TableResult
from sqlengine.api.state import SessionState


def _like(names: list[str], node: dn.FlinkShow) -> list[str]:
    like = node.args.get("like")
    if like is None:
        return names
    pattern = like.name.replace("%", "*").replace("_", "?")
    if node.args.get("ilike"):
        keep = [n for n in names if fnmatch.fnmatchcase(n.lower(), pattern.lower())]
    else:
        keep = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    return [n for n in names if n not in keep] if node.args.get("not_like") else keep


def _database_scope(cm, node: dn.FlinkShow) -> tuple[str, str]:
    """``FROM|IN [catalog.]database`` of SHOW TABLES / VIEWS / [USER] FUNCTIONS (else the
    current ones); a database that does not exist is Flink's error."""
    target = node.args.get("target")
    if target is None:
        return cm.current_catalog, cm.current_database
    parts = [p.name for p in target.parts]
    catalog, database = (parts[0], parts[1]) if len(parts) == 2 else (cm.current_catalog, parts[-1])
    if catalog not in cm.list_catalogs() or database not in cm.list_databases(catalog):
        raise ValidationError(f"Database '{catalog}'.'{database}' doesn't exist.")
    return catalog, database


def _user_functions(cm, node: dn.FlinkShow) -> list[str]:
    """Flink lists no function (and raises nothing) for a database that does not exist."""
    try:
        return cm.list_user_functions(*_database_scope(cm, node))
    except ValidationError:
        return []


def _catalog_scope(cm, node: dn.FlinkShow) -> str:
    """``SHOW DATABASES FROM|IN catalog``."""
    target = node.args.get("target")
    if target is None:
        return cm.current_catalog
    name = target.parts[-1].name
    if name not in cm.list_catalogs():
        raise ValidationError(f"Catalog {name} does not exist")
    return name


def show(session: SessionState, node: dn.FlinkShow, stmt) -> TableResult:
    kind = node.this
    cm = session.catalogs
    if kind == "CREATE CATALOG":
        from sqlengine.api.client import show_create_catalog
        return show_create_catalog(session, node.args["target"].parts[-1].name, stmt)
    if kind in ("MODULES", "FULL MODULES"):
        from sqlengine.api.client import show_modules
        return show_modules(session, kind == "FULL MODULES")
    if kind == "PARTITIONS":
        return _partitions(session, node, stmt)
    if kind == "PROCEDURES":
        return _procedures(session, node)
    if kind == "JARS":
        return TableResult("ROWS", ["jars"], [], show=True)
    if kind in ("CREATE TABLE", "CREATE VIEW"):
        return _show_create(session, kind.split()[1], node, stmt)
    single = {"CURRENT CATALOG": ("current catalog name", cm.current_catalog),
              "CURRENT DATABASE": ("current database name", cm.current_database)}
    if kind == "JOBS":
        return _jobs(session)
    if kind in single:
        header, value = single[kind]
        return TableResult("ROWS", [header], [[value]], show=True)
    if kind == "COLUMNS":
        return _columns(session, node, stmt)
    listing = {
        "CATALOGS": ("catalog name", lambda: cm.list_catalogs()),
        "DATABASES": ("database name", lambda: cm.list_databases(_catalog_scope(cm, node))),
        "TABLES": ("table name", lambda: cm.list_tables(*_database_scope(cm, node))),
        "VIEWS": ("view name", lambda: cm.list_views(*_database_scope(cm, node))),
        "USER FUNCTIONS": ("function name", lambda: _user_functions(cm, node)),
        "FUNCTIONS": ("function name", lambda: _all_functions(cm, *_database_scope(cm, node))),
    }
    if kind not in listing:
        raise UnsupportedError(f"SHOW {kind} is not supported yet", stmt.span)
    header, fn = listing[kind]
    names = _like(sorted(fn()), node)
    return TableResult("ROWS", [header], [[n] for n in names], show=True)


def _jobs(session: SessionState) -> TableResult:
    """Flink's ``SHOW JOBS``: id, name, status and start time of the session's jobs; and, once
    a job of the session has been restarted by its restart strategy, how often each was."""
    import datetime as dt

    from sqlengine.api.result import job_status
    rows = []
    jobs = sorted(session.jobs.values(), key=lambda j: j.start_time)
    restarted = any(getattr(j, "restarts", 0) for j in jobs)
    for job in jobs:
        start = dt.datetime.fromtimestamp(job.start_time).isoformat(timespec="milliseconds")
        rows.append([job.job_id, job.name, job_status(job), start] + ([job.restarts] if restarted else []))
    header = ["job id", "job name", "status", "start time"] + (["restarts"] if restarted else [])
    return TableResult("ROWS", header, rows, show=True)


def _procedures(session: SessionState, node: dn.FlinkShow) -> TableResult:
    """``SHOW PROCEDURES [FROM|IN [catalog.]database] [[NOT] LIKE|ILIKE p]``: the catalog's
    procedures (its own error when it has no notion of them, as Flink's in-memory catalog)."""
    cm = session.catalogs
    target = node.args.get("target")
    parts = [p.name for p in target.parts] if target is not None else []
    catalog = parts[0] if len(parts) == 2 else cm.current_catalog
    database = parts[-1] if parts else cm.current_database
    if catalog not in cm.list_catalogs():
        raise ValidationError(f"Catalog {catalog} does not exist")
    names = _like(sorted(cm.get_catalog(catalog).list_procedures(database)), node)
    return TableResult("ROWS", ["procedure name"], [[n] for n in names], show=True)


def _all_functions(cm, catalog: str, database: str) -> list[str]:
    from sqlengine.functions.registry import AGGREGATES, SCALARS
    names = [n.lower() for n in list(SCALARS) + list(AGGREGATES) if n.replace("_", "").isalnum()]
    return sorted(set(names) | set(cm.list_user_functions(catalog, database)))


def _columns(session: SessionState, node: dn.FlinkShow, stmt) -> TableResult:
    """``SHOW COLUMNS FROM|IN t [[NOT] LIKE 'p']``: DESCRIBE's rows for the columns whose names match."""
    header, rows = describe_table(session, node.args["target"], stmt)
    names = _like([r[0] for r in rows], node)
    return TableResult("ROWS", header, [r for r in rows if r[0] in names], show=True)


def _show_create(session: SessionState, kind: str, node: dn.FlinkShow, stmt) -> TableResult:
    """``SHOW CREATE TABLE|VIEW``: the DDL in one cell of a ``result`` column, as Flink 2.3's
    client prints it; a view is no table here, nor a table a view (Flink's messages)."""
    cm = session.catalogs
    path = cm.qualify([p.name for p in node.args["target"].parts])
    obj = cm.find_table(path)
    if obj is None:
        noun = kind.capitalize()
        raise ValidationError(f"Could not execute SHOW CREATE {kind}. {noun} with identifier {path.quoted()} "
                              f"does not exist.", stmt.span)
    is_view = isinstance(obj, CatalogView)
    if kind == "TABLE" and is_view:
        raise ValidationError(f"SHOW CREATE TABLE is only supported for tables, but {path.quoted()} is a view. "
                              f"Please use SHOW CREATE VIEW instead.", stmt.span)
    if kind == "VIEW" and not is_view:
        raise ValidationError(f"SHOW CREATE VIEW is only supported for views, but {path.quoted()} is a table. "
                              f"Please use SHOW CREATE TABLE instead.", stmt.span)
    temporary = cm.is_temporary(path)
    text = show_create_view(path, obj, temporary) if is_view else show_create_table(path, obj, temporary)
    return TableResult("ROWS", ["result"], [[text]], show=True)


def _partitions(session: SessionState, node: dn.FlinkShow, stmt) -> TableResult:
    """``SHOW PARTITIONS t``: the partitions the catalog knows. The catalogs here keep none
    (a filesystem table's partitions are folders its connector finds), so a partitioned table
    lists none, as Flink's in-memory catalog does; a table without partition keys is an error."""
    from catalog.objects import CatalogTable
    path = session.catalogs.qualify([p.name for p in node.args["target"].parts])
    table = session.catalogs.find_table(path)
    if table is None:
        raise ValidationError(f"Table (or view) {path.database}.{path.name} does not exist in Catalog "
                              f"{path.catalog}.", stmt.span)
    if not isinstance(table, CatalogTable) or not table.partition_keys:
        raise ValidationError(f"Table {path} is not partitioned.", stmt.span)
    return TableResult("ROWS", ["partition name"], [], show=True)


def describe_table(session: SessionState, target: exp.Expression, stmt) -> tuple[list[str], list[list]]:
    """DESCRIBE's header and rows for a table or view (SHOW COLUMNS filters them)."""
    path = session.catalogs.qualify([p.name for p in target.parts])
    table = session.catalogs.find_table(path)
    if table is None:
        raise ValidationError(f"Tables or views with the identifier '{path.catalog}.{path.database}.{path.name}' "
                              f"doesn't exist.", stmt.span)
    header, rows = describe_rows(_typed(session, path, table, target, stmt.span.source))
    return list(header), [list(r) for r in rows]


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
