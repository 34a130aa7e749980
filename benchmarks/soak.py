"""Soak: Kafka -> interval join -> window aggregation -> Kafka, exactly once, for half an
hour at a fixed rate, with a failure injected every five minutes.

The pipeline (``SQL``): auctions and bids, each a Kafka topic of two partitions with
event time = the wall clock at production; bids joined to their auction (an interval
join: the bid within 30 s after the auction), counted and summed per category in
10-second tumbling windows, into a Kafka topic with ``sink.delivery-guarantee`` =
``exactly-once``. It runs as a real CLI process (``python -m shell.cli -f``), local[2],
``execution.checkpointing.interval`` = 2 s (so the restart strategy is Flink's default,
exponential-delay).

Failures, one every ``--every`` seconds, in turn:
* ``python-worker``: SIGKILL of a PySpark Python worker: its task fails, the query
  fails, the restart strategy restarts the job in its process from its checkpoint;
* ``engine``: SIGKILL of the whole engine (driver, JVM, workers); the harness, as a
  supervisor would, starts it again with ``execution.state-recovery.path``;
* ``broker``: the Kafka broker stopped for 20 s, then started again on its data.

Sampled every 2 s: the engine's resident memory (every process of it), the size of its
state on disk, each epoch's duration (Spark's offsets and commit logs: the epoch's start
and end), and end-to-end lag: when a window's result becomes visible to a
``read_committed`` consumer, minus the window's end (its event time is the wall clock).
At the end the producer stops, one more event per partition moves the watermark past
every window, and the output is checked against the windows computed from what the
broker acknowledged: each window exactly once with its count and sum.

Writes ``benchmarks/results/soak.png`` (four panels over time, failures marked) and
``soak.json`` (the samples), and prints a table per five minutes.

Usage (needs the ``bench`` extra: ``.venv/bin/pip install -e .[bench]``):
    .venv/bin/python benchmarks/soak.py [--minutes 30] [--every 300] [--rate 2000]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WINDOW_MS = 10_000
SQL = """
CREATE TABLE auctions (id BIGINT, category INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'auctions{suffix}', 'properties.bootstrap.servers' = '{bs}',
        'properties.group.id' = 'soak{suffix}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'bids{suffix}', 'properties.bootstrap.servers' = '{bs}',
        'properties.group.id' = 'soak{suffix}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE per_category (category INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT,
  total BIGINT)
  WITH ('connector' = 'kafka', 'topic' = 'out{suffix}', 'properties.bootstrap.servers' = '{bs}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'soak{suffix}');
CREATE TEMPORARY VIEW joined AS
  SELECT b.ts, b.price, a.category FROM bids AS b JOIN auctions AS a
  ON b.auction = a.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '30' SECOND;
INSERT INTO per_category SELECT category, window_start, window_end, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY category, window_start, window_end;
"""
FAILURES = ("python-worker", "engine", "broker")
QUIET = logging.getLogger("soak.kafka")  # librdkafka's complaints while the broker is down
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False


def _ts(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _ms(text: str) -> int:
    return int(datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp() * 1000)


class Producer(threading.Thread):
    """Auctions and bids at ``rate`` events a second (one in ten an auction), event time
    = now; each bid refers to an auction of the last 20 s. ``expected``: per (window start,
    category), the count and sum of the bids the broker acknowledged."""

    def __init__(self, bs: str, rate: int, suffix: str = ""):
        super().__init__(daemon=True)
        self.auctions, self.bids = f"auctions{suffix}", f"bids{suffix}"
        from confluent_kafka import Producer as KafkaProducer
        self.kafka = KafkaProducer({"bootstrap.servers": bs, "enable.idempotence": True, "linger.ms": 20,
                                    "delivery.timeout.ms": 300000}, logger=QUIET)
        self.rate = rate
        self.stop = threading.Event()
        self.expected: dict[tuple[int, int], list[int]] = {}
        self.produced = 0
        self.last_ms = 0
        self.lock = threading.Lock()

    def _bid_delivered(self, key: tuple[int, int], price: int):
        def done(err, _msg) -> None:
            if err is None:
                with self.lock:
                    got = self.expected.setdefault(key, [0, 0])
                    got[0] += 1
                    got[1] += price
        return done

    def run(self) -> None:
        rnd = random.Random(7)
        auctions: list[tuple[int, int, int]] = []  # (id, category, ts)
        next_id, tick, started = 0, 0.1, time.monotonic()
        sent = 0
        while not self.stop.is_set():
            due = int((time.monotonic() - started) * self.rate)
            now = int(time.time() * 1000)
            while sent < due:
                if sent % 10 == 0 or not auctions:
                    a = (next_id, rnd.randrange(20), now)
                    next_id += 1
                    auctions.append(a)
                    self.kafka.produce(self.auctions, json.dumps({"id": a[0], "category": a[1], "ts": _ts(now)}),
                                       partition=a[0] % 2)
                else:
                    while auctions[0][2] < now - 20_000:
                        auctions.pop(0)
                    a = auctions[rnd.randrange(len(auctions))]
                    price = rnd.randrange(1, 1000)
                    self.kafka.produce(self.bids, json.dumps({"auction": a[0], "bidder": sent, "price": price,
                                                           "ts": _ts(now)}), partition=sent % 2,
                                       on_delivery=self._bid_delivered((now - now % WINDOW_MS, a[1]), price))
                sent += 1
            self.produced, self.last_ms = sent, now
            self.kafka.poll(0)
            time.sleep(tick)
        self.kafka.flush(300)

    def flush_watermark(self) -> int:
        """One auction and one bid per partition a minute after the last event: every
        window of the run closes. Returns the first window start that is not the run's."""
        ms = self.last_ms + 60_000
        for p in (0, 1):
            self.kafka.produce(self.auctions, json.dumps({"id": -1 - p, "category": -1, "ts": _ts(ms)}), partition=p)
            self.kafka.produce(self.bids, json.dumps({"auction": -1 - p, "bidder": -1, "price": 0, "ts": _ts(ms)}),
                               partition=p)
        self.kafka.flush(60)
        return ms - ms % WINDOW_MS


class Output(threading.Thread):
    """Reads the output topic as ``read_committed``; records (seen at, lag s) per row."""

    def __init__(self, bs: str, suffix: str = ""):
        super().__init__(daemon=True)
        from confluent_kafka import Consumer
        self.consumer = Consumer({"bootstrap.servers": bs, "group.id": f"soak-check-{os.getpid()}",
                                  "isolation.level": "read_committed", "auto.offset.reset": "earliest",
                                  "enable.auto.commit": False}, logger=QUIET)
        self.consumer.subscribe([f"out{suffix}"])
        self.rows: Counter = Counter()
        self.lags: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            for m in self.consumer.consume(1000, 0.5):
                if m.error():
                    continue
                now = time.time()
                row = json.loads(m.value())
                self.rows[(_ms(row["window_start"]), row["category"], row["n"], row["total"])] += 1
                self.lags.append((now, now - _ms(row["window_end"]) / 1000))
        self.consumer.close()


class Engine:
    """The CLI process running the job; killed and started again by the harness."""

    def __init__(self, script: Path, ckpt: Path, log: Path, interval: str = "2 s"):
        self.script, self.ckpt, self.log, self.interval = script, ckpt, log, interval
        self.proc: subprocess.Popen | None = None

    def start(self, restore: bool) -> None:
        args = [sys.executable, "-m", "shell.cli", "-f", str(self.script), "-D", "spark.master=local[2]",
                "-D", f"execution.checkpointing.dir={self.ckpt}", "-D", "pipeline.job-id=soak",
                "-D", "parallelism.default=2"]
        if self.interval:
            args += ["-D", f"execution.checkpointing.interval={self.interval}"]
        if restore:
            args += ["-D", f"execution.state-recovery.path={self.ckpt / 'soak'}"]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def processes(self) -> list:
        import psutil
        if self.proc is None or self.proc.poll() is not None:
            return []
        try:
            root = psutil.Process(self.proc.pid)
            return [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def rss_mb(self) -> float:
        total = 0
        for p in self.processes():
            try:
                total += p.memory_info().rss
            except Exception:  # noqa: BLE001 - a worker that just ended
                pass
        return total / 2**20

    def cpu_seconds(self) -> float:
        """CPU time (user + system) of the engine's processes alive now."""
        total = 0.0
        for p in self.processes():
            try:
                t = p.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
            except Exception:  # noqa: BLE001 - a worker that just ended
                pass
        return total

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def kill_python_worker(self) -> bool:
        """SIGKILL one Python worker (a child of PySpark's daemon)."""
        for p in self.processes():
            try:
                if "pyspark.daemon" in " ".join(p.cmdline()):
                    workers = p.children()
                    if workers:
                        workers[0].send_signal(signal.SIGKILL)
                        return True
            except Exception:  # noqa: BLE001 - gone meanwhile
                continue
        return False

    def state_mb(self) -> float:
        from sqlengine.runtime import fs  # (a walk that tolerates folders vanishing under it)
        return sum(fs.size(str(folder)) for folder in self.ckpt.glob("soak/*/state")) / 2**20

    def epochs(self) -> dict[int, tuple[float, float]]:
        """{epoch: (ended at, duration s)} of the epochs in Spark's commit log."""
        out = {}
        for query in self.ckpt.glob("soak/*"):
            for c in (query / "commits").glob("[0-9]*"):
                try:
                    end = c.stat().st_mtime
                    out[int(c.name)] = (end, end - (query / "offsets" / c.name).stat().st_mtime)
                except (OSError, ValueError):
                    pass
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--every", type=float, default=300, help="seconds between failures")
    ap.add_argument("--rate", type=int, default=2000, help="events per second")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = ap.parse_args()
    from confluent_kafka.admin import AdminClient, NewTopic
    from tests.connectors.kafka.broker import Broker

    work = Path(tempfile.mkdtemp(prefix="soak-"))
    (work / "kafka").mkdir()
    broker = Broker(work / "kafka").start()
    bs = broker.bootstrap
    admin = AdminClient({"bootstrap.servers": bs})
    for f in admin.create_topics([NewTopic(t, 2, 1) for t in ("auctions", "bids", "out")]).values():
        f.result()
    script = work / "soak.sql"
    script.write_text(SQL.format(bs=bs, suffix=""))
    engine = Engine(script, work / "ckpt", work / "engine.log")
    producer, output = Producer(bs, args.rate), Output(bs)
    producer.start()
    output.start()
    engine.start(restore=False)
    t0 = time.time()
    samples: list[dict] = []
    failures: list[tuple[float, str]] = []
    epochs: dict[int, tuple[float, float]] = {}
    turn, next_failure, end = 0, t0 + args.every, t0 + args.minutes * 60
    print(f"soak: {args.minutes:g} min at {args.rate} events/s, a failure every {args.every:g} s; work in {work}",
          flush=True)
    while time.time() < end:
        now = time.time()
        if now >= next_failure:
            kind = FAILURES[turn % len(FAILURES)]
            turn += 1
            next_failure += args.every
            failures.append((now - t0, kind))
            print(f"[{(now - t0) / 60:5.1f} min] failure: {kind}", flush=True)
            if kind == "python-worker":
                if not engine.kill_python_worker():
                    print("  (no Python worker alive at that moment)", flush=True)
            elif kind == "engine":
                engine.kill()
                engine.start(restore=True)
            else:
                broker.stop()
                time.sleep(20)
                broker._launch(broker.workdir / "server.properties")
        if engine.proc.poll() is not None:  # it failed for good (its restart strategy gave up)
            print(f"[{(now - t0) / 60:5.1f} min] the engine exited ({engine.proc.returncode}); restoring", flush=True)
            failures.append((now - t0, "engine exited"))
            engine.start(restore=True)
        try:  # the engine's files change under the sampling: a sample may fail, the run goes on
            epochs.update(engine.epochs())
            samples.append({"t": now - t0, "rss_mb": engine.rss_mb(), "state_mb": engine.state_mb(),
                            "produced": producer.produced})
        except OSError as exc:
            print(f"  (a sample failed: {exc})", flush=True)
        time.sleep(2)
    producer.stop.set()
    producer.join()
    expected, lost, duplicated = check(producer, output)
    output.stop.set()
    engine.kill()
    output.join()
    broker.stop()
    epoch_series = sorted((end - t0, d) for end, d in epochs.values() if end >= t0)
    report(samples, epoch_series, output.lags, failures, t0, args, Path(args.out),
           {"windows": len(expected), "bids": sum(n for _, _, n, _ in expected), "lost": lost,
            "duplicated": duplicated})


def check(producer: Producer, output: Output, timeout: float = 300) -> tuple[Counter, int, int]:
    """Move the watermark past every window and wait (up to ``timeout``) for the
    output to equal the windows of the acknowledged bids; (expected, lost, duplicated)."""
    boundary = producer.flush_watermark()
    with producer.lock:
        expected = Counter({(w, c, n, s): 1 for (w, c), (n, s) in producer.expected.items()})
    deadline = time.time() + timeout
    got = Counter({k: v for k, v in output.rows.items() if k[0] < boundary})
    while got != expected and time.time() < deadline:
        time.sleep(1)
        got = Counter({k: v for k, v in output.rows.items() if k[0] < boundary})
    return expected, sum((expected - got).values()), sum((got - expected).values())


def report(samples, epochs, lags, failures, t0, args, out: Path, check: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out.mkdir(parents=True, exist_ok=True)
    lag_series = [(t - t0, lag) for t, lag in lags]
    minutes = lambda xs: [x / 60 for x in xs]  # noqa: E731
    fig, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    panels = [("engine RSS (MiB)", [(s["t"], s["rss_mb"]) for s in samples], "-"),
              ("state on disk (MiB)", [(s["t"], s["state_mb"]) for s in samples], "-"),
              ("epoch duration (s)", epochs, "."),
              ("end-to-end lag (s): result visible - window end", lag_series, ".")]
    for ax, (title, series, style) in zip(axes, panels):
        if series:
            ax.plot(minutes([x for x, _ in series]), [y for _, y in series], style, markersize=2)
        ax.set_ylabel(title, fontsize=8)
        ax.grid(alpha=0.3)
        for at, kind in failures:
            ax.axvline(at / 60, color="red", alpha=0.4)
            if ax is axes[0]:
                ax.text(at / 60, ax.get_ylim()[1], kind, fontsize=7, color="red", va="top", rotation=90)
    axes[-1].set_xlabel("minutes")
    fig.suptitle(f"sqlengine soak: Kafka -> interval join -> TUMBLE -> Kafka (exactly once), {args.rate} events/s; "
                 f"windows {check['windows']}, lost {check['lost']}, duplicated {check['duplicated']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "soak.png", dpi=90)
    (out / "soak.json").write_text(json.dumps({"rate": args.rate, "minutes": args.minutes, "failures": failures,
                                               "check": check, "samples": samples, "epochs": epochs,
                                               "lags": lag_series}))
    print(f"\n{'minutes':>9s} {'RSS MiB max':>12s} {'state MiB max':>14s} {'epoch s p50':>12s} "
          f"{'epoch s max':>12s} {'lag s p50':>10s} {'lag s max':>10s}")
    span = args.every
    for start in range(0, int(args.minutes * 60), int(span)):
        def within(series):
            return sorted(y for x, y in series if start <= x < start + span)
        rss = within([(s["t"], s["rss_mb"]) for s in samples])
        state = within([(s["t"], s["state_mb"]) for s in samples])
        ep, lg = within(epochs), within(lag_series)

        def p50(xs):
            return xs[len(xs) // 2] if xs else float("nan")
        print(f"{start / 60:4.0f}-{(start + span) / 60:<4.0f} {max(rss or [0]):12.0f} {max(state or [0]):14.1f} "
              f"{p50(ep):12.2f} {max(ep or [0]):12.2f} {p50(lg):10.1f} {max(lg or [0]):10.1f}")
    print(f"\noutput: {check['windows']} windows of {check['bids']} bids; lost {check['lost']}, "
          f"duplicated {check['duplicated']}")
    print(f"plot: {out / 'soak.png'}")


if __name__ == "__main__":
    main()
