"""any_busy: the OR of one-bit terms as they are and of wider ones when not 0, lists and
generators flattened; no terms is refused."""

import itertools

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError


def test_any_busy_is_the_or_of_its_terms():
    flag, level, counters = Signal(), Signal(3), [Signal(2), Signal(4)]
    out = Signal()
    m = Module()
    m.d.comb += out.eq(any_busy(flag, level, counters, (c for c in [Signal(1, init=0)])))
    cases = list(itertools.product([0, 1], [0, 1, 4], [0, 3], [0, 8]))
    seen = []

    async def testbench(ctx):
        for f, lv, a, b in cases:
            ctx.set(flag, f)
            ctx.set(level, lv)
            ctx.set(counters[0], a)
            ctx.set(counters[1], b)
            seen.append(ctx.get(out))

    sim = Simulator(m)
    sim.add_testbench(testbench)
    sim.run()
    assert seen == [int(any(case)) for case in cases]


def test_a_single_term_is_itself():
    flag = Signal()
    assert any_busy(flag) is flag


def test_no_terms_is_refused():
    with pytest.raises(ConfigError):
        any_busy()
    with pytest.raises(ConfigError):
        any_busy([])
