"""Nexmark's event generator, vectorized: the events of the reference generator
(github.com/nexmark/nexmark, ``nexmark-flink/.../generator``), whole batches at a time
in numpy, no Python per event.

The reference draws every random value from one ``java.util.SplittableRandom`` seeded by
the clock, so its events cannot be reproduced. Here, as in Beam's original Nexmark (a
``Random(eventId)`` per event), each event draws from ``SplittableRandom(eventId)``:
an event is a pure function of its id and the configuration, a replayed epoch gives
the same events, and events can be made in any order and in parallel. The hot URLs,
the channel cache and the 1 MiB string extras are cut from come from generators seeded
``URLS_SEED`` and ``EXTRA_SEED``. Everything else is the reference's arithmetic, its
quirks included (a bid's bidder gets ``FIRST_PERSON_ID`` added twice; channel 1's URL
ends ``channel_id=-2147483648``). tests/connectors/nexmark/fixture/regenerate.sh
compiles the reference with exactly these seeds and dumps its events; the tests
compare them field by field.

Java's ``SplittableRandom`` is SplitMix64: draw k of a generator seeded s is
``mix(s + (k + 1) * GOLDEN_GAMMA)``. Each event keeps its own draw counter, so events
that draw different numbers of values (strings of random length) stay in step.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pyarrow as pa

URLS_SEED = 4242
EXTRA_SEED = 4343
FIRST_AUCTION_ID = 1000
FIRST_PERSON_ID = 1000
FIRST_CATEGORY_ID = 10
PERSON_ID_LEAD = 10
AUCTION_ID_LEAD = 10
HOT_AUCTION_RATIO = 100
HOT_BIDDER_RATIO = 100
HOT_SELLER_RATIO = 100
NUM_CATEGORIES = 5
CHANNELS_NUMBER = 10_000
EXTRA_LENGTH = 1024 * 1024
LONG_MAX = (1 << 63) - 1

US_STATES = "AZ,CA,ID,OR,WA,WY".split(",")
US_CITIES = "Phoenix,Los Angeles,San Francisco,Boise,Portland,Bend,Redmond,Seattle,Kent,Cheyenne".split(",")
FIRST_NAMES = "Peter,Paul,Luke,John,Saul,Vicky,Kate,Julie,Sarah,Deiter,Walter".split(",")
LAST_NAMES = "Shultz,Abrams,Spencer,White,Bartels,Walton,Smith,Jones,Noris".split(",")
HOT_CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]

_U64 = np.uint64
GOLDEN_GAMMA = _U64(0x9E3779B97F4A7C15)
_M32A, _M32B = _U64(0x62A9D9ED799705F5), _U64(0xCB24D0A5C88C35B3)
_M64A, _M64B = _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)


@dataclass(frozen=True)
class Config:
    """``NexmarkConfiguration`` as ``NexmarkTableSourceFactory`` sets it (Flink's table
    options; ``generators``: the source's parallelism, ``numEventGenerators``)."""
    events: int = 0  # events.num; 0: unbounded
    first_rate: int = 10_000
    next_rate: int = 10_000
    person_proportion: int = 1
    auction_proportion: int = 3
    bid_proportion: int = 46
    person_avg_size: int = 200
    auction_avg_size: int = 500
    bid_avg_size: int = 100
    hot_auction_ratio: int = 2
    hot_bidders_ratio: int = 4
    hot_sellers_ratio: int = 4
    num_in_flight_auctions: int = 100
    num_active_people: int = 1000
    out_of_order_group_size: int = 1
    stop_at: int = -1
    generators: int = 1
    base_time: int = 0  # ms since the epoch of event 0 (the reference: the job's start)

    @property
    def total(self) -> int:
        return self.person_proportion + self.auction_proportion + self.bid_proportion

    @property
    def inter_event_delay_us(self) -> float:
        return 1000000.0 / self.first_rate * self.generators

    @property
    def max_events(self) -> int:
        if self.events:
            return self.events
        return LONG_MAX // (self.total * max(self.person_avg_size, self.auction_avg_size, self.bid_avg_size))

    def splits(self) -> list["Split"]:
        """``GeneratorConfig.split(generators)``: (first event id, events) per split."""
        n, total = self.generators, self.max_events
        stop = self.stop_at
        if n == 1:
            return [Split(self, 0, 1, total, stop)]
        out, first = [], 1
        sub, sub_valid = total // n, stop // n if stop >= 0 else -1
        for i in range(n):
            if i == n - 1:
                sub = total - sub * (n - 1)
                sub_valid = stop - (stop // n) * (n - 1) if stop >= 0 else -1
            out.append(Split(self, i, first, sub, sub_valid))
            first += total // n
        return out


@dataclass(frozen=True)
class Split:
    """One generator of a parallel source (``NexmarkSourceSplit``): its first event id and
    how many events it makes (``stop_at`` < 0: ``events``)."""
    config: Config
    index: int
    first_event_id: int
    events: int
    stop_at: int = -1

    @property
    def count(self) -> int:
        return self.events if self.stop_at < 0 else min(self.stop_at, self.events)

    def batch(self, start: int, stop: int) -> pa.RecordBatch:
        """Events ``start`` .. ``stop`` - 1 of this split (its eventsCountSoFar numbers)."""
        return generate(self, np.arange(start, stop, dtype=np.int64))


# -- SplittableRandom, per event ----------------------------------------------------------


def _mix32(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> _U64(33))) * _M32A
    return (((z ^ (z >> _U64(28))) * _M32B) >> _U64(32)).astype(np.uint32).view(np.int32)


def _mix64(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> _U64(30))) * _M64A
    z = (z ^ (z >> _U64(27))) * _M64B
    return z ^ (z >> _U64(31))


