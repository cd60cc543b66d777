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

    async def pulse(ctx, name, base):
        ctx.set(dut.base, base)
        ctx.set(getattr(dut, name), 1)
        await ctx.tick()
        ctx.set(getattr(dut, name), 0)
        await ctx.tick()
        for _ in range(2000):
            if not ctx.get(dut.busy):
                return
            await ctx.tick()
        raise AssertionError(f"{name} did not finish")

    async def testbench(ctx):
        ctx.set(dut.first, first)
        ctx.set(dut.count, count)
        await pulse(ctx, "load", 100)
        await pulse(ctx, "store", 200)
        await pulse(ctx, "store", 300)
        for _ in range(30):             # writes in flight reach the memory
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run()
    assert lines_to_words(memory.lines, 200, words).tolist() == source.tolist()
    assert lines_to_words(memory.lines, 300, words).tolist() == [IDENTITY] * words
