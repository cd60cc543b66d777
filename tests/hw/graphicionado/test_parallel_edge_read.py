# amaranth: UnusedElaboratable=no
"""Parallel edge readers (Graphicionado §V.B, figure 9a) in Amaranth's simulator, each reader
with its own memory model holding the edge array of a random sorted graph: every active
vertex's job yields exactly its edges (a NumPy slice of the CSR arrays), in order within the
vertex, with the job's prop and const; vertices may interleave, so each vertex's sequence is
compared on its own, and the set of edges as a whole; ``busy`` clear at the end; with and
without pauses."""

import random

import numpy as np
import pytest

from hw.graphicionado.parallel_edge_read import ParallelEdgeRead
from hw.lib.config import ConfigError
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

EDGE_BASE = 2


def test_parameters_are_checked():
    with pytest.raises(ConfigError):
        ParallelEdgeRead(readers=1, addr_width=16)
    with pytest.raises(ConfigError):
        ParallelEdgeRead(readers=2, addr_width=16, queue_depth=0)


@pytest.mark.parametrize("readers", [2, 3])
@pytest.mark.parametrize("pause", PAUSES)
def test_each_vertex_gets_its_edges_in_order(pause, readers):
    rng = np.random.default_rng(readers + (pause or 0))
    n, m = 50, 400
    src = np.sort(rng.integers(0, n, m)).astype(np.uint32)
    dst = rng.integers(0, n, m).astype(np.uint32)
    weight = rng.integers(1, 1000, m).astype(np.uint32)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    words = np.stack([src, dst, weight, np.zeros_like(src)], axis=1).reshape(-1)
    lines = words_to_lines(words, EDGE_BASE)
    active = [v for v in random.Random(readers).sample(range(n), 30) if offsets[v + 1] > offsets[v]]
    jobs = [{"src": v, "prop": 1000 + v, "const": 7 * v, "start": int(offsets[v]),
             "end": int(offsets[v + 1])} for v in active]
    want = {v: [(v, int(dst[e]), int(weight[e]), 1000 + v, 7 * v)
                for e in range(offsets[v], offsets[v + 1])] for v in active}
    total = sum(len(x) for x in want.values())
    dut = ParallelEdgeRead(readers=readers, addr_width=16)
    bench = Bench(dut, "ParallelEdgeRead", pause=pause)
    models = [serve_memory(bench, f"mem{k}", dut.mem[k], lines, pause)
              for k in range(readers)]

    async def start(ctx):
        ctx.set(dut.edge_base, EDGE_BASE)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)

    bench.add_process(start)
    bench.source("i", dut.i, jobs)
    bench.sink("o", dut.o, total)
    idle = []
    bench.at_end(lambda ctx: idle.append(ctx.get(dut.busy)))
    bench.run()
    got = {}
    for item in bench.received["o"]:
        edge = item["edge"]
        got.setdefault(edge["src"], []).append((edge["src"], edge["dst"], edge["weight"],
                                                item["prop"], item["const"]))
    for v in active:
        bench.check_equal(got.get(v, []), want[v], f"vertex {v}'s edges")
    assert set(got) == set(active)
    assert idle == [0]
    assert all(model.reads > 0 for model in models), "a reader was never given work"
