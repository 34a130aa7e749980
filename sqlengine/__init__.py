"""sqlengine: Flink SQL on Apache Spark.

``from sqlengine import Session`` (or PyFlink's name, ``TableEnvironment``) is the Python
API (``sqlengine/api``); ``%load_ext sqlengine`` adds the ``%sql`` / ``%%sql`` magics to
IPython and Jupyter. Names load on first use, so ``import sqlengine`` stays cheap.
"""
from __future__ import annotations

from sqlengine.version import __version__  # noqa: F401
__all__ = ["Session", "TableEnvironment", "EnvironmentSettings", "TableResult", "load_ipython_extension"]


def __getattr__(name: str):
    if name in ("Session", "TableResult", "TableEnvironment", "EnvironmentSettings"):
        from sqlengine import api
        return getattr(api, name)
    if name == "load_ipython_extension":
        from sqlengine.notebook import load_ipython_extension
        return load_ipython_extension
    raise AttributeError(f"module 'sqlengine' has no attribute {name!r}")