class Draws:
    """One ``SplittableRandom`` per row (``seeds``), drawn from in lockstep; ``rows``
    (an index array) limits a draw to some of them."""

    def __init__(self, seeds: np.ndarray):
        self.seed = seeds.astype(np.int64).view(np.uint64).copy()

    def _next(self, rows: Optional[np.ndarray]) -> np.ndarray:
        with np.errstate(over="ignore"):
            if rows is None:
                self.seed += GOLDEN_GAMMA
                return self.seed.copy()
            s = self.seed[rows] + GOLDEN_GAMMA
            self.seed[rows] = s
            return s

    def next_int(self, bound, rows: Optional[np.ndarray] = None) -> np.ndarray:
        """``nextInt(bound)`` (RandomSupport.boundedNextInt), bound a scalar or per row."""
        with np.errstate(over="ignore"):
            r = _mix32(self._next(rows)).astype(np.int64)
        if isinstance(bound, (int, np.integer)):  # the common case: one bound, rarely a rejection
            b = int(bound)
            if b & (b - 1) == 0:
                return r & (b - 1)
            u = (r & 0xFFFFFFFF) >> 1
            res = u % b
            if not (u + (b - 1) - res > 0x7FFFFFFF).any():
                return res
        n = len(r)
        bound = np.broadcast_to(np.asarray(bound, dtype=np.int64), (n,))
        m = bound - 1
        pow2 = (bound & m) == 0
        out = np.where(pow2, r & m, 0)
        u = (r & 0xFFFFFFFF) >> 1  # r >>> 1
        todo = ~pow2
        while True:
            res = u % np.where(bound > 0, bound, 1)
            bad = todo & (u + m - res > 0x7FFFFFFF)  # the int sum overflows: rejected
            out = np.where(todo & ~bad, res, out)
            if not bad.any():
                return out
            idx = np.nonzero(bad)[0]
            sub = rows[idx] if rows is not None else idx
            with np.errstate(over="ignore"):
                u[idx] = (_mix32(self._next(sub)).astype(np.int64) & 0xFFFFFFFF) >> 1
            todo = bad

    def next_long(self, n, rows: Optional[np.ndarray] = None) -> np.ndarray:
        """``LongGenerator.nextLong``: ``nextInt`` below 2^31 - 1 (always, at sane rates)."""
        n = np.asarray(n, dtype=np.int64)
        if np.any(n >= 0x7FFFFFFF):
            raise ValueError("nexmark: a random range beyond 2^31 is not supported")
        return self.next_int(n, rows)

    def next_double(self, rows: Optional[np.ndarray] = None) -> np.ndarray:
        with np.errstate(over="ignore"):
            return (_mix64(self._next(rows)) >> _U64(11)).astype(np.float64) * (2.0 ** -53)

    def next_price(self, rows: Optional[np.ndarray] = None) -> np.ndarray:
        """``Math.round(Math.pow(10.0, nextDouble() * 6.0) * 100.0)``."""
        return np.floor(np.power(10.0, self.next_double(rows) * 6.0) * 100.0 + 0.5).astype(np.int64)

    def next_string(self, max_length: int, special: int = ord(" "), rows: Optional[np.ndarray] = None) -> "Text":
        """``StringsGenerator.nextString``, then ``String.trim()``."""
        n = len(self.seed) if rows is None else len(rows)
        length = 3 + self.next_int(max_length - 3, rows)
        chars = np.zeros((n, max(int(length.max(initial=0)), 1)), np.uint8)
        for j in range(chars.shape[1]):
            live = np.nonzero(length > j)[0]
            sub = rows[live] if rows is not None else live
            c = self.next_int(13, sub)
            letter = c != 0
            col = np.full(len(live), special, np.uint8)
            if letter.any():
                col[letter] = ord("a") + self.next_int(26, sub[letter])
            chars[live, j] = col
        return Text.trimmed(chars, length)


