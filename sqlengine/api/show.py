"""SHOW statements."""
from __future__ import annotations

import fnmatch

from catalog.show import show_create_table, show_create_view
from catalog.objects import CatalogView
from sqlengine.dialect import nodes as dn
from sqlengine.errors import UnsupportedError
from sqlengine.api.result import TableResult
from sqlengine.api.state import SessionState


def _like(names: list[str], node: dn.FlinkShow) -> list[str]:
    like = node.args.get("like")
    if like is None:
        return names
    pattern = like.name.replace("%", "*").replace("_", "?")
    keep = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    return [n for n in names if n not in keep] if node.args.get("not_like") else keep


def show(session: SessionState, node: dn.FlinkShow, stmt) -> TableResult:
    kind = node.this
    cm = session.catalogs
    if kind.startswith("CREATE"):
        path = cm.qualify([p.name for p in node.args["target"].parts])
        obj = cm.get_table(path)
        text = show_create_view(path, obj) if isinstance(obj, CatalogView) else show_create_table(path, obj)
        return TableResult("OK", text=text)
    single = {"CURRENT CATALOG": ("current catalog name", cm.current_catalog),
              "CURRENT DATABASE": ("current database name", cm.current_database)}
    if kind == "JOBS":
        return _jobs(session)
    if kind in single:
        header, value = single[kind]
        return TableResult("ROWS", [header], [[value]], show=True)
    listing = {
        "CATALOGS": ("catalog name", lambda: cm.list_catalogs()),
        "DATABASES": ("database name", lambda: cm.list_databases()),
        "TABLES": ("table name", lambda: cm.list_tables()),
        "VIEWS": ("view name", lambda: cm.list_views()),
        "USER FUNCTIONS": ("function name", lambda: cm.list_user_functions()),
        "FUNCTIONS": ("function name", lambda: _all_functions(cm)),
        "MODULES": ("module name", lambda: ["core"]),
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


def _all_functions(cm) -> list[str]:
    from sqlengine.functions.registry import AGGREGATES, SCALARS
    names = [n.lower() for n in list(SCALARS) + list(AGGREGATES) if n.replace("_", "").isalnum()]
    return sorted(set(names) | set(cm.list_user_functions()))
