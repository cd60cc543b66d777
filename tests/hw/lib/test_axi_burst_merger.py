"""BurstMerger (hw/lib/axi/burst_merger.py) in Amaranth's simulator: requests waiting back to
back that continue each other join one burst (same kind, next line, a read's same tag), never
across 4 KiB nor past the burst limits; a lone request leaves the cycle after it came."""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.axi.burst_merger import BurstMerger
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench


def requests_for(rng, count):
    requests = []
    while len(requests) < count:
        write, tag = rng.random() < 0.5, rng.randrange(3)
        start = rng.choice([rng.randrange(1 << 10), rng.randrange(16) * 64 + 60])
        for line in range(start, min(start + rng.randint(1, 9), 1 << 10)):
            requests.append({"addr": line, "write": int(write), "wdata": rng.randrange(1 << 512),
                             "wmask": rng.randrange(1 << 64), "tag": rng.randrange(3)
                             if write else tag})
    return requests[:count]


def greedy(requests, max_lines, max_write_lines):
    """The bursts of requests that all wait back to back: each joins the burst before it
    when it may."""
    bursts = []
    for r in requests:
        last = bursts[-1] if bursts else None
        if last is not None and r["write"] == last["write"] and \
                r["addr"] == last["addr"] + last["len"] + 1 and r["addr"] % 64 != 0 and \
                (r["write"] or r["tag"] == last["tag"]) and \
                last["len"] + 1 < (max_write_lines if r["write"] else max_lines):
            last["len"] += 1
        else:
            bursts.append({"addr": r["addr"], "len": 0, "write": r["write"], "tag": r["tag"]})
    return bursts


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("max_lines, max_write_lines", [(8, 8), (64, 4), (2, 1)])
def test_merger_joins_what_waits(max_lines, max_write_lines, pause):
    requests = requests_for(random.Random(max_lines), 300)
    dut = BurstMerger(addr_width=10, tag_width=2, max_lines=max_lines,
                      max_write_lines=max_write_lines)
    bench = Bench(dut, "BurstMerger", pause=pause)
    bench.source("i", dut.i, requests)
    bench.sink("bursts", dut.bursts)
    bench.sink("lines", dut.lines, sum(r["write"] for r in requests))
    bench.until(lambda: sum(b["len"] + 1 for b in bench.received["bursts"]) == len(requests))
    bench.run()
    bursts = bench.received["bursts"]
    # The bursts cover the requests in order, each within its limits and its page.
    # (A write's tag is not kept: its burst carries its first request's.)
    flat = [(b["addr"] + k, b["write"], None if b["write"] else b["tag"])
            for b in bursts for k in range(b["len"] + 1)]
    want = [(r["addr"], r["write"], None if r["write"] else r["tag"]) for r in requests]
    bench.check_equal(flat, want, "requests covered by the bursts")
    for b in bursts:
        assert b["len"] < (max_write_lines if b["write"] else max_lines)
        assert b["addr"] // 64 == (b["addr"] + b["len"]) // 64
    bench.check_equal(bench.received["lines"],
                      [{"wdata": r["wdata"], "wmask": r["wmask"]} for r in requests
                       if r["write"]], "write lines")
    if pause is None:
        bench.check_equal(bursts, greedy(requests, max_lines, max_write_lines), "bursts")


def test_merger_never_holds_a_lone_request():
    """A request alone is offered as a burst the cycle after it was taken; one that follows a
    cycle later starts a burst of its own."""
    dut = BurstMerger(addr_width=10, tag_width=2, max_lines=8, max_write_lines=8)
    offers = []

    async def bench(ctx):
        ctx.set(dut.bursts.ready, 1)
        ctx.set(dut.lines.ready, 1)
        for cycle in range(12):
            ctx.set(dut.i.valid, cycle in (0, 3, 5))
            ctx.set(dut.i.payload.addr, {0: 7, 3: 8, 5: 9}.get(cycle, 0))
            _, _, valid, payload = await ctx.tick().sample(dut.bursts.valid,
                                                          dut.bursts.payload)
            if valid:
                offers.append((cycle, payload.addr, payload.len))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert offers == [(1, 7, 0), (4, 8, 0), (6, 9, 0)]


def test_merger_refuses_bad_limits():
    with pytest.raises(ConfigError, match="max_lines must be an integer from 1 to 64"):
        BurstMerger(addr_width=10, tag_width=2, max_lines=65, max_write_lines=1)
    with pytest.raises(ConfigError, match="max_write_lines must be an integer from 1 to 4"):
        BurstMerger(addr_width=10, tag_width=2, max_lines=4, max_write_lines=5)


