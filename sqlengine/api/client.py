"""The SQL Client's session statements that are no DDL: the statement set typed statement by
statement (``BEGIN STATEMENT SET;`` ... ``END;``, held by the session as Flink's gateway
holds it), modules, jars, and the catalog's DESCRIBE / SHOW CREATE / ALTER."""
from __future__ import annotations

from sqlglot import exp

from sqlengine.api.result import TableResult
from sqlengine.api.state import SessionState
from sqlengine.dialect import nodes as dn
from sqlengine.errors import SqlSyntaxError, UnsupportedError, ValidationError

OK = "[INFO] Execute statement succeeded."
CORE = "core"


# -- statement sets ------------------------------------------------------------------------
def begin_statement_set(session: SessionState, node: dn.BeginStatementSet, stmt) -> TableResult:
    if session.statement_set is not None:
        raise SqlSyntaxError("Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' "
                             "statement to submit Statement Set.", stmt.span)
    session.statement_set = []
    return TableResult("OK", text=OK)


def add_to_statement_set(session: SessionState, node: exp.Insert, stmt) -> TableResult:
    """An INSERT typed after ``BEGIN STATEMENT SET;``: planned now (its errors show now, as
    Flink's), run with the others at ``END;``."""
    session.planner().plan(node, stmt.span.source)
    session.statement_set.append(node)
    return TableResult("OK", text=OK)


def take_statement_set(session: SessionState, stmt):
    """``END;``: the open set's INSERTs as one StatementSet to run (None when empty: Flink
    answers OK and submits nothing)."""
    if session.statement_set is None:
        raise SqlSyntaxError("No Statement Set to submit. 'END' statement should be used after 'BEGIN STATEMENT "
                             "SET'.", stmt.span)
    inserts, session.statement_set = session.statement_set, None
    return dn.StatementSet(expressions=inserts) if inserts else None


def reject_in_statement_set(stmt) -> None:
    raise SqlSyntaxError("Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' "
                         "statement to submit Statement Set.", stmt.span)


# -- modules -------------------------------------------------------------------------------
def load_module(session: SessionState, node: dn.LoadModule, stmt) -> TableResult:
    name = node.this.name
    if any(m == name for m, _ in session.modules):
        raise ValidationError(f"A module with name '{name}' already exists", stmt.span)
    if name != CORE:
        raise ValidationError(f"Could not find any factory for identifier '{name}' that implements "
                              f"'org.apache.flink.table.factories.ModuleFactory' in the classpath.\n\n"
                              f"Available factory identifiers are:\n\n{CORE}", stmt.span)
    session.modules.append([name, True])
    return TableResult("OK", text=OK)


def unload_module(session: SessionState, node: dn.UnloadModule, stmt) -> TableResult:
    name = node.this.name
    if not any(m == name for m, _ in session.modules):
        raise ValidationError(f"No module with name '{name}' exists", stmt.span)
    session.modules = [m for m in session.modules if m[0] != name]
    return TableResult("OK", text=OK)


def use_modules(session: SessionState, node: dn.UseModules, stmt) -> TableResult:
    names = [e.name for e in node.expressions]
    loaded = [m for m, _ in session.modules]
    for name in names:
        if name not in loaded:
            raise ValidationError(f"No module with name '{name}' exists", stmt.span)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValidationError(f"Module '{dup}' appears more than once", stmt.span)
    used = [[n, True] for n in names]
    session.modules = used + [[m, False] for m in loaded if m not in names]
    return TableResult("OK", text=OK)


def show_modules(session: SessionState, full: bool) -> TableResult:
    if full:
        return TableResult("ROWS", ["module name", "used"], [[m, "TRUE" if u else "FALSE"] for m, u in session.modules],
                           show=True)
    return TableResult("ROWS", ["module name"], [[m] for m, u in session.modules if u], show=True)


# -- jars --------------------------------------------------------------------------------------
def _check_jar_exists(path: str, stmt) -> None:
    """Flink looks for the file first (a local path; a remote URI is taken as it is)."""
    import os
    if "://" not in path and not os.path.exists(path):
        raise ValidationError(f"jar or artifact resource [{path}] not found.", stmt.span)


def add_jar(session: SessionState, node: dn.AddJar, stmt) -> TableResult:
    _check_jar_exists(node.this.name, stmt)
    raise UnsupportedError(f"ADD JAR '{node.this.name}': Java jars cannot be loaded on Spark (sqlengine runs "
                           f"Python functions: CREATE FUNCTION ... LANGUAGE PYTHON).", stmt.span)


def remove_jar(session: SessionState, node: dn.RemoveJar, stmt) -> TableResult:
    _check_jar_exists(node.this.name, stmt)
    raise ValidationError(f"The specified jar '{node.this.name}' is not registered in this session.", stmt.span)


# -- catalogs --------------------------------------------------------------------------------
def describe_catalog(session: SessionState, node: dn.DescribeCatalog, stmt) -> TableResult:
    from catalog.show import describe_catalog_rows, mask_options
    catalog = _catalog(session, node.this.name, stmt)
    header, rows = describe_catalog_rows(catalog, False)
    comments = session.catalog_comments
    rows = [[k, comments.get(catalog.name) if k == "comment" else v] for k, v in rows]
    if node.args.get("extended"):  # the options CREATE CATALOG gave, besides its type (Flink's)
        given = session.catalog_options.get(catalog.name, {})
        rows += [[f"option:{k}", v] for k, v in sorted(mask_options(list(given.items()))) if k != "type"]
    return TableResult("ROWS", header, rows, show=True)


def show_create_catalog(session: SessionState, name: str, stmt) -> TableResult:
    from catalog.show import mask_options
    catalog = _catalog(session, name, stmt)
    text = f"CREATE CATALOG `{name}`\n"
    comment = session.catalog_comments.get(name)
    if comment:
        text += f"COMMENT '{comment}'\n"
    options = sorted(mask_options(list(session.catalog_options.get(name, {"type": catalog.catalog_type}).items())))
    text += "WITH (\n" + ",\n".join(f"  '{k}' = '{v}'" for k, v in options) + "\n)\n"
    return TableResult("ROWS", ["result"], [[text]], show=True)


def _catalog(session: SessionState, name: str, stmt):
    if name not in session.catalogs.list_catalogs():
        raise ValidationError(f"Cannot obtain metadata information from Catalog {name}.", stmt.span)
    return session.catalogs.get_catalog(name)


def alter_catalog(session: SessionState, node: dn.AlterCatalog, stmt) -> TableResult:
    """``ALTER CATALOG c SET (...) | RESET (...) | COMMENT '...'``: the catalog is built again
    from its new options (so they are checked as CREATE CATALOG checks them), its objects kept."""
    from catalog.factory import create_catalog
    from sqlengine.binder.ddl import options_of
    name = node.this.name
    _catalog(session, name, stmt)
    options = dict(session.catalog_options.get(name, {}))
    action = node.args["action"]
    if action == "COMMENT":
        session.catalog_comments[name] = node.args["comment"].name
        return TableResult("OK", text=OK)
    if action == "SET":
        options.update(options_of(node.args.get("properties")))
    else:
        for key in node.args.get("keys") or []:
            if key.name == "type":
                raise ValidationError("ALTER CATALOG RESET does not support changing 'type'", stmt.span)
            options.pop(key.name, None)
    create_catalog(name, options)  # only the check: the catalog's objects stay where they are
    session.catalog_options[name] = options
    return TableResult("OK", text=OK)
