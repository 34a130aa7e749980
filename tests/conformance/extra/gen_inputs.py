#!/usr/bin/env python3
"""Generate the seeded input files of the extra conformance cases.

    python3 tests/conformance/extra/gen_inputs.py [CASE ...]

Every case's inputs come from one function below with its own seeded
``random.Random``: re-running rewrites identical files.  Streaming inputs are
in event-time order (no row is ever late for a watermark delay >= 0), so the
results do not depend on watermark emission timing.  After changing an input,
regenerate that case's expected/ with ``scripts/flink_oracle.py CASE_DIR``.
"""
from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

CASES = Path(__file__).parent / "cases"
BASE = datetime(2024, 3, 1, 9, 0, 0)
GEN = {}


def case(fn):
    GEN[fn.__name__] = fn
    return fn


def ts(d: datetime) -> str:
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}"


def ltz(d: datetime) -> str:
    return ts(d) + "Z"


def money(r: random.Random, lo: float, hi: float) -> Decimal:
    return Decimal(f"{r.uniform(lo, hi):.2f}")


def write(name: str, fname: str, rows: list[dict]) -> None:
    d = CASES / name / "input"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / fname, "w", encoding="utf-8") as fh:
        for row in rows:
            # Decimal -> a JSON number with its exact digits (nested values included)
            text = json.dumps(row, default=lambda v: f"@@{v}@@", separators=(",", ":"))
            fh.write(text.replace('"@@', "").replace('@@"', "") + "\n")


def stream_times(r: random.Random, n: int, start: datetime = BASE, max_gap_s: int = 90,
                 unique: bool = True) -> list[datetime]:
    """n increasing event times (strictly increasing when unique), with millisecond parts."""
    out, t = [], start
    for _ in range(n):
        t = t + timedelta(seconds=r.randint(1 if unique else 0, max_gap_s), milliseconds=r.choice([0, 0, 250, 500, 123]))
        out.append(t)
    return out


# --------------------------------------------------------------------------- batch joins

