"""Type inference table: Flink (Calcite) result types and validation messages, no Spark."""
from __future__ import annotations

import pytest

from sqlengine import types as T
from sqlengine.errors import ValidationError
from sqlengine.functions import (Arg, cast_allowed, cast_error, lookup_aggregate, lookup_scalar,
                                 row_type)

INT, BIGINT, DOUBLE, STRING = T.INT(), T.BIGINT(), T.DOUBLE(), T.STRING()
NN = lambda t: t.with_nullable(False)  # noqa: E731


def a(t: T.DataType, value=None, literal=False) -> Arg:
    return Arg(t, literal or value is not None, value)


def lit(t: T.DataType, value) -> Arg:
    return Arg(t, True, value)


def infer(name: str, *args: Arg) -> T.DataType:
    return lookup_scalar(name).infer(list(args))


def agg_infer(name: str, *args: Arg, distinct: bool = False) -> T.DataType:
    return lookup_aggregate(name).infer(list(args), distinct)


ARITHMETIC = [
    ("+", NN(INT), NN(INT), NN(INT)),
    ("+", INT, NN(INT), INT),
    ("+", INT, BIGINT, BIGINT),
    ("+", T.DataType("SMALLINT"), T.DataType("TINYINT"), T.DataType("SMALLINT")),
    ("/", INT, INT, INT),  # integer division
    ("/", BIGINT, INT, BIGINT),
    ("/", DOUBLE, INT, DOUBLE),
    ("%", BIGINT, INT, INT),  # MOD takes the type of its second operand
    ("%", INT, BIGINT, BIGINT),
    ("*", BIGINT, NN(T.DECIMAL(3, 3)), T.DECIMAL(23, 3)),  # nexmark q1: 0.908 * price
    ("*", INT, T.DECIMAL(5, 2), T.DECIMAL(16, 2)),
    ("+", T.DECIMAL(10, 2), T.DECIMAL(5, 4), T.DECIMAL(13, 4)),
    ("-", T.DECIMAL(38, 10), T.DECIMAL(38, 10), T.DECIMAL(38, 9)),  # scale sacrificed past 38
    ("/", T.DECIMAL(10, 2), T.DECIMAL(5, 1), T.DECIMAL(17, 8)),
    ("/", T.DECIMAL(38, 2), BIGINT, T.DECIMAL(38, 6)),
    ("%", T.DECIMAL(10, 2), INT, T.DECIMAL(10, 2)),
    ("*", T.DataType("FLOAT"), INT, T.DataType("FLOAT")),
    ("*", T.DataType("FLOAT"), T.DECIMAL(5, 2), DOUBLE),
    ("+", DOUBLE, T.DECIMAL(5, 2), DOUBLE),
]


@pytest.mark.parametrize("op,left,right,expected", ARITHMETIC)
def test_arithmetic_result_types(op, left, right, expected):
    assert infer(op, a(left), a(right)) == expected


def test_datetime_interval_arithmetic_types():
    ts3 = T.TIMESTAMP(3)
    assert infer("-", a(ts3), a(T.INTERVAL_MS())) == ts3
    assert infer("+", a(T.INTERVAL_MONTHS()), a(T.DATE())) == T.DATE()
    assert infer("+", a(NN(ts3)), a(T.INTERVAL_MS())) == NN(ts3)
    assert infer("*", a(T.INTERVAL_MS()), a(NN(INT))) == T.INTERVAL_MS()
    with pytest.raises(ValidationError, match=r"Cannot apply '-' to arguments of type "
                                              r"'<INTERVAL SECOND\(3\)> - <TIMESTAMP\(3\)>'"):
        infer("-", a(T.INTERVAL_MS()), a(ts3))


