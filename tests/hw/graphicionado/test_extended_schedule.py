"""The extended-slicing schedule (§VI.B) in hardware, step by step against the golden
model's ``extended_schedule`` (which its own tests check against the paper's rules and its
two-partition figure)."""

import pytest
from amaranth.sim import Simulator

from golden.graphicionado import extended_schedule
from hw.lib.config import ConfigError
from hw.graphicionado.extended_schedule import ExtendedSchedule, max_partitions


@pytest.mark.parametrize("count", [1, 2, 4, 5])
def test_schedule_matches_the_golden_model(count):
    dut = ExtendedSchedule(6)
    seen = []

    async def bench(ctx):
        ctx.set(dut.count, count)
        for round_ in range(2):                 # restart gives the same schedule again
            ctx.set(dut.restart, 1)
            await ctx.tick()
            ctx.set(dut.restart, 0)
            steps = []
            while True:
                get = {name: ctx.get(getattr(dut, name))
                       for name in ("src", "dst", "step", "diagonal", "clear", "store",
                                    "apply", "last")}
                steps.append(get)
                if get["last"]:
                    break
                ctx.set(dut.advance, 1)
                await ctx.tick()
                ctx.set(dut.advance, 0)
                await ctx.tick()                # a cycle between steps changes nothing
            seen.append(steps)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    golden_steps = extended_schedule(count)
    assert seen[0] == seen[1]
    assert len(seen[0]) == len(golden_steps) == count * (count + 1) // 2
    for number, (got, want) in enumerate(zip(seen[0], golden_steps)):
        arriving = want.clear or want.load
        assert (got["src"], got["dst"], got["step"]) == (want.src, want.dst, number)
        # The partition that arrives is i, into A on the diagonal and B below it.
        assert arriving == (want.src,)
        assert got["diagonal"] == (want.src == want.dst)
        assert bool(got["clear"]) == bool(want.clear) and bool(got["clear"]) != bool(want.load)
        assert bool(got["store"]) == (want.store == (want.src,))
        assert bool(got["store"]) == bool(want.store)
        assert bool(got["apply"]) == bool(want.apply)
        if want.apply:
            assert want.apply == (want.dst,)


def test_max_partitions():
    assert [max_partitions(s) for s in (1, 2, 3, 5, 6, 10, 64)] == [1, 1, 2, 2, 3, 4, 10]


def test_refuses_sizes_it_cannot_build():
    with pytest.raises(ConfigError, match="ExtendedSchedule: partitions"):
        ExtendedSchedule(0)
