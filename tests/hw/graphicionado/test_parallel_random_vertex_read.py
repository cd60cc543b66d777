# amaranth: UnusedElaboratable=no
"""Parallel destination-property readers (Graphicionado §V.C) in Amaranth's simulator, each
reader with its own memory model: every edge comes out once with ``dst_prop`` =
VProperty[dst] (NumPy indexing), fields unchanged; readers interleave, so the order is
compared per edge (each edge numbered in its ``prop``); with one and with two partitions of
VProperty; with and without pauses."""

import random

import numpy as np
import pytest

from hw.graphicionado.parallel_random_vertex_read import ParallelRandomVertexRead
from hw.lib.config import ConfigError
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

VPROP_BASE = 7
N = 200


def test_readers_are_checked():
    with pytest.raises(ConfigError):
        ParallelRandomVertexRead(readers=1, addr_width=16)


@pytest.mark.parametrize("readers,partitions", [(2, 1), (3, 2)])
@pytest.mark.parametrize("pause", PAUSES)
def test_every_edge_gets_its_destination_property(pause, readers, partitions):
    rng = random.Random(f"prvr/{pause}/{readers}")
    vprop = np.array([rng.randrange(1 << 32) for _ in range(N)], dtype=np.uint32)
    part_lines = 10
    if partitions == 1:
        lines = words_to_lines(vprop, VPROP_BASE)
    else:
        lines = {}
        for p in range(partitions):
            lines.update(words_to_lines(vprop[p::partitions], VPROP_BASE + p * part_lines))
    edges = [{"edge": {"src": rng.randrange(N), "dst": rng.choice([0, N - 1, rng.randrange(N)]),
                       "weight": rng.randrange(1 << 32), "reserved": rng.randrange(1 << 32)},
              "prop": k, "const": rng.randrange(1 << 32)} for k in range(250)]
    dut = ParallelRandomVertexRead(readers=readers, addr_width=16, outstanding=8,
                                   partitions=partitions)
    bench = Bench(dut, "ParallelRandomVertexRead", pause=pause)
    models = [serve_memory(bench, f"mem{k}", dut.mem[k], lines, pause)
              for k in range(readers)]

    async def hold(ctx):
        ctx.set(dut.vprop_base, VPROP_BASE)
        ctx.set(dut.part_lines, part_lines)

    bench.add_process(hold)
    bench.source("i", dut.i, edges)
    bench.sink("o", dut.o, len(edges))
    idle = []
    bench.at_end(lambda ctx: idle.append(ctx.get(dut.busy)))
    bench.run()
    got = sorted(bench.received["o"], key=lambda e: e["prop"])
    want = [dict(e, dst_prop=int(vprop[e["edge"]["dst"]])) for e in edges]
    bench.check_equal(got, want, "edges (by number)")
    assert idle == [0]
    assert all(model.reads > 0 for model in models), "a reader was never given work"
