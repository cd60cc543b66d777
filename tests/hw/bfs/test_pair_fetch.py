"""The scan's pair fetch in Amaranth's simulator, with the offsets reader it drives: random
ascending sets of wanted lines (runs of neighbours, gaps, the last line, vertex counts on and
off a line's end) give each line's edge ranges equal to the CSR's, and neighbours share a
read; two scans back to back; with and without pauses."""

import random

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.bfs.offset_lines import OffsetPairs
from hw.bfs.pair_fetch import PairFetch
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.memory.range_streamer import RangeStreamer
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

BASE = 40


class FetchWithReader(wiring.Component):
    """The pair fetch and its offsets reader, as in the engine."""

    def __init__(self):
        super().__init__({"start": In(1), "num_vertices": In(32),
                          "wanted": In(stream.Signature(32)),
                          "pairs": Out(stream.Signature(OffsetPairs)),
                          "reads": Out(32), "mem": Out(MemoryPortSignature(16))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.fetch = fetch = PairFetch(addr_width=16)
        m.submodules.reader = reader = RangeStreamer(addr_width=16, item_words=16, window=4)
        wiring.connect(m, fetch.cmd, reader.cmd)
        wiring.connect(m, reader.items, fetch.lines)
        wiring.connect(m, wiring.flipped(self.wanted), fetch.wanted)
        wiring.connect(m, fetch.pairs, wiring.flipped(self.pairs))
        wiring.connect(m, reader.mem, wiring.flipped(self.mem))
        m.d.comb += [fetch.start.eq(self.start), fetch.offsets_base.eq(BASE),
                     fetch.num_vertices.eq(self.num_vertices),
                     self.reads.eq(reader.lines_read)]
        return m


@pytest.mark.parametrize("n", [16 * 9, 16 * 9 + 5])
@pytest.mark.parametrize("pause", PAUSES)
def test_pairs_of_the_wanted_lines(n, pause):
    rng = random.Random(f"pairs/{n}/{pause}")
    offsets = np.concatenate([[0], np.cumsum([rng.randrange(40) for _ in range(n)])])
    lines = {BASE + k: v for k, v in words_to_lines(offsets.astype(np.uint32)).items()}
    total = -(-n // 16)
    scans = [sorted(rng.sample(range(total), rng.randrange(1, total + 1))) for _ in range(2)]
    scans[1] = sorted(set(scans[1]) | {0, 1, 2, total - 1})
    wanted = [k for scan in scans for k in scan]
    dut = FetchWithReader()
    bench = Bench(dut, "PairFetch", pause=pause)
    serve_memory(bench, "mem", dut.mem, lines, pause)
    bench.sink("pairs", dut.pairs, len(wanted))
    reads = {}

    async def drive(ctx):
        ctx.set(dut.num_vertices, n)
        for number, scan in enumerate(scans):
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            before = ctx.get(dut.reads)
            for k in scan:
                ctx.set(dut.wanted.payload, k)
                ctx.set(dut.wanted.valid, 1)
                await ctx.tick().until(dut.wanted.ready)
            ctx.set(dut.wanted.valid, 0)
            while len(bench.received["pairs"]) < sum(len(s) for s in scans[:number + 1]):
                await ctx.tick()
            reads[number] = ctx.get(dut.reads) - before

    bench.add_process(drive)
    bench.until(lambda: len(reads) == 2)
    bench.run()
    got = bench.received["pairs"]
    assert [p["line"] for p in got] == wanted
    for pair in got:
        k = pair["line"]
        for i in range(16):
            if 16 * k + i < n:
                assert (pair["lo"][i], pair["hi"][i]) == \
                    (offsets[16 * k + i], offsets[16 * k + i + 1]), (k, i)
    for number, scan in enumerate(scans):          # a line shared by neighbours, read once
        needed = {j for k in scan for j in (k, k + 1) if 16 * j <= n}
        alone = sum(1 for k in scan if 16 * (k + 1) > n and k - 1 in scan)
        assert reads[number] == len(needed) + alone, number
