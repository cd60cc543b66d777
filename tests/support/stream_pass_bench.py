"""Items through a one-input, one-output stream block under random stalls on both sides: the
bench of the register slice's tests."""

import random

from amaranth.sim import Simulator


def pass_items(dut, items, stalls, seed, *, registered=(), level=None):
    """Offer ``items`` on ``dut.i`` and take them from ``dut.o``, each side idle with
    probability ``stalls`` a cycle. Every signal of ``registered`` must not follow
    ``dut.o.ready`` within a cycle; ``level``, if given, must count the items inside.
    Returns the items received and the cycles taken."""
    rng = random.Random(seed)
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
            before = [ctx.get(signal) for signal in registered]
            ctx.set(dut.o.ready, take)
            assert [ctx.get(signal) for signal in registered] == before, \
                "a registered output followed o.ready within the cycle"
            if level is not None:
                assert ctx.get(level) == sent - len(received)
            if take and ctx.get(dut.o.valid):
                received.append(ctx.get(dut.o.payload))
            if offer and ctx.get(dut.i.ready):
                sent += 1
            await ctx.tick()
            cycles += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return received, cycles
