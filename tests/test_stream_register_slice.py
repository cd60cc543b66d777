"""The stream register slice: every item passes once and in order under random stalls on
both sides, one item per cycle without them, and (with its skid register) its ready does not
depend on the far side."""

import random

import pytest
from amaranth.sim import Simulator

from hw.stream_register_slice import StreamRegisterSlice


@pytest.mark.parametrize("skid", [True, False])
@pytest.mark.parametrize("stalls", [0.0, 0.3])
def test_items_pass_in_order(stalls, skid):
    dut = StreamRegisterSlice(16, skid=skid)
    rng = random.Random(3)
    items = [rng.randrange(1 << 16) for _ in range(400)]
    received = []
    cycles = 0

    async def bench(ctx):
        nonlocal cycles
        sent = 0
        while len(received) < len(items):
            offer = sent < len(items) and rng.random() >= stalls
            take = rng.random() >= stalls
            ctx.set(dut.i.valid, offer)
            ctx.set(dut.i.payload, items[sent] if offer else 0)
            ctx.set(dut.o.ready, take)
            ready = ctx.get(dut.i.ready)
            if skid:
                # i.ready is a register: it must not follow o.ready within the cycle.
                ctx.set(dut.o.ready, not take)
                assert ctx.get(dut.i.ready) == ready
                ctx.set(dut.o.ready, take)
            if take and ctx.get(dut.o.valid):
                received.append(ctx.get(dut.o.payload))
            if offer and ready:
                sent += 1
            await ctx.tick()
            cycles += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert received == items
    if stalls == 0:
        assert cycles == len(items) + 1
