"""Scratchpad write-back and load of extended slicing (§VI.B), against a line memory that
stalls and jitters: a region loaded from memory into the middle of a scratchpad of 2-lane
flit words, written back to another array word for word, and the region left holding the
Reduce identity (a second write-back gives identity words only)."""

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hw.graphicionado.scratchpad import Scratchpad
from hw.graphicionado.scratchpad_spill import ScratchpadSpill
from hw.lib.memory.port import MemoryPortSignature
from sim.amaranth_memory import LineMemoryModel, lines_to_words, serve_ports, words_to_lines

LANES, FLITS = 2, 2
IDENTITY = 0x7F80_0001


class _Bench(wiring.Component):
    """A scratchpad of 64 flit words with its spill."""

    def __init__(self):
        self.pad = Scratchpad(vertices=64, table_entries=0, word_width=32 * LANES)
        self.spill = ScratchpadSpill(index_width=self.pad.index_width,
                                     word_width=32 * LANES, flits=FLITS, addr_width=16)
        super().__init__({
            "store": In(1), "load": In(1), "base": In(16), "first": In(32), "count": In(32),
            "busy": Out(1), "read_mem": Out(MemoryPortSignature(16)),
            "write_mem": Out(MemoryPortSignature(16)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.pad, m.submodules.spill = pad, spill = self.pad, self.spill
        wiring.connect(m, spill.read_mem, wiring.flipped(self.read_mem))
        wiring.connect(m, spill.write_mem, wiring.flipped(self.write_mem))
        m.d.comb += [
            spill.store.eq(self.store), spill.load.eq(self.load), spill.base.eq(self.base),
            spill.first.eq(self.first), spill.count.eq(self.count),
            spill.identity.eq(IDENTITY), self.busy.eq(spill.busy),
            pad.temp_read_addr.eq(spill.read_addr), spill.read_data.eq(pad.temp_read_data),
            pad.temp_write_addr.eq(spill.write_addr), pad.temp_write_data.eq(spill.write_data),
            pad.temp_write_en.eq(spill.write_en),
        ]
        return m


async def _strobe(ctx, dut, name, base, vertices):
    """A one-cycle pulse of ``name`` for ``vertices`` at line ``base``."""
    ctx.set(dut.base, base)
    ctx.set(dut.count, vertices)
    ctx.set(getattr(dut, name), 1)
    await ctx.tick()
    ctx.set(getattr(dut, name), 0)


async def _drain(ctx, dut):
    """Waits for the spill to finish; returns the cycles waited."""
    await ctx.tick()
    for cycles in range(1, 2000):
        if not ctx.get(dut.busy):
            return cycles
        await ctx.tick()
    raise AssertionError("the spill did not finish")


@pytest.mark.parametrize("stall", [0.0, 0.4])
def test_spill_round_trip(stall):
    count, first = 24, 5          # vertices, at scratchpad vertex index 5 on
    words = count * FLITS * LANES
    rng = np.random.default_rng(8)
    source = rng.integers(0, 2**32, words, dtype=np.uint32)
    memory = LineMemoryModel(words_to_lines(source, 100), latency=9, jitter=4 if stall else 0,
                             stall_probability=stall, seed=2)
    dut = _Bench()

    async def memory_process(ctx):
        await serve_ports(ctx, [(memory, dut.read_mem), (memory, dut.write_mem)])

    async def testbench(ctx):
        ctx.set(dut.first, first)
        for name, base in (("load", 100), ("store", 200), ("store", 300)):
            await _strobe(ctx, dut, name, base, count)
            await _drain(ctx, dut)
        for _ in range(30):             # writes in flight reach the memory
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run()
    assert lines_to_words(memory.lines, 200, words).tolist() == source.tolist()
    assert lines_to_words(memory.lines, 300, words).tolist() == [IDENTITY] * words


def _swap(*, latency, write_stall, arriving, overlapped, count=24, first=5):
    """Region ``old`` (``count`` vertices at vertex index ``first``) written back to line
    200 and partition ``new`` (``arriving`` vertices) loaded from line 300: the load two
    cycles behind the write-back (``overlapped``) or after it. Returns the words at line
    200, the region's words then (written back to line 400) and the cycles from the
    write-back's start to the end of both."""
    words, new_words = count * FLITS * LANES, arriving * FLITS * LANES
    rng = np.random.default_rng(9)
    old = rng.integers(0, 2**32, words, dtype=np.uint32)
    new = rng.integers(0, 2**32, new_words, dtype=np.uint32)
    initial = words_to_lines(old, 100)
    initial.update(words_to_lines(new, 300))
    reads = LineMemoryModel(initial, latency=latency, seed=3)
    # The write-back's own port stalls: a slow write-back lets the load catch up with it.
    writes = LineMemoryModel(latency=latency, stall_probability=write_stall, seed=4)
    writes.lines = reads.lines
    dut = _Bench()
    took = []

    async def memory_process(ctx):
        await serve_ports(ctx, [(reads, dut.read_mem), (writes, dut.write_mem)])

    async def testbench(ctx):
        ctx.set(dut.first, first)
        await _strobe(ctx, dut, "load", 100, count)
        await _drain(ctx, dut)
        await _strobe(ctx, dut, "store", 200, count)
        if overlapped:
            await ctx.tick()
            await _strobe(ctx, dut, "load", 300, arriving)
            took.append(3 + await _drain(ctx, dut))
        else:
            cycles = await _drain(ctx, dut)
            await _strobe(ctx, dut, "load", 300, arriving)
            took.append(2 + cycles + await _drain(ctx, dut))
        await _strobe(ctx, dut, "store", 400, count)
        await _drain(ctx, dut)
        for _ in range(30):
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run()
    region = lines_to_words(reads.lines, 400, words).tolist()
    expected = new.tolist() + [IDENTITY] * (words - new_words)
    return lines_to_words(reads.lines, 200, words).tolist(), old.tolist(), region, \
        expected, took[0]


@pytest.mark.parametrize("write_stall", [0.0, 0.97])
@pytest.mark.parametrize("latency", [1, 9])
@pytest.mark.parametrize("arriving", [24, 17], ids=["same-size", "smaller"])
def test_overlapped_write_back_and_load(write_stall, latency, arriving):
    """Extended slicing's overlapped spill: the region written back while the next
    partition's load (``arriving`` vertices, at most as many) starts two cycles behind it.
    The array written must hold the old region, the region the new partition and the words
    past it the identity, also when a stalled write-back holds the load back."""
    written, old, region, expected, _ = _swap(latency=latency, write_stall=write_stall,
                                              arriving=arriving, overlapped=True)
    assert written == old
    assert region == expected


def test_overlap_saves_the_write_back():
    """Overlapped, the write-back's 48 words go beside the load's: the pair takes at most
    the load's time and a few cycles, where in turn it takes both."""
    *_, apart = _swap(latency=9, write_stall=0.0, arriving=24, overlapped=False)
    *_, together = _swap(latency=9, write_stall=0.0, arriving=24, overlapped=True)
    assert together <= apart - 40, (together, apart)
