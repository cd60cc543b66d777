"""The combinational operations of hw.lib.arith.integer (any width) and hw.lib.arith.
fp32_compare against NumPy, on edge values and random operands, in Amaranth's simulator."""

import numpy as np
import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from hw.lib.arith.fp32_compare import FLOAT_COMPARES
from hw.lib.arith.fp32_reciprocal import float32_significand
from hw.lib.arith.integer import INTEGER_OPERATIONS

COUNT = 300


def _outputs(function, width, pairs):
    """``function(a, b)`` of each pair, as the simulator evaluates it."""
    m = Module()
    a, b = Signal(width), Signal(width)
    result = Signal(width)             # every operation gives at most its operands' width
    m.d.comb += result.eq(function(a, b))
    sim = Simulator(m)
    got = []

    async def testbench(ctx):
        for x, y in pairs:
            ctx.set(a, int(x))
            ctx.set(b, int(y))
            got.append(ctx.get(result))

    sim.add_testbench(testbench)
    sim.run()
    return got


def _uint_pairs(width, rng):
    top = (1 << width) - 1
    edges = [0, 1, top, top - 1, top // 2]
    pairs = [(x, y) for x in edges for y in edges]
    pairs += list(zip(rng.integers(0, top + 1, COUNT), rng.integers(0, top + 1, COUNT)))
    return np.array(pairs, np.uint64)


_NUMPY = {
    "sat_add": lambda a, b, top: np.minimum(a + b, top),
    "sat_sub": lambda a, b, top: np.where(a > b, a - b, 0),
    "min": lambda a, b, top: np.minimum(a, b), "max": lambda a, b, top: np.maximum(a, b),
    "lt": lambda a, b, top: a < b, "le": lambda a, b, top: a <= b,
    "eq": lambda a, b, top: a == b, "ne": lambda a, b, top: a != b,
    "and": lambda a, b, top: a & b, "or": lambda a, b, top: a | b,
    "xor": lambda a, b, top: a ^ b,
}


@pytest.mark.parametrize("width", [1, 5, 32])
@pytest.mark.parametrize("name", sorted(INTEGER_OPERATIONS))
def test_integer(name, width):
    pairs = _uint_pairs(width, np.random.default_rng(width))
    want = _NUMPY[name](pairs[:, 0], pairs[:, 1], np.uint64((1 << width) - 1))
    got = _outputs(INTEGER_OPERATIONS[name], width, pairs)
    assert got == [int(w) for w in want]


_SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 2.5,
                      -2.5, 3.4028235e38], np.float32)


@pytest.mark.parametrize("name", sorted(FLOAT_COMPARES))
def test_float_compare(name):
    rng = np.random.default_rng(5)
    pairs = [(x, y) for x in _SPECIALS for y in _SPECIALS]
    bits = rng.integers(0, 1 << 32, (COUNT, 2), dtype=np.uint64).astype(np.uint32)
    near = rng.integers(-3, 4, (COUNT, 2)).astype(np.float32)     # many equal values
    pairs += list(map(tuple, bits.view(np.float32))) + list(map(tuple, near))
    pairs += [(np.float32(-0.0), np.float32(0.0)), (np.float32(np.nan), np.float32(np.nan))]
    floats = np.array(pairs, np.float32)
    numpy_compare = {"flt": np.less, "fle": np.less_equal, "feq": np.equal,
                     "fne": np.not_equal}[name]
    want = numpy_compare(floats[:, 0], floats[:, 1])
    got = _outputs(FLOAT_COMPARES[name], 32, floats.view(np.uint32))
    assert got == [int(w) for w in want]


def test_float32_significand():
    """significand << shift is float32(d), rounded to nearest even, for every size of d."""
    rng = np.random.default_rng(7)
    values = [0, 1, 2**24 - 1, 2**24, 2**24 + 1, 2**24 + 2, 2**24 + 3, 2**25 - 1,
              2**32 - 1, 2**32 - 2**7, 2**32 - 2**8 - 2**7, 2**31 + 2**7, 3 << 28]
    values += list(rng.integers(0, 2**32, COUNT)) + \
        [int(v) >> int(s) for v, s in zip(rng.integers(0, 2**32, COUNT), rng.integers(0, 9, COUNT))]

    def packed(a, b):
        significand, shift = float32_significand(a)
        return significand | (shift << 24)

    got = _outputs(packed, 32, [(v, 0) for v in values])
    want = [float(np.float32(np.uint32(v))) for v in values]
    assert [float((g & (2**24 - 1)) << (g >> 24)) for g in got] == want
    assert max(g >> 24 for g in got) == 9          # 2**32 - 1 rounds up to 2**23 << 9
