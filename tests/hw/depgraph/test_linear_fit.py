"""The learner's FP32 line fit (``hw/depgraph/linear_fit.py``) against np.float32: random
and directed pairs (equal x as numbers, ±0, overflowing slopes and eps, NaN and inf
operands), with random gaps between fits; the outcome, mu and eps of every fit."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.depgraph.linear_fit import FitOutcome, LinearFit


def bits(value) -> int:
    return int(np.float32(value).view(np.uint32))


def as_f32(word) -> np.float32:
    return np.uint32(word).view(np.float32)


def model(x, x0, y, y0):
    with np.errstate(all="ignore"):
        d2 = as_f32(x) - as_f32(x0)
        if d2 == 0:
            return FitOutcome.EQUAL, None, None
        mu = (as_f32(y) - as_f32(y0)) / d2
        eps = as_f32(y) - mu * as_f32(x)
    if not (np.isfinite(mu) and np.isfinite(eps)):
        return FitOutcome.REFUSED, None, None
    return FitOutcome.FIT, bits(mu), bits(eps)


DIRECTED = [
    (bits(0.0), bits(-0.0), bits(1.0), bits(2.0)),        # -0 - +0: equal
    (bits(1.0), bits(2.0), bits(5.0), bits(4.0)),          # mu 1, eps 4
    (bits(2e-38), bits(1e-38), bits(1e30), bits(0.0)),     # slope overflows
    (bits(2e38), bits(3e38), bits(2e38), bits(1e38)),      # eps overflows
    (bits(-3e38), bits(3e38), bits(3e38), bits(0.0)),      # d2 -inf: slope -0
    (0x7FC0_1234, bits(1.0), bits(1.0), bits(2.0)),        # NaN x
    (bits(2.0), bits(1.0), 0xFF80_0000, bits(1.0)),        # inf y
    (0x0000_0003, 0x0000_0001, 0x0000_0005, 0x8000_0002),  # subnormals
]


@pytest.mark.parametrize("seed", [1, 2])
def test_linear_fit(seed):
    rng = random.Random(seed)
    pool = [bits(v) for v in (0.0, -0.0, 1.0, 2.0, 0.5, -3.0, 1e-40, 1e38, -1e38)]
    pool += [0x7F80_0000, 0x7FC0_0000]

    def operand():
        return rng.choice(pool) if rng.random() < 0.3 else bits(rng.uniform(-1e3, 1e3))

    cases = DIRECTED + [tuple(operand() for _ in range(4)) for _ in range(150)]
    dut = LinearFit()

    async def bench(ctx):
        for case in cases:
            for _ in range(rng.randrange(3)):
                await ctx.tick()
            assert not ctx.get(dut.busy)
            for name, value in zip(("x", "x0", "y", "y0"), case):
                ctx.set(getattr(dut, name), value)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            for _ in range(200):
                if ctx.get(dut.done):
                    break
                assert ctx.get(dut.busy)
                await ctx.tick()
            else:
                raise AssertionError(f"no result for {case}")
            outcome, mu, eps = model(*case)
            got = FitOutcome(ctx.get(dut.outcome))
            assert got == outcome, (case, got, outcome)
            if outcome == FitOutcome.FIT:
                assert (ctx.get(dut.mu), ctx.get(dut.eps)) == (mu, eps), case
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
