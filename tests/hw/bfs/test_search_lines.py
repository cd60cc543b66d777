# amaranth: UnusedElaboratable=no
"""The bottom-up search lines in Amaranth's simulator: random line writes to random slots
(every cycle some) and random word lookups; each answer is the word of the slot's line as it
stood when the lookup was taken (a write of the same cycle already counts), with the lookup's
ctx, in order; a monitor replays the writes and lookups cycle by cycle on a Python dict; with
and without pauses."""

import random

import pytest

from hw.bfs.search_lines import SearchLines
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench

SLOTS = 6


def test_slots_are_checked():
    with pytest.raises(ConfigError):
        SearchLines(slots=0, ctx_width=4)


@pytest.mark.parametrize("pause", PAUSES)
def test_lookups_read_the_line_held_when_taken(pause):
    rng = random.Random(f"lines/{pause}")
    lookups = [{"slot": rng.randrange(SLOTS), "word": rng.randrange(16), "ctx": k % 128}
               for k in range(300)]
    dut = SearchLines(slots=SLOTS, ctx_width=7)
    bench = Bench(dut, "SearchLines", pause=pause)
    bench.source("lookup", dut.lookup, lookups)
    bench.sink("neighbour", dut.neighbour, len(lookups))
    lines = {s: 0 for s in range(SLOTS)}
    expected = []

    async def writer(ctx):
        # Every slot written once first (the store has no initial contents).
        for slot in range(SLOTS):
            ctx.set(dut.write_en, 1)
            ctx.set(dut.write.slot, slot)
            ctx.set(dut.write.line, rng.randrange(1 << 512))
            await ctx.tick()
        while True:
            ctx.set(dut.write_en, rng.random() < 0.4)
            ctx.set(dut.write.slot, rng.randrange(SLOTS))
            ctx.set(dut.write.line, rng.randrange(1 << 512))
            await ctx.tick()

    async def monitor(ctx):
        async for _, _, en, slot, line, valid, ready, look in ctx.tick().sample(
                dut.write_en, dut.write.slot, dut.write.line, dut.lookup.valid,
                dut.lookup.ready, dut.lookup.payload):
            if en:
                lines[slot] = line
            if valid and ready:
                expected.append({"vertex": lines[int(look.slot)] >> 32 * int(look.word)
                                 & 0xFFFF_FFFF, "ctx": int(look.ctx)})

    bench.add_process(writer)
    bench.add_process(monitor)
    bench.run()
    bench.check_equal(bench.received["neighbour"], expected, "neighbours")
