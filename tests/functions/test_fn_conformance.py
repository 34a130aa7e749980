"""Each conformance case's SELECT list, built through the function registry, evaluated in
Spark over the case's input and compared with the rows Flink 2.3 wrote."""
from __future__ import annotations

from decimal import Decimal

from fnhelpers import (PEOPLE, agg, assert_same_rows, call, cast, expected_rows, interval_ms,
                       lit, rows, to_sink)
from sqlengine import types as T

S = T.STRING


def _check(df, case: str, sink: str, exprs: dict, sink_types: dict, key=("id",)) -> None:
    final = {k: to_sink(e, sink_types[k]) for k, e in exprs.items()}
    assert_same_rows(expected_rows(case, sink), rows(df, final), key)


def test_functions_case_string(people, p):
    name, id_, age, code = p["name"], p["id"], p["age"], p["code"]
    exprs = {
        "id": id_, "name": name,
        "u": call("UPPER", name), "l": call("LOWER", name),
        "tr": call("TRIM", lit("BOTH", S(False)), lit(" "), name),
        "len": call("CHAR_LENGTH", name),
        "sub": call("SUBSTRING", name, lit(2), lit(3)),
        "rep": call("REPLACE", name, lit("a"), lit("@")),
        "cc": call("CONCAT", name, lit("#"), code),
        "cws": call("CONCAT_WS", lit("|"), name, code, cast(age, S())),
        "lp": call("LPAD", cast(id_, S()), lit(4), lit("0")),
        "rp": call("RPAD", call("COALESCE", name, lit("?")), lit(6), lit(".")),
        "pos": call("POSITION", lit("e"), name),
        "ini": call("INITCAP", name),
        "rr": call("REGEXP_REPLACE", name, lit("[aeiou]"), lit("*")),
        "bucket": call("CASE", call("IS NULL", age), lit("unknown"),
                       call("<", age, lit(18)), lit("minor"),
                       call("<", age, lit(65)), lit("adult"), lit("senior")),
        "simple_case": call("CASE", call("=", call("%", id_, lit(3)), lit(0)), lit("zero"),
                            call("=", call("%", id_, lit(3)), lit(1)), lit("one")),
    }
    types = {k: S() for k in exprs} | {"id": T.INT(), "len": T.INT(), "pos": T.INT()}
    _check(people, "functions_case_string", "string_fns", exprs, types)


def test_functions_temporal(people, p):
    ts, birth = p["ts"], p["birth"]
    unit = lambda u: lit(u, S(False))  # noqa: E731
    birth_date = call("TO_DATE", birth)
    exprs = {
        "id": p["id"], "ts": ts,
        "df": call("DATE_FORMAT", ts, lit("yyyy/MM/dd HH:mm:ss")),
        "yr": call("EXTRACT", unit("YEAR"), ts), "mon": call("MONTH", ts),
        "dom": call("DAYOFMONTH", ts), "hr": call("HOUR", ts), "dow": call("DAYOFWEEK", ts),
        "fl_hour": call("FLOOR_TO", ts, unit("HOUR")), "ce_day": call("CEIL_TO", ts, unit("DAY")),
        "plus_90m": call("TIMESTAMPADD", unit("MINUTE"), lit(90), ts),
        "minus_2d": call("-", ts, interval_ms(2 * 86_400_000)),
        "birth_date": birth_date,
        "age_days": call("TIMESTAMPDIFF", unit("DAY"), cast(birth_date, T.TIMESTAMP(3)), ts),
        "q": call("QUARTER", ts), "wk": call("WEEK", ts),
        "ts_date": cast(ts, T.DATE()), "ts_time": cast(ts, T.TIME(0)),
    }
    types = {"id": T.INT(), "ts": T.TIMESTAMP(3), "df": S(), "yr": T.BIGINT(), "mon": T.BIGINT(),
             "dom": T.BIGINT(), "hr": T.BIGINT(), "dow": T.BIGINT(), "fl_hour": T.TIMESTAMP(3),
             "ce_day": T.TIMESTAMP(3), "plus_90m": T.TIMESTAMP(3), "minus_2d": T.TIMESTAMP(3),
             "birth_date": T.DATE(), "age_days": T.INT(), "q": T.BIGINT(), "wk": T.BIGINT(),
             "ts_date": T.DATE(), "ts_time": T.TIME(0)}
    _check(people, "functions_temporal", "temporal_fns", exprs, types)