SCALARS = [
    ("CHAR_LENGTH", [a(STRING)], INT),
    ("CHAR_LENGTH", [lit(NN(T.CHAR(3)), "abc")], NN(INT)),
    ("POSITION", [lit(NN(T.CHAR(1)), "e"), a(STRING)], INT),
    ("UPPER", [lit(NN(T.CHAR(3)), "abc")], NN(T.CHAR(3))),
    ("SUBSTRING", [a(T.CHAR(5)), lit(NN(INT), 2)], T.VARCHAR(5)),
    ("TRIM", [lit(NN(STRING), "BOTH"), lit(NN(T.CHAR(1)), " "), a(STRING)], STRING),
    ("CONCAT", [a(STRING), lit(NN(T.CHAR(1)), "#")], STRING),
    ("||", [lit(NN(T.CHAR(1)), "a"), lit(NN(T.CHAR(2)), "bc")], NN(T.CHAR(3))),
    ("||", [a(STRING), lit(NN(T.CHAR(1)), "x")], STRING),
    ("REGEXP_EXTRACT", [a(NN(STRING)), lit(NN(T.CHAR(2)), "a+")], STRING),
    ("SPLIT_INDEX", [a(NN(STRING)), lit(NN(T.CHAR(1)), "/"), lit(NN(INT), 3)], STRING),
    ("EXTRACT", [lit(NN(STRING), "YEAR"), a(T.TIMESTAMP(3))], BIGINT),
    ("DAYOFWEEK", [a(NN(T.DATE()))], NN(BIGINT)),
    ("TIMESTAMPDIFF", [lit(NN(STRING), "DAY"), a(T.TIMESTAMP(3)), a(T.TIMESTAMP(3))], INT),
    ("TIMESTAMPADD", [lit(NN(STRING), "MINUTE"), lit(NN(INT), 90), a(T.TIMESTAMP(3))], T.TIMESTAMP(3)),
    ("TIMESTAMPADD", [lit(NN(STRING), "DAY"), lit(NN(INT), 1), a(T.DATE())], T.DATE()),
    ("FLOOR_TO", [a(T.TIMESTAMP(3)), lit(NN(STRING), "HOUR")], T.TIMESTAMP(3)),
    ("DATE_FORMAT", [a(T.TIMESTAMP(3)), lit(NN(T.CHAR(10)), "yyyy-MM-dd")], STRING),
    ("TO_DATE", [a(STRING)], T.DATE()),
    ("TO_TIMESTAMP", [a(STRING)], T.TIMESTAMP(3)),
    ("TO_TIMESTAMP_LTZ", [a(BIGINT), lit(NN(INT), 3)], T.TIMESTAMP_LTZ(3)),
    ("CURRENT_TIMESTAMP", [], NN(T.TIMESTAMP_LTZ(3))),
    ("LOCALTIMESTAMP", [], NN(T.TIMESTAMP(3))),
    ("ROUND", [a(T.DECIMAL(5, 3)), lit(NN(INT), 1)], T.DECIMAL(4, 1)),
    ("ROUND", [a(T.DECIMAL(5, 3)), lit(NN(INT), -1)], T.DECIMAL(3, 0)),
    ("ROUND", [a(DOUBLE), lit(NN(INT), 1)], DOUBLE),
    ("ABS", [a(NN(INT))], NN(INT)),
    ("SQRT", [a(INT)], DOUBLE),
    ("PI", [], NN(DOUBLE)),
    ("COALESCE", [a(STRING), lit(NN(T.CHAR(6)), "nobody")], NN(STRING)),
    ("COALESCE", [a(INT), a(BIGINT)], BIGINT),
    ("IFNULL", [a(DOUBLE), lit(NN(T.DECIMAL(2, 1)), "-1.0")], NN(DOUBLE)),
    ("NULLIF", [a(NN(INT)), lit(NN(INT), 0)], INT),
    ("IF", [a(T.BOOLEAN()), lit(NN(INT), 5), lit(NN(INT), 3)], NN(INT)),
    ("GREATEST", [a(NN(INT)), a(BIGINT)], BIGINT),
    ("IS NULL", [a(INT)], NN(T.BOOLEAN())),
    ("IS DISTINCT FROM", [a(INT), lit(NN(INT), 30)], NN(T.BOOLEAN())),
    ("=", [a(INT), lit(NN(INT), 1)], T.BOOLEAN()),
    ("AND", [a(NN(T.BOOLEAN())), a(NN(T.BOOLEAN()))], NN(T.BOOLEAN())),
    ("LIKE", [a(STRING), lit(NN(T.CHAR(2)), "a%")], T.BOOLEAN()),
    ("IN", [a(INT), lit(NN(INT), 1), lit(NN(BIGINT), 2)], T.BOOLEAN()),
    ("ITEM", [a(NN(T.ARRAY(NN(INT)))), lit(NN(INT), 1)], INT),
    ("ITEM", [a(T.MAP(STRING, NN(INT))), lit(NN(T.CHAR(1)), "a")], INT),
    ("CARDINALITY", [a(NN(T.ARRAY(INT)))], NN(INT)),
]