def customers(r: random.Random, n: int = 12) -> list[dict]:
    names = ["ann", "bob", "cid", "dee", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou", "max", "ned"]
    tiers = ["gold", "silver", "bronze", None]
    cities = ["Berlin", "Paris", "Rome", "Oslo", None]
    return [{"id": i, "name": names[i - 1], "tier": r.choice(tiers), "credit": money(r, 20, 200),
             "address": None if r.random() < 0.15 else {"city": r.choice(cities), "zip": f"{r.randint(10000, 99999)}"}}
            for i in range(1, n + 1)]


def orders(r: random.Random, n: int, n_cust: int = 12, start: datetime = BASE) -> list[dict]:
    out = []
    for i, t in enumerate(stream_times(r, n, start, 600), start=1):
        cust = r.choice(list(range(1, n_cust + 1)) + [None, 99])
        out.append({"oid": 1000 + i, "cust_id": cust, "amount": money(r, 1, 150), "ts": ts(t),
                    "status": r.choice(["NEW", "PAID", "SHIPPED", None])})
    return out


@case
def batch_outer_joins_residual():
    r = random.Random(101)
    write("batch_outer_joins_residual", "customers.jsonl", customers(r))
    write("batch_outer_joins_residual", "orders.jsonl", orders(r, 40))


@case
def batch_subqueries():
    r = random.Random(102)
    write("batch_subqueries", "customers.jsonl", customers(r, 14))
    write("batch_subqueries", "orders.jsonl", orders(r, 45, 10))


@case
def multiway_join():
    r = random.Random(103)
    write("multiway_join", "customers.jsonl", customers(r))
    prods = [{"pid": p, "pname": f"prod-{p}", "price": money(r, 2, 80), "category": r.choice(["toys", "books", "food"])}
             for p in range(1, 9)]
    write("multiway_join", "products.jsonl", prods)
    lines = []
    for i, t in enumerate(stream_times(r, 60, BASE, 300), start=1):
        lines.append({"oid": 5000 + i, "cust_id": r.choice(list(range(1, 14))), "pid": r.choice(list(range(1, 10))),
                      "qty": r.randint(1, 5), "ts": ts(t)})
    write("multiway_join", "order_lines.jsonl", lines)


# --------------------------------------------------------------------------- interval / temporal joins

@case
def interval_join_between():
    r = random.Random(104)
    clicks = [{"user_id": f"u{r.randint(1, 6)}", "url": f"/p/{r.randint(1, 20)}", "ct": ts(t)}
              for t in stream_times(r, 60, BASE, 120)]
    buys = [{"user_id": f"u{r.randint(1, 6)}", "amount": money(r, 5, 500), "pt": ts(t)}
            for t in stream_times(r, 40, BASE + timedelta(minutes=1), 170)]
    write("interval_join_between", "clicks.jsonl", clicks)
    write("interval_join_between", "purchases.jsonl", buys)


@case
def interval_left_join():
    r = random.Random(105)
    times = stream_times(r, 50, BASE, 400)
    orders_ = [{"oid": 7000 + i, "region": r.choice(["north", "south", None]), "amount": money(r, 10, 900),
                "ot": ts(t)} for i, t in enumerate(times)]
    ships = []
    for i, t in enumerate(times):
        if r.random() < 0.6:
            delay = timedelta(minutes=r.choice([5, 20, 45, 59, 61, 90, 150]), seconds=r.randint(0, 50))
            ships.append((t + delay, {"oid": 7000 + i, "carrier": r.choice(["dhl", "ups", "fedex"])}))
        if r.random() < 0.1:
            ships.append((t + timedelta(minutes=10), {"oid": 7000 + i, "carrier": "post"}))
    ships.sort(key=lambda x: x[0])
    write("interval_left_join", "orders.jsonl", orders_)
    write("interval_left_join", "shipments.jsonl", [dict(s, st=ts(t)) for t, s in ships])


@case
def temporal_join_inner():
    r = random.Random(106)
    rates, t = [], BASE
    for cur in ["EUR", "GBP", "JPY"]:
        rates.append((BASE + timedelta(seconds=r.randint(0, 400)), cur))
    for _ in range(20):
        t = t + timedelta(seconds=r.randint(30, 200))
        rates.append((t, r.choice(["EUR", "GBP", "JPY", "CHF"])))
    rates.sort()
    rate_rows = [{"currency": c, "rate": Decimal(f"{r.uniform(0.005, 1.5):.4f}"), "valid_from": ts(t)} for t, c in rates]
    orders_ = [{"oid": 3000 + i, "currency": r.choice(["EUR", "GBP", "JPY", "CHF", "USD", None]),
                "amount": money(r, 1, 400), "ot": ts(t)}
               for i, t in enumerate(stream_times(r, 60, BASE, 80))]
    write("temporal_join_inner", "rates.jsonl", rate_rows)
    write("temporal_join_inner", "orders.jsonl", orders_)


# --------------------------------------------------------------------------- window joins

def lr_tables(r: random.Random, name: str, n: int = 30, keys: int = 5, gap: int = 100):
    for side in ("left", "right"):
        rows = [{"k": r.randint(1, keys), "tag": f"{side[0].upper()}{i}", "v": money(r, 0, 100), "rt": ts(t)}
                for i, t in enumerate(stream_times(r, n, BASE, gap))]
        write(name, f"{side}.jsonl", rows)


@case
def window_left_join_hop():
    lr_tables(random.Random(107), "window_left_join_hop", 24, 6, 90)


@case
def window_inner_join_cumulate():
    lr_tables(random.Random(108), "window_inner_join_cumulate", 20, 5, 100)


@case
def window_semi_anti_join():
    lr_tables(random.Random(109), "window_semi_anti_join", 30, 8, 80)


# --------------------------------------------------------------------------- Top-N / dedup

def bids(r: random.Random, n: int, items=("A", "B", "C", "D", "E"), gap: int = 40, unique_price: bool = True):
    seen, out = set(), []
    for t in stream_times(r, n, BASE, gap):
        while True:
            p = money(r, 1, 60)
            if not unique_price or p not in seen:
                break
        seen.add(p)
        out.append({"bidtime": ts(t), "price": p, "item": r.choice(items), "supplier": f"s{r.randint(1, 5)}",
                    "bidder": {"id": r.randint(1, 9), "country": r.choice(["DE", "FR", None])}})
    return out


@case
def window_topn_cumulate_agg():
    write("window_topn_cumulate_agg", "bid.jsonl", bids(random.Random(110), 80, gap=30))


@case
def window_top1_hop():
    write("window_top1_hop", "bid.jsonl", bids(random.Random(111), 70, gap=40))


@case
def window_group_by_window_bounds():
    write("window_group_by_window_bounds", "bid.jsonl", bids(random.Random(112), 110, gap=25))


@case
def window_dedup_first_ltz():
    r = random.Random(112)
    rows = []
    for t in stream_times(r, 70, BASE, 45):
        ms = int(t.replace(tzinfo=timezone.utc).timestamp() * 1000)
        rows.append({"user_id": r.choice(["u1", "u2", "u3", "u4", None]), "page": f"/x/{r.randint(1, 9)}",
                     "epoch_ms": ms})
    write("window_dedup_first_ltz", "visits.jsonl", rows)


@case
def batch_rank_dense_rank():
    r = random.Random(113)
    rows = [{"player": f"p{i}", "team": r.choice(["red", "blue", "green"]), "score": r.choice([10, 20, 20, 30, 40, 40, 50, None])}
            for i in range(1, 46)]
    write("batch_rank_dense_rank", "scores.jsonl", rows)


# --------------------------------------------------------------------------- OVER

@case
def over_rows_unbounded_multi():
    r = random.Random(114)
    rows = [{"sensor": r.choice(["s1", "s2", "s3"]), "reading": None if r.random() < 0.15 else round(r.uniform(-20, 40), 2),
             "ts": ts(t)} for t in stream_times(r, 60, BASE, 30)]
    write("over_rows_unbounded_multi", "readings.jsonl", rows)


@case
def over_range_named_ltz():
    r = random.Random(115)
    rows, t = [], BASE
    for _ in range(70):
        t = t + timedelta(seconds=r.choice([0, 0, 30, 60, 120, 300]))  # ties on purpose (RANGE peers)
        rows.append({"account": r.choice(["acc1", "acc2"]), "amount": money(r, -50, 200), "tx_time": ltz(t)})
    write("over_range_named_ltz", "tx.jsonl", rows)


@case
def over_then_filter():
    write("over_then_filter", "bid.jsonl", bids(random.Random(116), 80, items=("A", "B", "C"), gap=30))


# --------------------------------------------------------------------------- window aggregations

@case
def tumble_distinct_filter():
    r = random.Random(117)
    rows = [{"user_id": r.randint(1, 8), "channel": r.choice(["web", "app", None]), "amount": money(r, 1, 100),
             "ts": ts(t)} for t in stream_times(r, 90, BASE, 25)]
    write("tumble_distinct_filter", "events.jsonl", rows)


@case
def hop_tumble_offset():
    write("hop_tumble_offset", "bid.jsonl", bids(random.Random(118), 60, items=("A", "B"), gap=50, unique_price=False))


@case
def session_partition_by():
    r = random.Random(119)
    rows, t = [], BASE
    for _ in range(60):
        t = t + timedelta(seconds=r.choice([10, 30, 60, 90, 200, 400]), milliseconds=r.choice([0, 500]))
        rows.append({"bidtime": ts(t), "price": money(r, 1, 30), "item": r.choice(["A", "B", "C"]),
                     "supplier": f"s{r.randint(1, 3)}", "bidder": {"id": r.randint(1, 5), "country": None}})
    write("session_partition_by", "bid.jsonl", rows)


@case
def cascaded_windows():
    r = random.Random(120)
    rows = [{"user_id": f"u{r.randint(1, 4)}", "amount": money(r, 1, 50), "ts": ts(t)}
            for t in stream_times(r, 90, BASE, 40)]
    write("cascaded_windows", "events.jsonl", rows)


# --------------------------------------------------------------------------- batch grouping

def sales(r: random.Random, n: int) -> list[dict]:
    return [{"region": r.choice(["EU", "US", "APAC", None]), "product": r.choice(["cup", "pad", "ink"]),
             "channel": r.choice(["web", "store"]), "qty": r.randint(1, 9), "revenue": money(r, 1, 90)}
            for _ in range(n)]


@case
def batch_cube_grouping_id():
    write("batch_cube_grouping_id", "sales.jsonl", sales(random.Random(121), 50))


@case
def batch_select_distinct():
    write("batch_select_distinct", "sales.jsonl", sales(random.Random(122), 60))


# --------------------------------------------------------------------------- UNNEST

@case
def unnest_arrays():
    r = random.Random(123)
    rows = []
    for i, t in enumerate(stream_times(r, 25, BASE, 60), start=1):
        tags = r.sample(["red", "big", "new", "sale", "eco"], r.randint(0, 3))
        items = [{"sku": f"sku{r.randint(1, 9)}", "qty": r.randint(1, 4), "price": money(r, 1, 40)}
                 for _ in range(r.randint(0, 3))]
        row = {"oid": i, "tags": tags, "items": items, "ts": ts(t)}
        if i % 7 == 0:
            row["tags"] = None
        rows.append(row)
    write("unnest_arrays", "orders.jsonl", rows)


# --------------------------------------------------------------------------- updating (streaming) cases

@case
def upd_group_by_group_by():
    r = random.Random(124)
    rows = [{"user_id": f"u{r.randint(1, 15)}", "url": f"/p/{r.randint(1, 5)}", "ts": ts(t)}
            for t in stream_times(r, 120, BASE, 20)]
    write("upd_group_by_group_by", "clicks.jsonl", rows)


@case
def upd_left_join():
    r = random.Random(125)
    write("upd_left_join", "customers.jsonl", customers(r, 10))
    write("upd_left_join", "orders.jsonl", orders(r, 40, 12))


@case
def upd_top3_per_group():
    write("upd_top3_per_group", "bid.jsonl", bids(random.Random(126), 90, gap=20))


@case
def upd_minmax_retract():
    r = random.Random(127)
    write("upd_minmax_retract", "customers.jsonl", customers(r, 10))
    write("upd_minmax_retract", "orders.jsonl", orders(r, 50, 12))

@case
def window_agg_filtered():
    r = random.Random(131)
    rows = [{"user_id": r.randint(1, 5), "channel": r.choice(["web", "app", None]), "amount": money(r, 1, 100),
             "ts": ts(t)} for t in stream_times(r, 100, BASE, 30)]
    write("window_agg_filtered", "events.jsonl", rows)

@case
def timestamp_text_forms():
    # Flink's SQL timestamp text resolves SMART (day 29-31 past the month's end, 24:00:00);
    # ISO-8601 resolves strictly and takes a time without seconds.
    texts = ["2024-03-01 09:00:00", "2024-03-01 09:00:00.5", "2023-02-29 10:00:00", "2024-02-30 10:00:00",
             "2024-04-31 23:59:59.5", "2024-04-32 10:00:00", "2024-13-01 10:00:00", "2024-00-01 10:00:00",
             "2024-01-00 10:00:00", "2023-01-01 24:00:00", "2023-12-31 24:00:00", "2023-01-01 24:00:01",
             "2023-01-01 24:00:00.000", "2023-01-01 24:00:00.5", "2023-01-01 23:60:00", "2023-01-01 23:59:60",
             "2023-02-29 24:00:00", "2023-01-01 10:00", "2023-01-01 10:00:00.1234567891", "2023-01-01 1:00:00",
             "2024-03-01 09:00:00.125", "not a time"]
    write("timestamp_text_forms", "times.jsonl",
          [{"i": i, "ts": t, "ltz": t + "Z", "iso": t.replace(" ", "T")} for i, t in enumerate(texts)])
    d = CASES / "timestamp_text_forms" / "input"
    (d / "times.csv").write_text("".join(f"{i},{t}\n" for i, t in enumerate(texts)))

@case
def window_grouping_sets():
    r = random.Random(132)
    rows = [{"supplier_id": f"s{r.randint(1, 3)}", "item": r.choice(["A", "B", "C"]), "price": money(r, 1, 50),
             "bidtime": ts(t)} for t in stream_times(r, 80, BASE, 40)]
    write("window_grouping_sets", "bid.jsonl", rows)


@case
def upd_group_by_rollup():
    r = random.Random(133)
    rows = [{"region": r.choice(["north", "south"]), "shop": f"shop{r.randint(1, 3)}", "amount": r.randint(1, 40),
             "ts": ts(t)} for t in stream_times(r, 70, BASE, 30)]
    write("upd_group_by_rollup", "sales.jsonl", rows)

@case
def functions_json():
    r = random.Random(134)
    docs = ['{"user": {"id": %d, "tags": ["a", "b"]}, "n": %d, "ok": true}', '{"user": {"id": %d}, "n": %d, "x": null}',
            '{"n": %d, "list": [%d, 2, 3]}', 'not json %d %d', '[%d, %d]']
    rows = []
    for i in range(30):
        doc = r.choice(docs) % (r.randint(1, 9), r.randint(1, 99))
        rows.append({"id": i, "doc": doc if r.random() > 0.1 else None, "name": r.choice(["ann", 'b"o', None]),
                     "score": r.choice([1.5, 20, None])})
    write("functions_json", "docs.jsonl", rows)

@case
def temporal_join_versioned_view():
    r = random.Random(135)
    rates, t = [], BASE
    for _ in range(25):
        t = t + timedelta(seconds=r.choice([20, 45, 90]))
        rates.append({"currency": r.choice(["EUR", "GBP", "JPY"]), "rate": money(r, 1, 3), "ts": ts(t)})
    orders = [{"order_id": i, "currency": r.choice(["EUR", "GBP", "JPY", "CHF"]), "amount": r.randint(1, 50),
               "ts": ts(tt)} for i, tt in enumerate(stream_times(r, 40, BASE + timedelta(seconds=30), 40))]
    write("temporal_join_versioned_view", "rates.jsonl", rates)
    write("temporal_join_versioned_view", "orders.jsonl", orders)


@case
def functions_collections_regex():
    r = random.Random(136)
    words = ["ab12", "x", "a1b22c333", "hello world", "日本語x", 'q"u/o\\te', "tab\tnl\n", ""]
    ips = ["192.168.1.1", "10.0.0.255", "1.2.3", "256.1.1.1", "x", "", "0.0.0.0"]
    rows = []
    for i in range(24):
        def arr():
            return None if r.random() < 0.1 else [r.choice([1, 2, 3, 5, 8, None]) for _ in range(r.randint(0, 5))]
        rows.append({"id": i, "a": arr(), "b": arr(), "s": r.choice(words + [None]),
                     "ip": r.choice(ips + [None]), "n": r.choice([0, 1, 255, 3232235777, -1, 4294967296, None]),
                     "k": r.randint(-3, 6), "d": r.choice([1.5, 0.25, -2.0, None]),
                     "m1": {"a": r.randint(1, 9), "b": r.randint(1, 9)},
                     "m2": r.choice([{"b": 0}, {"c": 7, "a": 1}, {}, None])})
    write("functions_collections_regex", "vals.jsonl", rows)


# --------------------------------------------------------------------------- MATCH_RECOGNIZE

def ticker(r: random.Random, n: int, symbols=("ACME", "BETA", "GAMA"), lo: int = 8, hi: int = 30,
           max_gap_s: int = 4, equal_times: bool = False, nulls: bool = False) -> list[dict]:
    """Price walks per symbol, interleaved in event-time order (strictly increasing times
    unless ``equal_times``: then rows may share a time and carry an increasing ``seq``)."""
    price = {s: r.randint(lo, hi) for s in symbols}
    rows, t = [], BASE
    for i in range(n):
        t = t + timedelta(seconds=r.randint(0 if equal_times else 1, max_gap_s), milliseconds=r.choice([0, 0, 500]))
        sym = r.choice(symbols)
        price[sym] = min(hi, max(lo, price[sym] + r.choice([-3, -2, -1, -1, 0, 1, 1, 2, 3])))
        row = {"symbol": sym, "price": price[sym], "tax": r.randint(0, 3), "rowtime": ts(t)}
        if nulls and r.random() < 0.15:
            row["price" if r.random() < 0.6 else "tax"] = None
        if equal_times:
            row["seq"] = i
        rows.append(row)
    return rows


MATCH_CASES = {  # case -> (seed, rows, keyword arguments of ticker)
    "match_price_down_skip_to_last": (201, 400, {}),
    "match_aggregates_in_define": (202, 120, {}),
    "match_greedy_and_reluctant": (203, 120, {}),
    "match_quantifiers": (204, 300, {}),
    "match_skip_strategies": (205, 120, {}),
    "match_within": (206, 200, {}),
    "match_rowtime_window": (207, 150, {}),
    "match_logical_offsets": (208, 120, {}),
    "match_no_partition": (209, 80, {"symbols": ("ACME",)}),
    "match_equal_times_secondary_order": (210, 120, {"equal_times": True}),
    "match_conditions_and_measures": (211, 120, {}),
    "batch_match_recognize": (212, 300, {}),
    "match_string_navigation": (213, 150, {}),
    "match_nulls": (214, 150, {"nulls": True}),
    "match_error_all_rows": (230, 20, {}),
    "match_error_alternation": (231, 20, {}),
    "match_error_ambiguous_column": (232, 20, {}),
    "match_error_distinct_aggregate": (233, 20, {}),
    "match_error_duplicate_variable": (234, 20, {}),
    "match_error_empty_match": (235, 20, {}),
    "match_error_greedy_last": (236, 20, {}),
    "match_error_group": (237, 20, {}),
    "match_error_order_descending": (238, 20, {}),
    "match_error_order_not_time": (239, 20, {}),
    "match_error_prev": (240, 20, {}),
    "match_error_reluctant_optional": (241, 20, {}),
    "match_error_two_variable_aggregate": (242, 20, {}),
    "match_error_updating_input": (243, 20, {}),
}


def _match_case(name: str):
    def gen():
        seed, n, kw = MATCH_CASES[name]
        write(name, "ticker.jsonl", ticker(random.Random(seed), n, **kw))
    gen.__name__ = name
    return gen


for _name in MATCH_CASES:
    case(_match_case(_name))


# --------------------------------------------------------------------------- streaming ORDER BY / LIMIT

SORT_CASES = {"sort_limit_global_top3": 141, "sort_limit_offset_fetch": 142, "sort_limit_over_group_by": 143,
              "limit_first_rows": 144, "limit_offset_first_rows": 145, "temporal_sort_rowtime": 146,
              "sort_error_not_time": 147, "sort_error_time_descending": 148, "sort_error_offset_without_fetch": 149}


def _sort_case(name: str):
    def gen():
        rows = [{k: v for k, v in b.items() if k != "bidder"} for b in bids(random.Random(SORT_CASES[name]), 60, gap=20)]
        write(name, "bid.jsonl", rows)
    gen.__name__ = name
    return gen


for _name in SORT_CASES:
    case(_sort_case(_name))


def main(argv: list[str]) -> None:
    names = argv or sorted(GEN)
    for n in names:
        GEN[n]()
        print("generated", n)


if __name__ == "__main__":
    main(sys.argv[1:])
