"""The FP32 units (``hw/lib/arith/fp32.py``) in Amaranth's simulator against NumPy float32.

Each simulation streams a batch of operand pairs through a unit with random gaps on
``i.valid`` and random backpressure on ``o.ready``, and checks every result bit for bit (a NaN
result must be the canonical quiet NaN), the order and the tags. Operands are targeted special
cases, structured random values (exponent differences, cancellation, ties, overflow, underflow)
and hypothesis' random bit patterns and floats.
"""

import random

import numpy as np
import pytest
from amaranth.back import verilog
from amaranth.sim import Simulator
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from hw.lib.arith.fp32 import QNAN, FP32Adder, FP32Divider, FP32Multiplier


F32, U32 = np.float32, np.uint32
TAG_WIDTH = 13

NEG = 0x8000_0000
INF = 0x7F80_0000
MAX_FINITE = 0x7F7F_FFFF
MIN_NORMAL = 0x0080_0000
MAX_SUBNORMAL = 0x007F_FFFF
MIN_SUBNORMAL = 0x0000_0001
ONE = 0x3F80_0000
MAGNITUDES = [
    0, MIN_SUBNORMAL, 2, 3, 0x0040_0000, MAX_SUBNORMAL - 1, MAX_SUBNORMAL, MIN_NORMAL,
    MIN_NORMAL + 1, 0x0100_0000, 0x0C00_0000, ONE - 1, ONE, ONE + 1, 0x3FC0_0000, 0x4000_0000,
    0x4B80_0000, 0x5F80_0000, 0x7F00_0000, MAX_FINITE - 1, MAX_FINITE, INF,
    0x7FC0_0000, 0x7F80_0001, 0x7FFF_FFFF, 0x7FA0_0000,   # quiet and signalling NaNs
]
SPECIALS = MAGNITUDES + [NEG | x for x in MAGNITUDES]


# ------------------------------------------------------------------------------ references

def _f(bits):
    return np.asarray(bits, dtype=U32).view(F32)


def _bits(values):
    return np.asarray(values, dtype=F32).view(U32).astype(np.int64)


def ref_add(a, b):
    with np.errstate(all="ignore"):
        return _bits(_f(a) + _f(b))


def ref_mul(a, b):
    with np.errstate(all="ignore"):
        return _bits(_f(a) * _f(b))


def ref_div(a, b):
    with np.errstate(all="ignore"):
        return _bits(_f(a) / _f(b))


def _is_nan(bits):
    bits = np.asarray(bits, dtype=np.int64)
    return ((bits & 0x7F80_0000) == 0x7F80_0000) & ((bits & 0x007F_FFFF) != 0)


# ------------------------------------------------------------------------------ harness

def run_stream(dut, a, b, *, seed=0, gap=0.3, stall=0.3):
    """Stream the pairs ``(a[k], b[k])``, each with a random tag, through ``dut`` and return
    its output payload fields as ``{name: np.array}``, in output order. Checks on the way: no
    output beyond the inputs, tags in order, the stream rules on ``o`` (a pending transfer
    holds)."""
    a = [int(x) for x in a]
    b = [int(x) for x in b]
    count = len(a)
    rng = random.Random(seed)
    tags = [rng.getrandbits(dut.tag_width) if dut.tag_width else 0 for _ in range(count)]
    words = [x | (y << 32) | (t << 64) for x, y, t in zip(a, b, tags)]
    layout = dut.o.payload.shape()
    received = []
    failures = []

    async def producer(ctx):
        for word in words:
            while rng.random() < gap:
                await ctx.tick()
            ctx.set(dut.i.valid, 1)
            ctx.set(dut.i.payload.as_value(), word)
            taken = False
            while not taken:
                _, _, taken = await ctx.tick().sample(dut.i.ready)
            ctx.set(dut.i.valid, 0)

    # Failures are reported after the simulation, not raised inside it: the producer would
    # otherwise be left waiting and the traceback run through the simulator's internals.
    async def consumer(ctx):
        pending = None
        idle_after_last = 0
        for cycle in range(20 * count + 100):
            ready = rng.random() >= stall or len(received) == count
            ctx.set(dut.o.ready, ready)
            _, _, valid, payload = await ctx.tick().sample(dut.o.valid, dut.o.payload.as_value())
            if pending is not None and not (valid and payload == pending):
                failures.append(f"cycle {cycle}: o changed while its transfer was pending")
                return
            pending = payload if valid and not ready else None
            if valid and ready:
                if len(received) == count:
                    failures.append(f"cycle {cycle}: more outputs than inputs")
                    return
                received.append(payload)
            if len(received) == count:
                idle_after_last += 1
                if idle_after_last == dut.latency + 3:
                    return
        failures.append(f"timed out with {len(received)} of {count} outputs")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(producer, background=True)
    sim.add_testbench(consumer)
    sim.run()
    assert not failures, failures[0]

    fields = {}
    for name, field in layout:
        fields[name] = np.array([(word >> field.offset) & ((1 << field.width) - 1)
                                 for word in received], dtype=np.int64)
    assert list(fields["tag"]) == tags, "tags out of order or corrupted"
    return fields


