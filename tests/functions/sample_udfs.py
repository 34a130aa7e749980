"""User-defined functions the Python UDF tests load by name (``CREATE FUNCTION ... AS
'tests.functions.sample_udfs.<name>' LANGUAGE PYTHON``)."""
from sqlengine.udf import DataTypes, FunctionContext, ScalarFunction, TableFunction, udf, udtf


@udf(result_type=DataTypes.BIGINT())
def count_char(s, c):
    return None if s is None else s.count(c)


@udf(result_type="DOUBLE", func_type="pandas")
def half(x):
    return x / 2.0


class Tagged(ScalarFunction):
    def open(self, function_context: FunctionContext) -> None:
        self.prefix = "tag-"

    def eval(self, x):
        return None if x is None else self.prefix + str(x)


tagged = udf(Tagged(), result_type=DataTypes.STRING())


@udf(input_types=[DataTypes.STRING()], result_type=DataTypes.INT())
def length_of_text(s):
    return len(s)


@udf(result_type=DataTypes.BIGINT())
def ten_by(x):
    return 10 // x


def plain(x):
    return x


@udf(result_type=DataTypes.BIGINT())
def twice(x):
    return None if x is None else 2 * x


@udtf(result_types=[DataTypes.STRING(), DataTypes.INT()])
def split_words(s):
    """Each comma-separated word and its length (PyFlink's documentation example)."""
    for w in (s or "").split(","):
        if w:
            yield w, len(w)


class Repeat(TableFunction):
    def eval(self, s, n):
        for i in range(n or 0):
            yield s


repeat = udtf(Repeat(), result_types=DataTypes.STRING())


@udtf(result_types=DataTypes.BIGINT())
def fails_on_three(x):
    if x == 3:
        raise ValueError("three")
    yield x
