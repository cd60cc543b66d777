"""The BFS discovery writer in Amaranth's simulator, with a model of the hub bitmap's claim
port (a vertex of the hub set counts as a hub the first time it is claimed): each discovery
passed to the claim port in order; its level and parent written to their words of the status
and parent arrays (other words keep their contents), each new hub sent to the hub cache in
order, and the written and hub counters; against NumPy arrays and a Python set; with and
without pauses."""

import random

import numpy as np
import pytest

from hw.bfs.discovery_writer import DiscoveryWriter
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

LEVELS_BASE, PARENTS_BASE = 20, 200
VERTICES = 150
LEVEL = 5


@pytest.mark.parametrize("pause", PAUSES)
def test_levels_parents_and_new_hubs(pause):
    rng = random.Random(f"discovery/{pause}")
    levels = np.array([rng.randrange(1 << 32) for _ in range(VERTICES)], dtype=np.uint32)
    parents = np.array([rng.randrange(1 << 32) for _ in range(VERTICES)], dtype=np.uint32)
    hub_set = set(rng.sample(range(VERTICES), 30))
    discoveries = [{"vertex": rng.randrange(VERTICES), "parent": rng.randrange(1 << 32)}
                   for _ in range(250)]
    want_levels, want_parents = levels.copy(), parents.copy()
    claimed, want_inserts = set(), []
    for d in discoveries:
        want_levels[d["vertex"]] = LEVEL
        want_parents[d["vertex"]] = d["parent"]
        if d["vertex"] in hub_set and d["vertex"] not in claimed:
            claimed.add(d["vertex"])
            want_inserts.append(d["vertex"])
    dut = DiscoveryWriter(addr_width=16)
    bench = Bench(dut, "DiscoveryWriter", pause=pause)
    level_mem = serve_memory(bench, "levels_mem", dut.levels_mem,
                             words_to_lines(levels, LEVELS_BASE), pause)
    parent_mem = serve_memory(bench, "parents_mem", dut.parents_mem,
                              words_to_lines(parents, PARENTS_BASE), pause)
    bench.source("discoveries", dut.discoveries, discoveries)
    answers = bench.feed("claimed", dut.claimed)
    bitmap = set()

    def claim(d):
        new = d["vertex"] in hub_set and d["vertex"] not in bitmap
        bitmap.add(d["vertex"])
        answers.append({"discovery": d, "hub": int(new)})

    bench.sink("claim", dut.claim, len(discoveries), on_item=claim)
    bench.sink("insert", dut.insert, len(want_inserts))
    counters = []

    async def drive(ctx):
        ctx.set(dut.level, LEVEL)
        ctx.set(dut.levels_base, LEVELS_BASE)
        ctx.set(dut.parents_base, PARENTS_BASE)
        while bench.sent.get("claimed", 0) < len(discoveries) or ctx.get(dut.busy):
            await ctx.tick()
        await ctx.tick().repeat(20)
        counters.append((ctx.get(dut.written), ctx.get(dut.hubs)))

    bench.add_process(drive)
    bench.until(lambda: bool(counters))
    bench.run()
    bench.check_equal(bench.received["claim"], discoveries, "claims")
    bench.check_equal(bench.received["insert"], want_inserts, "hub cache inserts")
    bench.check_equal(lines_to_words(level_mem.lines, LEVELS_BASE, VERTICES).tolist(),
                      want_levels.tolist(), "levels")
    bench.check_equal(lines_to_words(parent_mem.lines, PARENTS_BASE, VERTICES).tolist(),
                      want_parents.tolist(), "parents")
    assert counters == [(len(discoveries), len(want_inserts))]
