"""The contract between the binder, the runtime and the built-in function library.

The binder resolves a call to a canonical upper-case name and a list of ``Arg``s
(what it knows about each argument at planning time) and asks the function for its
result type with ``infer``; the runtime later asks the same function for a native
Spark ``Column`` with ``lower``. Keeping both halves in one object means the type a
sink sees and the value Spark computes cannot drift apart.

Every lowering is a Spark expression (no Python UDF): stateless chains stay in the
JVM. Where Spark's built-in semantics differ from Flink's, the lowering wraps them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from pyspark.sql import Column

from sqlengine.errors import ValidationError
from sqlengine.types import MAX_VARCHAR, DataType


@dataclass(frozen=True)
class Arg:
    """What the binder knows about one argument of a call."""

    type: DataType
    literal: bool = False
    # The constant's Python value when ``literal`` (units and formats are strings).
    value: Any = None


def to_arg(e: Any) -> Arg:
    """What function typing knows of a bound expression (``plan.nodes.Expr``): its type,
    and its value when it is a literal."""
    from sqlengine.plan.nodes import Lit
    if isinstance(e, Lit):
        return Arg(e.type, True, e.value)
    return Arg(e.type)


@dataclass(frozen=True)
class LowerContext:
    """Session settings a lowering may depend on."""

    local_time_zone: str = "UTC"  # table.local-time-zone
    streaming: bool = True
    # The watermark (ms) of the operator's input before the epoch being lowered: what
    # CURRENT_WATERMARK returns (None: batch, or no watermark yet).
    current_watermark: Optional[int] = None


class ScalarFunction:
    """One Flink scalar function or operator: type inference plus lowering to Spark."""

    name: str

    def infer(self, args: list[Arg]) -> DataType:
        """The Flink result type; raises ``ValidationError`` for a wrong call."""
        raise NotImplementedError

    def lower(self, cols: list[Column], args: list[Arg], result: DataType,
              ctx: LowerContext) -> Column:
        """A native Spark expression computing the call with Flink's semantics."""
        raise NotImplementedError


class AggregateFunction:
    """One Flink aggregate function: type inference plus a Spark aggregate expression."""

    name: str

    def infer(self, args: list[Arg], distinct: bool) -> DataType:
        raise NotImplementedError

    def lower(self, cols: list[Column], args: list[Arg], result: DataType, distinct: bool,
              filter: Optional[Column], ctx: LowerContext) -> Column:
        """A Spark aggregate expression for ``groupBy().agg()``; ``filter`` is FILTER (WHERE)."""
        raise NotImplementedError

    def lower_over(self, cols: list[Column], args: list[Arg], result: DataType, distinct: bool,
                   filter: Optional[Column], ctx: LowerContext, window: Any) -> Column:
        """The aggregate as a Spark window function over ``window`` (a WindowSpec)."""
        raise NotImplementedError


InferFn = Callable[[str, list[Arg]], DataType]
LowerFn = Callable[[list[Column], list[Arg], DataType, LowerContext], Column]


@dataclass(frozen=True)
class Scalar(ScalarFunction):
    """A scalar function assembled from an inference and a lowering callable."""

    name: str
    infer_fn: InferFn = field(repr=False)
    lower_fn: LowerFn = field(repr=False)

    def infer(self, args: list[Arg]) -> DataType:
        return self.infer_fn(self.name, list(args))

    def lower(self, cols: list[Column], args: list[Arg], result: DataType,
              ctx: LowerContext) -> Column:
        return self.lower_fn(list(cols), list(args), result, ctx)


SCALARS: dict[str, ScalarFunction] = {}
AGGREGATES: dict[str, AggregateFunction] = {}


def scalar(*names: str, infer: InferFn) -> Callable[[LowerFn], LowerFn]:
    """Register the decorated lowering under every name in ``names`` (aliases)."""

    def deco(lower_fn: LowerFn) -> LowerFn:
        for name in names:
            if name in SCALARS:
                raise ValueError(f"scalar function {name} registered twice")
            SCALARS[name] = Scalar(name, infer, lower_fn)
        return lower_fn

    return deco


def register_aggregate(fn: AggregateFunction, *aliases: str) -> AggregateFunction:
    for name in (fn.name, *aliases):
        if name in AGGREGATES:
            raise ValueError(f"aggregate function {name} registered twice")
        AGGREGATES[name] = fn
    return fn


# -- argument families (Calcite's operand type checkers, simplified) -----------
@dataclass(frozen=True)
class Family:
    """A set of acceptable argument types, named as Calcite names it in messages."""

    label: str
    accepts: Callable[[DataType], bool] = field(repr=False, compare=False)

    def __call__(self, t: DataType) -> bool:
        return t.root == "NULL" or self.accepts(t)


