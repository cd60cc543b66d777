"""Apply (A3) against the vertex programs of ``golden/algorithms.py``: for BFS/SSSP/CC each
vertex's new VProperty is ``min(vprop, temp)`` and the vertices whose property fell go to the
ActiveVertex list with it, in vertex order; for PageRank the new rank is
``0.15 + 0.85 * temp`` in FP32 (multiply, then add, each rounded), every vertex in order.
Both outputs keep Amaranth's stream rule 2: an offer is held until taken, whatever the
other output's consumer does."""

import random

import numpy as np
import pytest

from golden.algorithms import ALPHA, ONE_MINUS_ALPHA
from hw.lib.arith.fp32 import FP32Adder, FP32Multiplier, QNAN
from hw.graphicionado.algorithms import FP32_ALPHA, FP32_ONE_MINUS_ALPHA
from hw.graphicionado.apply import ApplyMin, ApplyPageRank
from tests.support.stream_drivers import PAUSES, Bench

INF = 0xFFFF_FFFF


@pytest.mark.parametrize("pause", PAUSES)
def test_apply_min(pause):
    run_apply_min(pause, check_protocol=False)


@pytest.mark.parametrize("pause", [1, 2])
def test_apply_min_holds_its_offers(pause):
    run_apply_min(pause, check_protocol=True)


def run_apply_min(pause, *, check_protocol):
    rng = random.Random("apply-min")
    n = 300
    base = rng.randrange(1 << 20)
    old = [rng.choice([INF, rng.randrange(100), rng.randrange(1 << 32)]) for _ in range(n)]
    temp = [rng.choice([INF, v, max(v - 1, 0), rng.randrange(100), rng.randrange(1 << 32)])
            for v in old]
    want_prop = [min(a, b) for a, b in zip(old, temp)]
    want_active = [{"id": base + i, "prop": t} for i, (a, t) in enumerate(zip(old, temp))
                   if t < a]
    dut = ApplyMin()
    bench = Bench(dut, "ApplyMin", pause=pause, check_protocol=check_protocol)
    bench.source("prop", dut.prop, [{"index": base + i, "data": v} for i, v in enumerate(old)])
    bench.source("temp", dut.temp, [{"index": base + i, "temp": v}
                                    for i, v in enumerate(temp)])
    bench.sink("o_prop", dut.o_prop, n)
    bench.sink("o_active", dut.o_active, len(want_active))
    bench.run()
    if not 0 < len(want_active) < n:
        bench.fail(f"{len(want_active)} of {n} vertices fell: a poor random case")
    bench.check_equal(bench.received["o_prop"], want_prop, "new VProperty")
    bench.check_equal(bench.received["o_active"], want_active, "ActiveVertex list")


def pagerank_model(temp):
    t = np.uint32(temp).view(np.float32)
    with np.errstate(all="ignore"):
        r = np.float32(np.float32(ALPHA * t) + ONE_MINUS_ALPHA)
    return QNAN if np.isnan(r) else int(r.view(np.uint32))


@pytest.mark.parametrize("pause", PAUSES)
def test_apply_pagerank(pause):
    rng = random.Random("apply-pagerank")
    n = 300
    temp = [rng.choice([0, int(np.float32(rng.uniform(0, 20)).view(np.uint32)),
                        rng.randrange(1 << 32)]) for _ in range(n)]
    dut = ApplyPageRank(multiplier=FP32Multiplier(tag_width=1),
                        adder=FP32Adder(tag_width=1, lzc_stage=True),
                        alpha=FP32_ALPHA, one_minus_alpha=FP32_ONE_MINUS_ALPHA)
    bench = Bench(dut, "ApplyPageRank", pause=pause)
    bench.source("temp", dut.temp, [{"index": i, "temp": v} for i, v in enumerate(temp)])
    bench.sink("o_prop", dut.o_prop, n)
    cycles = bench.run()
    bench.check_equal(bench.received["o_prop"], [pagerank_model(t) for t in temp], "ranks")
    if pause is None and cycles > n + 40:
        bench.fail(f"{cycles} cycles for {n} vertices without pauses")


@pytest.mark.parametrize("pause", PAUSES)
def test_apply_cf(pause):
    """CF's Apply, a flit of 8 lanes at a time, against ``cf_program``'s apply bit for bit."""
    from golden.algorithms import cf_program
    from hw.graphicionado.apply import ApplyCF
    from tests.hw.graphicionado.test_cf_process_edge import bits, random_properties
    lanes, flits, n = 8, 4, 30
    rng = np.random.default_rng(17)
    p = random_properties(rng, n, lanes * flits)
    temp = (rng.standard_normal((n, lanes * flits)) * 3).astype(np.float32)
    temp[rng.random(temp.shape) < 0.05] = np.float32(np.nan)
    gamma, lam = 0.01, 0.05
    want = cf_program(K=lanes * flits, gamma=gamma, lam=lam).apply(p, temp, None)
    dut = ApplyCF(lanes=lanes)
    bench = Bench(dut, "ApplyCF", pause=pause)

    async def constants(ctx):
        ctx.set(dut.gamma, bits(gamma)[0])
        ctx.set(dut.lam, bits(lam)[0])
    bench.sim.add_testbench(constants)

    def flits_of(array):
        return [bits(array[v, f * lanes:(f + 1) * lanes]) for v in range(n) for f in range(flits)]

    def word(lane_bits):
        return sum(b << (32 * k) for k, b in enumerate(lane_bits))

    bench.source("prop", dut.prop, [{"index": i, "data": word(w)}
                                    for i, w in enumerate(flits_of(p))])
    bench.source("temp", dut.temp, [{"index": i, "temp": word(w)}
                                    for i, w in enumerate(flits_of(temp))])
    bench.sink("o_prop", dut.o_prop, n * flits)
    cycles = bench.run()
    bench.check_equal(bench.received["o_prop"], [word(w) for w in flits_of(want)],
                      "new VProperty flits")
    if pause is None and cycles > n * flits + 24 + 20 + 5:
        bench.fail(f"{cycles} cycles for {n * flits} flits without pauses")