def check_arithmetic(dut, reference, a, b, **kwargs):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    got = run_stream(dut, a, b, **kwargs)["result"]
    want = reference(a, b)
    nan = _is_nan(want)
    # Every NaN result is the canonical quiet NaN; all others bit for bit.
    want = np.where(nan, QNAN, want)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, "\n".join(
        f"{a[k]:08x} {b[k]:08x}: got {got[k]:08x}, want {want[k]:08x}" for k in bad[:20])


# ------------------------------------------------------------------------------ operands

def pairs_of_specials():
    a, b = np.meshgrid(np.array(SPECIALS, dtype=np.int64), np.array(SPECIALS, dtype=np.int64))
    return a.ravel(), b.ravel()


def _pack(sign, exponent, fraction):
    return (np.asarray(sign, np.int64) << 31) | (np.asarray(exponent, np.int64) << 23) | \
        np.asarray(fraction, np.int64)


def adder_operands(rng, per_case=100):
    """Structured operands for the adder, as two int64 arrays."""
    a, b = [], []

    def add(x, y):
        a.append(np.asarray(x, np.int64))
        b.append(np.asarray(y, np.int64))

    n = per_case
    def fraction():
        return rng.integers(0, 1 << 23, n)

    def sign():
        return rng.integers(0, 2, n)

    # Exponent differences, both operand orders, both effective operations.
    for d in (0, 1, 2, 3, 4, 22, 23, 24, 25, 26, 27, 30, 100, 200, 253):
        ea = rng.integers(1 + d, 255, n) if d < 254 else np.full(n, 254)
        x, y = _pack(sign(), ea, fraction()), _pack(sign(), ea - d, fraction())
        add(x, y)
        add(y, x)
    # Subnormal exponent field (0) against small exponents.
    for e in (0, 1, 2, 24, 25):
        add(_pack(sign(), 0, fraction()), _pack(sign(), rng.integers(0, e + 1, n), fraction()))
    # Catastrophic cancellation: a and nearly -a (a few ulps, and a few low bits, apart).
    x = _pack(sign(), rng.integers(0, 255, n), fraction())
    for delta in (0, 1, -1, 2, 7, -300):
        y = np.clip((x & 0x7FFF_FFFF) + delta, 0, MAX_FINITE) | ((x ^ NEG) & NEG)
        add(x, y)
    add(x, (x ^ NEG) ^ rng.integers(0, 1 << 12, n))
    # Ties: y is exactly half an ulp of x (the fraction of x decides), or just above / below.
    ex = rng.integers(25, 255, n)
    for fy, offset in ((0, 24), (0, 25), (1, 24), (0x7FFFFF, 25), (0, 23)):
        add(_pack(sign(), ex, fraction()), _pack(sign(), ex - offset, np.full(n, fy)))
    x = _pack(0, rng.integers(2, 254, n), fraction())
    add(x, (x + rng.integers(-3, 4, n)) | NEG)
    # Overflow to infinity and the largest finite value.
    add(_pack(0, rng.integers(252, 255, n), fraction()),
        _pack(0, rng.integers(250, 255, n), fraction()))
    add(_pack(1, 254, fraction()), _pack(1, 254, fraction()))
    add(np.full(n, MAX_FINITE), _pack(0, rng.integers(100, 105, n), fraction()))
    # Underflow: differences of nearby small normals give subnormals or zero.
    add(_pack(sign(), rng.integers(0, 3, n), fraction()),
        _pack(sign(), rng.integers(0, 3, n), fraction()))
    # Uniform 32-bit patterns.
    add(rng.integers(0, 1 << 32, 4 * n), rng.integers(0, 1 << 32, 4 * n))
    return np.concatenate(a), np.concatenate(b)