def _interval(t: DataType) -> bool:
    return t.root in ("INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH")


ANY = Family("ANY", lambda t: True)
STRING = Family("CHARACTER", lambda t: t.is_string)
NUMERIC = Family("NUMERIC", lambda t: t.is_numeric)
INTEGER = Family("INTEGER", lambda t: t.is_integer)
EXACT = Family("EXACT_NUMERIC", lambda t: t.is_integer or t.root == "DECIMAL")
BOOL = Family("BOOLEAN", lambda t: t.root == "BOOLEAN")
TIMESTAMP = Family("TIMESTAMP", lambda t: t.is_timestamp)
DATE = Family("DATE", lambda t: t.root == "DATE")
TIME = Family("TIME", lambda t: t.root == "TIME")
DATETIME = Family("DATETIME", lambda t: t.is_timestamp or t.root in ("DATE", "TIME"))
INTERVAL = Family("INTERVAL", _interval)
BINARY = Family("BINARY", lambda t: t.root in ("BINARY", "VARBINARY"))
STRING_OR_BINARY = Family("STRING", lambda t: t.is_string or t.root in ("BINARY", "VARBINARY"))
ARRAY = Family("ARRAY", lambda t: t.root == "ARRAY")
MAP = Family("MAP", lambda t: t.root == "MAP")
ROW = Family("ROW", lambda t: t.root == "ROW")
COMPARABLE = Family("COMPARABLE", lambda t: t.root not in ("ARRAY", "MAP", "ROW", "MULTISET"))

Form = Sequence[Family]


def calcite_name(t: DataType) -> str:
    """A type spelled as Calcite spells it inside ``Cannot apply`` messages."""
    names = {"INT": "INTEGER", "TIMESTAMP_LTZ": "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
             "INTERVAL_DAY_TIME": "INTERVAL SECOND(3)", "INTERVAL_YEAR_MONTH": "INTERVAL MONTH"}
    if t.root == "VARCHAR":
        return f"VARCHAR({t.precision or MAX_VARCHAR})"
    if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return f"{names.get(t.root, t.root)}({t.precision})"
    if t.root in names:
        return names[t.root]
    return t.sql(with_null=False)


def arity_error(name: str, lo: int, hi: int, got: int) -> ValidationError:
    want = lo if got < lo else hi
    return ValidationError(
        f"Invalid number of arguments to function '{name}'. Was expecting {want} arguments")


def type_error(name: str, args: Sequence[Arg], forms: Sequence[Form]) -> ValidationError:
    shown = ", ".join(f"<{calcite_name(a.type)}>" for a in args)
    supported = "\n".join(
        f"'{name}(" + ", ".join(f"<{f.label}>" for f in form) + ")'" for form in forms)
    return ValidationError(
        f"Cannot apply '{name}' to arguments of type '{name}({shown})'. "
        f"Supported form(s): {supported}")


def check(name: str, args: Sequence[Arg], *forms: Form) -> int:
    """Index of the first form the arguments fit; a Flink-like error otherwise."""
    counts = [len(f) for f in forms]
    if len(args) not in counts:
        raise arity_error(name, min(counts), max(counts), len(args))
    for i, form in enumerate(forms):
        if len(form) == len(args) and all(fam(a.type) for fam, a in zip(form, args)):
            return i
    raise type_error(name, args, [f for f in forms if len(f) == len(args)])


def check_variadic(name: str, args: Sequence[Arg], family: Family, minimum: int = 1) -> None:
    """Every argument of a variadic call must belong to ``family``."""
    if len(args) < minimum:
        raise arity_error(name, minimum, minimum, len(args))
    if not all(family(a.type) for a in args):
        shown = ", ".join(f"<{calcite_name(a.type)}>" for a in args)
        raise ValidationError(
            f"Cannot apply '{name}' to arguments of type '{name}({shown})'. "
            f"Supported form(s): '{name}(<{family.label}>, ...)'")


def literal_value(name: str, args: Sequence[Arg], i: int, what: str) -> Any:
    """The constant value of argument ``i``; a ValidationError when it is not constant."""
    if i >= len(args) or not args[i].literal:
        raise ValidationError(f"Function '{name}' requires a literal {what} as argument {i + 1}")
    return args[i].value


# -- nullability ----------------------------------------------------------------
def any_nullable(args: Sequence[Arg]) -> bool:
    return any(a.type.nullable for a in args)


def nullable_like(t: DataType, args: Sequence[Arg]) -> DataType:
    """``t`` made nullable when any argument is (Calcite's ``*_NULLABLE`` transforms)."""
    return t.with_nullable(any_nullable(args))