@pytest.mark.parametrize("name,args,expected", SCALARS, ids=[s[0] + str(i) for i, s in enumerate(SCALARS)])
def test_scalar_result_types(name, args, expected):
    assert infer(name, *args) == expected


def test_case_result_type_is_varying_common_type():
    cond = a(T.BOOLEAN())
    unknown, adult = lit(NN(T.CHAR(7)), "unknown"), lit(NN(T.CHAR(5)), "adult")
    assert infer("CASE", cond, unknown, cond, adult, lit(NN(T.CHAR(6)), "senior")) == NN(T.VARCHAR(7))
    assert infer("CASE", cond, unknown, cond, adult) == T.VARCHAR(7)  # no ELSE -> nullable
    assert infer("CASE", cond, lit(NN(INT), 1), lit(NN(T.DECIMAL(3, 1)), "1.5")) == NN(T.DECIMAL(11, 1))
    with pytest.raises(ValidationError, match="Illegal mixing of types"):
        infer("CASE", cond, lit(NN(INT), 1), a(T.BOOLEAN()))


def test_constructors_and_field_access():
    row = infer("ROW", a(STRING), a(NN(INT)))
    assert row == row_type(None, [STRING, NN(INT)])
    assert [f.name for f in row.fields] == ["EXPR$0", "EXPR$1"] and not row.nullable
    assert [f.name for f in row_type(["n", "i"], [STRING, INT]).fields] == ["n", "i"]
    assert infer("ARRAY", lit(NN(INT), 1), lit(NN(BIGINT), 2)) == NN(T.ARRAY(NN(BIGINT)))
    address = T.ROW([("city", STRING), ("zip", NN(INT))])
    assert infer("FIELD", a(address), lit(NN(STRING), "zip")) == INT  # nullable parent
    assert infer("FIELD", a(NN(address)), lit(NN(STRING), "zip")) == NN(INT)
    with pytest.raises(ValidationError, match="Unknown field 'nope'.*city, zip"):
        infer("FIELD", a(address), lit(NN(STRING), "nope"))


AGGREGATES = [
    ("COUNT", [], False, NN(BIGINT)),
    ("COUNT", [a(INT)], True, NN(BIGINT)),
    ("SUM", [a(INT)], False, INT),
    ("SUM", [a(T.DECIMAL(10, 2))], False, T.DECIMAL(38, 2)),
    ("AVG", [a(NN(BIGINT))], False, BIGINT),
    ("AVG", [a(T.DECIMAL(10, 2))], False, T.DECIMAL(38, 6)),
    ("AVG", [a(T.DECIMAL(20, 8))], False, T.DECIMAL(38, 8)),
    ("AVG", [a(DOUBLE)], False, DOUBLE),
    ("MIN", [a(NN(STRING))], False, STRING),
    ("MAX", [a(T.BOOLEAN())], False, T.BOOLEAN()),
    ("STDDEV_POP", [a(DOUBLE)], False, DOUBLE),
    ("LISTAGG", [a(STRING), lit(NN(T.CHAR(1)), ";")], False, STRING),
    ("FIRST_VALUE", [a(NN(INT))], False, INT),
]


