# amaranth: UnusedElaboratable=no
"""The DDMU's shortcut value z = mu·x + eps (``hw/depgraph/shortcut_value.py``) in Amaranth's
simulator, against NumPy: saturating uint32 add for the min type, float32 multiply then add
(two roundings) for PageRank, in order, with idle inputs and back-pressure on both
outputs."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.depgraph.layouts import ORIGIN_DDMU
from hw.depgraph.shortcut_value import ShortcutValue

SATURATED = 0xFFFF_FFFF


def _f32(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def _bits(value):
    return int(np.array([value], dtype=np.float32).view(np.uint32)[0])


def _expected(algo, s):
    if algo != "pagerank":
        return min(s["x"] + s["eps"], SATURATED)
    with np.errstate(all="ignore"):
        return _bits(np.float32(_f32(s["mu"]) * _f32(s["x"])) + _f32(s["eps"]))


def _shortcuts(algo, count, rng):
    out = []
    for _ in range(count):
        if algo == "pagerank":
            mu, x, eps = (_bits(np.float32(rng.uniform(-2, 2) * 10 ** rng.randint(-6, 2)))
                          for _ in range(3))
        else:
            mu = rng.getrandbits(32)
            x = rng.choice([rng.getrandbits(32), rng.randrange(1000), SATURATED])
            eps = rng.choice([rng.getrandbits(32), rng.randrange(1000)])
        out.append({"tail": rng.getrandbits(32), "mu": mu, "eps": eps, "x": x,
                    "engine": rng.randrange(128)})
    return out


@pytest.mark.parametrize("pause", [False, True], ids=["flat", "paused"])
@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
def test_shortcut_values_match_numpy(algo, pause):
    rng = random.Random(7 if pause else 3)
    shortcuts = _shortcuts(algo, 300, rng)
    dut = ShortcutValue(algo=algo)
    updates, pseudos = [], []

    async def driver(ctx):
        for s in shortcuts:
            while pause and rng.random() < 0.3:
                ctx.set(dut.i.valid, 0)
                await ctx.tick()
            ctx.set(dut.i.valid, 1)
            ctx.set(dut.i.payload, s)
            await ctx.tick().until(dut.i.ready)
        ctx.set(dut.i.valid, 0)

    async def sink(ctx, port, out, fields):
        while True:
            ready = not pause or rng.random() < 0.6
            ctx.set(port.ready, ready)
            if ready and ctx.get(port.valid):
                payload = ctx.get(port.payload)
                out.append({f: int(getattr(payload, f)) for f in fields})
            await ctx.tick()

    async def watch(ctx):
        cycles = 0
        while len(updates) < len(shortcuts) or (algo == "pagerank" and
                                                len(pseudos) < len(shortcuts)):
            await ctx.tick()
            cycles += 1
            assert cycles < 20 * len(shortcuts), "stuck"
        await ctx.tick()
        assert not ctx.get(dut.busy)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(driver)
    async def update_sink(ctx):
        await sink(ctx, dut.updates, updates, ("vertex", "value", "origin", "leave"))

    async def pseudo_sink(ctx):
        await sink(ctx, dut.pseudo, pseudos, ("tail", "z", "engine"))

    sim.add_testbench(update_sink, background=True)
    sim.add_testbench(pseudo_sink, background=True)
    sim.add_testbench(watch)
    sim.run()
    assert updates == [{"vertex": s["tail"], "value": _expected(algo, s),
                        "origin": ORIGIN_DDMU, "leave": 0} for s in shortcuts]
    if algo == "pagerank":
        assert pseudos == [{"tail": s["tail"], "z": _expected(algo, s), "engine": s["engine"]}
                           for s in shortcuts]
    else:
        assert pseudos == []


def test_shortcut_value_refuses_an_unknown_algorithm():
    with pytest.raises(ConfigError, match="algo"):
        ShortcutValue(algo="triangles")
