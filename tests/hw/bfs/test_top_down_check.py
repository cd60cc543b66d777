"""The BFS top-down check in Amaranth's simulator: frontier entries of a random graph (edge
ranges into its CSR destination array) and a random status array; every out-edge read, the
status of its destination looked up, the unvisited destinations discovered with their source
as parent, in edge order, and the edges counted; against a Python loop over the frontier's
edges; with and without pauses of the entries, discoveries and both memories."""

import random

import numpy as np
import pytest

from hw.bfs.layouts import UNVISITED
from hw.bfs.top_down_check import TopDownCheck
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

EDGES_BASE, LEVELS_BASE = 10, 300
VERTICES = 120


@pytest.mark.parametrize("pause", PAUSES)
def test_discoveries_are_the_unvisited_destinations(pause):
    rng = random.Random(f"topdown/{pause}")
    degree = [rng.choice([0, 1, 2, 5, 17, 40]) for _ in range(VERTICES)]
    offsets = np.concatenate(([0], np.cumsum(degree)))
    dst = np.array([rng.randrange(VERTICES) for _ in range(offsets[-1])], dtype=np.uint32)
    levels = np.array([rng.choice([UNVISITED, UNVISITED, 0, 1, 2]) for _ in range(VERTICES)],
                      dtype=np.uint32)
    frontier = rng.sample(range(VERTICES), 40)
    entries = [{"entry": {"vertex": v, "first": int(offsets[v]), "count": degree[v],
                          "spare": 0}, "cls": rng.randrange(4), "lane": rng.randrange(16)}
               for v in frontier]
    expected = [{"vertex": int(w), "parent": v} for v in frontier
                for w in dst[offsets[v]:offsets[v + 1]] if levels[w] == UNVISITED]
    checked = sum(degree[v] for v in frontier)
    dut = TopDownCheck(addr_width=16, window=4, outstanding=8)
    bench = Bench(dut, "TopDownCheck", pause=pause)
    serve_memory(bench, "edges_mem", dut.edges_mem, words_to_lines(dst, EDGES_BASE), pause)
    serve_memory(bench, "status_mem", dut.status_mem, words_to_lines(levels, LEVELS_BASE),
                 pause)
    bench.source("entries", dut.entries, entries)
    bench.sink("discoveries", dut.discoveries, len(expected))
    counted = []

    async def drive(ctx):
        ctx.set(dut.edges_base, EDGES_BASE)
        ctx.set(dut.levels_base, LEVELS_BASE)
        while bench.sent["entries"] < len(entries) or ctx.get(dut.busy):
            await ctx.tick()
        counted.append(ctx.get(dut.edges_checked))

    bench.add_process(drive)
    bench.until(lambda: bool(counted))
    bench.run()
    bench.check_equal(bench.received["discoveries"], expected, "discoveries")
    assert counted == [checked]