@pytest.mark.parametrize("name,args,distinct,expected", AGGREGATES)
def test_aggregate_result_types(name, args, distinct, expected):
    assert agg_infer(name, *args, distinct=distinct) == expected


def test_flink_like_validation_messages():
    with pytest.raises(ValidationError) as err:
        infer("SUBSTRING", a(STRING))
    assert err.value.message == ("Invalid number of arguments to function 'SUBSTRING'. "
                                 "Was expecting 2 arguments")
    with pytest.raises(ValidationError) as err:
        infer("UPPER", a(INT))
    assert err.value.message == ("Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'. "
                                 "Supported form(s): 'UPPER(<CHARACTER>)'")
    with pytest.raises(ValidationError, match=r"'<VARCHAR\(2147483647\)> \+ <INTEGER>'"):
        infer("+", a(STRING), a(INT))
    with pytest.raises(ValidationError, match="Unsupported time unit 'FORTNIGHT'"):
        infer("TIMESTAMPADD", lit(NN(STRING), "FORTNIGHT"), lit(NN(INT), 1), a(T.TIMESTAMP(3)))
    with pytest.raises(ValidationError, match="Cannot apply 'AND'"):
        infer("AND", a(T.BOOLEAN()), a(INT))
    with pytest.raises(ValidationError, match="precision of TO_TIMESTAMP_LTZ"):
        infer("TO_TIMESTAMP_LTZ", a(BIGINT), lit(NN(INT), 10))


def test_cast_legality_follows_flink():
    assert cast_allowed(STRING, INT) and cast_allowed(DOUBLE, T.DECIMAL(5, 1))
    assert cast_allowed(T.TIMESTAMP(3), STRING) and cast_allowed(T.BOOLEAN(), INT)
    assert cast_allowed(T.ARRAY(INT), T.ARRAY(STRING))
    assert cast_allowed(T.ROW([("a", INT)]), STRING)
    assert cast_allowed(T.NULLTYPE(), T.DATE())
    assert not cast_allowed(T.BOOLEAN(), T.DATE())
    assert not cast_allowed(T.DATE(), INT)
    assert not cast_allowed(T.ARRAY(INT), T.MAP(INT, INT))
    assert not cast_allowed(BIGINT, T.TIMESTAMP(3))
    assert "TO_TIMESTAMP(FROM_UNIXTIME(numeric_col))" in cast_error(BIGINT, T.TIMESTAMP(3))
    assert "TO_TIMESTAMP_LTZ(numeric_col, precision)" in cast_error(INT, T.TIMESTAMP_LTZ(3))


def test_registry_is_case_insensitive_and_complete():
    assert lookup_scalar("upper") is lookup_scalar("UPPER")
    assert lookup_scalar("SUBSTR").name == "SUBSTR" and lookup_scalar("NOPE") is None
    for name in ("+", "-", "*", "/", "%", "MOD", "NEG", "=", "<>", "IS NOT UNKNOWN", "NOT LIKE",
                 "SIMILAR TO", "NOT IN", "NOT BETWEEN", "||", "CASE", "ROW", "ARRAY", "MAP",
                 "ITEM", "FIELD", "CEIL_TO", "RAND_INTEGER", "STR_TO_MAP", "CONVERT_TZ"):
        assert lookup_scalar(name) is not None, name
    for name in ("COUNT", "SUM", "AVG", "MIN", "MAX", "STDDEV_SAMP", "VAR_POP", "LISTAGG",
                 "FIRST_VALUE", "LAST_VALUE", "COLLECT", "BOOL_AND"):
        assert lookup_aggregate(name) is not None, name
