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