# -- text without a Python string per row ------------------------------------------------


@dataclass
class Text:
    """Strings as a padded byte matrix and each row's [start, end)."""
    chars: np.ndarray
    start: np.ndarray
    end: np.ndarray

    @staticmethod
    def trimmed(chars: np.ndarray, length: np.ndarray) -> "Text":
        cols = np.arange(chars.shape[1])
        inside = cols[None, :] < length[:, None]
        solid = inside & (chars > ord(" "))
        any_ = solid.any(axis=1)
        first = np.where(any_, solid.argmax(axis=1), 0)
        last = np.where(any_, chars.shape[1] - solid[:, ::-1].argmax(axis=1), 0)
        return Text(chars, first, last)

    @property
    def lengths(self) -> np.ndarray:
        return self.end - self.start


class Rows:
    """Where one event type's rows sit among a batch's ``n`` rows (``index``, ascending):
    its columns are built for those rows and laid out over all ``n`` (zero or empty
    elsewhere, where the struct is null), without copying string bytes again."""

    def __init__(self, n: int, index: np.ndarray):
        self.n, self.index = n, index

    def numbers(self, values: np.ndarray, type_: pa.DataType = pa.int64()) -> pa.Array:
        full = np.zeros(self.n, np.int64)
        full[self.index] = values
        return pa.array(full, type_)

    def times(self, ms: np.ndarray) -> pa.Array:
        full = np.zeros(self.n, np.int64)
        full[self.index] = ms * 1000
        return pa.array(full, pa.timestamp("us", tz="UTC"))

    def text(self, parts: list) -> pa.Array:
        """Row i: the concatenation of the parts' row i. A part is a Text, a constant
        ``bytes``, (table, index): a table's entry per row, or (start, length): a cut of
        the 1 MiB extra string. The parts side by side in one byte matrix, and a mask of
        what each row keeps, read in row order: their concatenation."""
        m = len(self.index)
        if len(parts) == 1 and isinstance(parts[0], tuple) and isinstance(parts[0][0], np.ndarray):
            return self._cuts(*parts[0])
        if len(parts) == 1 and isinstance(parts[0], tuple):  # a table's entries: Arrow's take
            table, index = parts[0]
            full = np.zeros(self.n, np.int64)
            full[self.index] = index
            return _table_array(table if isinstance(table, tuple) else tuple(table)).take(pa.array(full))
        blocks, keeps, lengths = [], [], np.zeros(m, np.int64)
        for p in parts:
            if isinstance(p, Text):
                chars, lo, hi = p.chars, p.start, p.end
            elif isinstance(p, bytes):
                chars = np.broadcast_to(np.frombuffer(p, np.uint8), (m, len(p)))
                lo, hi = np.zeros(m, np.int64), np.full(m, len(p), np.int64)
            elif isinstance(p[0], np.ndarray):  # (start, length) in the extra string
                start, length = p
                width = max(int(length.max(initial=0)), 1)
                big = _reusable_extra()
                chars = np.lib.stride_tricks.sliding_window_view(big, width)[np.minimum(start, len(big) - width)]
                lo = start - np.minimum(start, len(big) - width)
                hi = lo + length
            else:
                matrix, sizes = _table(p[0] if isinstance(p[0], tuple) else tuple(p[0]))
                chars, lo, hi = matrix[p[1]], np.zeros(m, np.int64), sizes[p[1]]
            cols = np.arange(chars.shape[1])
            blocks.append(chars)
            keeps.append((cols[None, :] >= lo[:, None]) & (cols[None, :] < hi[:, None]))
            lengths += hi - lo
        chars = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=1)
        keep = keeps[0] if len(keeps) == 1 else np.concatenate(keeps, axis=1)
        data = chars[keep]
        full = np.zeros(self.n, np.int64)
        full[self.index] = lengths
        offsets = np.zeros(self.n + 1, np.int32)
        np.cumsum(full, out=offsets[1:])
        return pa.StringArray.from_buffers(self.n, pa.py_buffer(offsets), pa.py_buffer(data))

    def _cuts(self, start: np.ndarray, length: np.ndarray) -> pa.Array:
        """Cuts of the 1 MiB extra string: Arrow string views into it (16 bytes each: the
        length, then up to 12 bytes inline, else a 4-byte prefix, buffer 0 and the
        offset), cast to strings by Arrow: one copy of the bytes, in C++."""
        big = _reusable_extra()
        full_start = np.zeros(self.n, np.int64)
        full_length = np.zeros(self.n, np.int64)
        full_start[self.index] = start
        full_length[self.index] = length
        views = np.zeros((self.n, 16), np.uint8)
        views[:, :4] = full_length.astype("<i4").view(np.uint8).reshape(-1, 4)
        head = big[np.minimum(full_start[:, None] + np.arange(12)[None, :], len(big) - 1)]
        short = full_length <= 12
        inline = np.where(np.arange(12)[None, :] < full_length[:, None], head, 0)
        views[short, 4:16] = inline[short]
        views[~short, 4:8] = head[~short, :4]
        views[~short, 12:16] = full_start[~short].astype("<i4").view(np.uint8).reshape(-1, 4)
        array = pa.Array.from_buffers(pa.string_view(), self.n, [None, pa.py_buffer(views), pa.py_buffer(big)])
        return array.cast(pa.string())

    def struct(self, fields: list, type_: pa.StructType) -> pa.Array:
        if not len(self.index):
            return pa.nulls(self.n, type_)
        valid = np.zeros(self.n, np.bool_)
        valid[self.index] = True
        return pa.StructArray.from_arrays(fields, fields=list(type_), mask=pa.array(~valid))


