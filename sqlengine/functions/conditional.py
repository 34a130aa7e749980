"""COALESCE, NULLIF, IFNULL, IF, GREATEST and LEAST.

Flink's GREATEST/LEAST return NULL as soon as one argument is NULL; Spark's skip
NULLs, so the lowering adds the check. IFNULL is only nullable when its replacement
is (Flink's rule that lets a nullable column feed a NOT NULL sink column).
"""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import STRING, DataType

from .base import ANY, BOOL, COMPARABLE, Arg, arity_error, check, check_variadic, scalar
from .casts import coerce
from .sparkutil import any_null, null_of
from .typeinfer import require_common


def _common(name: str, args: list[Arg]) -> DataType:
    typed = [a.type for a in args if a.type.root != "NULL"]
    if not typed:
        raise ValidationError(f"All arguments of {name} are untyped NULLs")
    return require_common("CASE or COALESCE statement", typed)


def _coalesce_infer(name: str, args: list[Arg]) -> DataType:
    check_variadic(name, args, ANY, minimum=1)
    return _common(name, args).with_nullable(all(a.type.nullable for a in args))


@scalar("COALESCE", infer=_coalesce_infer)
def _coalesce(cols, args, result, ctx):
    return F.coalesce(*[coerce(c, a.type, result, ctx) for c, a in zip(cols, args)])


def _ifnull_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ANY, ANY])
    return _common(name, args).with_nullable(args[1].type.nullable)


@scalar("IFNULL", infer=_ifnull_infer)
def _ifnull(cols, args, result, ctx):
    return F.coalesce(*[coerce(c, a.type, result, ctx) for c, a in zip(cols, args)])


def _nullif_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [COMPARABLE, COMPARABLE])
    _common(name, args)
    return args[0].type.with_nullable(True)


@scalar("NULLIF", infer=_nullif_infer)
def _nullif(cols, args, result, ctx):
    common = _common("NULLIF", args)
    a, b = (coerce(c, x.type, common, ctx) for c, x in zip(cols, args))
    return F.when(a == b, null_of(result)).otherwise(coerce(cols[0], args[0].type, result, ctx))


def _if_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [BOOL, ANY, ANY])
    result = _common(name, args[1:])
    return result.with_nullable(args[1].type.nullable or args[2].type.nullable)


@scalar("IF", infer=_if_infer)
def _if(cols, args, result, ctx):
    return F.when(cols[0], coerce(cols[1], args[1].type, result, ctx)).otherwise(
        coerce(cols[2], args[2].type, result, ctx))


def _extreme_infer(name: str, args: list[Arg]) -> DataType:
    if not args:
        raise arity_error(name, 1, 1, 0)
    check_variadic(name, args, COMPARABLE, minimum=1)
    return _common(name, args).with_nullable(any(a.type.nullable for a in args))


def _extreme(fn):
    def lower(cols, args, result, ctx):
        values = [coerce(c, a.type, result, ctx) for c, a in zip(cols, args)]
        if len(values) == 1:
            return values[0]
        return F.when(any_null(values), null_of(result)).otherwise(fn(*values))

    return lower


scalar("GREATEST", infer=_extreme_infer)(_extreme(F.greatest))
scalar("LEAST", infer=_extreme_infer)(_extreme(F.least))


def _typeof_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ANY], [ANY, BOOL])
    return STRING(False)


@scalar("TYPEOF", infer=_typeof_infer)
def _typeof(cols, args, result, ctx):
    """The argument's Flink type as Flink prints it (a planning-time constant)."""
    return F.lit(args[0].type.sql(with_null=True))
