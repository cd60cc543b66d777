"""RoundRobin against a model with a pointer: each cycle the grant is the first request at or
after the one after the requester served last (``first`` after reset), and serving any
requester, granted or not, moves the pointer. (Bad parameters: tests/hw/test_config_errors.py.)"""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.stream.round_robin import RoundRobin


@pytest.mark.parametrize("count, first", [(1, 0), (2, 1), (3, 0), (5, 2), (8, 7), (13, 1)])
def test_round_robin_against_a_pointer(count, first):
    dut = RoundRobin(count, first=first)
    rng = random.Random(f"{count}/{first}")
    mismatches = []

    async def testbench(ctx):
        start = first
        for cycle in range(1500):
            requests = rng.getrandbits(count) if rng.random() < 0.9 else 0
            ctx.set(dut.requests, requests)
            want = next((1 << (s % count) for s in range(start, start + count)
                         if requests >> (s % count) & 1), 0)
            got = ctx.get(dut.grant)
            if got != want:
                mismatches.append((cycle, requests, start, got, want))
            # Mostly the grant is served; sometimes nothing, sometimes another requester
            # (a user holding an earlier grant).
            roll = rng.random()
            served = want if roll < 0.6 else 0 if roll < 0.8 else 1 << rng.randrange(count)
            ctx.set(dut.served, served)
            if served:
                start = (served.bit_length() - 1 + 1) % count
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert not mismatches, mismatches[:5]