def multiplier_operands(rng, per_case=60):
    """Structured operands for the multiplier, as two int64 arrays."""
    a, b = [], []

    def add(x, y):
        a.append(np.asarray(x, np.int64))
        b.append(np.asarray(y, np.int64))

    n = per_case
    def fraction():
        return rng.integers(0, 1 << 23, n)

    def sign():
        return rng.integers(0, 2, n)

    def short(bits):
        # Few fraction bits: exact products and rounding ties.
        return rng.integers(0, 1 << bits, n) << (23 - bits)

    def sparse():
        # A few bits set, bit 0 among them.
        return (1 << rng.integers(0, 23, n)) | (1 << rng.integers(0, 23, n)) | 1

    # Result exponents (ea + eb - 127) from deep underflow to overflow.
    for target in (-30, -24, -23, -22, -10, -2, -1, 0, 1, 2, 3, 127, 252, 253, 254, 255, 256):
        ea = rng.integers(max(1, target - 126), min(254, target + 126) + 1, n)
        eb = np.clip(target + 127 - ea, 1, 254)
        add(_pack(sign(), ea, fraction()), _pack(sign(), eb, fraction()))
        add(_pack(sign(), ea, short(3)), _pack(sign(), eb, short(12)))
        add(_pack(sign(), ea, short(1)), _pack(sign(), eb, fraction()))
    # Sparse significands below the normal range: the product's low bits are shifted out on
    # denormalization and decide ties as sticky.
    for target in (-26, -24, -20, -12, -3, -1, 0):
        ea = rng.integers(max(1, target - 126), min(254, target + 126) + 1, n)
        eb = np.clip(target + 127 - ea, 1, 254)
        add(_pack(sign(), ea, sparse()), _pack(sign(), eb, sparse()))
        add(_pack(sign(), ea, np.ones(n, np.int64)), _pack(sign(), eb, np.ones(n, np.int64)))
    # Subnormal operands times normals spanning the range.
    for eb in (1, 100, 127, 150, 160, 200, 254):
        add(_pack(sign(), 0, fraction()), _pack(sign(), np.full(n, eb), fraction()))
        add(_pack(sign(), np.full(n, eb), short(2)), _pack(sign(), 0, fraction()))
    add(_pack(sign(), 0, fraction()), _pack(sign(), 0, fraction()))
    # Ties at the subnormal rounding point: odd multiples of half the smallest subnormal.
    add(_pack(sign(), 0, 2 * rng.integers(0, 1 << 20, n) + 1), np.full(n, 0x3F00_0000))
    add(_pack(sign(), 0, rng.integers(0, 1 << 23, n)), np.full(n, 0x3E80_0000))
    add(_pack(sign(), 0, rng.integers(0, 1 << 23, n)), np.full(n, 0x3F7F_FFFF))
    add(np.full(n, MAX_SUBNORMAL), _pack(0, 127, rng.integers(0, 8, n)))   # round up to normal
    # Overflow boundary.
    add(np.full(n, MAX_FINITE), _pack(sign(), 127, rng.integers(0, 4, n)))
    # Uniform 32-bit patterns.
    add(rng.integers(0, 1 << 32, 4 * n), rng.integers(0, 1 << 32, 4 * n))
    return np.concatenate(a), np.concatenate(b)


