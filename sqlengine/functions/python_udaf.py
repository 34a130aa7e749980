"""User-defined aggregate functions (``sqlengine.udf.udaf``) lowered onto Spark.

Over whole groups (batch GROUP BY, window aggregation, OVER frames): a group's arguments
are collected in the JVM (``collect_list`` of a struct; FILTER leaves rows out, DISTINCT
drops repeats) and one vectorized Arrow UDF runs the function over every group of an
Arrow batch. Spark refuses grouped-aggregate pandas UDFs next to its own aggregates, but
a Python UDF over an aggregate's result runs after the aggregation, so built-in and user
aggregates share one ``groupBy``.

Streaming GROUP BY (``fold_column``): a key's accumulators are state, pickled with the
key's row count (and, for DISTINCT, each value's count). An epoch's netted changes of a
key reach the function as one list: its retractions first (``retract``, as an update's
``-U`` comes before its ``+U``), then its additions (``accumulate``); when a key's count
drops to zero its accumulators are dropped, as Flink clears a key's state.
"""
from __future__ import annotations

import pickle
from typing import Any, Callable, Optional

from pyspark.sql import Column, WindowSpec
from pyspark.sql import functions as F

from sqlengine.functions.python_udf import FunctionContext, is_aggregate
from sqlengine.types import DataType

NO_ARGS = "__none"  # the one field of an argument struct of a call without arguments


def folds(obj: Any) -> bool:
    """An accumulator-based (``general``) aggregate function: state in a streaming GROUP BY."""
    return is_aggregate(obj) and obj.func_type == "general"


def retracts(obj: Any) -> bool:
    return bool(getattr(obj, "retracts", True))


def arguments(cols: list[Column], filt: Optional[Column]) -> Column:
    """A row's arguments as one struct (``c0..``), NULL where the FILTER leaves it out."""
    fields = [c.alias(f"c{i}") for i, c in enumerate(cols)] or [F.lit(True).alias(NO_ARGS)]
    s = F.struct(*fields)
    return s if filt is None else F.when(filt, s)


def _arrow_type(t: DataType):
    from pyspark.sql.pandas.types import to_arrow_type
    return to_arrow_type(t.to_spark())


def failure(name: str, method: str, position: int, args: tuple, err: Exception) -> RuntimeError:
    """The job's error for a user function that raised: the function, the call and the row."""
    return RuntimeError(f"Python aggregate function '{name}' failed in {method} on row {position} of its group, "
                        f"with arguments {args!r}: {type(err).__name__}: {err}")


class _Calls:
    """Calls into a user's AggregateFunction (opened once per Python worker), each error
    named with the function, the method and the row."""

    def __init__(self, fn: Any, name: str):
        self.fn, self.name = fn, name
        self.target = fn.func
        self.opened = False

    def open(self) -> Any:
        if not self.opened:
            if hasattr(self.target, "open"):
                self.target.open(FunctionContext())
            self.opened = True
        return self.target

    def call(self, method: str, acc: Any, args: tuple, position: int) -> None:
        try:
            getattr(self.open(), method)(acc, *args)
        except Exception as err:  # noqa: BLE001 - named, with the row
            raise failure(self.name, method, position, args, err) from err

    def create(self) -> Any:
        try:
            return self.open().create_accumulator()
        except Exception as err:  # noqa: BLE001
            raise RuntimeError(f"Python aggregate function '{self.name}' failed in create_accumulator: "
                               f"{type(err).__name__}: {err}") from err

    def value(self, acc: Any) -> Any:
        try:
            return self.open().get_value(acc)
        except Exception as err:  # noqa: BLE001
            raise RuntimeError(f"Python aggregate function '{self.name}' failed in get_value: "
                               f"{type(err).__name__}: {err}") from err


def _group_value(calls: _Calls, pandas: bool, nargs: int) -> Callable[[Any], Any]:
    """The function's value over one group's argument structs (an Arrow StructArray)."""
    if pandas:
        def run_pandas(rows: Any) -> Any:
            series = [rows.field(j).to_pandas() for j in range(nargs)]
            try:
                return calls.target(*series)
            except Exception as err:  # noqa: BLE001 - named, with the group's first row
                first = tuple(s.iloc[0] if len(s) else None for s in series)
                raise RuntimeError(f"Python aggregate function '{calls.name}' failed on a group of {len(rows)} "
                                   f"rows (the first with arguments {first!r}): {type(err).__name__}: {err}") from err
        return run_pandas

    def run_general(rows: Any) -> Any:
        acc = calls.create()
        cols = [rows.field(j).to_pylist() for j in range(nargs)]
        for i, args in enumerate(zip(*cols) if nargs else ((),) * len(rows)):
            calls.call("accumulate", acc, args, i + 1)
        return calls.value(acc)
    return run_general


