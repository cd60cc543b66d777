"""hw.lib.program.Datapath: vertex-program expressions compiled to pipelines, driven in
Amaranth's simulator with random operands (edge values included), with and without random
back-pressure, against golden.programs.evaluate bit for bit and in order."""

import numpy as np
import pytest
from amaranth.back import verilog
from amaranth.hdl import Elaboratable, Module

from golden.programs import evaluate
from graphgen.programs import (OPERATIONS, PROGRAMS, Float32, Float32Vector, Param,
                               UInt, bit_and, bit_or, bit_xor, cf_program, dot, eq, f32, fadd,
                               fdiv, feq, fle, flt, fmul, fne, fsub, lane_sum, le, lt, maximum,
                               minimum, ne, reciprocal, resize, sat_add, sat_sub, scale,
                               select, shl, shr, uint, vadd, vmul, vsub)
from graphgen.programs.expr import Operand, walk
from hw.lib.arith.fp32 import FP32Multiplier
from hw.lib.config import ConfigError
from hw.lib.program.datapath import Datapath, operands_of
from hw.lib.program.schedule import MAX_LANES, Schedule
from tests.support.examples import EXAMPLE_FILES, example
from tests.support.stream_drivers import Bench

MUL = FP32Multiplier.latency    # the multiplier's stages (the adder's: 5)

PAUSES = [pytest.param(None, id="nopause"), pytest.param(1, id="pause1")]
ITEMS = 200
TAG_WIDTH = 10

_FLOAT_EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45,
                         1.1754942e-38, 1.1754944e-38, 3.4028235e38, -3.4028235e38, 0.5,
                         2.0, 1e-30, 1e30], np.float32)


def _floats(rng, count):
    """Edge values, then numbers of every magnitude (subnormals included), then numbers
    near 1 (where sums and products neither overflow nor underflow)."""
    bits = rng.integers(0, 1 << 32, count, dtype=np.uint64).astype(np.uint32)
    wide = bits.view(np.float32)
    near = rng.uniform(-4, 4, count).astype(np.float32)
    values = np.where(rng.random(count) < 0.4, wide, near)
    values[:len(_FLOAT_EDGES)] = _FLOAT_EDGES[:count]
    rng.shuffle(values)
    return values


