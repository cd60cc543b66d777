# amaranth: UnusedElaboratable=no
"""StreamGate, which holds an extended-slicing slice's edges back until its region is ready
(§VI.B): nothing passes while it is closed, everything passes through it open."""

import random

from amaranth.sim import Simulator

from hw.lib.stream.gate import StreamGate


def test_gate_passes_only_while_open():
    dut = StreamGate(8)
    rng = random.Random(5)

    async def bench(ctx):
        for cycle in range(300):
            valid, ready, open_ = (rng.random() < 0.5 for _ in range(3))
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.o.ready, ready)
            ctx.set(dut.open, open_)
            ctx.set(dut.i.payload, cycle & 0xFF)
            await ctx.delay(1e-9)
            assert ctx.get(dut.o.valid) == (valid and open_), cycle
            assert ctx.get(dut.i.ready) == (ready and open_), cycle
            assert ctx.get(dut.o.payload) == cycle & 0xFF
            await ctx.delay(1e-9)

    sim = Simulator(dut)      # combinational: no clock
    sim.add_testbench(bench)
    sim.run()
