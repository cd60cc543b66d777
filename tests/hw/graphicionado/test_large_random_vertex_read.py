"""Random Vertex Read (P4) for large properties (§IV.E) against a line memory model: every
flit of an edge packet leaves with its words of VProperty[dst], in order, for properties of
a line and more (CF's 128 bytes: two lines, two flits a line) and smaller ones that share a
line, over one and two partitions, with and without pauses and a slow memory."""

import numpy as np
import pytest

from hw.graphicionado.large_random_vertex_read import LargeRandomVertexRead
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

VPROP_BASE = 5
PART_LINES = 100


def vprop_lines(vprop, partitions):
    """VProperty (n, K) in memory: vertex v at word (v >> log2 P) * K of partition v % P."""
    lines = {}
    for p in range(partitions):
        words = vprop[p::partitions].ravel()
        lines.update(words_to_lines(words, VPROP_BASE + p * PART_LINES))
    return lines


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("lanes, flits, partitions", [(8, 4, 1), (8, 4, 2), (4, 1, 1),
                                                      (2, 2, 2), (8, 1, 1)])
def test_flits_get_their_words(lanes, flits, partitions, pause):
    rng = np.random.default_rng(lanes * 100 + flits * 10 + partitions)
    n, K, edges = 48, lanes * flits, 40
    assert n // partitions * K <= PART_LINES * 16
    vprop = rng.integers(0, 1 << 32, (n, K), dtype=np.uint64).astype(np.uint32)
    dst = rng.integers(0, n, edges)
    dst[:3] = [0, n - 1, 1]
    items, want = [], []
    for e in range(edges):
        edge = {"src": int(rng.integers(n)), "dst": int(dst[e]), "weight": e, "reserved": 0}
        for f in range(flits):
            src_prop = [int(x) for x in rng.integers(0, 1 << 32, lanes, dtype=np.uint64)]
            items.append({"edge": edge, "flit": f, "src_prop": src_prop})
            want.append({**items[-1], "dst_prop": [int(x) for x in
                                                   vprop[dst[e], f * lanes:(f + 1) * lanes]]})
    dut = LargeRandomVertexRead(addr_width=16, lanes=lanes, flits=flits, outstanding=16,
                                partitions=partitions)
    bench = Bench(dut, f"LargeRandomVertexRead({lanes} lanes, {flits} flits, "
                       f"{partitions} partitions)", pause=pause)

    async def registers(ctx):
        ctx.set(dut.vprop_base, VPROP_BASE)
        ctx.set(dut.part_lines, PART_LINES)
    bench.sim.add_testbench(registers)
    serve_memory(bench, "mem", dut.mem, vprop_lines(vprop, partitions), pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(want))
    bench.run()
    bench.check_equal(bench.received["o"], want)


@pytest.mark.parametrize("change, message", [(dict(lanes=32), "lanes must be a power of two"),
                                             (dict(flits=3), "flits must be a power of two"),
                                             (dict(outstanding=1), "outstanding")])
def test_refuses_what_it_cannot_build(change, message):
    from hw.lib.config import ConfigError
    with pytest.raises(ConfigError, match=message):
        LargeRandomVertexRead(**{"addr_width": 16, "lanes": 8, "flits": 4, **change})
