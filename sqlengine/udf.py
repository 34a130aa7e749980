"""User-defined scalar functions in Python, as PyFlink's ``pyflink.table.udf`` has them.

    from sqlengine.udf import udf, ScalarFunction, DataTypes

    @udf(result_type=DataTypes.BIGINT())
    def count_char(s, c):
        return s.count(c)

    @udf(result_type="BIGINT", func_type="pandas")      # vectorized: pandas Series in and out
    def add(a, b):
        return a + b

    class Lower(ScalarFunction):
        def eval(self, s):
            return s.lower()
    lower = udf(Lower(), result_type=DataTypes.STRING())

Register one with ``Session.create_temporary_system_function("count_char", count_char)``
(or ``create_temporary_function``), or name it in SQL:
``CREATE TEMPORARY FUNCTION count_char AS 'my_module.count_char' LANGUAGE PYTHON``.

Aggregate functions: ``udaf(AggregateFunctionSubclass(), result_type=...)`` or
``@udaf(result_type=..., func_type="pandas")`` (``functions/python_udaf.py`` lowers them;
in a streaming GROUP BY their accumulators are state and ``retract`` takes rows back).

``func_type="general"`` (the default) calls the function once per row with Python values
(None for NULL), ``"pandas"`` once per Arrow batch with pandas Series. ``result_type`` is
required (a ``DataTypes`` type or its SQL text); ``input_types``, when given, are the types
the arguments are cast to. A function that raises fails the job with an error naming the
function and the row.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

from sqlengine import types as T


from sqlengine.functions.python_udf import FunctionContext  # noqa: E402  (defined below the API, re-exported)


class ScalarFunction:
    """A class-based scalar function: ``eval`` per row, ``open``/``close`` around a task's use."""

    def open(self, function_context: FunctionContext) -> None:
        pass

    def eval(self, *args: Any) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def is_deterministic(self) -> bool:
        return True


class DataTypes:
    """PyFlink's ``DataTypes`` constructors, giving sqlengine types."""

    @staticmethod
    def BOOLEAN(nullable: bool = True) -> T.DataType:
        return T.BOOLEAN(nullable)

    @staticmethod
    def TINYINT(nullable: bool = True) -> T.DataType:
        return data_type("TINYINT", "TINYINT").with_nullable(nullable)

    @staticmethod
    def SMALLINT(nullable: bool = True) -> T.DataType:
        return data_type("SMALLINT", "SMALLINT").with_nullable(nullable)

    @staticmethod
    def INT(nullable: bool = True) -> T.DataType:
        return T.INT(nullable)

    @staticmethod
    def BIGINT(nullable: bool = True) -> T.DataType:
        return T.BIGINT(nullable)

    @staticmethod
    def FLOAT(nullable: bool = True) -> T.DataType:
        return data_type("FLOAT", "FLOAT").with_nullable(nullable)

    @staticmethod
    def DOUBLE(nullable: bool = True) -> T.DataType:
        return T.DOUBLE(nullable)

    @staticmethod
    def DECIMAL(precision: int, scale: int, nullable: bool = True) -> T.DataType:
        return T.DECIMAL(precision, scale, nullable)

    @staticmethod
    def STRING(nullable: bool = True) -> T.DataType:
        return T.STRING(nullable)

    @staticmethod
    def VARCHAR(length: int, nullable: bool = True) -> T.DataType:
        return T.VARCHAR(length, nullable)

    @staticmethod
    def DATE(nullable: bool = True) -> T.DataType:
        return T.DATE(nullable)

    @staticmethod
    def TIMESTAMP(precision: int = 6, nullable: bool = True) -> T.DataType:
        return T.TIMESTAMP(precision, nullable)

    @staticmethod
    def BYTES(nullable: bool = True) -> T.DataType:
        return data_type("BYTES", "BYTES").with_nullable(nullable)


TypeLike = Union[T.DataType, str]


def data_type(value: TypeLike, what: str) -> T.DataType:
    """A ``DataTypes`` type, or SQL text such as ``'BIGINT'`` or ``'ROW<a INT, b STRING>'``."""
    if isinstance(value, T.DataType):
        return value
    if isinstance(value, str):
        from sqlengine.binder.types import to_flink
        from sqlengine.dialect.script import parse_one
        cast = parse_one(f"SELECT CAST(NULL AS {value})").expressions[0]
        return to_flink(cast.args["to"])
    raise TypeError(f"{what}: expected a DataTypes type or its SQL text, got {value!r}")


