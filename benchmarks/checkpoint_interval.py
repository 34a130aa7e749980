"""What ``execution.checkpointing.interval`` trades: end-to-end latency against the cost
of epochs.

The soak pipeline (``soak.py``: Kafka -> interval join -> 10 s TUMBLE -> Kafka, exactly
once) runs as a CLI process at a fixed input rate, once per interval (unset: each epoch
starts when the last one ends). After a warm-up, for ``--seconds``:
* epochs per minute and their median duration; ``busy``, the share of the time spent in
  epochs (Spark's offsets and commit logs give each epoch's start and end);
* CPU seconds the engine's processes spend per 100,000 input events (the cost an interval
  saves: fewer, larger epochs share their fixed costs: planning, state reads and writes,
  Kafka transactions, Spark's logs);
* end-to-end lag: when a window's result becomes visible to a ``read_committed``
  consumer, minus the window's end (event time is the wall clock), median and 95th
  percentile. Its floor is the watermark's 5 s delay; an interval adds up to one
  interval of waiting, plus the epoch.
Every run ends with the producer stopped, the watermark moved past every window, and the
output checked exactly against the windows computed from what the broker acknowledged.

Usage:
    .venv/bin/python benchmarks/checkpoint_interval.py [--rate 2000] [--seconds 90]
        [--intervals "unset,1 s,2 s,5 s,10 s"]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak import ROOT, SQL, Engine, Output, Producer, check  # noqa: E402


def run(bs: str, admin, work: Path, n: int, interval: str, rate: int, warmup: float, seconds: float) -> dict:
    from confluent_kafka.admin import NewTopic
    suffix = f"-{n}"
    for f in admin.create_topics([NewTopic(f"{t}{suffix}", 2, 1) for t in ("auctions", "bids", "out")]).values():
        f.result()
    script = work / f"run{suffix}.sql"
    script.write_text(SQL.format(bs=bs, suffix=suffix))
    engine = Engine(script, work / f"ckpt{suffix}", work / f"engine{suffix}.log",
                    "" if interval == "unset" else interval)
    producer, output = Producer(bs, rate, suffix), Output(bs, suffix)
    producer.start()
    output.start()
    engine.start(restore=False)
    time.sleep(warmup)  # the JVM's start and the first epochs: not measured
    t0, cpu0, events0 = time.time(), engine.cpu_seconds(), producer.produced
    time.sleep(seconds)
    t1, cpu1, events1 = time.time(), engine.cpu_seconds(), producer.produced
    epochs = [(end, d) for end, d in engine.epochs().values() if t0 <= end < t1]
    lags = sorted(lag for at, lag in output.lags if t0 <= at < t1)
    producer.stop.set()
    producer.join()
    expected, lost, duplicated = check(producer, output)
    output.stop.set()
    engine.kill()
    output.join()
    durations = sorted(d for _, d in epochs)

    def pct(xs, q):
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")
    return {"interval": interval, "epochs_per_min": len(epochs) * 60 / (t1 - t0), "epoch_s_p50": pct(durations, 0.5),
            "busy": sum(durations) / (t1 - t0), "cpu_s_per_100k": (cpu1 - cpu0) / max(1, events1 - events0) * 1e5,
            "lag_s_p50": pct(lags, 0.5), "lag_s_p95": pct(lags, 0.95), "events": events1 - events0,
            "lost": lost, "duplicated": duplicated,
            "windows": len(expected)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rate", type=int, default=2000)
    ap.add_argument("--warmup", type=float, default=45)
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--intervals", default="unset,1 s,2 s,5 s,10 s")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "checkpoint_interval.json"))
    args = ap.parse_args()
    from confluent_kafka.admin import AdminClient
    from tests.connectors.kafka.broker import Broker
    work = Path(tempfile.mkdtemp(prefix="interval-"))
    (work / "kafka").mkdir()
    broker = Broker(work / "kafka").start()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    try:
        results = [run(broker.bootstrap, admin, work, n, iv.strip(), args.rate, args.warmup, args.seconds)
                   for n, iv in enumerate(args.intervals.split(","))]
    finally:
        broker.stop()
    print(f"\n{args.rate} events/s, {args.seconds:g} s measured per interval\n")
    print(f"{'interval':>9} {'epochs/min':>10} {'epoch s p50':>11} {'busy':>5} {'CPU s/100k ev':>13} "
          f"{'lag s p50':>9} {'lag s p95':>9}  check")
    for r in results:
        check = "ok" if r["lost"] == r["duplicated"] == 0 else f"WRONG: lost {r['lost']}, duplicated {r['duplicated']}"
        print(f"{r['interval']:>9} {r['epochs_per_min']:10.1f} {r['epoch_s_p50']:11.2f} {r['busy']:5.0%} "
              f"{r['cpu_s_per_100k']:13.1f} {r['lag_s_p50']:9.1f} {r['lag_s_p95']:9.1f}  {check} "
              f"({r['windows']} windows)")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"rate": args.rate, "seconds": args.seconds, "results": results}, indent=1))
    return 0 if all(r["lost"] == r["duplicated"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
