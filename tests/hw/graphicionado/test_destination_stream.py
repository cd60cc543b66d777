"""A destination stream (P4–P9 and the apply phase, §V.A) on its own: fed the edges whose
destination it owns, it reduces them into its scratchpad slice and, in the apply phase,
writes each partition it owns back to memory (VProperty) with the ActiveVertex list of the
vertices whose property fell, and the lists' lengths; it touches no other partition. SSSP
operands (prop + weight, min), without P4, with it and with three P4 readers (§V.C), under
pauses and a memory that delays and refuses requests."""

import random

import numpy as np
import pytest

from golden import Graph
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.destination_stream import DestinationStream
from sim.amaranth_memory import lines_to_words, words_to_lines
from sim.graphicionado.image import build_image
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

INF = 0xFFFF_FFFF


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("p4", [0, 1, 3])
@pytest.mark.parametrize("streams,index", [((1, 1), 0), ((4, 2), 1), ((2, 4), 3)])
def test_destination_stream_reduces_and_applies(streams, index, p4, pause):
    rng = random.Random(f"{streams}/{index}")
    num_vertices = 45
    n, m = streams
    graph = Graph.from_edges(num_vertices, [0], [1])     # only the layout matters here
    image = build_image(graph, algo="sssp", root=0, streams_src=n, streams_dst=m)
    regs = image.registers
    config = GraphicionadoConfig(algo="sssp", max_vertices=64, streams_src=n, streams_dst=m,
                                 dst_property_read=p4 > 0, dst_prop_readers=max(1, p4))
    old = np.full(num_vertices, INF, dtype=np.int64)
    old[0] = 0
    owned = [v for v in range(num_vertices) if v % m == index]
    edges = []
    for _ in range(120):
        v = rng.choice(owned)
        edges.append({"src": rng.randrange(num_vertices), "dst": v,
                      "weight": rng.randrange(1, 20), "prop": rng.randrange(0, 50)})
    temp = {}
    for e in edges:
        temp[e["dst"]] = min(temp.get(e["dst"], INF), e["prop"] + e["weight"])

    lines = words_to_lines(image.dram.to_lines().reshape(-1))
    dut = DestinationStream(config, index)
    bench = Bench(dut, f"DestinationStream {index} of {n}x{m}", pause=pause)
    memory = {name: serve_memory(bench, name, port, lines, pause)
              for name, port in dut.memory_clients}
    feed = bench.feed("i", dut.i)
    done = []

    async def control(ctx):
        for name in ("num_vertices", "part_lines", "vprop_base"):
            ctx.set(getattr(dut, name), regs[name])
        ctx.set(dut.active_base, regs["active_base_b"])
        ctx.set(dut.region_vertices, regs["num_vertices"])     # clear the whole slice
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        await ctx.tick()
        while ctx.get(dut.clearing):
            await ctx.tick()
        ctx.set(dut.start_process, 1)
        await ctx.tick()
        ctx.set(dut.start_process, 0)
        feed.extend({"edge": {"src": e["src"], "dst": e["dst"], "weight": e["weight"],
                              "reserved": 0}, "prop": e["prop"], "const": 0} for e in edges)
        while feed or not ctx.get(dut.drained):
            await ctx.tick()
        ctx.set(dut.start_apply, 1)
        await ctx.tick()
        ctx.set(dut.start_apply, 0)
        await ctx.tick().repeat(2)
        while ctx.get(dut.applying):
            await ctx.tick()
        done.append([ctx.get(count) for count in dut.active_counts])

    bench.add_process(control)
    bench.until(lambda: done)
    bench.run()

    # Each client's model keeps its own copy of the lines: read back from the writers'.
    base, count = image.dram.region("vprop")
    values = image.vertex_values(lines_to_words(memory["vprop_write"].lines, base, count))
    new = old.copy()
    for v, t in temp.items():
        new[v] = min(new[v], t)
    bench.check_equal(values.tolist(), new.astype(np.uint32).tolist(), "VProperty")
    per_part = regs["part_lines"] * 16
    base_b, _ = image.dram.region("active_b")
    partitions = config.partitions
    for j, got_count in enumerate(done[0]):
        part = index + m * j
        fell = [(v, int(new[v])) for v in range(part, num_vertices, partitions)
                if temp.get(v, INF) < old[v]]
        words = lines_to_words(memory["active_write"].lines, base_b + 2 * part * regs["part_lines"], 2 * per_part)
        got = [(int(words[2 * i]), int(words[2 * i + 1])) for i in range(got_count)]
        bench.check_equal(got, fell, f"ActiveVertex list of partition {part}")
