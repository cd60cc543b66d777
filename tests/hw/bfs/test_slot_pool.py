# amaranth: UnusedElaboratable=no
"""SlotPool (the bottom-up check's search slots) in Amaranth's simulator against a set of free
slots: it offers the lowest free slot while any is free, never one that is taken, takes back
slots on both release ports in one cycle (and in the cycle one is taken), and ``busy`` is
whether any slot is taken; slots are taken at random and held for random times."""

import random

import pytest
from amaranth.sim import Simulator

from hw.bfs.slot_pool import SlotPool
from hw.lib.config import ConfigError

CYCLES = 1500


@pytest.mark.parametrize("p_take", [0.3, 1.0])
@pytest.mark.parametrize("slots", [1, 3, 8])
def test_slot_pool(slots, p_take):
    dut = SlotPool(slots=slots, releases=2)
    rng = random.Random(f"slot_pool/{slots}/{p_take}")
    seen = {"takes": 0, "two_back": 0, "full": 0}

    async def bench(ctx):
        free, held = set(range(slots)), {}        # held: slot -> cycles it stays held
        for cycle in range(CYCLES):
            room, offer, busy = ctx.get(dut.room), ctx.get(dut.offer), ctx.get(dut.busy)
            assert room == bool(free), (cycle, room, sorted(free))
            assert not free or offer == min(free), (cycle, offer, sorted(free))
            assert busy == (len(free) < slots), (cycle, busy, sorted(free))
            take = room and rng.random() < p_take
            due = [s for s, left in held.items() if left == 0]
            rng.shuffle(due)
            back = due[:len(dut.release)]
            ctx.set(dut.take, take)
            for k, port in enumerate(dut.release):
                ctx.set(port.valid, k < len(back))
                ctx.set(port.payload, back[k] if k < len(back) else 0)
            await ctx.tick()
            held = {s: left - 1 for s, left in held.items() if s not in back}
            free |= set(back)
            if take:
                free.discard(offer)
                held[offer] = rng.choice([0, 1, 2, 5, 20])
            seen["takes"] += take
            seen["two_back"] += len(back) == 2
            seen["full"] += not room

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert seen["takes"] > 100 and seen["full"] > 0
    if slots > 1:
        assert seen["two_back"] > 0, "the test never gave two slots back in one cycle"


def test_slot_pool_parameters():
    with pytest.raises(ConfigError, match="slots must be 1..256"):
        SlotPool(slots=0)
    with pytest.raises(ConfigError, match="releases must be at least 1"):
        SlotPool(slots=4, releases=0)
