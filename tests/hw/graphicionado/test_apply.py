# amaranth: UnusedElaboratable=no
"""Apply (A3) built from a program, against ``golden.programs.evaluate``: each vertex's new
VProperty from its VProperty and VTempProperty, in vertex order, and for frontier programs
the vertices whose active rule holds (by default: the property changed) on the ActiveVertex
list with their new property; the fork's outputs keep Amaranth's stream rule 2 (an offer is
held until taken, whatever the other output's consumer does). Mode "all" programs (PageRank)
stream VTempProperty alone. FlitApply, from CF's program on flits, against the golden model's
``cf_program``."""

import random

import numpy as np
import pytest

from golden.programs import evaluate
from graphgen.programs import (PROGRAMS, UInt, VertexProgram, build, lt, maximum, sat_add,
                               uint)
from hw.graphicionado.apply import Apply
from hw.lib.config import ConfigError
from tests.support.examples import example
from tests.support.stream_drivers import PAUSES, Bench

INF = 0xFFFF_FFFF


class Coarse(VertexProgram):
    """An active rule of its own: a vertex is active when its property grew by 8 or more."""
    prop = UInt(32)
    reduce = "max"

    def init(self, h):
        return uint(0)

    def process_edge(self, e):
        return e.src_prop

    def apply(self, v):
        return maximum(v.vprop, sat_add(v.temp, v.vertex_id))

    def active(self, v):
        return lt(sat_add(v.vprop, 8), v.new)


def frontier_case(program, rng, n):
    base = rng.randrange(1 << 20)
    old = np.array([rng.choice([INF, rng.randrange(100), rng.randrange(1 << 32)])
                    for _ in range(n)], dtype=np.uint32)
    temp = np.array([rng.choice([INF, int(v), max(int(v) - 1, 0), int(v) + 9 & INF,
                                 rng.randrange(100), rng.randrange(1 << 32)]) for v in old],
                    dtype=np.uint32)
    ids = np.arange(base, base + n, dtype=np.uint32)
    operands = {"vprop": old, "temp": temp, "vertex_id": ids}
    new = np.broadcast_to(np.asarray(evaluate(program.apply, operands), np.uint32), n)
    if program.active is None:
        active = new != old
    else:
        active = np.broadcast_to(np.asarray(evaluate(program.active, {**operands, "new": new}))
                                 != 0, n)
    return old, temp, ids, new, active


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("name", ["bfs", "widest", "coarse"])
def test_apply_frontier(name, pause):
    run_frontier(name, pause, check_protocol=False)


@pytest.mark.parametrize("pause", [1, 2])
def test_apply_holds_its_offers(pause):
    run_frontier("bfs", pause, check_protocol=True)


def watch_busy(bench, dut):
    """``busy`` is high while a vertex is inside (seen at least once) and low once all are
    out."""
    seen = []

    async def sample(ctx):
        async for _, _, busy in ctx.tick().sample(dut.busy):
            seen.append(busy)
    bench.add_process(sample)

    def check(ctx):
        if dut.latency == 0:
            if any(seen):
                bench.fail("busy high with a combinational datapath, which holds no vertex")
            return
        if not any(seen) or ctx.get(dut.busy):
            bench.fail(f"busy: never high or still high at the end ({sum(seen)} cycles high)")
    bench.at_end(check)


def run_frontier(name, pause, *, check_protocol):
    program = build(Coarse) if name == "coarse" else PROGRAMS.get(name) or example(name)
    n = 300
    old, temp, ids, new, active = frontier_case(program, random.Random(f"apply/{name}"), n)
    dut = Apply(program=program)
    bench = Bench(dut, f"Apply({name})", pause=pause, check_protocol=check_protocol)
    bench.source("prop", dut.prop, [{"index": int(i), "data": int(v)}
                                    for i, v in zip(ids, old)])
    bench.source("temp", dut.temp, [{"index": int(i), "temp": int(v)}
                                    for i, v in zip(ids, temp)])
    want_active = [{"id": int(i), "prop": int(v)} for i, v, a in zip(ids, new, active) if a]
    bench.sink("o_prop", dut.o_prop, n)
    bench.sink("o_active", dut.o_active, len(want_active))
    watch_busy(bench, dut)
    cycles = bench.run()
    if not 0 < len(want_active) < n:
        bench.fail(f"{len(want_active)} of {n} vertices active: a poor random case")
    bench.check_equal(bench.received["o_prop"],
                      [{"data": int(v), "changed": int(v != o)} for v, o in zip(new, old)],
                      "new VProperty and whether it changed")
    bench.check_equal(bench.received["o_active"], want_active, "ActiveVertex list")
    if pause is None and cycles > n + dut.latency + 20:
        bench.fail(f"{cycles} cycles for {n} vertices without pauses")


