# amaranth: UnusedElaboratable=no
"""The BFS level loop's two small blocks in Amaranth's simulator: DirectionPolicy against the
golden model's direction rule (golden/bfs/traversal.py: Enterprise's gamma down, Beamer's
beta back, once), and LevelStatistics' differences from its snapshot, across the counters'
wrap."""

import random

import pytest
from amaranth.sim import Simulator

from hw.bfs.direction_policy import DirectionPolicy
from hw.bfs.level_statistics import LevelStatistics
from hw.lib.config import ConfigError


def golden_rule(direction, gamma, hubs, found, switched_back, visited, previous, tail_limit):
    """(to bottom-up, to top-down) as golden/bfs/traversal.py decides them."""
    if direction != "auto":
        return 0, 0
    down = int(not switched_back and hubs != 0 and 100 * found > gamma * hubs)
    back = int(visited < tail_limit and visited < previous)
    return down, back


@pytest.mark.parametrize("direction", ["auto", "topdown", "bottomup"])
@pytest.mark.parametrize("gamma", [0, 30, 100])
def test_direction_policy(direction, gamma):
    dut = DirectionPolicy(direction=direction, gamma_percent=gamma)
    rng = random.Random(f"policy/{direction}/{gamma}")
    seen = set()

    async def bench(ctx):
        for _ in range(600):
            hubs = rng.choice([0, 1, 3, 10, 100, 2**32 - 1])
            found = rng.choice([0, 1, hubs * gamma // 100, hubs * gamma // 100 + 1, hubs,
                                2**32 - 1]) & (2**32 - 1)
            visited, previous = rng.randrange(40), rng.randrange(40)
            tail_limit, switched_back = rng.randrange(40), rng.randrange(2)
            inputs = dict(hubs=hubs, hubs_found=found, switched_back=switched_back,
                          visited=visited, previous_visited=previous, tail_limit=tail_limit)
            for name, value in inputs.items():
                ctx.set(getattr(dut, name), value)
            if direction == "auto":
                await ctx.tick()             # the products are registers
            else:
                await ctx.delay(1e-8)
            got = ctx.get(dut.to_bottom_up), ctx.get(dut.to_top_down)
            want = golden_rule(direction, gamma, hubs, found, switched_back, visited,
                               previous, tail_limit)
            assert got == want, (inputs, got, want)
            seen.add(got)

    sim = Simulator(dut)
    if direction == "auto":
        sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    if direction == "auto":
        assert {(1, 0), (0, 1)} <= seen or gamma == 100 and (0, 1) in seen
    else:
        assert seen == {(0, 0)}


def test_level_statistics():
    names = ("a", "b", "c")
    dut = LevelStatistics(counters=names)
    rng = random.Random("statistics")

    async def bench(ctx):
        totals = {name: 0 for name in names}
        snapshot = dict(totals)
        for cycle in range(500):
            for name in names:
                totals[name] = (totals[name] + rng.choice([0, 1, 3, 1 << 31])) % 2**32
                ctx.set(dut.totals[name], totals[name])
            begin = rng.random() < 0.1
            ctx.set(dut.begin, begin)
            for name in names:
                want = (totals[name] - snapshot[name]) % 2**32
                assert ctx.get(dut.level[name]) == want, (cycle, name)
            await ctx.tick()
            if begin:
                snapshot = dict(totals)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_parameters_are_checked():
    with pytest.raises(ConfigError, match="direction must be one of"):
        DirectionPolicy(direction="sideways", gamma_percent=30)
    with pytest.raises(ConfigError, match="gamma_percent must be 0..100"):
        DirectionPolicy(direction="auto", gamma_percent=101)
    with pytest.raises(ConfigError, match="distinct names"):
        LevelStatistics(counters=("a", "a"))
