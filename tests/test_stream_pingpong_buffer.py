"""The ping-pong buffer: every item passes once and in order under random stalls on both
sides, one item per cycle without them, its ready does not depend on the far side, and its
payload registers change only when an item enters."""

import random

import pytest
from amaranth.sim import Simulator

from hw.stream_pingpong_buffer import StreamPingPongBuffer

from tests.stream_pass_bench import pass_items


@pytest.mark.parametrize("stalls", [0.0, 0.3, 0.7])
def test_items_pass_in_order(stalls):
    dut = StreamPingPongBuffer(16)
    rng = random.Random(f"pingpong/{stalls}")
    items = [rng.randrange(1 << 16) for _ in range(400)]
    received, cycles = pass_items(dut, items, stalls, seed=f"pingpong/{stalls}",
                                  registered=[dut.i.ready, dut.o.valid, dut.o.payload],
                                  level=dut.level)
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