def interleaved_streams(rng, count, streams=4):
    """Runs of consecutive lines, reads on their own tag or writes, several going on at once
    and their requests interleaved at random; some runs reach a 4 KiB page's edge and some
    write lines others read."""
    requests, live = [], []
    while len(requests) < count:
        while len(live) < streams:
            write = rng.random() < 0.25
            start = rng.choice([rng.randrange(1 << 10), rng.randrange(16) * 64 + 58])
            live.append({"write": int(write), "tag": rng.randrange(4), "next": start,
                         "left": rng.randint(1, 20)})
        stream = rng.choice(live)
        requests.append({"addr": stream["next"] % (1 << 10), "write": stream["write"],
                         "wdata": rng.randrange(1 << 512), "wmask": rng.randrange(1 << 64),
                         "tag": stream["tag"]})
        stream["next"] += 1
        stream["left"] -= 1
        if stream["left"] == 0:
            live.remove(stream)
    return requests


def run_open_merger(requests, *, open_bursts, hold, pause, max_lines=16, max_write_lines=4):
    dut = BurstMerger(addr_width=10, tag_width=2, max_lines=max_lines,
                      max_write_lines=max_write_lines, open_bursts=open_bursts, hold=hold)
    bench = Bench(dut, "BurstMerger", pause=pause)
    bench.source("i", dut.i, requests)
    bench.sink("bursts", dut.bursts)
    bench.sink("lines", dut.lines, sum(r["write"] for r in requests))
    bench.until(lambda: sum(b["len"] + 1 for b in bench.received["bursts"]) == len(requests))
    bench.run()
    return bench


def emitted_order(requests, bursts):
    """Each request's position in the order its burst left; the bursts must cover the
    requests exactly, each burst's lines one stream's (a read's tag) in request order."""
    pending = {}
    for index, r in enumerate(requests):
        key = (r["write"], None if r["write"] else r["tag"], r["addr"])
        pending.setdefault(key, []).append(index)
    position = [None] * len(requests)
    for number, b in enumerate(bursts):
        previous = -1
        for k in range(b["len"] + 1):
            key = (b["write"], None if b["write"] else b["tag"], b["addr"] + k)
            assert pending.get(key), f"burst {b} covers a line not requested: {key}"
            index = pending[key].pop(0)
            assert index > previous, f"burst {b} joins requests out of order"
            previous = index
            position[index] = number
    assert None not in position
    return position


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("open_bursts, hold", [(4, 16), (2, 3), (16, 0)])
def test_open_bursts_keep_the_order_that_matters(open_bursts, hold, pause):
    """Interleaved streams through several open bursts: every burst within its limits and
    its page; each tag's reads and all writes leave in request order; a read and a write of
    one line leave in the order they came (so the master's checks of bursts in flight see
    them in that order)."""
    requests = interleaved_streams(random.Random(open_bursts * 100 + hold), 400)
    bench = run_open_merger(requests, open_bursts=open_bursts, hold=hold, pause=pause)
    bursts = bench.received["bursts"]
    for b in bursts:
        assert b["len"] < (4 if b["write"] else 16)
        assert b["addr"] // 64 == (b["addr"] + b["len"]) // 64, f"{b} crosses 4 KiB"
    position = emitted_order(requests, bursts)
    by_tag = {}
    for index, r in enumerate(requests):
        by_tag.setdefault(None if r["write"] else r["tag"], []).append(index)
    for tag, indices in by_tag.items():
        got = [position[i] for i in indices]
        assert got == sorted(got), f"stream {tag} out of order"
    writes = [i for i, r in enumerate(requests) if r["write"]]
    reads = [i for i, r in enumerate(requests) if not r["write"]]
    for w in writes:
        for r in reads:
            if requests[r]["addr"] != requests[w]["addr"]:
                continue
            assert (position[r] < position[w]) == (r < w), \
                f"read {requests[r]} and write {requests[w]} left out of order"
    bench.check_equal(bench.received["lines"],
                      [{"wdata": r["wdata"], "wmask": r["wmask"]} for r in requests
                       if r["write"]], "write lines")