def _uints(rng, count, width):
    """Edge values (for 32 bits also those whose float32 rounds: ties, carries), then
    numbers of every size, then small ones."""
    top = (1 << width) - 1
    edges = [0, 1, top, top - 1, top // 2, top // 2 + 1]
    if width == 32:
        edges += [2**24 - 1, 2**24, 2**24 + 1, 2**24 + 3, 2**25 - 1, 2**31 + 2**7,
                  (2**24 + 1) << 7, 3 << 28]
    values = np.where(rng.random(count) < 0.5, rng.integers(0, top + 1, count, np.uint64),
                      rng.integers(0, min(top, 64) + 1, count, np.uint64))
    values[:len(edges)] = edges[:count]
    rng.shuffle(values)
    return values.astype(np.uint32)


def _operands(types, rng, count):
    values = {}
    for role, type_ in types.items():
        if isinstance(type_, UInt):
            values[role] = _uints(rng, count, type_.width)
        elif isinstance(type_, Float32Vector):
            values[role] = np.stack([_floats(rng, count) for _ in range(type_.lanes)], axis=1)
        else:
            values[role] = _floats(rng, count)
    return values


def _bits(value, type_):
    """A value as the test compares it: integers as they are, floats as their bit pattern,
    every NaN as one marker (FP32 units give the canonical quiet NaN where NumPy keeps a
    payload)."""
    if isinstance(type_, UInt):
        return int(value)
    if isinstance(type_, Float32Vector):
        return [_bits(lane, Float32) for lane in value]
    value = np.float32(value)
    return "NaN" if np.isnan(value) else int(value.view(np.uint32))


def _hw_bits(bits, type_):
    if isinstance(type_, Float32Vector):
        return [_hw_bits(lane, Float32) for lane in bits]
    if isinstance(type_, UInt):
        return bits
    return _bits(np.uint32(bits).view(np.float32), Float32)


def _payload(values, types, index):
    item = {"tag": index % (1 << TAG_WIDTH)}
    for role, type_ in types.items():
        value = values[role][index]
        if isinstance(type_, Float32Vector):
            item[role] = [int(lane) for lane in np.asarray(value).view(np.uint32)]
        elif isinstance(type_, UInt):
            item[role] = int(value)
        else:
            item[role] = int(np.float32(value).view(np.uint32))
    return item


class _WithParams(Elaboratable):
    """The datapath with its parameters driven to given values."""

    def __init__(self, datapath, params):
        self.datapath, self.params = datapath, params

    def elaborate(self, platform):
        m = Module()
        m.submodules.datapath = self.datapath
        for name, value in self.params.items():
            type_ = self.datapath.params[name].type
            bits = value if isinstance(type_, UInt) else int(np.float32(value).view(np.uint32))
            m.d.comb += getattr(self.datapath, name).eq(bits)
        return m


def check(expr, pause, *, types=None, params=None, seed=0, items=ITEMS, name="datapath",
          **options):
    """Drive ``expr``'s datapath with ``items`` random operand vectors; its results must be
    golden.programs.evaluate's, in order, with their tags."""
    types = operands_of(expr) if types is None else types
    rng = np.random.default_rng(seed)
    values = _operands(types, rng, items)
    want = evaluate(expr, values, params)
    shape = (items, expr.type.lanes) if isinstance(expr.type, Float32Vector) else (items,)
    want = np.broadcast_to(np.asarray(want), shape)
    datapath = Datapath(expr, types, TAG_WIDTH, **options)
    bench = Bench(_WithParams(datapath, params or {}), name, pause=pause)
    bench.source("i", datapath.i, [_payload(values, types, k) for k in range(items)])
    bench.sink("o", datapath.o, items)
    bench.run()
    got = bench.received["o"]
    bench.check_equal([item["tag"] for item in got],
                      [k % (1 << TAG_WIDTH) for k in range(items)], "tags")
    bench.check_equal([_hw_bits(item["result"], expr.type) for item in got],
                      [_bits(value, expr.type) for value in want], "results")
    return datapath


BUILT_INS = [(name, function) for name in PROGRAMS if name != "cf"
             for function in ("process_edge", "apply")]


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("name,function", BUILT_INS)
def test_built_in(name, function, pause):
    check(getattr(PROGRAMS[name], function), pause, name=f"{name}.{function}")


EXAMPLES = [(name, function) for name in EXAMPLE_FILES for function in ("process_edge", "apply")]


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("name,function", EXAMPLES)
def test_example(name, function, pause):
    """The programs of examples/programs/ (spmv: float32 weights)."""
    check(getattr(example(name), function), pause, name=f"{name}.{function}")


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("function", ["process_edge", "apply"])
def test_cf(function, pause):
    check(getattr(cf_program(3), function), pause, items=100, name=f"cf(3).{function}")


def _u(role, width=32):
    return Operand(role, UInt(width))


def _f(role):
    return Operand(role, Float32)


def _v(role, lanes):
    return Operand(role, Float32Vector(lanes))


# Every operation at least once; widths below 32; constants folded into both sides.
SYNTHETIC = {
    "integer": select(lt(_u("a", 8), _u("b", 8)),
                      sat_sub(_u("b", 8), _u("a", 8)),
                      bit_xor(maximum(_u("a", 8), 200), bit_and(_u("b", 8), 0x5A))),
    "compares": bit_or(bit_or(le(_u("a", 5), _u("b", 5)), eq(_u("a", 5), 3)),
                       bit_and(ne(_u("b", 5), _u("a", 5)), resize(sat_add(_u("a", 5), 7), 1))),
    "shifts": sat_add(shl(_u("a", 12), 5), shr(resize(_u("b", 3), 12), 1)),
    "resize": minimum(resize(_u("a", 32), 16), resize(_u("c", 9), 16)),
    "float_compares": select(bit_and(flt(_f("x"), _f("y")), fne(_f("x"), 1.0)),
                             bit_or(fle(_f("y"), _f("x")), feq(_f("x"), _f("y"))),
                             uint(0, 1)),
    "float_arith": fdiv(fsub(_f("x"), _f("y")), fadd(fmul(_f("x"), f32(0.3)), _f("y"))),
    # a 1-cycle branch joined with a 30-cycle one, the integer result delayed to meet it
    "mixed_latency": select(lt(_u("a", 8), _u("b", 8)), fdiv(_f("x"), _f("y")),
                            select(flt(_f("x"), _f("y")), _f("x"), fmul(_f("y"), 2.0))),
    "reciprocal": fmul(reciprocal(_u("d")), _f("x")),
    "vectors": vadd(vmul(_v("p", 5), _v("q", 5)),
                    scale(vsub(_v("p", 5), _v("q", 5)), lane_sum(_v("q", 5)))),
    "dot8": fadd(dot(_v("p", 8), _v("q", 8)), _f("x")),
    # no operand at all: constants through a multiplier and a select, beside the tag
    "constants": select(lt(uint(3, 4), uint(5, 4)), fmul(f32(1.5), f32(3.0)), f32(0.0)),
    "vector_select": select(flt(_f("x"), 0.0), _v("p", 2), scale(_v("p", 2), _f("x"))),
}


def test_synthetic_covers_every_operation():
    used = {node.name for expr in SYNTHETIC.values() for node in walk(expr)
            if hasattr(node, "name") and hasattr(node, "args")}
    assert set(OPERATIONS) - used == set()


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("case", list(SYNTHETIC))
def test_synthetic(case, pause):
    check(SYNTHETIC[case], pause, items=150, name=case)


@pytest.mark.parametrize("pause", PAUSES)
def test_param(pause):
    alpha = Param("alpha", Float32, 0.85)
    expr = fadd(fmul(alpha, _f("t")), select(_u("root", 1), Param("bonus", Float32, 0.15),
                                             f32(0.0)))
    datapath = check(expr, pause, params={"alpha": 0.5, "bonus": -3.25}, name="param")
    assert datapath.latency == MUL + 5


@pytest.mark.parametrize("pause", PAUSES)
def test_lzc_stage(pause):
    """Adders of six stages: the schedule follows them (a 6-stage adder beside a multiply)."""
    expr = fadd(fadd(_f("x"), _f("y")), fmul(_f("x"), _f("y")))
    assert check(expr, pause, lzc_stage=True, name="lzc_stage").latency == max(6, MUL) + 6


def test_schedule():
    """ASAP: each node ready its unit's latency after its last operand; constants and
    parameters ready everywhere; wiring of a constant stays a constant."""
    a, x, y = _u("a", 8), _f("x"), _f("y")
    quotient, compare = fdiv(x, y), lt(a, 7)
    expr = select(compare, quotient, fmul(Param("k", Float32, 2.0), y))
    ready = Schedule.of(expr).ready
    assert (ready[a], ready[compare], ready[quotient], ready[expr]) == (0, 1, 30, 31)
    assert ready[Param("k", Float32, 2.0)] is None
    assert ready[fmul(Param("k", Float32, 2.0), y)] == MUL
    assert Schedule.of(shl(uint(3, 8), 2)).ready[shl(uint(3, 8), 2)] is None
    assert Schedule.of(expr).latency == 31


def test_latency_and_balancing():
    """Latencies follow the units; a bare operand is a wire; constant trees are not delayed."""
    pagerank = PROGRAMS["pagerank"]
    assert Datapath(pagerank.process_edge, operands_of(pagerank.process_edge)).latency == MUL
    assert Datapath(pagerank.apply, operands_of(pagerank.apply)).latency == MUL + 5
    assert Datapath(PROGRAMS["cc"].process_edge, {"src_prop": UInt(32)}).latency == 0
    assert Datapath(SYNTHETIC["mixed_latency"],
                    operands_of(SYNTHETIC["mixed_latency"])).latency == 30 + 1
    assert Datapath(fadd(_f("x"), 1.0), {"x": Float32}, lzc_stage=True).latency == 6
    cf = cf_program(8)
    assert Datapath(cf.process_edge, operands_of(cf.process_edge)).latency == MUL + 3 * 5 + 5 + MUL


def test_refusals():
    with pytest.raises(ConfigError, match="operand src_prop"):
        Datapath(PROGRAMS["bfs"].process_edge, {"src_prop": UInt(16)})
    with pytest.raises(ConfigError, match="more than 8 lanes"):
        cf = cf_program(MAX_LANES + 1)
        Datapath(cf.apply, operands_of(cf.apply))
    with pytest.raises(ConfigError, match="reserved"):
        Datapath(_u("tag"), {"tag": UInt(32)})
    with pytest.raises(ConfigError, match="reserved"):
        Datapath(fadd(Param("elaborate", Float32, 1.0), _f("x")), {"x": Float32})
    with pytest.raises(ConfigError, match="two types"):
        Datapath(fadd(Param("k", Float32, 1.0), Param("k", Float32, 2.0)), {})
    with pytest.raises(ConfigError, match="random"):
        Datapath(PROGRAMS["cf"].init, {})


def test_verilog_of_the_largest():
    cf = cf_program(MAX_LANES)
    text = verilog.convert(Datapath(cf.process_edge, operands_of(cf.process_edge), 32),
                           name="cf_process_edge")
    assert "module cf_process_edge" in text
