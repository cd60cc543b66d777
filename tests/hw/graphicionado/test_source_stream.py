"""A source stream (P1–P3, §V.A) on its own: given the memory image the host lays out for n
source and m destination streams, stream s hands out exactly the edges of the sources it
owns (low log2(n) bits = s), partition by partition, each with its source's property (and
1/outdeg for PageRank), in the order the partitions lie in memory; under pauses and a
memory that delays and refuses requests. With parallel edge readers (§V.B): for PageRank
reader k's output carries exactly the edges whose dstid is k modulo the readers, in that
order; for CC the readers' merged output carries every edge once, each vertex's edges in
order."""

import numpy as np
import pytest

from golden import Graph, pagerank_inv_outdeg
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.source_stream import SOURCE_REGISTERS, SourceStream
from sim.amaranth_memory import words_to_lines
from sim.graphicionado.image import build_image
from tests.support.stream_drivers import PAUSES, Bench, serve_memory


def small_graph(seed=3, n=50, m=220):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    return Graph.from_edges(n, src, dst, rng.integers(1, 9, m))


def expected_edges(graph, algo, index, streams_src, partitions):
    """(src, dst, prop, const) of each edge stream ``index`` must hand out, in order (one
    reader)."""
    inverse = pagerank_inv_outdeg(graph).view(np.uint32) if algo == "pagerank" else None
    out = []
    for part in range(index, partitions, streams_src):
        for v in range(part, graph.num_vertices, partitions):
            lo, hi = graph.offsets[v], graph.offsets[v + 1]
            for e in range(lo, hi):
                if algo == "pagerank":
                    out.append((v, int(graph.dst[e]), 0x3F80_0000, int(inverse[v])))
                else:       # CC: every vertex active with its own id as property
                    out.append((v, int(graph.dst[e]), v, 0))
    return out


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo", ["cc", "pagerank"])
@pytest.mark.parametrize("streams,index,readers", [((1, 1), 0, 1), ((2, 4), 1, 1),
                                                   ((4, 2), 2, 1), ((2, 2), 1, 3),
                                                   ((1, 2), 0, 2)])
def test_source_stream_hands_out_its_edges(algo, streams, index, readers, pause):
    graph = small_graph()
    n, m = streams
    config = GraphicionadoConfig(algo=algo, max_vertices=64, edge_prefetch_lines=4,
                                 streams_src=n, streams_dst=m, edge_readers=readers)
    image = build_image(graph, algo=algo, streams_src=n, streams_dst=m, edge_readers=readers,
                        edge_words=config.edge_words)
    lines = words_to_lines(image.dram.to_lines().reshape(-1))
    dut = SourceStream(config, index)
    bench = Bench(dut, f"SourceStream {index} of {n}x{m} {algo} {readers} readers",
                  pause=pause)
    for name, port in dut.memory_clients:
        serve_memory(bench, name, port, lines, pause)
    want = expected_edges(graph, algo, index, n, config.partitions)
    outputs = config.source_outputs
    wants = [[e for e in want if outputs == 1 or e[1] % outputs == k] for k in range(outputs)]
    for k, port in enumerate(dut.o):
        bench.sink(f"o{k}", port, len(wants[k]),
                   convert=lambda p: (p["edge"]["src"], p["edge"]["dst"], p["prop"],
                                      p["const"]))
    regs = image.registers
    started = []

    async def control(ctx):
        for name in SOURCE_REGISTERS:
            ctx.set(getattr(dut, name), regs[name])
        ctx.set(dut.active_base, regs["active_base_a"])
        for k in range(config.source_segments):
            part = index + n * k
            if algo == "pagerank":
                for r in range(readers):
                    group = part * readers + r
                    ctx.set(dut.edge_starts[k * readers + r], regs[f"edge_part_{group}"])
                    ctx.set(dut.edge_ends[k * readers + r], regs[f"edge_part_{group + 1}"])
            else:
                ctx.set(dut.active_counts[k], regs[f"active_count_{part}"])
        if algo != "pagerank":
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            await ctx.tick().repeat(2)
            while ctx.get(dut.loading):
                await ctx.tick()
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        started.append(True)

    bench.add_process(control)
    bench.until(lambda: started)
    bench.at_end(lambda ctx: ctx.get(dut.busy) and bench.fail("busy after the last edge"))
    bench.run()
    if readers > 1 and algo != "pagerank":
        got = bench.received["o0"]
        bench.check_equal(sorted(got), sorted(want), "edges (any order across vertices)")
        for v in {e[0] for e in want}:
            bench.check_equal([e for e in got if e[0] == v], [e for e in want if e[0] == v],
                              f"edges of vertex {v}")
        return
    for k in range(outputs):
        bench.check_equal(bench.received[f"o{k}"], wants[k],
                          f"edges with their source operands (reader {k})")