@pytest.mark.parametrize("streams", [2, 3, 4])
def test_interleaved_tags_form_bursts(streams):
    """Streams of reads on their own tags, one request each in turn: with an open burst per
    tag and a hold longer than a turn, each tag's lines leave in bursts of several lines;
    with one open burst, every burst is one line."""
    requests = [{"addr": 100 * j + n, "write": 0, "wdata": 0, "wmask": 0, "tag": j}
                for n in range(24) for j in range(streams)]
    single = run_open_merger(requests, open_bursts=1, hold=0, pause=None)
    assert all(b["len"] == 0 for b in single.received["bursts"])
    bench = run_open_merger(requests, open_bursts=4, hold=2 * streams, pause=None)
    bursts = bench.received["bursts"]
    emitted_order(requests, bursts)
    assert len(bursts) <= len(requests) // 2, bursts
    assert all(b["addr"] // 64 == (b["addr"] + b["len"]) // 64 for b in bursts)


def test_a_held_burst_leaves_within_the_hold():
    """With other requests coming every cycle, a stream's read burst (one starting where its
    tag's last burst ended) that nothing continues is offered ``hold`` cycles later than it
    would be alone at the port (the cycle after it was taken); a burst that continues no
    stream is not held."""
    hold = 5
    dut = BurstMerger(addr_width=10, tag_width=2, max_lines=8, max_write_lines=8,
                      open_bursts=4, hold=hold)
    offers = []

    def request(cycle):
        """(valid, tag, line) offered in ``cycle``."""
        if cycle in (0, 2):                 # tag 1: line 499, then 500, its stream's next
            return 1, 1, 499 + cycle // 2
        if cycle == 3:                      # tag 0: one line of no stream
            return 1, 0, 900
        if 4 <= cycle <= 15:                # tag 2 streams lines 0 to 11
            return 1, 2, cycle - 4
        if cycle == 22:                     # tag 3, alone
            return 1, 3, 700
        return 0, 0, 0

    async def bench(ctx):
        ctx.set(dut.bursts.ready, 1)
        ctx.set(dut.lines.ready, 1)
        for cycle in range(30):
            valid, tag, line = request(cycle)
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload.tag, tag)
            ctx.set(dut.i.payload.addr, line)
            _, _, valid, payload = await ctx.tick().sample(dut.bursts.valid,
                                                          dut.bursts.payload)
            if valid:
                offers.append((cycle, int(payload.tag), int(payload.addr), int(payload.len)))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    # Tag 1's first line leaves alone; its second waits ``hold`` cycles longer than a lone
    # one would; tag 0's line of no stream leaves the first cycle nothing continues it; tag
    # 2's stream fills a burst, and its rest leaves as the requests stop.
    assert offers == [(1, 1, 499, 0), (4, 0, 900, 0), (2 + hold + 1, 1, 500, 0),
                      (12, 2, 0, 7), (16, 2, 8, 3), (23, 3, 700, 0)], offers


def test_open_bursts_and_hold_are_checked():
    with pytest.raises(ConfigError, match="open_bursts must be an integer from 1 to 16"):
        BurstMerger(addr_width=10, tag_width=2, max_lines=4, max_write_lines=4, open_bursts=0)
    with pytest.raises(ConfigError, match="hold must be an integer from 0 to 255"):
        BurstMerger(addr_width=10, tag_width=2, max_lines=4, max_write_lines=4, hold=256)


@pytest.mark.parametrize("pause", PAUSES)
def test_reads_of_lines_just_written_leave_after_the_writes(pause):
    """A read stream following a write stream line by line (each line read just after it is
    written) beside a read stream of its own, so read bursts are open while writes come: a
    read of a line leaves after the write before it, and a write after the read before it."""
    rng = random.Random(7)
    requests = []
    for run in range(12):
        base, other = rng.randrange(1 << 10), rng.randrange(1 << 10)
        for n in range(rng.randint(2, 10)):
            line = (base + n) % (1 << 10)
            requests += [{"addr": line, "write": 1, "wdata": n, "wmask": 1, "tag": 0},
                         {"addr": line, "write": 0, "wdata": 0, "wmask": 0, "tag": 1},
                         {"addr": (other + n) % (1 << 10), "write": 0, "wdata": 0,
                          "wmask": 0, "tag": 2}]
    bench = run_open_merger(requests, open_bursts=4, hold=8, pause=pause)
    position = emitted_order(requests, bench.received["bursts"])
    for w, write in enumerate(requests):
        for r, read in enumerate(requests):
            if write["write"] and not read["write"] and read["addr"] == write["addr"]:
                assert (position[r] < position[w]) == (r < w), \
                    f"read {r} and write {w} of line {read['addr']} left out of order"