def test_cast_edge_cases(people, p):
    code, score, age = p["code"], p["score"], p["age"]
    exprs = {
        "id": p["id"], "code": code,
        "code_int": cast(code, T.INT(), safe=True),
        "code_dec": cast(code, T.DECIMAL(10, 2), safe=True),
        "code_bool": cast(code, T.BOOLEAN(), safe=True),
        "score": score, "score_int": cast(score, T.INT()),
        "score_dec": cast(score, T.DECIMAL(5, 1)), "score_str": cast(score, S()),
        "age_str": cast(age, S()),
        "birth_date": cast(p["birth"], T.DATE(), safe=True),
        "birth_str": cast(cast(p["birth"], T.DATE(), safe=True), S()),
        "big": call("*", cast(age, T.BIGINT()), lit(3_000_000_000)),
        "ts_str": cast(p["ts"], S()), "flag_str": cast(p["flag"], S()),
        "dbl_from_int": call("/", cast(age, T.DOUBLE()), lit(4)),
    }
    types = {"id": T.INT(), "code": S(), "code_int": T.INT(), "code_dec": T.DECIMAL(10, 2),
             "code_bool": T.BOOLEAN(), "score": T.DOUBLE(), "score_int": T.INT(),
             "score_dec": T.DECIMAL(5, 1), "score_str": S(), "age_str": S(),
             "birth_date": T.DATE(), "birth_str": S(), "big": T.BIGINT(), "ts_str": S(),
             "flag_str": S(), "dbl_from_int": T.DOUBLE()}
    assert exprs["big"].type == T.BIGINT()
    _check(people, "cast_edge_cases", "casts", exprs, types)


def test_null_handling(people, p):
    age, flag, name = p["age"], p["flag"], p["name"]
    city = call("FIELD", p["address"], lit("city", S(False)))
    exprs = {
        "id": p["id"],
        "name_or": call("COALESCE", name, city, lit("nobody")),
        "nif": call("NULLIF", age, lit(0)),
        "distinct_age": call("IS DISTINCT FROM", age, lit(30)),
        "not_distinct": call("IS NOT DISTINCT FROM", age, cast(lit(None), T.INT())),
        "and3": call("AND", flag, call(">", age, lit(40))),
        "or3": call("OR", flag, call(">", age, lit(40))),
        "not3": call("NOT", flag),
        "ifn": call("IFNULL", p["score"], lit(Decimal("-1.0"))),
        "eq_null": call("=", name, cast(lit(None), S())),
        "is_true": call("IS TRUE", flag),
        "is_unknown": call("IS UNKNOWN", call(">", age, lit(40))),
        "empty_name": call("=", name, lit("")),
        "plus_null": call("+", age, cast(lit(None), T.INT())),
    }
    types = {k: T.BOOLEAN() for k in exprs} | {"id": T.INT(), "name_or": S(), "nif": T.INT(),
                                                "ifn": T.DOUBLE(), "plus_null": T.INT()}
    assert exprs["ifn"].type == T.DOUBLE(False)
    _check(people, "null_handling", "nulls", exprs, types)


def test_nested_row_access(people, p):
    address = p["address"]
    city = call("FIELD", address, lit("city", S(False)))
    geo = call("FIELD", address, lit("geo", S(False)))
    lat = call("FIELD", geo, lit("lat", S(False)))
    exprs = {
        "id": p["id"], "street": call("FIELD", address, lit("street", S(False))), "city": city,
        "lat": lat, "has_addr": call("IS NOT NULL", address),
        "loc": call("ROW", city, call("ROUND", lat, lit(1))),
        "name_and_id": call("ROW", p["name"], p["id"]),
    }
    types = {"id": T.INT(), "street": S(), "city": S(), "lat": T.DOUBLE(), "has_addr": T.BOOLEAN(),
             "loc": T.ROW([("city", S()), ("lat_rounded", T.DOUBLE())]),
             "name_and_id": T.ROW([("n", S()), ("i", T.INT())])}
    df = people.where("id <= 30")
    _check(df, "nested_row_access", "nested", exprs, types)


def test_batch_null_aggregates(people, p):
    key = call("%", p["id"], lit(4))
    grouped = people.groupBy(key.col.alias("grp"))
    measures = {
        "n": agg("COUNT"), "n_age": agg("COUNT", p["age"]), "sum_age": agg("SUM", p["age"]),
        "avg_score": agg("AVG", p["score"]), "min_name": agg("MIN", p["name"]),
        "max_flag": agg("MAX", p["flag"]),
        "n_distinct_city": agg("COUNT", call("FIELD", p["address"], lit("city", S(False))),
                               distinct=True),
    }
    assert measures["sum_age"].type == T.INT() and measures["n"].type == T.BIGINT(False)
    out = grouped.agg(*[m.col.alias(k) for k, m in measures.items()])
    actual = [r.asDict() for r in out.collect()]
    assert_same_rows(expected_rows("batch_null_aggregates", "null_aggs"), actual, ["grp"])