@pytest.mark.parametrize("pause", PAUSES)
def test_apply_pagerank(pause):
    program = PROGRAMS["pagerank"]
    rng = random.Random("apply-pagerank")
    n = 300
    temp = np.array([rng.choice([0.0, rng.uniform(0, 20), rng.uniform(1e-30, 1e30)])
                     for _ in range(n)], dtype=np.float32)
    want = np.asarray(evaluate(program.apply, {"temp": temp}), dtype=np.float32)
    dut = Apply(program=program)
    assert not hasattr(dut, "o_active")
    bench = Bench(dut, "Apply(pagerank)", pause=pause)
    bench.source("temp", dut.temp, [{"index": i, "temp": int(v)}
                                    for i, v in enumerate(temp.view(np.uint32))])
    bench.sink("o_prop", dut.o_prop, n)
    watch_busy(bench, dut)
    cycles = bench.run()
    bench.check_equal(bench.received["o_prop"], [int(v) for v in want.view(np.uint32)],
                      "ranks")
    if pause is None and cycles > n + dut.latency + 20:
        bench.fail(f"{cycles} cycles for {n} vertices without pauses")


@pytest.mark.parametrize("pause", [None, 1])
def test_apply_compares_the_vertex_with_the_root(pause):
    """Personalized PageRank's Apply reads ``is_root``: the vertex id against the ``root``
    register."""
    program = example("ppr")
    rng = np.random.default_rng(6)
    n, root = 64, 37
    temp = rng.random(n).astype(np.float32) * 4
    ids = np.arange(n, dtype=np.uint32)
    want = np.asarray(evaluate(program.apply, {"temp": temp, "vertex_id": ids,
                                               "is_root": (ids == root).astype(np.uint32)}),
                      dtype=np.float32)
    dut = Apply(program=program)
    bench = Bench(dut, "Apply(ppr)", pause=pause)

    async def set_root(ctx):
        ctx.set(dut.root, root)
    bench.sim.add_testbench(set_root)
    bench.source("temp", dut.temp, [{"index": i, "temp": int(v)}
                                    for i, v in enumerate(temp.view(np.uint32))])
    bench.sink("o_prop", dut.o_prop, n)
    bench.run()
    bench.check_equal(bench.received["o_prop"], [int(v) for v in want.view(np.uint32)],
                      "ranks")


def test_refuses_what_the_apply_phase_has_not():
    class Constant(VertexProgram):
        prop = UInt(32)
        reduce = "min"

        def vconst(self, h):
            return h.out_degree

        def init(self, h):
            return uint(0)

        def process_edge(self, e):
            return e.src_prop

        def apply(self, v):
            return sat_add(v.temp, v.vconst)

    with pytest.raises(ConfigError, match="constant's apply reads vconst"):
        Apply(program=build(Constant))
    with pytest.raises(ConfigError, match="must be a graphgen.programs Program"):
        Apply(program="bfs")


@pytest.mark.parametrize("pause", PAUSES)
def test_apply_cf(pause):
    """CF's Apply built from its program, a flit of 8 lanes at a time, against the golden
    ``cf_program``'s apply bit for bit."""
    from golden.algorithms import cf_program
    from graphgen.programs import cf_program as cf_vertex_program
    from hw.graphicionado.apply import FlitApply
    from tests.hw.graphicionado.test_flit_process_edge import bits, random_properties
    lanes, flits, n = 8, 4, 30
    rng = np.random.default_rng(17)
    p = random_properties(rng, n, lanes * flits)
    temp = (rng.standard_normal((n, lanes * flits)) * 3).astype(np.float32)
    temp[rng.random(temp.shape) < 0.05] = np.float32(np.nan)
    gamma, lam = 0.01, 0.05
    want = cf_program(K=lanes * flits, gamma=gamma, lam=lam).apply(p, temp, None)
    dut = FlitApply(program=cf_vertex_program(lanes * flits), lanes=lanes)
    bench = Bench(dut, "FlitApply(cf)", pause=pause)

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


def test_flit_apply_refuses_what_it_does_not_build():
    """A lane sum in Apply, or an operand the apply phase does not stream, is refused."""
    from graphgen.programs import Float32, Float32Vector, dot, scale
    from hw.graphicionado.apply import FlitApply

    class Normalised(VertexProgram):
        name = "normalised"
        prop = Float32Vector(8)
        reduce = "fadd"
        weight = Float32
        mode = "all"
        iterations = 3

        def init(self, h):
            return h.random(1)

        def process_edge(self, e):
            return scale(e.src_prop, e.weight)

        def apply(self, v):
            return scale(v.temp, dot(v.temp, v.vprop))

    with pytest.raises(ConfigError, match="normalised's apply: a lane sum .* not built"):
        FlitApply(program=build(Normalised), lanes=8)
