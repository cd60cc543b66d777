"""Packet Source Merge (full edge access with large properties, §IV.E): every edge leaves as
a packet of flits carrying its source's property, in edge order, vertices without edges
skipped, an edge of the wrong source flagged."""

import numpy as np
import pytest

from hw.graphicionado.packet_source_merge import PacketSourceMerge
from tests.support.stream_drivers import PAUSES, Bench


def graph_items(rng, n, lanes, flits, const_words=2):
    degree = rng.integers(0, 4, n)
    degree[rng.random(n) < 0.3] = 0
    K = lanes * flits
    prop = rng.integers(0, 1 << 32, (n, K), dtype=np.uint64)
    props = [{"index": v * flits + f,
              "data": sum(int(w) << (32 * k) for k, w in enumerate(prop[v, f * lanes:(f + 1) *
                                                                        lanes]))}
             for v in range(n) for f in range(flits)]
    consts = [{"index": v, "data": int(degree[v]) << 32} for v in range(n)]
    edges, want = [], []
    for v in range(n):
        for _ in range(degree[v]):
            edge = {"src": v, "dst": int(rng.integers(n)), "weight": int(rng.integers(99)),
                    "reserved": 0}
            edges.append({"edge": edge, "prop": 0, "const": 0})
            want += [{"edge": edge, "flit": f,
                      "src_prop": [int(w) for w in prop[v, f * lanes:(f + 1) * lanes]]}
                     for f in range(flits)]
    return props, consts, edges, want


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("lanes, flits", [(8, 4), (4, 1), (2, 2)])
def test_edges_leave_as_packets(lanes, flits, pause):
    rng = np.random.default_rng(lanes + 10 * flits)
    props, consts, edges, want = graph_items(rng, 30, lanes, flits)
    dut = PacketSourceMerge(lanes=lanes, flits=flits)
    bench = Bench(dut, f"PacketSourceMerge({lanes} lanes, {flits} flits)", pause=pause)
    bench.source("prop", dut.prop, props)
    bench.source("const", dut.const, consts)
    bench.source("edges", dut.edges, edges)
    bench.sink("o", dut.o, len(want))
    cycles = bench.run()
    bench.check_equal(bench.received["o"], want)
    if pause is None and cycles > len(want) + 30 * flits // 2 + 40:
        bench.fail(f"{cycles} cycles for {len(want)} flits without pauses")


def test_an_edge_of_another_source_is_flagged():
    rng = np.random.default_rng(3)
    props, consts, edges, want = graph_items(rng, 12, 2, 2)
    edges[3] = {**edges[3], "edge": {**edges[3]["edge"], "src": 99}}
    dut = PacketSourceMerge(lanes=2, flits=2)
    bench = Bench(dut, "PacketSourceMerge(bad edge)", pause=None)
    bench.source("prop", dut.prop, props)
    bench.source("const", dut.const, consts)
    bench.source("edges", dut.edges, edges)
    bench.sink("o", dut.o, len(want))
    bench.at_end(lambda ctx: None if ctx.get(dut.mismatch) else bench.fail("no mismatch"))
    bench.run()