def divider_operands(rng, per_case=30):
    """Structured operands for the divider, as two int64 arrays."""
    a, b = [], []

    def add(x, y):
        a.append(np.asarray(x, np.int64))
        b.append(np.asarray(y, np.int64))

    n = per_case
    def fraction():
        return rng.integers(0, 1 << 23, n)

    def sign():
        return rng.integers(0, 2, n)

    def short(bits):
        return rng.integers(0, 1 << bits, n) << (23 - bits)

    def exponents(target):
        # ea - eb + 127 == target where the range allows.
        ea = rng.integers(max(1, target - 126), min(254, target + 126) + 1, n)
        return ea, np.clip(ea + 127 - target, 1, 254)

    # Result exponents from deep underflow to overflow; significand quotients on either side
    # of 1 (the quotient's leading one on either of its first two bits).
    for target in (-30, -24, -23, -22, -10, -2, -1, 0, 1, 2, 3, 127, 252, 253, 254, 255, 256):
        ea, eb = exponents(target)
        add(_pack(sign(), ea, fraction()), _pack(sign(), eb, fraction()))
        add(_pack(sign(), ea, short(3)), _pack(sign(), eb, fraction()))
        add(_pack(sign(), ea, fraction()), _pack(sign(), eb, np.full(n, 0x7F_FFFF)))
    # Exact quotients: q * d divided by d, with q (normal or subnormal) and d of at most 11
    # and 12 significant bits and d in [1, 2**13), so that q * d is exact.
    for eq in (0, 1, 20, 100, 127, 200, 240):
        fq = rng.integers(1, 1 << 10, n) << rng.integers(0, 14, n) if eq == 0 else short(10)
        q = _pack(sign(), np.full(n, eq), fq)
        d = _pack(sign(), rng.integers(127, 140, n), short(11))
        add(_bits(_f(q) * _f(d)), d)
    # Powers of two into the subnormal range: the quotient is exact, the shifted-out bits
    # alone decide the rounding, often a tie (odd multiples of half the smallest subnormal).
    for ea in (1, 2, 10, 24):
        add(_pack(sign(), np.full(n, ea), short(4)), _pack(sign(), rng.integers(127, 153, n), 0))
        add(_pack(sign(), 0, rng.integers(0, 1 << 23, n) | 1),
            _pack(sign(), rng.integers(127, 130, n), 0))
    # Quotients a few ulps either side of the largest finite value, the smallest normal and
    # the rounding boundaries of the two smallest subnormals: a is the binary32 nearest to
    # t * d, moved by up to two ulps.
    for t, ed in ((float(_f(MAX_FINITE)), 126), (2.0**-126, 140), (2.0**-150, 160),
                  (3 * 2.0**-150, 160)):
        d = _pack(0, np.full(n, ed), fraction())
        x = _bits(t * _f(d).astype(np.float64)) + rng.integers(-2, 3, n)
        add(x | (sign() << 31), d)
    # Halfway between the largest subnormal and the smallest normal, rounding up to the
    # normal. No other quotient rounds up to a power of two (one would have to lie within
    # 2**-24 of it, relatively, which only (2**24 - 1) * 2**k does), so none overflows by
    # rounding either.
    ea = rng.integers(1, 128, n)
    add(_pack(sign(), ea, 0x7F_FFFF), _pack(sign(), ea + 127, 0))
    # Near the smallest normal and the smallest subnormal.
    add(np.full(n, MIN_NORMAL), _pack(sign(), 127, rng.integers(1, 1 << 5, n)))
    add(_pack(sign(), 1, rng.integers(0, 4, n)), _pack(0, 127, rng.integers(0, 1 << 23, n)))
    add(_pack(sign(), 0, rng.integers(1, 4, n)), _pack(0, rng.integers(127, 130, n), fraction()))
    add(np.full(n, MIN_SUBNORMAL), _pack(0, 127, fraction()) | 0x0080_0000)   # 1 / [2, 4)
    # Subnormal operands against normals spanning the range and each other.
    for e in (1, 24, 100, 127, 150, 200, 254):
        add(_pack(sign(), 0, fraction()), _pack(sign(), np.full(n, e), fraction()))
        add(_pack(sign(), np.full(n, e), fraction()), _pack(sign(), 0, fraction()))
    add(_pack(sign(), 0, fraction()), _pack(sign(), 0, fraction()))
    # The overflow boundary: the largest finite over values just below 1 and just above.
    add(_pack(sign(), 254, 0x7F_FFFF - rng.integers(0, 4, n)),
        _pack(0, 126, 0x7F_FFFF - rng.integers(0, 8, n)))
    add(np.full(n, MAX_FINITE), _pack(sign(), 127, rng.integers(0, 4, n)))
    add(_pack(sign(), rng.integers(200, 255, n), fraction()), _pack(sign(), 0, fraction()))
    # Finite over zero.
    add(rng.integers(0, 1 << 31, n) | (sign() << 31), sign() << 31)
    # Uniform 32-bit patterns.
    add(rng.integers(0, 1 << 32, 4 * n), rng.integers(0, 1 << 32, 4 * n))
    return np.concatenate(a), np.concatenate(b)


