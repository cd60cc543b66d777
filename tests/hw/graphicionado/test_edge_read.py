"""EdgeID Read and Edge Read against NumPy, in Amaranth's simulator."""

import random

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hw.graphicionado.edge_id_read import EdgeIDRead
from hw.graphicionado.edge_read import EdgeRead
from sim.amaranth_memory import LineMemoryModel, words_to_lines


def random_graph(seed, n=40, m=200):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    order = np.lexsort((dst, src))
    src, dst = src[order].astype(np.uint32), dst[order].astype(np.uint32)
    weight = rng.integers(1, 100, m).astype(np.uint32)
    offsets = np.zeros(n + 1, dtype=np.uint32)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    return n, src, dst, weight, offsets


def edge_words(src, dst, weight, words=4, coarsening=1):
    """The edges as stored: the paper's four words (srcid, dstid, weight, reserved), or the
    compact layout's dstid (and weight), with a coarsened table the source's place in its
    group in the dstid word's top bits."""
    bits = coarsening.bit_length() - 1
    if bits and words < 4:
        dst = dst | ((src % coarsening) << (32 - bits)).astype(np.uint32)
    columns = {4: [src, dst, weight, np.zeros_like(src)], 2: [dst, weight], 1: [dst]}[words]
    return np.stack(columns, axis=1).reshape(-1)


def run_edge_read(jobs, lines, *, match_any=False, prefetch=4, backpressure=False, seed=1,
                  words=4, tag_bits=0):
    dut = EdgeRead(addr_width=16, prefetch_lines=prefetch, edge_words=words,
                   tag_bits=tag_bits)
    memory_model = LineMemoryModel(lines, latency=9, jitter=4 if backpressure else 0,
                                   stall_probability=0.25 if backpressure else 0.0, seed=seed)
    rng = random.Random(seed)
    out = []
    given = []              # set once every job has been accepted
    idle_seen_at = []       # edges handed out when ``busy`` was seen low after that


    async def memory_process(ctx):
        await memory_model.serve(ctx, dut.mem)

    async def producer(ctx):
        ctx.set(dut.edge_base, 2)
        ctx.set(dut.match_any, match_any)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        for job in jobs:
            ctx.set(dut.i.valid, 1)
            ctx.set(dut.i.payload, job)
            while True:
                ready = ctx.get(dut.i.ready)
                await ctx.tick()
                if ready:
                    break
            ctx.set(dut.i.valid, 0)
            if backpressure and rng.random() < 0.3:
                await ctx.tick()
        given.append(True)

    async def consumer(ctx):
        while True:
            ready = not backpressure or rng.random() < 0.7
            ctx.set(dut.o.ready, ready)
            if ready and ctx.get(dut.o.valid):
                item = ctx.get(dut.o.payload)
                out.append((int(item.edge.src), int(item.edge.dst), int(item.edge.weight),
                            int(item.prop)))
            if given and not ctx.get(dut.busy):
                idle_seen_at.append(len(out))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(consumer, background=True)
    sim.add_testbench(producer)
    sim.run_until(1e-8 * (20 * sum(j["end"] - j["start"] for j in jobs) + 50 * len(jobs) + 300))
    # The controller ends a phase on ``busy`` low: it must stay high until the last edge left.
    assert idle_seen_at and set(idle_seen_at) == {len(out)}, "busy fell before the last edge"
    return out, memory_model


# The compact layouts store no srcid: with a coarsened table, its place in the group.
LAYOUTS = [(4, 1), (4, 4), (2, 1), (1, 1), (2, 2), (1, 8)]