@functools.lru_cache(maxsize=16)
def _table_array(table: tuple) -> pa.Array:
    return pa.array(list(table), pa.string())


@functools.lru_cache(maxsize=16)
def _table(table: tuple) -> tuple[np.ndarray, np.ndarray]:
    """A table of strings as a padded byte matrix and the entries' lengths."""
    raw = [t.encode() for t in table]
    width = max(len(r) for r in raw)
    matrix = np.zeros((len(raw), width), np.uint8)
    for i, r in enumerate(raw):
        matrix[i, :len(r)] = np.frombuffer(r, np.uint8)
    return matrix, np.array([len(r) for r in raw], np.int64)


def _extra_text(draws: Draws, current: np.ndarray, desired: int, rows: Optional[np.ndarray]):
    """``StringsGenerator.nextExtra``: (start, length) in the 1 MiB string; rows whose
    size already exceeds the average get an empty extra and draw nothing."""
    n = len(current)
    start = np.zeros(n, np.int64)
    length = np.zeros(n, np.int64)
    draw = np.nonzero(current <= desired)[0]
    if len(draw):
        want = desired - current[draw]
        delta = np.floor(want * 0.2 + 0.5).astype(np.int64)
        size = want - delta
        some = np.nonzero(delta != 0)[0]
        sub = (rows[draw] if rows is not None else draw)
        if len(some):
            size[some] += draws.next_int(2 * delta[some], sub[some])
        # nextExactString(random, size): a cut of the reusable string (sizes stay far below half of it)
        start[draw] = draws.next_int(EXTRA_LENGTH - size, sub)
        length[draw] = size
    return start, length


