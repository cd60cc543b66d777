"""The HDTL's walk stack against a Python list: random pushes, pops, advances of the top's
next offset and clears, one per cycle; ``size`` and ``top`` (read in the same cycle) must
follow the list, a push to a full stack and a pop or advance of an empty one change nothing,
and a clear wins over any other operation."""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.depgraph.walk_stack import WalkStack
from tests.support.stream_drivers import rerun_command


@pytest.mark.parametrize("depth, hub_index, seed", [(1, False, 1), (4, True, 2), (10, False, 3)])
def test_walk_stack_is_a_stack(depth, hub_index, seed):
    dut = WalkStack(depth=depth, hub_index=hub_index)
    rng = random.Random(seed)
    fields = ("vertex", "next", "end") + (("y",) if hub_index else ())
    model: list[dict] = []

    async def bench(ctx):
        for cycle in range(1500):
            op = rng.choice(["push", "push", "advance", "pop", "idle"] +
                            (["clear"] if rng.random() < 0.05 else []))
            entry = {name: rng.randrange(1 << 32) for name in fields}
            nxt = rng.randrange(1 << 32)
            for name in ("push", "advance", "pop", "clear"):
                ctx.set(getattr(dut, name), op == name)
            if op == "clear":                   # with another operation, which it beats
                ctx.set(getattr(dut, rng.choice(["push", "advance", "pop"])), 1)
            for name, value in entry.items():
                ctx.set(getattr(dut.entry, name), value)
            ctx.set(dut.next, nxt)
            await ctx.tick()
            if op == "push" and len(model) < depth:
                model.append(entry)
            elif op == "advance" and model:
                model[-1] = {**model[-1], "next": nxt}
            elif op == "pop" and model:
                model.pop()
            elif op == "clear":
                model.clear()
            where = f"after {op} (cycle {cycle}, seed {seed})\nrerun: {rerun_command()}"
            assert ctx.get(dut.size) == len(model), where
            if model:
                got = {name: ctx.get(getattr(dut.top, name)) for name in fields}
                assert got == model[-1], where

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_walk_stack_needs_an_entry():
    with pytest.raises(ConfigError, match="depth must be at least 1"):
        WalkStack(depth=0)
