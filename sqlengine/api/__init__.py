"""The public API: what the shell, the CLI, notebooks and Python users call.

``Session`` (``session.py``; PyFlink's names in ``tableenv.py``) runs statements and
returns ``TableResult``s (``result.py``); ``control.py`` holds what a client process
controls beyond statements (stopping its jobs at an epoch boundary, starting Spark
ahead, completion data). Nothing outside this package is meant for those clients:
import-linter checks that ``shell`` and ``sqlengine.notebook`` import only from here.
Names load on first use, so ``import sqlengine.api`` stays cheap.
"""
from __future__ import annotations

from sqlengine.version import __version__  # noqa: F401

__all__ = ["Session", "TableResult", "TableEnvironment", "EnvironmentSettings", "JobClient"]


def __getattr__(name: str):
    if name in ("Session",):
        from sqlengine.api import session
        return getattr(session, name)
    if name in ("TableResult", "JobClient"):
        from sqlengine.api import result
        return getattr(result, name)
    if name in ("TableEnvironment", "EnvironmentSettings"):
        from sqlengine.api import tableenv
        return getattr(tableenv, name)
    raise AttributeError(f"module 'sqlengine.api' has no attribute {name!r}")
