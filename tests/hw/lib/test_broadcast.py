# amaranth: UnusedElaboratable=no
"""The two small stream blocks of the parallel readers (§V.B–C): StreamBroadcast hands every
word to every output, in order, each output at its own pace and holding its offers (rule 2);
LowestOccupancyDispatch sends each word to the ready output with the lowest occupancy (the
lowest index on a tie), and to nothing when none is ready."""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.lib.stream.lowest_occupancy import LowestOccupancyDispatch
from hw.lib.stream.broadcast import StreamBroadcast
from tests.support.stream_drivers import PAUSES, Bench


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("count", [1, 3])
def test_broadcast_gives_every_word_to_every_output(count, pause):
    words = [random.Random(7).randrange(1 << 16) + i for i in range(200)]
    dut = StreamBroadcast(16, count)
    bench = Bench(dut, f"StreamBroadcast x{count}", pause=pause)
    bench.source("i", dut.i, words)
    for k in range(count):
        bench.sink(f"o{k}", dut.o[k], len(words))
    bench.run()
    for k in range(count):
        bench.check_equal(bench.received[f"o{k}"], words, f"output {k}")


def test_dispatch_chooses_the_lowest_ready_occupancy():
    count = 4
    dut = LowestOccupancyDispatch(8, count, level_width=4)
    rng = random.Random(3)

    async def bench(ctx):
        for cycle in range(400):
            levels = [rng.randrange(16) for _ in range(count)]
            ready = [rng.random() < 0.6 for _ in range(count)]
            valid = rng.random() < 0.8
            for k in range(count):
                ctx.set(dut.levels[k], levels[k])
                ctx.set(dut.o[k].ready, ready[k])
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload, cycle & 0xFF)
            await ctx.delay(1e-9)
            candidates = [k for k in range(count) if ready[k]]
            want = min(candidates, key=lambda k: (levels[k], k)) if candidates else None
            got = [k for k in range(count) if ctx.get(dut.o[k].valid)]
            assert ctx.get(dut.i.ready) == (want is not None)
            assert got == ([want] if valid and want is not None else []), \
                (cycle, levels, ready, got, want)
            if got:
                assert ctx.get(dut.o[got[0]].payload) == cycle & 0xFF
            await ctx.delay(1e-9)

    sim = Simulator(dut)      # combinational: no clock
    sim.add_testbench(bench)
    sim.run()


def test_bad_counts_are_refused():
    with pytest.raises(ConfigError, match="count must be at least 2"):
        LowestOccupancyDispatch(8, 1, level_width=3)
    with pytest.raises(ConfigError, match="count must be at least 1"):
        StreamBroadcast(8, 0)
