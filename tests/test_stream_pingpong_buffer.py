"""The ping-pong buffer: every item passes once and in order under random stalls on both
sides, one item per cycle without them, its ready does not depend on the far side, and its
payload registers change only when an item enters."""

import random

import pytest
from amaranth.sim import Simulator

from hw.stream_pingpong_buffer import StreamPingPongBuffer


@pytest.mark.parametrize("stalls", [0.0, 0.3, 0.7])
def test_items_pass_in_order(stalls):
    dut = StreamPingPongBuffer(16)
    rng = random.Random(f"pingpong/{stalls}")
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
            ctx.set(dut.o.ready, not take)
            ready, valid, payload = (ctx.get(dut.i.ready), ctx.get(dut.o.valid),
                                     ctx.get(dut.o.payload))
            ctx.set(dut.o.ready, take)
            # i.ready, o.valid and o.payload must not follow o.ready within the cycle.
            assert (ctx.get(dut.i.ready), ctx.get(dut.o.valid), ctx.get(dut.o.payload)) == \
                (ready, valid, payload)
            assert ctx.get(dut.level) == sent - len(received)
            if take and valid:
                received.append(payload)
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


def test_payload_registers_change_only_on_input():
    """With the input idle, the output stalling and taking in turn leaves both entries."""
    dut = StreamPingPongBuffer(8)

    async def bench(ctx):
        for value in (0x11, 0x22):
            ctx.set(dut.i.valid, 1)
            ctx.set(dut.i.payload, value)
            await ctx.tick()
        ctx.set(dut.i.valid, 0)
        ctx.set(dut.i.payload, 0xFF)
        assert ctx.get(dut.level) == 2 and not ctx.get(dut.i.ready)
        seen = []
        for take in (0, 1, 0, 1):
            ctx.set(dut.o.ready, take)
            if take:
                seen.append(ctx.get(dut.o.payload))
            await ctx.tick()
        assert seen == [0x11, 0x22]
        assert ctx.get(dut.level) == 0 and not ctx.get(dut.o.valid)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
