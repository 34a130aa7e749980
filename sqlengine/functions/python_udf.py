"""User-defined Python scalar functions (sqlengine/udf.py) in SQL: resolution, typing and
lowering to Spark's Python UDFs.

Resolution follows Flink's order for a function name: a temporary system function, then a
built-in one, then a temporary catalog function or a catalog function of the current (or
named) catalog and database. The binder finds the session's functions through
``USER_FUNCTIONS``, set while a query is bound (``binder/query.py``).

A function made by ``CREATE FUNCTION f AS 'module.attr' LANGUAGE PYTHON`` is imported on
the driver; its module is pickled by value, so executors need not import it. ``general``
functions run row by row in Arrow-optimized Spark UDFs; ``pandas`` functions take and
return a pandas Series per Arrow batch (``pandas_udf``).
"""
from __future__ import annotations

import contextlib
import importlib
from contextvars import ContextVar
from typing import Any, Iterator, Optional

from pyspark.sql import Column

from sqlengine.errors import ValidationError
from sqlengine.types import DataType

USER_FUNCTIONS: ContextVar[Optional[Any]] = ContextVar("sqlengine_user_functions", default=None)


@contextlib.contextmanager
def resolving(catalogs: Any) -> Iterator[None]:
    """Within: the binder resolves user functions in ``catalogs`` (a CatalogManager)."""
    token = USER_FUNCTIONS.set(catalogs)
    try:
        yield
    finally:
        USER_FUNCTIONS.reset(token)


def find_system(name: str) -> Optional[Any]:
    """A temporary system function called ``name`` (checked before the built-ins)."""
    catalogs = USER_FUNCTIONS.get()
    if catalogs is None:
        return None
    fn = catalogs.find_temporary_system_function(name)
    return None if fn is None else instantiate(fn, name)


def find_catalog(parts: list[str]) -> Optional[Any]:
    """A temporary catalog function or a catalog function at ``parts`` (1 to 3 parts)."""
    catalogs = USER_FUNCTIONS.get()
    if catalogs is None:
        return None
    try:
        path = catalogs.qualify(parts)
    except Exception:  # noqa: BLE001 - not a function name
        return None
    fn = catalogs.find_function(path)
    return None if fn is None else instantiate(fn, ".".join(parts))


def find_aggregate(name: str, parts: list[str]) -> Optional[Any]:
    """The user-defined aggregate function a call of ``name`` resolves to (Flink's order:
    temporary system functions, built-ins, catalog functions), or None."""
    from sqlengine.functions.registry import lookup_aggregate, lookup_scalar
    if USER_FUNCTIONS.get() is None:
        return None
    catalogs = USER_FUNCTIONS.get()
    entry, shown = catalogs.find_temporary_system_function(name), name
    if entry is None and lookup_scalar(name) is None and lookup_aggregate(name) is None:
        try:
            entry, shown = catalogs.find_function(catalogs.qualify(parts)), ".".join(parts)
        except Exception:  # noqa: BLE001 - not a function name
            return None
    if entry is None or (entry.instance is None and entry.language != "PYTHON"):
        return None  # not a Python function: its call as a scalar function says why
    fn = instantiate(entry, shown)
    return fn if is_aggregate(fn) else None


class FunctionContext:
    """What ``ScalarFunction.open`` receives (PyFlink's): job parameters."""

    def __init__(self, params: Optional[dict] = None):
        self._params = dict(params or {})

    def get_job_parameter(self, key: str, default_value: Optional[str] = None) -> Optional[str]:
        return self._params.get(key, default_value)


def is_aggregate(obj: Any) -> bool:
    """A ``sqlengine.udf.UserDefinedAggregateFunction``, by its shape (this layer does not import the API)."""
    return hasattr(obj, "accumulator_type") and hasattr(obj, "func_type")


def _is_udf(obj: Any) -> bool:
    """A ``sqlengine.udf.UserDefinedScalarFunction`` (by its shape: this layer does not import the API's)."""
    return all(hasattr(obj, a) for a in ("func", "result_type", "func_type", "input_types"))


def instantiate(fn: Any, name: str) -> Any:
    """The ``UserDefinedScalarFunction`` behind a catalog function."""
    if fn.instance is not None:
        obj = fn.instance
    elif fn.language != "PYTHON":
        raise ValidationError(
            f"Function '{name}' is a {fn.language.title()} function ('{fn.class_name}'): sqlengine runs Python "
            f"functions only (CREATE FUNCTION {name} AS 'module.function' LANGUAGE PYTHON).")
    else:
        module_name, _, attr = fn.class_name.rpartition(".")
        if not module_name:
            raise ValidationError(f"Function '{name}': '{fn.class_name}' is not a Python 'module.attribute' name.")
        try:
            module = importlib.import_module(module_name)
            obj = getattr(module, attr)
        except (ImportError, AttributeError) as err:
            raise ValidationError(f"Function '{name}': cannot load Python object '{fn.class_name}': {err}") from None
        from pyspark import cloudpickle
        with contextlib.suppress(Exception):  # e.g. a built-in module
            cloudpickle.register_pickle_by_value(module)
    if not _is_udf(obj) and (hasattr(obj, "eval") or callable(obj)):
        raise ValidationError(
            f"Function '{name}': '{fn.class_name or obj!r}' is not a user-defined function: wrap it with "
            f"sqlengine.udf.udf(..., result_type=...).")
    if not _is_udf(obj):
        raise ValidationError(f"Function '{name}': '{fn.class_name}' is not a user-defined function.")
    return obj


def lower(fn: Any, name: str, cols: list[Column], result: DataType) -> Column:
    """The call as a Spark column: a pandas UDF or an Arrow-optimized row-at-a-time UDF."""
    from pyspark.sql import functions as F
    target = fn.func
    is_class = hasattr(target, "eval") and hasattr(target, "open")
    spark_type = result.to_spark()
    state: dict = {}

    def body():
        if is_class:
            if "open" not in state:
                target.open(FunctionContext())
                state["open"] = True
            return target.eval
        return target

    if fn.func_type == "table":
        width = len(fn.fields)

        def run_table(*args):
            try:
                out = []
                for r in body()(*args) or ():
                    if width == 1 and not isinstance(r, (tuple, list)) and not hasattr(r, "_fields"):
                        r = (r,)
                    out.append(tuple(r))
                return out
            except Exception as err:  # noqa: BLE001 - named, with the row's arguments
                raise RuntimeError(f"Python table function '{name}' failed on the row with arguments {args!r}: "
                                   f"{type(err).__name__}: {err}") from err
        return F.udf(run_table, spark_type)(*cols)

    if fn.func_type == "pandas":
        def run_batch(*series):
            try:
                return body()(*series)
            except Exception as err:  # noqa: BLE001 - named, with the batch's first row
                first = tuple(s.iloc[0] if len(s) else None for s in series)
                raise RuntimeError(f"Python function '{name}' failed on a batch of {len(series[0]) if series else 0} "
                                   f"rows (the first with arguments {first!r}): "
                                   f"{type(err).__name__}: {err}") from err
        return F.pandas_udf(run_batch, spark_type)(*cols)

    def run_row(*args):
        try:
            return body()(*args)
        except Exception as err:  # noqa: BLE001 - named, with the row's arguments
            raise RuntimeError(f"Python function '{name}' failed on the row with arguments {args!r}: "
                               f"{type(err).__name__}: {err}") from err
    return F.udf(run_row, spark_type, useArrow=True)(*cols)
