"""The hub cache in Amaranth's simulator: over several levels, each level's lookups hit
exactly the hubs the level before inserted (the largest id per slot), whatever the order
and timing of the inserts, and never the current level's or an older level's."""

import random

import pytest

from hw.bfs.hub_cache import HubCache
from tests.support.stream_drivers import PAUSES, Bench

ENTRIES = 8


def model_table(inserted):
    table = {}
    for v in inserted:
        slot = v % ENTRIES
        table[slot] = max(table.get(slot, -1), v)
    return table


@pytest.mark.parametrize("entries", [0, ENTRIES])
@pytest.mark.parametrize("pause", PAUSES)
def test_lookups_hit_the_previous_levels_hubs(entries, pause):
    rng = random.Random(f"cache/{pause}")
    levels = 6
    inserts = [[rng.randrange(64) for _ in range(rng.randrange(0, 12))] for _ in range(levels)]
    lookups = [[{"vertex": rng.randrange(64), "ctx": k % 16} for k in range(20)]
               for _ in range(levels)]
    # Some lookups of ids the level before inserted, so hits happen.
    for level in range(1, levels):
        for v in inserts[level - 1][:4]:
            lookups[level].append({"vertex": v, "ctx": 3})
    dut = HubCache(entries=entries, ctx_width=4)
    bench = Bench(dut, "HubCache", pause=pause)
    insert_queue = bench.feed("insert", dut.insert)
    lookup_queue = bench.feed("lookup", dut.lookup)
    total = sum(len(q) for q in lookups)
    bench.sink("answer", dut.answer, None)
    marks = []

    async def driver(ctx):
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        while ctx.get(dut.busy):
            await ctx.tick()
        answered = 0
        for level in range(levels):
            ctx.set(dut.level, level)
            await ctx.tick()
            insert_queue.extend(inserts[level])
            lookup_queue.extend(lookups[level])
            answered += len(lookups[level])
            while insert_queue or lookup_queue or len(bench.received["answer"]) < answered:
                await ctx.tick()
            await ctx.tick().repeat(3)
            marks.append(answered)
        # A clear empties both tables: level 1 again finds nothing of level 0.
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        await ctx.tick()
        while ctx.get(dut.busy):
            await ctx.tick()
        ctx.set(dut.level, 1)
        lookup_queue.extend(after_clear)
        while lookup_queue or len(bench.received["answer"]) < total + len(after_clear):
            await ctx.tick()
        marks.append(None)

    after_clear = [{"vertex": v, "ctx": 1} for v in inserts[0]] or [{"vertex": 1, "ctx": 1}]
    bench.add_process(driver)
    bench.until(lambda: len(marks) == levels + 1)
    bench.run()
    got = bench.received["answer"]
    start = 0
    for level in range(levels):
        table = model_table(inserts[level - 1]) if level and entries else {}
        for q, a in zip(lookups[level], got[start:start + len(lookups[level])]):
            want = int(table.get(q["vertex"] % ENTRIES) == q["vertex"])
            assert (a["vertex"], a["ctx"], a["hit"]) == (q["vertex"], q["ctx"], want), \
                (level, q, a)
        start += len(lookups[level])
    assert [a["hit"] for a in got[start:]] == [0] * len(got[start:]) and len(got) > start
