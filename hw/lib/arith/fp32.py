"""Pipelined IEEE 754 single-precision (binary32) units: Graphicionado's custom compute
modules for PageRank (Ham et al. §3.2 "Custom Modules": an FP32 multiply in Process_Edge, an
FP32 add in Reduce and Apply), and a divider for DepGraph's DDMU (the slope of the linear
function it learns from two observations).

Every unit has the stream interface of :mod:`hw.lib.arith.integer`: operands ``a``, ``b`` and a
``tag`` in (the tag carries e.g. a destination vertex id alongside the operands), the result and
the same tag out ``latency`` cycles later, one operation per cycle.

Arithmetic agrees bit for bit with NumPy ``float32`` (and so with any IEEE 754 implementation
in its default mode):

* round to nearest, ties to even;
* subnormal operands and results are exact (no flush to zero), including a product or
  quotient that underflows to a subnormal or to zero and a subnormal that rounds up to the
  smallest normal;
* an exact zero sum is +0 unless both operands are -0 (``x + (-x) = +0``, ``-0 + -0 = -0``);
  a zero product or quotient has the exclusive-or of the operand signs;
* overflow gives an infinity of the result's sign, and so does a nonzero number divided by
  zero;
* ``inf - inf``, ``0 * inf``, ``0 / 0``, ``inf / inf`` and any NaN operand give a NaN. Every
  NaN result is the canonical quiet NaN ``0x7FC00000`` (positive, payload dropped), where NumPy
  would propagate an operand's payload and sign. No exception flags are produced.

The pipelines stall as a whole: every stage advances when ``o.ready`` is high or ``o.valid`` is
low, and ``i.ready`` is that enable. A transfer is therefore never lost or repeated, and without
backpressure the units take and deliver one operation per cycle.
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.arith.integer import binary_op_layout, result_layout
from hw.lib.config import check_int


__all__ = [
    "QNAN", "SIGN_BIT", "float32_bits", "FP32Adder", "FP32Multiplier", "FP32Divider",
]


#: The canonical quiet NaN every NaN result is given as.
QNAN = 0x7FC0_0000

#: The sign bit of a binary32: negation is an exclusive-or with it (exact, as IEEE 754
#: defines ``a - b`` as ``a + (-b)``).
SIGN_BIT = 0x8000_0000


def float32_bits(value: float) -> int:
    """The binary32 bit pattern of ``value`` rounded to float32."""
    import numpy as np
    return int(np.float32(value).view(np.uint32))

_INF = 0x7F80_0000


class _Stages:
    """Pipeline registers, one call per stage: ``stage(name=value, ...)`` registers each value
    (updated while ``enable`` is high) and returns the registers as attributes. The registers
    after stage N are named ``rN_<name>``; combinational signals of stage N are ``sN_<name>``."""

    def __init__(self, m, enable):
        self._m = m
        self._enable = enable
        self.count = 0

    def __call__(self, **values):
        self.count += 1
        registers = {}
        for name, value in values.items():
            value = Value.cast(value)
            register = Signal(value.shape(), name=f"r{self.count}_{name}", reset_less=True)
            with self._m.If(self._enable):
                self._m.d.sync += register.eq(value)
            registers[name] = register
        return SimpleNamespace(**registers)


def _wire(m, value, name):
    """``value`` as a named signal, so that an expression used several times is built once."""
    value = Value.cast(value)
    signal = Signal(value.shape(), name=name)
    m.d.comb += signal.eq(value)
    return signal


def _count_leading_zeros(m, value, name):
    """Number of leading zero bits of ``value`` (``len(value)`` when it is zero), as a tree of
    multiplexers (logarithmic depth, unlike a priority chain): each half of ``2**k`` bits
    gives whether it is all zero and, when it is not, its count in ``k`` bits; the two halves'
    counts join as ``1, lower`` or ``0, upper``, without an addition."""
    width = len(value)
    padded_width = 1 << max(width - 1, 0).bit_length()
    # Ones below the value stop the count at ``width`` for a zero value.
    padded = Cat(Const((1 << (padded_width - width)) - 1, padded_width - width), value)

    def tree(bits, path):
        # (count of leading zeros when not all zero, all zero)
        if len(bits) == 1:
            return Const(0, 0), ~bits[0]
        half = len(bits) // 2
        upper_count, upper_zero = tree(bits[half:], path + "h")
        lower_count, lower_zero = tree(bits[:half], path + "l")
        return (_wire(m, Mux(upper_zero, Cat(lower_count, 1), Cat(upper_count, 0)),
                      f"{path}_count"),
                _wire(m, upper_zero & lower_zero, f"{path}_zero"))

    count, zero = tree(padded, name)
    if padded_width == width:
        # No padding: a zero value's count (all ones in its bits) is one short.
        count = Mux(zero, width, count)
    return count


def _at_least(value, bound):
    """``value >= bound`` for an unsigned ``value``: a constant 1 from ``bound`` 0 down (so
    that no compare is always true: Verilator's lint refuses one)."""
    return Const(1, 1) if bound <= 0 else value >= bound


def _shift_right_sticky(value, amount):
    """``value >> amount`` and whether any one bit was shifted out (``amount`` at most
    ``len(value)``)."""
    width = len(value)
    # The bits shifted out are those below ``amount``: a mask from the amount alone, made
    # beside the shifter rather than after it.
    shifted_out = ~(Const((1 << width) - 1, width) << amount)[0:width]
    return value >> amount, (value & shifted_out).any()


def _unpack(m, x, name):
    """Sign, exponent, significand and class (zero, inf, NaN) of a binary32 bit pattern. For a
    finite value, value = significand * 2**(exponent - 150): the exponent field, 1 for
    subnormals, and the fraction with the hidden bit made explicit (0 for subnormals)."""
    x = _wire(m, x, name)
    sign, exponent, fraction = x[31], x[23:31], x[0:23]
    exponent_zero = _wire(m, exponent == 0, f"{name}_exponent_zero")
    exponent_ones = _wire(m, exponent == 0xFF, f"{name}_exponent_ones")
    fraction_zero = _wire(m, fraction == 0, f"{name}_fraction_zero")
    return SimpleNamespace(
        sign=sign,
        exponent=Mux(exponent_zero, 1, exponent),
        significand=Cat(fraction, ~exponent_zero),
        zero=exponent_zero & fraction_zero,
        inf=exponent_ones & fraction_zero,
        nan=exponent_ones & ~fraction_zero,
        # The three compares the classes come from, for a unit that registers them first.
        exponent_zero=exponent_zero, exponent_ones=exponent_ones, fraction_zero=fraction_zero,
    )


def _round_and_pack(m, sign, exponent, significand, guard, sticky):
    """``{sign, exponent, significand[0:23]}`` rounded to nearest even by ``guard`` and
    ``sticky``. ``exponent`` (8 bits) is 0 for a subnormal. A carry out of the fraction
    increments the exponent, which turns the largest subnormal into the smallest normal and the
    largest finite into an infinity."""
    round_up = guard & (sticky | significand[0])
    magnitude = Signal(31)
    m.d.comb += magnitude.eq(Cat(significand[0:23], exponent) + round_up)
    return Cat(magnitude, sign)


def _sum_of_partial_products(m, partial):
    """``low_low + ((low_high + high_low) << 17) + (high_high << 34)``, the 48-bit product of
    two 24-bit significands split at bit 17, with one carry chain: ``low_low`` (34 bits) and
    ``high_high << 34`` do not overlap, so they are one operand; the two middle products join
    it in a carry-save adder (a LUT level: each bit's sum and carry), whose two outputs one
    addition takes. (Three carry chains in a row were the slowest path of the Graphicionado
    pipeline on the ECP5 with PageRank.)"""
    outer = Cat(partial.low_low[:34], partial.high_high[:14])
    # Bits 17 up of the three operands (31 bits; the product fits 48 bits, so the sum of the
    # upper parts taken modulo 2**31 is exact).
    upper = outer[17:48]
    middle_a = partial.low_high[:24]
    middle_b = partial.high_low[:24]
    sums = _wire(m, upper ^ middle_a ^ middle_b, "s1_csa_sum")
    carries = _wire(m, (upper & middle_a) | (upper & middle_b) | (middle_a & middle_b),
                    "s1_csa_carry")
    total = _wire(m, (sums + (carries << 1))[:31], "s1_csa_total")
    return Cat(outer[:17], total)


def _special_or(m, name, packed, *, sign, nan, inf, zero, zero_sign=None):
    """``packed``, unless the flags call for a special result: the canonical NaN, an infinity
    of ``sign``, or a zero of ``zero_sign`` (``sign`` if not given)."""
    result = Signal(32, name=name)
    with m.If(nan):
        m.d.comb += result.eq(QNAN)
    with m.Elif(inf):
        m.d.comb += result.eq(Cat(Const(_INF, 31), sign))
    with m.Elif(zero):
        m.d.comb += result.eq(Cat(Const(0, 31), sign if zero_sign is None else zero_sign))
    with m.Else():
        m.d.comb += result.eq(packed)
    return result


class _FP32Unit(wiring.Component):
    """Common part of the units: stream handshake, valid and tag pipelines. Subclasses set
    ``latency`` and ``_datapath``, which builds the pipeline with exactly
    ``latency`` calls of ``stage`` and returns a dict of output payload fields."""

    latency: int

    def __init__(self, tag_width: int = 32):
        check_int(type(self).__name__, "tag_width", tag_width, low=0)
        self._tag_width = tag_width
        super().__init__({
            "i": In(stream.Signature(binary_op_layout(tag_width))),
            "o": Out(stream.Signature(result_layout(tag_width))),
        })

    @property
    def tag_width(self) -> int:
        return self._tag_width

    def _datapath(self, m, stage, a, b):
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        enable = Signal()
        m.d.comb += [
            enable.eq(self.o.ready | ~self.o.valid),
            self.i.ready.eq(enable),
        ]

        valid, tag = self.i.valid, self.i.payload.tag
        for index in range(self.latency):
            next_valid = Signal(name=f"r{index + 1}_valid")
            next_tag = Signal(self._tag_width, name=f"r{index + 1}_tag", reset_less=True)
            with m.If(enable):
                m.d.sync += [next_valid.eq(valid), next_tag.eq(tag)]
            valid, tag = next_valid, next_tag

        stage = _Stages(m, enable)
        outputs = self._datapath(m, stage, self.i.payload.a, self.i.payload.b)
        assert stage.count == self.latency

        m.d.comb += [self.o.valid.eq(valid), self.o.payload.tag.eq(tag)]
        for name, value in outputs.items():
            m.d.comb += self.o.payload[name].eq(value)
        return m


class FP32Adder(_FP32Unit):
    """``a + b`` in binary32, rounded to nearest even, subnormals exact, NaN results as
    :data:`QNAN`. Five pipeline stages: operand swap and exponent difference; alignment;
    addition and leading-zero count; normalization; rounding and packing. With
    ``lzc_stage``, six: the leading-zero count gets a stage of its own after the addition
    (the two together were the slowest path of the Graphicionado pipeline on ECP5).

    Parameters
    ----------
    tag_width : int
        Width of the tag carried from ``i`` to ``o`` with each operation.
    lzc_stage : bool
        Count the leading zeros of the sum in a stage of their own.

    Attributes
    ----------
    latency : int
        Cycles from taking an operation on ``i`` to offering its result on ``o`` (5, or 6 with
        ``lzc_stage``) when ``o`` is not stalled.

    Members
    -------
    i : ``In(stream.Signature(binary_op_layout(tag_width)))``
        Operands ``a``, ``b`` (binary32 bit patterns) and ``tag``.
    o : ``Out(stream.Signature(result_layout(tag_width)))``
        ``result`` (binary32 bit pattern) and the operation's ``tag``.
    """

    latency = 5

    def __init__(self, tag_width: int = 32, *, lzc_stage: bool = False):
        self._lzc_stage = bool(lzc_stage)
        self.latency = 6 if self._lzc_stage else 5
        super().__init__(tag_width)

    def _datapath(self, m, stage, a, b):
        # Stage 1: order the operands by magnitude, x the larger (so the difference of the
        # significands is never negative and x gives the result's sign and exponent). Both
        # operands are unpacked, and both exponent differences taken, beside the magnitude
        # comparison; its result only selects among them. The flags need no order: x is
        # infinite if either operand is (a NaN operand overrides that).
        swap = _wire(m, b[0:31] > a[0:31], "s1_swap")
        ua, ub = _unpack(m, a, "s1_a"), _unpack(m, b, "s1_b")
        a_ahead = _wire(m, ua.exponent - ub.exponent, "s1_a_ahead")
        b_ahead = _wire(m, ub.exponent - ua.exponent, "s1_b_ahead")
        # The alignment shift, clamped here rather than in stage 2: from 27 on, all of y goes
        # to sticky. (The one of the larger operand's view is the one kept, never negative.)
        a_shift = _wire(m, Mux(a_ahead > 27, 27, a_ahead)[0:5], "s1_a_shift")
        b_shift = _wire(m, Mux(b_ahead > 27, 27, b_ahead)[0:5], "s1_b_shift")
        s1 = stage(
            sign=Mux(swap, ub.sign, ua.sign),
            subtract=ua.sign ^ ub.sign,
            zero_sign=ua.sign & ub.sign,
            exponent=Mux(swap, ub.exponent, ua.exponent),
            shift=Mux(swap, b_shift, a_shift),
            x_significand=Mux(swap, ub.significand, ua.significand),
            y_significand=Mux(swap, ua.significand, ub.significand),
            nan=ua.nan | ub.nan | (ua.inf & ub.inf & (ua.sign ^ ub.sign)),
            inf=ua.inf | ub.inf,
        )

        # Stage 2: align y to x. The significands get three bits below their LSB, guard, round
        # and sticky (the OR of all bits shifted further out), enough for a correctly rounded
        # sum or difference: a difference needs a left shift of more than one bit only when the
        # exponents differ by at most one, and then no bit has been shifted out beyond guard.
        y_extended = Cat(Const(0, 3), s1.y_significand)
        aligned, sticky = _shift_right_sticky(y_extended, s1.shift)
        s2 = stage(
            sign=s1.sign, subtract=s1.subtract, zero_sign=s1.zero_sign,
            exponent=s1.exponent,
            x_extended=Cat(Const(0, 3), s1.x_significand),
            y_aligned=aligned | sticky,
            nan=s1.nan, inf=s1.inf,
        )

        # Stage 3: add or subtract; bit 27 is the carry, bit 26 the hidden bit of an
        # unnormalized result.
        total = Signal(28, name="s3_total")
        m.d.comb += total.eq(Mux(s2.subtract,
                                 s2.x_extended - s2.y_aligned,
                                 s2.x_extended + s2.y_aligned))
        if self._lzc_stage:
            s3 = self._count_stages(m, stage, s2, total)
        else:
            s3 = stage(
                sign=s2.sign, zero_sign=s2.zero_sign, exponent=s2.exponent,
                total=total,
                leading_zeros=_count_leading_zeros(m, total, "s3_lzc"),
                nan=s2.nan, inf=s2.inf,
            )
            # Whether the shift is limited (below the normal range), and the sum zero.
            s3.limited = s3.leading_zeros > s3.exponent
            s3.zero = s3.total == 0

        # Stage 4: normalize so the leading one lands on bit 27, i.e. the exponent becomes
        # exponent + 1 - shift, but not below exponent field 1: a result below the normal range
        # stays subnormal (exact, since both operands are multiples of the smallest subnormal).
        # The leading one reaches bit 27 unless the shift is limited or the sum is zero, so
        # the exponent is worked out beside the shifter, not from its top bit.
        shift = _wire(m, Mux(s3.limited, s3.exponent, s3.leading_zeros)[0:5], "s4_shift")
        normalized = Signal(28, name="s4_normalized")
        m.d.comb += normalized.eq(s3.total << shift)
        exponent = _wire(m, Mux(~s3.limited & ~s3.zero, s3.exponent + 1 - shift, 0),
                         "s4_exponent")
        s4 = stage(
            sign=s3.sign, zero_sign=s3.zero_sign, exponent=exponent,
            normalized=normalized, zero=s3.zero, nan=s3.nan, inf=s3.inf,
        )

        # Stage 5: round and pack (the rounding increment is a carry chain of its own).
        packed = _round_and_pack(m, s4.sign, s4.exponent[0:8], s4.normalized[4:28],
                                 s4.normalized[3], s4.normalized[0:3].any())
        result = _special_or(m, "s5_result", packed, sign=s4.sign, nan=s4.nan,
                             inf=s4.inf | (s4.exponent == 0xFF), zero=s4.zero,
                             zero_sign=s4.zero_sign)
        s5 = stage(result=result)
        return {"result": s5.result}


    @staticmethod
    def _count_stages(m, stage, s2, total):
        """With ``lzc_stage``: the sum into a register, with a mask of the bits at or above
        ``27 - exponent`` (each a compare of the exponent with a constant); then the leading
        zeros, whether the normalization shift is limited (no one bit under the mask:
        ``leading_zeros > exponent``, never from exponent 28 on) and whether the sum is zero,
        each on its own, so that the normalization stage has one carry chain, not a compare's
        and a subtraction's in a row (the slowest path of Graphicionado's ECP5 preset with
        PageRank once the multiplier's were shortened)."""
        summed = stage(sign=s2.sign, zero_sign=s2.zero_sign, exponent=s2.exponent,
                       total=total, nan=s2.nan, inf=s2.inf,
                       can_limit=s2.exponent < 28,
                       limit_mask=Cat(_at_least(s2.exponent, 27 - j) for j in range(28)))
        return stage(
            sign=summed.sign, zero_sign=summed.zero_sign, exponent=summed.exponent,
            total=summed.total,
            leading_zeros=_count_leading_zeros(m, summed.total, "s3_lzc"),
            limited=summed.can_limit & ~(summed.total & summed.limit_mask).any(),
            zero=summed.total == 0,
            nan=summed.nan, inf=summed.inf,
        )


class FP32Multiplier(_FP32Unit):
    """``a * b`` in binary32, rounded to nearest even, subnormals exact (operands and
    results, including underflow to zero), overflow to infinity, NaN results as :data:`QNAN`.
    Seven pipeline stages: unpacking; the four partial products of the 24×24-bit significand
    product (block multipliers); their sum (one carry chain); the leading zeros of each third
    of the product and whether the normalization shift is limited (below the normal range
    the product is denormalized, shifted right, instead); the shift amount and the shift by
    its multiple of 8; the rest of the shift and the sticky bit; rounding and packing. (Six
    until the normalization's leading-zero count, its 48-bit shift and the sticky bit's OR,
    two of them in a stage, were the slowest paths of Graphicionado's ECP5 preset with
    PageRank, 10 ns.)

    Parameters
    ----------
    tag_width : int
        Width of the tag carried from ``i`` to ``o`` with each operation.

    Attributes
    ----------
    latency : int
        Cycles from taking an operation on ``i`` to offering its result on ``o`` (7) when
        ``o`` is not stalled.

    Members
    -------
    i : ``In(stream.Signature(binary_op_layout(tag_width)))``
        Operands ``a``, ``b`` (binary32 bit patterns) and ``tag``.
    o : ``Out(stream.Signature(result_layout(tag_width)))``
        ``result`` (binary32 bit pattern) and the operation's ``tag``.
    """

    latency = 7

    def _datapath(self, m, stage, a, b):
        x, y = _unpack(m, a, "s1_a"), _unpack(m, b, "s1_b")

        # Stage 0: unpack; the multiplier then starts from registers.
        s0 = stage(
            sign=x.sign ^ y.sign,
            x_significand=x.significand,
            y_significand=y.significand,
            # The exponent fields' sum (one carry chain); the constants are taken in stage 1.
            exponent_sum=x.exponent + y.exponent,  # 2 .. 508
            # The operands' compares, not yet their classes (one LUT level less from ``i``).
            x_exponent_zero=x.exponent_zero, x_exponent_ones=x.exponent_ones,
            x_fraction_zero=x.fraction_zero,
            y_exponent_zero=y.exponent_zero, y_exponent_ones=y.exponent_ones,
            y_fraction_zero=y.fraction_zero,
        )
        x_zero = s0.x_exponent_zero & s0.x_fraction_zero
        x_inf = s0.x_exponent_ones & s0.x_fraction_zero
        y_zero = s0.y_exponent_zero & s0.y_fraction_zero
        y_inf = s0.y_exponent_ones & s0.y_fraction_zero
        x_nan = s0.x_exponent_ones & ~s0.x_fraction_zero
        y_nan = s0.y_exponent_ones & ~s0.y_fraction_zero

        # Stage 1: the partial products of the significands, split at bit 17 so each fits a
        # block multiplier; summing them in the same cycle as a block multiplier's
        # combinational delay would be the slowest path of the chip.
        x_low, x_high = s0.x_significand[:17], s0.x_significand[17:]
        y_low, y_high = s0.y_significand[:17], s0.y_significand[17:]
        # Beside them, what the normalization needs from the exponent alone: the limit of the
        # left shift (how far the leading one may move left before the exponent field
        # reaches 1, ``exponent_sum - 127``), and, for a result below the normal range, how
        # far the product moves right instead (its negation). Left for stage 2, these were
        # its slowest path. Each clamp compares the sum with a constant, beside the
        # subtraction it selects.
        total = s0.exponent_sum
        below = _wire(m, total < 127, "s1_below")
        s1a = stage(
            sign=s0.sign,
            low_low=x_low * y_low,
            low_high=x_low * y_high,
            high_low=x_high * y_low,
            high_high=x_high * y_high,
            # With the leading one on bit 47, the biased result exponent (-124 .. 382).
            exponent=total - 126,
            # The limit clamped to 0..63 (a product has at most 47 leading zeros).
            left_limit=Mux(below, 0, Mux(total > 190, 63, (total - 127)[0:6])),
            right_shift=Mux(total < 79, 48, (127 - total)[0:6]),
            below=below,
            nan=x_nan | y_nan | (x_inf & y_zero) | (y_inf & x_zero),
            inf=x_inf | y_inf,
            zero=x_zero | y_zero,
        )

        # Stage 1b: the product of the significands, 46 fraction bits. With the leading one on
        # bit 47 the biased result exponent is x.exponent + y.exponent - 126. Beside it, two
        # masks from the shift amounts alone (each bit a compare with a constant), so that
        # stage 2 only ANDs them with the product: the bits at or above ``47 - left_limit``
        # (none set: the left shift is limited) and the bits a right shift moves out (sticky).
        product = Signal(48, name="s1_product")
        m.d.comb += product.eq(_sum_of_partial_products(m, s1a))
        s1 = stage(
            sign=s1a.sign,
            product=product,
            exponent=s1a.exponent,
            left_limit=s1a.left_limit, right_shift=s1a.right_shift, below=s1a.below,
            # lzc > left_limit <=> no one bit at or above 47 - left_limit (never, from 48 on:
            # a product has at most 48 leading zeros).
            can_limit=s1a.left_limit < 48,
            limit_mask=Cat(_at_least(s1a.left_limit, 47 - j) for j in range(48)),
            # Below the normal range, the bits that end under the guard bit: those a right
            # shift moves out and the 23 after them.
            right_mask=Cat(Const(1, 1) if j < 23 else s1a.right_shift > j - 23
                           for j in range(48)),
            nan=s1a.nan, inf=s1a.inf, zero=s1a.zero,
        )

        # Stage 2: how far to move the leading one to bit 47, but not below exponent field 1
        # (a subnormal operand has leading zeros; a result below the normal range is shifted
        # right instead, its shifted-out bits kept as sticky): the leading zeros of each 16-bit
        # part of the product, and whether the limit applies, each on its own.
        parts = [s1.product[16 * k:16 * (k + 1)] for k in range(3)]
        limited = _wire(m, s1.below | (s1.can_limit & ~(s1.product & s1.limit_mask).any()),
                        "s2_limited")
        s2 = stage(
            sign=s1.sign,
            product=s1.product,
            exponent=s1.exponent,
            part_zeros=Cat(_count_leading_zeros(m, part, f"s2_lzc{k}")[0:5]
                           for k, part in enumerate(parts)),
            high_zero=parts[2] == 0, middle_zero=parts[1] == 0,
            left_limit=s1.left_limit,
            right_shift=s1.right_shift,
            right_sticky=(s1.product & s1.right_mask).any(),
            below=s1.below,
            limited=limited,
            nan=s1.nan, inf=s1.inf, zero=s1.zero,
        )

        # Stage 3: the leading zeros from the parts' (no addition: a part's count is below 16
        # unless it is zero), the shift amount, and the shifts by its multiple of 8; beside
        # them the exponent (the leading one reaches bit 47 unless the shift was limited or
        # the product is zero, an operand is), and which of the product's low bits the left
        # shift leaves under the guard bit (the sticky ones).
        low, middle, high = (s2.part_zeros[5 * k:5 * (k + 1)] for k in range(3))
        leading_zeros = Mux(s2.high_zero,
                            Mux(s2.middle_zero, Cat(low, Const(1, 1)),
                                Cat(middle[0:4], Const(0b01, 2))),
                            high)
        left_shift = _wire(m, Mux(s2.limited, s2.left_limit, leading_zeros)[0:6],
                           "s3_left_shift")
        exponent = _wire(m, Mux(~s2.below & ~s2.limited & ~s2.zero,
                                s2.exponent - left_shift, 0), "s3_exponent")
        s3a = stage(
            sign=s2.sign, exponent=exponent, below=s2.below,
            left=(s2.product << Cat(Const(0, 3), left_shift[3:6]))[0:48],
            left_fine=left_shift[0:3],
            right=s2.product >> Cat(Const(0, 3), s2.right_shift[3:6]),
            right_fine=s2.right_shift[0:3],
            low=s2.product[0:23],
            left_mask=Cat(left_shift <= 22 - j for j in range(23)),
            right_sticky=s2.right_sticky,
            nan=s2.nan, inf=s2.inf, zero=s2.zero,
        )

        # Stage 4: the shifts by the rest, 0..7, the normal range's or the one below it, the
        # sticky bit, and the overflow check.
        normalized = _wire(m, Mux(s3a.below, s3a.right >> s3a.right_fine,
                                  (s3a.left << s3a.left_fine)[0:48]), "s4_normalized")
        s3 = stage(
            sign=s3a.sign,
            exponent=s3a.exponent[0:8],
            significand=normalized[24:48],
            guard=normalized[23],
            sticky=Mux(s3a.below, s3a.right_sticky, (s3a.low & s3a.left_mask).any()),
            overflow=s3a.exponent >= 0xFF,
            nan=s3a.nan, inf=s3a.inf, zero=s3a.zero,
        )

        # Stage 5: round and pack.
        packed = _round_and_pack(m, s3.sign, s3.exponent, s3.significand, s3.guard,
                                 s3.sticky)
        result = _special_or(m, "s5_result", packed, sign=s3.sign, nan=s3.nan,
                             inf=s3.inf | s3.overflow, zero=s3.zero)
        s5 = stage(result=result)
        return {"result": s5.result}


class FP32Divider(_FP32Unit):
    """``a / b`` in binary32, rounded to nearest even, subnormals exact (operands and results,
    including underflow to zero), overflow to infinity; ``x / 0`` is an infinity with the
    exclusive-or of the signs, ``0 / 0`` and ``inf / inf`` give :data:`QNAN`.

    A restoring radix-2 long division of the significands, one quotient bit per stage, so no
    stage holds more than a 26-bit subtraction and a multiplexer. 30 pipeline stages: unpack
    and leading-zero count; normalization of subnormal operands; 26 division stages (the
    quotient's leading one is its first or second bit, so 26 bits hold 24 significand bits
    and a guard bit either way; the final remainder gives sticky), which also settle the
    result exponent; normalization (or denormalization below the normal range); rounding and
    packing.

    Parameters
    ----------
    tag_width : int
        Width of the tag carried from ``i`` to ``o`` with each operation.

    Attributes
    ----------
    latency : int
        Cycles from taking an operation on ``i`` to offering its result on ``o`` (30) when
        ``o`` is not stalled.

    Members
    -------
    i : ``In(stream.Signature(binary_op_layout(tag_width)))``
        Operands ``a`` (dividend), ``b`` (divisor) (binary32 bit patterns) and ``tag``.
    o : ``Out(stream.Signature(result_layout(tag_width)))``
        ``result`` (binary32 bit pattern) and the operation's ``tag``.
    """

    latency = 30

    def _datapath(self, m, stage, a, b):
        x, y = _unpack(m, a, "s1_a"), _unpack(m, b, "s1_b")

        # Stage 1: unpack and count the leading zeros of the significands (subnormals).
        s1 = stage(
            sign=x.sign ^ y.sign,
            x_significand=x.significand,
            y_significand=y.significand,
            x_shift=_count_leading_zeros(m, x.significand, "s1_a_lzc"),
            y_shift=_count_leading_zeros(m, y.significand, "s1_b_lzc"),
            exponent=x.exponent - y.exponent + 127,
            nan=x.nan | y.nan | (x.zero & y.zero) | (x.inf & y.inf),
            inf=x.inf | y.zero,
            zero=x.zero | y.inf,
        )

        # Stage 2: normalize both significands to a leading one on bit 23. With the quotient's
        # leading one on bit 25 (significands x >= y) the biased result exponent is then
        # x.exponent - y.exponent + 127, -149 .. 403.
        s2 = stage(
            sign=s1.sign,
            remainder=(s1.x_significand << s1.x_shift)[0:24],
            divisor=(s1.y_significand << s1.y_shift)[0:24],
            exponent=(s1.exponent - s1.x_shift + s1.y_shift)[0:10].as_signed(),
            nan=s1.nan, inf=s1.inf, zero=s1.zero,
        )

        # Stages 3 to 28: one quotient bit each, most significant first. The partial remainder
        # is below twice the divisor, so it has 25 bits and what is left after a subtraction 24.
        # Alongside, the exponent is settled: the first quotient bit is 0 when the dividend's
        # significand is below the divisor's, one less for the exponent (stage 4), and below
        # exponent field 1 the quotient is to be shifted right to a subnormal (stage 5).
        s = s2
        exponent_fields = {"exponent": s2.exponent}
        for index in range(26):
            prefix = f"s{stage.count + 1}"
            difference = _wire(m, s.remainder - s.divisor, f"{prefix}_difference")
            bit = _wire(m, ~difference[-1], f"{prefix}_bit")
            left = _wire(m, Mux(bit, difference, s.remainder)[0:24], f"{prefix}_left")
            if index == 1:
                exponent_fields = {"exponent": (s.exponent - 1 + s.quotient)[0:10].as_signed()}
            elif index == 2:
                exponent_fields = {
                    "exponent": s.exponent,
                    "below": s.exponent < 1,
                    "right_shift": Mux(s.exponent < -25, 26, 1 - s.exponent)[0:5],
                }
            else:
                exponent_fields = {name: getattr(s, name) for name in exponent_fields}
            s = stage(
                sign=s.sign,
                remainder=Cat(Const(0, 1), left),
                divisor=s.divisor,
                quotient=Cat(bit, s.quotient) if index else bit,
                nan=s.nan, inf=s.inf, zero=s.zero,
                **exponent_fields,
            )

        # Stage 29: the leading one to bit 25, or the quotient shifted right to a subnormal,
        # the shifted-out bits and the remainder joining sticky.
        normalized = _wire(m, Mux(s.quotient[-1], s.quotient, s.quotient << 1)[0:26],
                           "s29_normalized")
        shifted_right, right_sticky = _shift_right_sticky(normalized, s.right_shift)
        significand = _wire(m, Mux(s.below, shifted_right, normalized), "s29_significand")
        s29 = stage(
            sign=s.sign,
            exponent=Mux(s.below, 0, s.exponent)[0:8],
            significand=significand[2:26],
            guard=significand[1],
            sticky=significand[0] | (s.remainder != 0) | (s.below & right_sticky),
            overflow=s.exponent >= 0xFF,
            nan=s.nan, inf=s.inf, zero=s.zero,
        )

        # Stage 30: round and pack.
        packed = _round_and_pack(m, s29.sign, s29.exponent, s29.significand, s29.guard,
                                 s29.sticky)
        result = _special_or(m, "s30_result", packed, sign=s29.sign, nan=s29.nan,
                             inf=s29.inf | s29.overflow, zero=s29.zero)
        s30 = stage(result=result)
        return {"result": s30.result}