def test_nexmark_q1_decimal_product(bids, b):
    price = call("*", lit(Decimal("0.908")), b["price"])
    assert price.type == T.DECIMAL(23, 3)
    exprs = {"auction": b["auction"], "bidder": b["bidder"], "price": price,
             "dateTime": b["dateTime"], "extra": b["extra"]}
    actual = rows(bids, exprs)
    expected = expected_rows("nexmark_q1", "nexmark_q1")
    key = ("auction", "bidder", "dateTime", "extra")
    got = sorted((tuple(str(r[k]) for k in key), float(r["price"])) for r in actual)
    want = sorted((tuple(str(r[k]) for k in key), float(r["price"])) for r in expected)
    assert got == want


def test_nexmark_q21_regexp_extract(bids, b):
    channel = call("LOWER", b["channel"])
    extract = lambda: call("REGEXP_EXTRACT", b["url"], lit("(&|^)channel_id=([^&]*)"), lit(2))  # noqa
    channel_id = call("CASE",
                      call("=", channel, lit("apple")), lit("0"),
                      call("=", channel, lit("google")), lit("1"),
                      call("=", channel, lit("facebook")), lit("2"),
                      call("=", channel, lit("baidu")), lit("3"), extract())
    keep = call("OR", call("IS NOT NULL", extract()),
                call("IN", channel, lit("apple"), lit("google"), lit("facebook"), lit("baidu")))
    exprs = {"auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
             "channel": b["channel"], "channel_id": channel_id}
    actual = rows(bids.where(keep.col), exprs)
    _compare_unkeyed(expected_rows("nexmark_q21", "nexmark_q21"), actual)


def test_nexmark_q22_split_index(bids, b):
    exprs = {"auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
             "channel": b["channel"]}
    for i, name in ((3, "dir1"), (4, "dir2"), (5, "dir3")):
        exprs[name] = call("SPLIT_INDEX", b["url"], lit("/"), lit(i))
    _compare_unkeyed(expected_rows("nexmark_q22", "nexmark_q22"), rows(bids, exprs))


def _compare_unkeyed(expected: list[dict], actual: list[dict]) -> None:
    canon = lambda rs: sorted(repr(sorted(r.items())) for r in rs)  # noqa: E731
    assert canon(expected) == canon(actual)


def _rank_measures(b, counts_only: bool = False) -> dict:
    price = b["price"]
    r1 = call("<", price, lit(10000))
    r2 = call("AND", call(">=", price, lit(10000)), call("<", price, lit(1000000)))
    r3 = call(">=", price, lit(1000000))
    m = {"total_bids": agg("COUNT"), "rank1_bids": agg("COUNT", filter=r1),
         "rank2_bids": agg("COUNT", filter=r2), "rank3_bids": agg("COUNT", filter=r3)}
    if counts_only:
        return m
    for what in ("bidder", "auction"):
        m[f"total_{what}s"] = agg("COUNT", b[what], distinct=True)
        for i, f in enumerate((r1, r2, r3), 1):
            m[f"rank{i}_{what}s"] = agg("COUNT", b[what], distinct=True, filter=f)
    return m


def test_nexmark_q15_count_distinct_filter(bids, b):
    day = call("DATE_FORMAT", b["dateTime"], lit("yyyy-MM-dd"))
    out = bids.groupBy(day.col.alias("day")).agg(
        *[m.col.alias(k) for k, m in _rank_measures(b).items()])
    assert_same_rows(expected_rows("nexmark_q15", "nexmark_q15"),
                     [r.asDict() for r in out.collect()], ["day"])


def test_nexmark_q16_max_of_formatted_minute(bids, b):
    day = call("DATE_FORMAT", b["dateTime"], lit("yyyy-MM-dd"))
    measures = {"minute": agg("MAX", call("DATE_FORMAT", b["dateTime"], lit("HH:mm")))}
    measures.update(_rank_measures(b))
    out = bids.groupBy(b["channel"].col.alias("channel"), day.col.alias("day")).agg(
        *[m.col.alias(k) for k, m in measures.items()])
    assert_same_rows(expected_rows("nexmark_q16", "nexmark_q16"),
                     [r.asDict() for r in out.collect()], ["channel", "day"])


def test_nexmark_q17_avg_truncates(bids, b):
    day = call("DATE_FORMAT", b["dateTime"], lit("yyyy-MM-dd"))
    measures = _rank_measures(b, counts_only=True)
    measures.update({"min_price": agg("MIN", b["price"]), "max_price": agg("MAX", b["price"]),
                     "avg_price": agg("AVG", b["price"]), "sum_price": agg("SUM", b["price"])})
    assert measures["avg_price"].type == T.BIGINT()
    out = bids.groupBy(b["auction"].col.alias("auction"), day.col.alias("day")).agg(
        *[m.col.alias(k) for k, m in measures.items()])
    assert_same_rows(expected_rows("nexmark_q17", "nexmark_q17"),
                     [r.asDict() for r in out.collect()], ["auction", "day"])


def test_people_schema_matches_case_ddl():
    assert list(PEOPLE) == ["id", "name", "age", "score", "code", "birth", "ts", "address", "flag"]