def _over_groups(fn: Any, name: str, nargs: int, result: DataType) -> Column:
    """An Arrow UDF from a list of argument structs per group to the function's value."""
    import pyarrow as pa
    calls = _Calls(fn, name)
    one = _group_value(calls, fn.func_type == "pandas", nargs)
    out_type = _arrow_type(result)

    def run(groups):  # no annotations: Spark reads an Arrow UDF's kind from its hints
        values = []
        for i in range(len(groups)):
            rows = groups[i].values
            values.append(one(rows if rows is not None else pa.array([], groups.type.value_type)))
        return pa.array(values, type=out_type)
    return _arrow_udf(run, result.to_spark())


def lower_aggregate(fn: Any, name: str, cols: list[Column], result: DataType, distinct: bool,
                    filt: Optional[Column], window: Optional[WindowSpec] = None) -> Column:
    """The call as a Spark column: its group's argument rows collected, then the function
    over them (``window``: per OVER frame)."""
    rows = F.collect_list(arguments(cols, filt))
    if window is not None:
        rows = rows.over(window)
    if distinct:
        rows = F.array_distinct(rows)
    return _over_groups(fn, name, len(cols), result)(rows)


# -- streaming: accumulators in state ------------------------------------------------------
def change_struct(calls: list[tuple[Any, list[Column], Optional[Column]]], count: Column) -> Column:
    """One netted input row's change for the fold: its signed count ``n`` and each call's
    argument struct ``a0..`` (NULL where the call's FILTER leaves the row out)."""
    return F.struct(count.alias("n"), *[arguments(cols, filt).alias(f"a{j}")
                                        for j, (_, cols, filt) in enumerate(calls)])


class _KeyState:
    """A key's accumulators: its row count, one accumulator per call, and per DISTINCT
    call the count of each argument tuple."""

    def __init__(self, count: int, accs: list, seen: list):
        self.count, self.accs, self.seen = count, accs, seen


def _fold_key(state: Optional[_KeyState], changes: list, calls: list[_Calls], distinct: list[bool],
              widths: list[int]) -> Optional[_KeyState]:
    """A key's state after its epoch's changes (retractions first, then additions)."""
    position = 0
    for change in sorted(changes, key=lambda c: c["n"] > 0):
        n = change["n"]
        position += 1
        if state is None:
            if n < 0:
                continue  # a retraction of a key with no state: nothing to take back (Flink's)
            state = _KeyState(0, [c.create() for c in calls], [{} if d else None for d in distinct])
        for j, c in enumerate(calls):
            row = change[f"a{j}"]
            if row is None:
                continue
            args = tuple(row[f"c{i}"] for i in range(widths[j]))
            times, method = abs(n), ("accumulate" if n > 0 else "retract")
            if distinct[j]:
                before = state.seen[j].get(args, 0)
                after = before + n
                if after > 0:
                    state.seen[j][args] = after
                else:
                    state.seen[j].pop(args, None)
                times = 1 if (before <= 0) != (after <= 0) else 0
            for _ in range(times):
                c.call(method, state.accs[j], args, position)
        state.count += n
        if state.count <= 0:
            state = None
    return state


def fold_column(fns: list[tuple[Any, str, bool, int, DataType]], acc: Column, changes: Column) -> Column:
    """The new state and values of each key: an Arrow UDF over (the key's pickled
    accumulators or NULL, the list of its epoch's changes) giving a struct ``acc`` (NULL
    once the key has no rows) and ``v0..``. ``fns``: (function, name, distinct, argument
    count, result type) per call."""
    import pyarrow as pa
    from pyspark import cloudpickle
    from pyspark.sql import types as st
    calls = [_Calls(f, name) for f, name, _, _, _ in fns]
    distinct = [d for _, _, d, _, _ in fns]
    widths = [w for _, _, _, w, _ in fns]
    fields = [st.StructField("acc", st.BinaryType())] + [
        st.StructField(f"v{j}", t.to_spark()) for j, (_, _, _, _, t) in enumerate(fns)]
    out_type = _arrow_type_of(st.StructType(fields))

    def run(accs, lists):
        rows = []
        for blob, changes in zip(accs.to_pylist(), lists.to_pylist()):
            state = _fold_key(_KeyState(*pickle.loads(blob)) if blob is not None else None, changes or [],
                              calls, distinct, widths)
            values = [c.value(a) for c, a in zip(calls, state.accs)] if state else [None] * len(calls)
            # cloudpickle: an accumulator may be of a class pickled by value with its module
            row = {"acc": cloudpickle.dumps((state.count, state.accs, state.seen)) if state else None}
            row.update({f"v{j}": v for j, v in enumerate(values)})
            rows.append(row)
        return pa.array(rows, type=out_type)
    return _arrow_udf(run, st.StructType(fields))(acc, changes)


def _arrow_udf(run: Callable, spark_type: Any) -> Any:
    """A scalar Arrow UDF (Arrow arrays in, one array out, per Arrow batch)."""
    import warnings
    from pyspark.sql.functions import ArrowUDFType, arrow_udf
    with warnings.catch_warnings():  # "prefer type hints": the kind is given
        warnings.simplefilter("ignore", UserWarning)
        return arrow_udf(run, spark_type, ArrowUDFType.SCALAR)


def _arrow_type_of(spark_type: Any):
    from pyspark.sql.pandas.types import to_arrow_type
    return to_arrow_type(spark_type)
