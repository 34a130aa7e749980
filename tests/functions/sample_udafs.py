"""Python aggregate functions used by test_python_udaf.py (named in SQL by module path).
``WeightedAvg`` and ``NoRetract`` are the functions the expected changelogs were recorded
with in PyFlink 2.3 (the same bodies over ``pyflink.table.udf.AggregateFunction``)."""
from __future__ import annotations

from sqlengine.udf import AggregateFunction, DataTypes, udaf


class WeightedAvg(AggregateFunction):
    """sum(value * weight) // sum(weight); an accumulator [sum, weights]."""

    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, value, weight):
        if value is not None and weight is not None:
            acc[0] += value * weight
            acc[1] += weight

    def retract(self, acc, value, weight):
        if value is not None and weight is not None:
            acc[0] -= value * weight
            acc[1] -= weight

    def merge(self, acc, accs):
        for other in accs:
            acc[0] += other[0]
            acc[1] += other[1]

    def get_value(self, acc):
        return None if acc[1] == 0 else acc[0] // acc[1]


class NoRetract(WeightedAvg):
    retract = AggregateFunction.retract


class Failing(WeightedAvg):
    def accumulate(self, acc, value, weight):
        if value == 3:
            raise ValueError("three")
        super().accumulate(acc, value, weight)


class Typed(WeightedAvg):
    """Types declared by the class, as PyFlink's get_result_type / get_accumulator_type."""

    def get_result_type(self):
        return "BIGINT"

    def get_accumulator_type(self):
        return DataTypes.BIGINT()


wavg = udaf(WeightedAvg(), result_type=DataTypes.BIGINT(), accumulator_type="ARRAY<BIGINT>")
noretract = udaf(NoRetract(), result_type=DataTypes.BIGINT(), accumulator_type="ARRAY<BIGINT>")
failing = udaf(Failing(), result_type="BIGINT", name="failing")
typed = udaf(Typed())


@udaf(result_type=DataTypes.DOUBLE(), func_type="pandas")
def mean_udaf(v):
    return v.mean()


@udaf(result_type="BIGINT", func_type="pandas")
def spread(v, w):
    return int((v * w).max() - (v * w).min())