@pytest.mark.parametrize("backpressure", [False, True])
@pytest.mark.parametrize("words, coarsening", LAYOUTS)
def test_frontier_edges(backpressure, words, coarsening):
    n, src, dst, weight, offsets = random_graph(3 + coarsening + words)
    lines = words_to_lines(edge_words(src, dst, weight, words, coarsening), base_line=2)
    frontier = sorted(random.Random(coarsening).sample(range(n), 15))
    frontier += [frontier[3], 0, n - 1]          # repeats and out-of-order ids too
    jobs, expect = [], []
    for v in frontier:
        group = v // coarsening * coarsening
        start, end = int(offsets[group]), int(offsets[min(group + coarsening, n)])
        if start == end:
            continue
        jobs.append({"src": v, "prop": 1000 + v, "const": 0, "start": start, "end": end})
        for e in range(offsets[v], offsets[v + 1]):
            expect.append((v, int(dst[e]), int(weight[e]) if words > 1 else 0, 1000 + v))
    tag_bits = (coarsening.bit_length() - 1) if words < 4 else 0
    out, memory_model = run_edge_read(jobs, lines, backpressure=backpressure, words=words,
                                      tag_bits=tag_bits)
    assert out == expect
    # A line is read once for each run of jobs that ends in it (consecutive jobs share one).
    per_line = 16 // words
    assert memory_model.reads <= sum(-(-j["end"] // per_line) - j["start"] // per_line
                                     for j in jobs)


@pytest.mark.parametrize("words", [4, 2, 1])
def test_full_edge_stream_reads_each_line_once(words):
    n, src, dst, weight, offsets = random_graph(9, n=30, m=301)
    lines = words_to_lines(edge_words(src, dst, weight, words), base_line=2)
    jobs = [{"src": 0, "prop": 0, "const": 0, "start": 0, "end": len(src)}]
    out, memory_model = run_edge_read(jobs, lines, match_any=True, prefetch=8, words=words)
    # The compact layouts' srcid is the job's (the source merge sets the real one).
    assert [(s, d, w) for s, d, w, _ in out] == list(zip(
        src.tolist() if words == 4 else [0] * len(src), dst.tolist(),
        weight.tolist() if words > 1 else [0] * len(src)))
    assert memory_model.reads == -(-len(src) * words // 16)


class _EdgeIDReadWithTable(wiring.Component):
    def __init__(self, table, coarsening):
        self._table = table
        self._coarsening = coarsening
        self._stage = EdgeIDRead(table_addr_width=8, coarsening=coarsening)
        super().__init__({"i": In(self._stage.i.signature.flip()),
                          "o": Out(self._stage.o.signature)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.stage = stage = self._stage
        m.submodules.table = table = memory.Memory(shape=32, depth=256, init=self._table)
        lo, hi = table.read_port(), table.read_port()
        m.d.comb += [lo.addr.eq(stage.table_addr), hi.addr.eq(stage.table_next_addr),
                     lo.en.eq(stage.table_en), hi.en.eq(stage.table_en),
                     stage.table_data.eq(lo.data), stage.table_next_data.eq(hi.data)]
        wiring.connect(m, wiring.flipped(self.i), stage.i)
        wiring.connect(m, wiring.flipped(self.o), stage.o)
        return m


@pytest.mark.parametrize("coarsening", [1, 2])
def test_edge_id_read(coarsening):
    n, src, dst, weight, offsets = random_graph(5, n=20, m=40)
    table = offsets[::coarsening].tolist() + [int(offsets[-1])]
    dut = _EdgeIDReadWithTable(table, coarsening)
    rng = random.Random(2)
    active = [rng.randrange(n) for _ in range(30)]
    out = []

    async def testbench(ctx):
        pending = list(active)
        for _ in range(400):
            ctx.set(dut.i.valid, bool(pending))
            if pending:
                ctx.set(dut.i.payload, {"id": pending[0], "prop": 7})
            ready_out = rng.random() < 0.6
            ctx.set(dut.o.ready, ready_out)
            if ready_out and ctx.get(dut.o.valid):
                item = ctx.get(dut.o.payload)
                out.append((int(item.src), int(item.start), int(item.end)))
            if pending and ctx.get(dut.i.ready):
                pending.pop(0)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    expect = []
    for v in active:
        g = v // coarsening
        start, end = table[g], table[g + 1]
        if start != end:
            expect.append((v, start, end))
    assert out == expect


def test_busy_until_a_lone_edge_is_handed_out():
    # One edge in a fresh line reaches an empty output queue: ``busy`` must cover the cycle it
    # spends inside the queue (run_edge_read checks that).
    n, src, dst, weight, offsets = random_graph(5, n=40, m=200)
    v = next(v for v in range(n) if offsets[v + 1] - offsets[v] == 1)
    job = {"src": v, "prop": 7, "const": 0, "start": int(offsets[v]), "end": int(offsets[v + 1])}
    lines = words_to_lines(edge_words(src, dst, weight), base_line=2)
    out, _ = run_edge_read([job], lines)
    assert out == [(v, int(dst[offsets[v]]), int(weight[offsets[v]]), 7)]