class UserDefinedScalarFunction:
    """What ``udf`` returns: the function, its types and how it is called."""

    def __init__(self, func: Union[Callable, ScalarFunction], result_type: TypeLike,
                 input_types: Optional[list[TypeLike]] = None, func_type: str = "general",
                 deterministic: Optional[bool] = None, name: Optional[str] = None):
        if func_type not in ("general", "pandas"):
            raise ValueError(f"func_type must be 'general' or 'pandas', got {func_type!r}")
        if result_type is None:
            raise TypeError("udf: result_type must be given")
        self.func = func
        self.result_type = data_type(result_type, "result_type")
        self.input_types = None if input_types is None else [data_type(t, "input_types") for t in input_types]
        self.func_type = func_type
        if deterministic is None:
            deterministic = func.is_deterministic() if isinstance(func, ScalarFunction) else True
        self.deterministic = deterministic
        self.name = name or getattr(func, "__name__", None) or type(func).__name__

    def __call__(self, *args: Any) -> Any:
        f = self.func.eval if isinstance(self.func, ScalarFunction) else self.func
        return f(*args)

    def __repr__(self) -> str:
        return f"udf({self.name}, result_type={self.result_type.sql(False)}, func_type={self.func_type!r})"


def udf(f: Optional[Union[Callable, ScalarFunction]] = None, input_types: Optional[list[TypeLike]] = None,
        result_type: Optional[TypeLike] = None, deterministic: Optional[bool] = None, name: Optional[str] = None,
        func_type: str = "general", udf_type: Optional[str] = None) -> Any:
    """PyFlink's ``udf``: as a decorator (``@udf(result_type=...)``) or a call
    (``udf(f, result_type=...)``); ``udf_type`` is PyFlink's old name of ``func_type``."""
    kind = udf_type or func_type

    def wrap(func: Union[Callable, ScalarFunction]) -> UserDefinedScalarFunction:
        return UserDefinedScalarFunction(func, result_type, input_types, kind, deterministic, name)
    return wrap if f is None else wrap(f)


class TableFunction:
    """A class-based table function: ``eval`` yields the rows of one call (PyFlink's)."""

    def open(self, function_context: FunctionContext) -> None:
        pass

    def eval(self, *args: Any) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def is_deterministic(self) -> bool:
        return True


class UserDefinedTableFunction:
    """What ``udtf`` returns. Its rows have the fields of ``result_types``: one type (a
    column ``f0``), a list of types (``f0``, ``f1``, ...) or a ROW type (its fields)."""

    func_type = "table"

    def __init__(self, func: Union[Callable, TableFunction], result_types: Any,
                 input_types: Optional[list[TypeLike]] = None, deterministic: Optional[bool] = None,
                 name: Optional[str] = None):
        if result_types is None:
            raise TypeError("udtf: result_types must be given")
        types = result_types if isinstance(result_types, (list, tuple)) else [result_types]
        types = [data_type(t, "result_types") for t in types]
        if len(types) == 1 and types[0].root == "ROW":
            fields = [(f.name, f.type) for f in types[0].fields]
        else:
            fields = [(f"f{i}", t) for i, t in enumerate(types)]
        self.fields = fields
        self.result_type = T.ROW(fields)
        self.func = func
        self.input_types = None if input_types is None else [data_type(t, "input_types") for t in input_types]
        if deterministic is None:
            deterministic = func.is_deterministic() if isinstance(func, TableFunction) else True
        self.deterministic = deterministic
        self.name = name or getattr(func, "__name__", None) or type(func).__name__

    def __call__(self, *args: Any) -> Any:
        f = self.func.eval if isinstance(self.func, TableFunction) else self.func
        return f(*args)

    def __repr__(self) -> str:
        return f"udtf({self.name}, result_types={[t.sql(False) for _, t in self.fields]})"


def udtf(f: Optional[Union[Callable, TableFunction]] = None, input_types: Optional[list[TypeLike]] = None,
         result_types: Any = None, deterministic: Optional[bool] = None, name: Optional[str] = None) -> Any:
    """PyFlink's ``udtf``: ``@udtf(result_types=[...])`` over a generator function (or a
    ``TableFunction``); in SQL, ``LATERAL TABLE(f(x)) AS T(a, b)`` joined with ``,`` /
    ``CROSS JOIN``, or ``LEFT JOIN ... ON TRUE`` to keep rows the function gives nothing for."""
    def wrap(func: Union[Callable, TableFunction]) -> UserDefinedTableFunction:
        return UserDefinedTableFunction(func, result_types, input_types, deterministic, name)
    return wrap if f is None else wrap(f)