float_bits = st.floats(width=32).map(lambda v: int(np.float32(v).view(np.uint32)))
operand = st.one_of(st.integers(0, (1 << 32) - 1), float_bits)
batches = st.lists(st.tuples(operand, operand), min_size=200, max_size=200)
# No shrinking: a failure already lists the failing pairs, and shrinking a batch reruns the
# simulation hundreds of times.
batch_settings = settings(max_examples=8, deadline=None,
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])


def _unzip(pairs):
    return [p[0] for p in pairs], [p[1] for p in pairs]


# ------------------------------------------------------------------------------ adder

@pytest.mark.parametrize("lzc_stage", [False, True])
def test_adder_specials(lzc_stage):
    check_arithmetic(FP32Adder(TAG_WIDTH, lzc_stage=lzc_stage), ref_add, *pairs_of_specials(),
                     seed=1)


@pytest.mark.parametrize("lzc_stage", [False, True])
def test_adder_structured(lzc_stage):
    a, b = adder_operands(np.random.default_rng(2))
    check_arithmetic(FP32Adder(TAG_WIDTH, lzc_stage=lzc_stage), ref_add, a, b, seed=2)


@batch_settings
@given(batches)
def test_adder_hypothesis(pairs):
    check_arithmetic(FP32Adder(TAG_WIDTH), ref_add, *_unzip(pairs), seed=len(pairs))


# ------------------------------------------------------------------------------ multiplier

def test_multiplier_specials():
    check_arithmetic(FP32Multiplier(TAG_WIDTH), ref_mul, *pairs_of_specials(), seed=3)


def test_multiplier_structured():
    a, b = multiplier_operands(np.random.default_rng(4))
    check_arithmetic(FP32Multiplier(TAG_WIDTH), ref_mul, a, b, seed=4)


@batch_settings
@given(batches)
def test_multiplier_hypothesis(pairs):
    check_arithmetic(FP32Multiplier(TAG_WIDTH), ref_mul, *_unzip(pairs), seed=len(pairs))


# ------------------------------------------------------------------------------ divider

def test_divider_specials():
    check_arithmetic(FP32Divider(TAG_WIDTH), ref_div, *pairs_of_specials(), seed=9)


def test_divider_structured():
    a, b = divider_operands(np.random.default_rng(10))
    check_arithmetic(FP32Divider(TAG_WIDTH), ref_div, a, b, seed=10)


@batch_settings
@given(batches)
def test_divider_hypothesis(pairs):
    check_arithmetic(FP32Divider(TAG_WIDTH), ref_div, *_unzip(pairs), seed=len(pairs))


# ------------------------------------------------------------------------------ pipeline

def _six_stage_adder(tag_width):
    return FP32Adder(tag_width, lzc_stage=True)


UNITS = [FP32Adder, _six_stage_adder, FP32Multiplier, FP32Divider]


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.__name__)
def test_latency_and_throughput(unit):
    """Back to back without backpressure: one result a cycle, ``latency`` cycles after its
    operands, and ``i.ready`` never low."""
    dut = unit(tag_width=8)
    count = 40
    log = []

    async def testbench(ctx):
        ctx.set(dut.o.ready, 1)
        for cycle in range(count + dut.latency + 2):
            feeding = cycle < count
            ctx.set(dut.i.valid, feeding)
            ctx.set(dut.i.payload.tag, cycle & 0xFF)
            ctx.set(dut.i.payload.a, ONE)
            ctx.set(dut.i.payload.b, ONE)
            _, _, ready, valid, tag = await ctx.tick().sample(dut.i.ready, dut.o.valid,
                                                               dut.o.payload.tag)
            log.append((ready, valid, tag))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert all(ready for ready, _, _ in log)
    # The operands taken at clock edge k are on o (and taken) at edge k + latency.
    want = [(0, None)] * dut.latency + [(1, k) for k in range(count)] + [(0, None)] * 2
    assert [(v, t if v else None) for _, v, t in log] == want


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.__name__)
def test_heavy_backpressure(unit):
    """Long stalls and bursts: nothing lost, repeated or reordered."""
    rng = np.random.default_rng(8)
    a, b = rng.integers(0, 1 << 32, 300), rng.integers(0, 1 << 32, 300)
    run_stream(unit(tag_width=1), a, b, seed=8, gap=0.05, stall=0.8)


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("tag_width", [0, 1, 20])
def test_verilog(unit, tag_width):
    text = verilog.convert(unit(tag_width=tag_width), name=f"{unit.__name__}_t{tag_width}")
    assert f"module {unit.__name__}_t{tag_width}" in text
