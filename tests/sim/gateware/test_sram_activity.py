# amaranth: UnusedElaboratable=no
"""The SRAM access counters of the sim tops (sim.gateware.sram_activity) against a model of
the same enables: only memories of SRAM depth are counted, each named by its place; a read
or write port counts the cycles its enable is high (any bit of a write port's), several
ports of one memory each count, an asynchronous read counts every cycle, and nothing counts
before ``start`` or once ``busy`` falls."""

import random

from amaranth.hdl import Fragment, Module, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from sim.gateware.sram_activity import (COUNTER_WIDTH, MACRO_MIN_DEPTH, add_access_counters,
                                        counter_names, deep_memories)
from synth.flow import MACRO_MIN_DEPTH as SYNTH_MACRO_MIN_DEPTH


class Memories(wiring.Component):
    """Three memories: a deep one with a gated read, an always-on read and a two-lane
    write; a deep one read asynchronously; a shallow one (no macro, not counted)."""

    def __init__(self):
        super().__init__({"read_en": In(1), "write_en": In(2), "addr": In(7),
                          "out": Out(16), "shallow_en": In(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.pad = pad = memory.Memory(shape=16, depth=128, init=[])
        gated, always = pad.read_port(), pad.read_port()
        write = pad.write_port(granularity=8)
        m.d.comb += [gated.addr.eq(self.addr), gated.en.eq(self.read_en),
                     always.addr.eq(self.addr), write.addr.eq(self.addr),
                     write.data.eq(self.addr), write.en.eq(self.write_en)]
        m.submodules.table = table = memory.Memory(shape=8, depth=MACRO_MIN_DEPTH, init=[])
        look = table.read_port(domain="comb")
        m.d.comb += look.addr.eq(self.addr)
        m.submodules.fifo = fifo = memory.Memory(shape=8, depth=MACRO_MIN_DEPTH - 1, init=[])
        small = fifo.write_port()
        m.d.comb += [small.en.eq(self.shallow_en), small.addr.eq(self.addr)]
        m.d.comb += self.out.eq(gated.data ^ always.data ^ look.data)
        return m


class Counting(wiring.Component):
    def __init__(self, design):
        self.design = design
        self.fragment = Fragment.get(design, None)
        self.memories = deep_memories(self.fragment, "dut")
        members = {"start": In(1), "busy": In(1)}
        members.update({port: Out(COUNTER_WIDTH) for port in counter_names(self.memories)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.fragment
        add_access_counters(m, self, self.memories, "sync", self.start, self.busy)
        return m


def test_only_memories_of_sram_depth_are_counted_by_name():
    assert MACRO_MIN_DEPTH == SYNTH_MACRO_MIN_DEPTH
    top = Counting(Memories())
    assert [memory.as_dict() for memory in top.memories] == [
        {"name": "dut.pad", "depth": 128, "width": 16, "read_ports": 2, "write_ports": 1,
         "asynchronous_read_ports": 0},
        {"name": "dut.table", "depth": MACRO_MIN_DEPTH, "width": 8, "read_ports": 1,
         "write_ports": 0, "asynchronous_read_ports": 1}]
    assert counter_names(top.memories) == ["sram0_reads", "sram0_writes", "sram1_reads",
                                           "sram1_writes"]


def test_each_enabled_cycle_counts_from_start_while_busy():
    top = Counting(Memories())
    design = top.design
    rng = random.Random(54)
    expected = {"sram0_reads": 0, "sram0_writes": 0, "sram1_reads": 0, "sram1_writes": 0}
    got = {}

    async def bench(ctx):
        started = False
        for cycle in range(300):
            start = cycle == 40
            busy = 30 <= cycle < 250
            read_en, write_en = rng.randrange(2), rng.randrange(4)
            ctx.set(top.start, start)
            ctx.set(top.busy, busy)
            ctx.set(design.read_en, read_en)
            ctx.set(design.write_en, write_en)
            ctx.set(design.shallow_en, 1)
            ctx.set(design.addr, rng.randrange(128))
            started |= start
            if started and busy:
                expected["sram0_reads"] += read_en + 1     # the gated port and the always-on
                expected["sram0_writes"] += write_en != 0
                expected["sram1_reads"] += 1               # asynchronous: every cycle
            await ctx.tick()
        got.update({name: ctx.get(getattr(top, name)) for name in expected})

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert got == expected
    assert expected["sram0_reads"] > 210 * 1.2      # both read ports counted