class AggregateFunction:
    """A user-defined aggregate function (PyFlink's): ``create_accumulator`` makes a group's
    accumulator, ``accumulate`` adds a row's arguments to it, ``retract`` takes a row's away
    (needed when the input of a streaming GROUP BY is updating: a GROUP BY over a GROUP BY,
    a join, Top-N), ``merge`` folds other accumulators in, ``get_value`` gives the result.
    Accumulators are kept in the job's state pickled, so any picklable object will do."""

    def open(self, function_context: FunctionContext) -> None:
        pass

    def close(self) -> None:
        pass

    def create_accumulator(self) -> Any:
        raise NotImplementedError

    def accumulate(self, accumulator: Any, *args: Any) -> None:
        raise NotImplementedError

    def retract(self, accumulator: Any, *args: Any) -> None:
        raise RuntimeError("Method retract is not implemented")

    def merge(self, accumulator: Any, accumulators: Any) -> None:
        raise RuntimeError("Method merge is not implemented")

    def get_value(self, accumulator: Any) -> Any:
        raise NotImplementedError

    def get_result_type(self) -> TypeLike:
        raise RuntimeError("Method get_result_type is not implemented")

    def get_accumulator_type(self) -> TypeLike:
        raise RuntimeError("Method get_accumulator_type is not implemented")

    def is_deterministic(self) -> bool:
        return True


def _declared(func: Any, method: str) -> Optional[TypeLike]:
    """``get_result_type()`` / ``get_accumulator_type()`` of an AggregateFunction, or None."""
    try:
        return getattr(func, method)()
    except (AttributeError, NotImplementedError, RuntimeError):
        return None


class UserDefinedAggregateFunction:
    """What ``udaf`` returns. ``func_type="general"``: an ``AggregateFunction`` called per
    row; ``"pandas"``: a plain function over pandas Series returning one value, called once
    per group (or window)."""

    def __init__(self, func: Union[Callable, AggregateFunction], result_type: Optional[TypeLike] = None,
                 accumulator_type: Optional[TypeLike] = None, input_types: Optional[list[TypeLike]] = None,
                 func_type: str = "general", deterministic: Optional[bool] = None, name: Optional[str] = None):
        if func_type not in ("general", "pandas"):
            raise ValueError(f"The func_type must be one of 'general, pandas', got {func_type}.")
        if func_type == "general" and not all(hasattr(func, m) for m in ("create_accumulator", "accumulate",
                                                                         "get_value")):
            raise TypeError(f"udaf: a general aggregate function must be an AggregateFunction, got {func!r}")
        if result_type is None:
            result_type = _declared(func, "get_result_type")
        if result_type is None:
            raise TypeError("udaf: result_type must be given (or get_result_type() implemented)")
        if accumulator_type is None and func_type == "general":
            accumulator_type = _declared(func, "get_accumulator_type")
        self.func = func
        self.result_type = data_type(result_type, "result_type")
        if func_type == "pandas" and self.result_type.root == "MAP":
            raise TypeError(f"Invalid returnType: Pandas UDAF doesn't support DataType type "
                            f"{self.result_type.sql(False)} currently")
        self.accumulator_type = None if accumulator_type is None else data_type(accumulator_type, "accumulator_type")
        self.input_types = None if input_types is None else [data_type(t, "input_types") for t in input_types]
        self.func_type = func_type
        if deterministic is None:
            deterministic = func.is_deterministic() if isinstance(func, AggregateFunction) else True
        self.deterministic = deterministic
        self.name = name or getattr(func, "__name__", None) or type(func).__name__

    @property
    def retracts(self) -> bool:
        """Whether the function can take rows back (a pandas function recomputes its group)."""
        if self.func_type == "pandas":
            return True
        method = getattr(type(self.func), "retract", None)
        return method is not None and method is not AggregateFunction.retract

    def __repr__(self) -> str:
        return f"udaf({self.name}, result_type={self.result_type.sql(False)}, func_type={self.func_type!r})"


def udaf(f: Optional[Union[Callable, AggregateFunction]] = None, input_types: Optional[list[TypeLike]] = None,
         result_type: Optional[TypeLike] = None, accumulator_type: Optional[TypeLike] = None,
         deterministic: Optional[bool] = None, name: Optional[str] = None, func_type: str = "general") -> Any:
    """PyFlink's ``udaf``: ``udaf(MyAgg(), result_type=..., accumulator_type=...)`` over an
    ``AggregateFunction``, or ``@udaf(result_type=..., func_type="pandas")`` over a function
    of pandas Series. Usable wherever a built-in aggregate is (GROUP BY, window TVF
    aggregation, OVER), with DISTINCT and FILTER."""
    if func_type not in ("general", "pandas"):
        raise ValueError(f"The func_type must be one of 'general, pandas', got {func_type}.")

    def wrap(func: Union[Callable, AggregateFunction]) -> UserDefinedAggregateFunction:
        return UserDefinedAggregateFunction(func, result_type, accumulator_type, input_types, func_type,
                                            deterministic, name)
    return wrap if f is None else wrap(f)


__all__ = ["AggregateFunction", "DataTypes", "FunctionContext", "ScalarFunction", "TableFunction",
           "UserDefinedAggregateFunction", "UserDefinedScalarFunction", "UserDefinedTableFunction", "udaf", "udf",
           "udtf"]