# -- the fixed strings: the 1 MiB extra string, hot URLs, the channel cache ---------------


@functools.lru_cache(maxsize=1)
def _reusable_extra() -> np.ndarray:
    """``nextExactString(new SplittableRandom(EXTRA_SEED), 1024 * 1024)`` before the reusable
    string exists: 6 letters per ``nextInt()``, Java's ``%`` and ``/`` (towards zero)."""
    words = -(-EXTRA_LENGTH // 6)
    seeds = np.uint64(EXTRA_SEED) + GOLDEN_GAMMA * np.arange(1, words + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        rnd = _mix32(seeds).astype(np.int64)
    out = np.empty((words, 6), np.int64)
    for i in range(6):
        rem = np.fmod(rnd, 26)
        out[:, i] = ord("a") + rem
        rnd = (rnd - rem) // 26
    return out.reshape(-1)[:EXTRA_LENGTH].astype(np.uint8)


class _Scalar:
    """One ``SplittableRandom`` in plain Python, for the static tables made once."""

    MASK = 0xFFFFFFFFFFFFFFFF

    def __init__(self, seed: int):
        self.seed = seed & self.MASK

    def _int(self) -> int:
        self.seed = (self.seed + 0x9E3779B97F4A7C15) & self.MASK
        z = self.seed
        z = ((z ^ (z >> 33)) * 0x62A9D9ED799705F5) & self.MASK
        r = (((z ^ (z >> 28)) * 0xCB24D0A5C88C35B3) & self.MASK) >> 32
        return r - (1 << 32) if r >= 1 << 31 else r

    def next_int(self, bound: int) -> int:
        r = self._int()
        m = bound - 1
        if bound & m == 0:
            return r & m
        u = (r & 0xFFFFFFFF) >> 1
        while True:
            r = u % bound
            if u + m - r <= 0x7FFFFFFF:
                return r
            u = (self._int() & 0xFFFFFFFF) >> 1

    def next_string(self, max_length: int, special: str) -> str:
        n = 3 + self.next_int(max_length - 3)
        chars = []
        for _ in range(n):
            chars.append(special if self.next_int(13) == 0 else chr(ord("a") + self.next_int(26)))
        return "".join(chars).strip(" ")


def _base_url(r: _Scalar) -> str:
    return ("https://www.nexmark.com/" + r.next_string(5, "_") + "/" + r.next_string(5, "_") + "/" +
            r.next_string(5, "_") + "/" + "item.htm?query=1")


def _reverse32(i: int) -> int:
    v = int(f"{i & 0xFFFFFFFF:032b}"[::-1], 2)
    return v - (1 << 32) if v >= 1 << 31 else v


@functools.lru_cache(maxsize=1)
def channels() -> tuple[tuple, tuple]:
    """(channel, url) of the hot channels then of the channel cache, in ``BidGenerator``'s
    static order: the 4 hot URLs, then 10,000 channels, 9 in 10 with a ``channel_id``."""
    r = _Scalar(URLS_SEED)
    hot_urls = [_base_url(r) for _ in HOT_CHANNELS]
    names, urls = list(HOT_CHANNELS), hot_urls
    for i in range(CHANNELS_NUMBER):
        url = _base_url(r)
        if r.next_int(10) > 0:
            rev = _reverse32(i)
            url += "&channel_id=" + str(rev if rev == -(1 << 31) else abs(rev))
        names.append(f"channel-{i}")
        urls.append(url)
    return tuple(names), tuple(urls)


# -- the events ---------------------------------------------------------------------------


def _last_person(c: Config, eid: np.ndarray) -> np.ndarray:
    epoch, offset = eid // c.total, eid % c.total
    offset = np.where(offset >= c.person_proportion, c.person_proportion - 1, offset)
    return epoch * c.person_proportion + offset


def _last_auction(c: Config, eid: np.ndarray) -> np.ndarray:
    epoch, offset = eid // c.total, eid % c.total
    person = offset < c.person_proportion
    bid = offset >= c.person_proportion + c.auction_proportion
    epoch = np.where(person, epoch - 1, epoch)
    offset = np.where(person | bid, c.auction_proportion - 1, offset - c.person_proportion)
    return epoch * c.auction_proportion + offset


def _next_person(c: Config, d: Draws, eid: np.ndarray, rows: np.ndarray) -> np.ndarray:
    people = _last_person(c, eid) + 1
    active = np.minimum(people, c.num_active_people)
    return people - active + d.next_long(active + PERSON_ID_LEAD, rows)


def _next_auction(c: Config, d: Draws, eid: np.ndarray, rows: np.ndarray) -> np.ndarray:
    last = _last_auction(c, eid)
    low = np.maximum(last - c.num_in_flight_auctions, 0)
    return low + d.next_long(last - low + 1 + AUCTION_ID_LEAD, rows)


def _timestamp(c: Config, number: np.ndarray) -> np.ndarray:
    """``GeneratorConfig.timestampForEvent``: base + (long) (n * delay_us) / 1000."""
    return c.base_time + (number.astype(np.float64) * c.inter_event_delay_us).astype(np.int64) // 1000


def _adjusted(c: Config, number: np.ndarray) -> np.ndarray:
    n = c.out_of_order_group_size
    if n == 1:
        return number
    return (number // n) * n + (number * 953) % n


PERSON = pa.struct([("id", pa.int64()), ("name", pa.string()), ("emailAddress", pa.string()),
                    ("creditCard", pa.string()), ("city", pa.string()), ("state", pa.string()),
                    ("dateTime", pa.timestamp("us", tz="UTC")), ("extra", pa.string())])
AUCTION = pa.struct([("id", pa.int64()), ("itemName", pa.string()), ("description", pa.string()),
                     ("initialBid", pa.int64()), ("reserve", pa.int64()), ("dateTime", pa.timestamp("us", tz="UTC")),
                     ("expires", pa.timestamp("us", tz="UTC")), ("seller", pa.int64()), ("category", pa.int64()),
                     ("extra", pa.string())])
BID = pa.struct([("auction", pa.int64()), ("bidder", pa.int64()), ("price", pa.int64()), ("channel", pa.string()),
                 ("url", pa.string()), ("dateTime", pa.timestamp("us", tz="UTC")), ("extra", pa.string())])
SCHEMA = pa.schema([("event_type", pa.int32()), ("person", PERSON), ("auction", AUCTION), ("bid", BID)])
_NAMES = [f + " " + s for f in FIRST_NAMES for s in LAST_NAMES]


def generate(split: Split, counts: np.ndarray) -> pa.RecordBatch:
    """The events of ``split`` numbered ``counts`` (eventsCountSoFar), as ``SCHEMA``."""
    c = split.config
    n = len(counts)
    number = 1 + counts  # firstEventNumber = 1 (NexmarkTableSourceFactory)
    adjusted = _adjusted(c, number)
    eid = split.first_event_id + adjusted
    ts = _timestamp(c, adjusted)
    rem = eid % c.total
    kind = np.where(rem < c.person_proportion, 0, np.where(rem < c.person_proportion + c.auction_proportion, 1, 2))
    people, auctions, bids = (Rows(n, np.nonzero(kind == k)[0]) for k in (0, 1, 2))
    arrays = [pa.array(kind.astype(np.int32), pa.int32()), _persons(c, eid, ts, people),
              _auctions(c, eid, ts, counts, auctions), _bids(c, eid, ts, bids)]
    return pa.RecordBatch.from_arrays(arrays, schema=SCHEMA)


def _persons(c: Config, eid_all, ts_all, at: Rows) -> pa.Array:
    rows = at.index
    if not len(rows):
        return at.struct([], PERSON)
    eid, ts = eid_all[rows], ts_all[rows]
    d = Draws(eid)  # the events' own generators: whole-array draws
    first = d.next_int(len(FIRST_NAMES))
    last = d.next_int(len(LAST_NAMES))
    name_ix = first * len(LAST_NAMES) + last
    user, host = d.next_string(7, rows=None), d.next_string(5, rows=None)
    cards = np.stack([d.next_int(10000) for _ in range(4)], axis=1)
    city = d.next_int(len(US_CITIES))
    state = d.next_int(len(US_STATES))
    name_len = _table(tuple(_NAMES))[1][name_ix]
    email_len = user.lengths + host.lengths + 5
    size = 8 + name_len + email_len + 19 + _table(tuple(US_CITIES))[1][city] + _table(tuple(US_STATES))[1][state]
    extra = _extra_text(d, size, c.person_avg_size, None)
    m = len(rows)
    digits = np.zeros((m, 19), np.uint8)
    digits[:, [4, 9, 14]] = ord(" ")
    for k in range(4):
        for j in range(4):
            digits[:, k * 5 + j] = ord("0") + (cards[:, k] // 10 ** (3 - j)) % 10
    card = Text(digits, np.zeros(m, np.int64), np.full(m, 19, np.int64))
    return at.struct([at.numbers(_last_person(c, eid) + FIRST_PERSON_ID), at.text([(_NAMES, name_ix)]),
                      at.text([user, b"@", host, b".com"]), at.text([card]), at.text([(US_CITIES, city)]),
                      at.text([(US_STATES, state)]), at.times(ts), at.text([extra])], PERSON)


def _auctions(c: Config, eid_all, ts_all, counts_all, at: Rows) -> pa.Array:
    rows = at.index
    if not len(rows):
        return at.struct([], AUCTION)
    eid, ts, counts = eid_all[rows], ts_all[rows], counts_all[rows]
    d = Draws(eid)
    hot = d.next_int(c.hot_sellers_ratio) > 0
    seller = (_last_person(c, eid) // HOT_SELLER_RATIO) * HOT_SELLER_RATIO
    cold = np.nonzero(~hot)[0]
    if len(cold):
        seller[cold] = _next_person(c, d, eid[cold], cold)
    seller += FIRST_PERSON_ID
    category = FIRST_CATEGORY_ID + d.next_int(NUM_CATEGORIES)
    initial = d.next_price()
    # nextAuctionLengthMs: an average length of the time till numInFlightAuctions more auctions
    current = _adjusted(c, 1 + counts)
    ahead = (c.num_in_flight_auctions * c.total) // c.auction_proportion
    horizon = _timestamp(c, current + ahead) - ts
    expires = ts + 1 + d.next_long(np.maximum(horizon * 2, 1))
    name, desc = d.next_string(20, rows=None), d.next_string(100, rows=None)
    reserve = initial + d.next_price()
    size = 8 + name.lengths + desc.lengths + 40
    extra = _extra_text(d, size, c.auction_avg_size, None)
    return at.struct([at.numbers(_last_auction(c, eid) + FIRST_AUCTION_ID), at.text([name]), at.text([desc]),
                      at.numbers(initial), at.numbers(reserve), at.times(ts), at.times(expires), at.numbers(seller),
                      at.numbers(category), at.text([extra])], AUCTION)


def _bids(c: Config, eid_all, ts_all, at: Rows) -> pa.Array:
    rows = at.index
    if not len(rows):
        return at.struct([], BID)
    eid, ts = eid_all[rows], ts_all[rows]
    d = Draws(eid)  # the events' own generators: whole-array draws
    m = len(rows)
    hot = d.next_int(c.hot_auction_ratio) > 0
    auction = (_last_auction(c, eid) // HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO
    cold = np.nonzero(~hot)[0]
    if len(cold):
        auction[cold] = _next_auction(c, d, eid[cold], cold)
    auction += FIRST_AUCTION_ID
    hot = d.next_int(c.hot_bidders_ratio) > 0
    bidder = (_last_person(c, eid) // HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1
    cold = np.nonzero(~hot)[0]
    if len(cold):
        bidder[cold] = _next_person(c, d, eid[cold], cold)
    bidder += 2 * FIRST_PERSON_ID  # the reference adds it twice
    price = d.next_price()
    channel = np.zeros(m, np.int64)
    hot_channel = d.next_int(2) > 0
    hot, cold = np.nonzero(hot_channel)[0], np.nonzero(~hot_channel)[0]
    if len(hot):
        channel[hot] = d.next_int(len(HOT_CHANNELS), hot)
    if len(cold):
        channel[cold] = len(HOT_CHANNELS) + d.next_int(CHANNELS_NUMBER, cold)
    extra = _extra_text(d, np.full(m, 32, np.int64), c.bid_avg_size, None)
    names, urls = channels()
    return at.struct([at.numbers(auction), at.numbers(bidder), at.numbers(price), at.text([(names, channel)]),
                      at.text([(urls, channel)]), at.times(ts), at.text([extra])], BID)
