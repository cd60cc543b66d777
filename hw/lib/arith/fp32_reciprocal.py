"""The float32 reciprocal of an unsigned integer, one a cycle: PageRank's VConst (1 / out-degree,
Graphicionado §4 Table 1) made by the hardware that knows the degree, the dynamic graph's
compactor, instead of by the host.

A pipeline of restoring-division stages (one quotient bit a stage), rounded to nearest even:
the IEEE quotient float32(1) / float32(d) for every d a float32 holds exactly (d < 2**24 and
more), 0.0 for d = 0 (as :func:`golden.algorithms.pagerank_inv_outdeg`).
"""

from amaranth.hdl import Cat, Const, Module, Mux, Shape, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["Reciprocal", "reciprocal_in_layout", "reciprocal_out_layout", "STAGES",
           "float32_significand"]

QUOTIENT_BITS = 25          # 24 of the significand and the round bit
STAGES = QUOTIENT_BITS + 3  # find the leading one, normalise, the quotient bits, round


def reciprocal_in_layout(side_shape) -> data.StructLayout:
    return data.StructLayout({"value": 32, "side": side_shape})


def reciprocal_out_layout(side_shape) -> data.StructLayout:
    return data.StructLayout({"bits": 32, "value": 32, "side": side_shape})


def _leading_layout(side_shape) -> data.StructLayout:
    return data.StructLayout({"value": 32, "side": side_shape, "log2": 5})


def _stage_layout(side_shape) -> data.StructLayout:
    return data.StructLayout({
        "value": 32, "side": side_shape,
        "divisor": 32,       # the value shifted up until bit 31 is set
        "log2": 5,           # floor(log2(value))
        "exact": 1,          # a power of two (or zero): no division
        "zero": 1,
        "rem": 33, "quot": QUOTIENT_BITS,
    })


def float32_significand(value):
    """``float32(value)`` of a uint32 ``value`` as ``(significand, shift)``, combinational:
    ``float32(value) = significand << shift`` with ``significand`` < 2**24 (24 bits) and
    ``shift`` in 0..9 (4 bits), rounded to nearest even. So ``1 / float32(d)`` is the
    reciprocal of ``significand`` (exact in a float32, which :class:`Reciprocal` rounds as
    IEEE does) with ``shift`` taken off its exponent."""
    value = Value.cast(value)
    result = Cat(value[:24], Const(0, 4))
    for shift in range(1, 9):           # the leading one at bit 23 + shift; the highest wins
        kept = value[shift:shift + 24]
        sticky = value[:shift - 1].any() if shift > 1 else Const(0, 1)
        rounded = kept + (value[shift - 1] & (sticky | kept[0]))      # 25 bits
        carry = rounded[24]
        result = Mux(value[23 + shift],
                     Cat(Mux(carry, 1 << 23, rounded[:24]), (shift + carry)[:4]), result)
    return result[:24], result[24:]


class Reciprocal(wiring.Component):
    """``STAGES`` cycles from ``i`` to ``o``; the whole pipeline moves when ``o`` is free or
    taken.

    Parameters
    ----------
    side_shape : shape-like
        Carried from a value to its result.
    out_layout : shape-like or None
        The result's layout, if not :func:`reciprocal_out_layout`: any layout of the same
        width, which sees the result's bits in that order (``bits``, ``value``, ``side``),
        so ``o`` joins a consumer of that layout with ``wiring.connect``.

    Members
    -------
    i : ``In(stream.Signature(reciprocal_in_layout(side_shape)))``
    o : ``Out(stream.Signature(out_layout))``
        ``bits``: the float32 of 1 / ``value``.
    busy : ``Out(1)``
        A value is in the pipeline.
    """

    def __init__(self, side_shape=1, *, out_layout=None):
        self._side = side_shape
        result = reciprocal_out_layout(side_shape)
        if out_layout is None:
            out_layout = result
        elif Shape.cast(out_layout).width != result.size:
            raise ConfigError(f"Reciprocal: out_layout must be {result.size} bits wide, not "
                              f"{Shape.cast(out_layout).width}")
        self._result = result
        super().__init__({
            "i": In(stream.Signature(reciprocal_in_layout(side_shape))),
            "o": Out(stream.Signature(out_layout)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        layout = _stage_layout(self._side)
        # The leading one's search and the shift by it take a cycle each (in one, they were
        # the longest path of the dynamic graph unit's ECP5 build).
        leading = Signal(_leading_layout(self._side))
        stages = [Signal(layout, name=f"stage{k}") for k in range(QUOTIENT_BITS + 1)]
        valid = Signal(QUOTIENT_BITS + 2)
        advance = ~self.o.valid | self.o.ready
        m.d.comb += [self.i.ready.eq(advance), self.busy.eq(valid.any() | self.o.valid)]
        bits = self._rounded(m, stages[-1])
        with m.If(advance):
            m.d.sync += valid.eq(Cat(self.i.valid, valid[:-1]))
            m.d.sync += self._leading_one(leading)
            m.d.sync += self._normalised(leading, stages[0])
            for k in range(QUOTIENT_BITS):
                m.d.sync += self._divided(stages[k], stages[k + 1])
            result = Signal(self._result)
            m.d.comb += [result.bits.eq(bits), result.value.eq(stages[-1].value),
                         result.side.eq(stages[-1].side)]
            m.d.sync += [self.o.valid.eq(valid[-1]),
                         self.o.payload.as_value().eq(result.as_value())]
        return m

    def _leading_one(self, leading):
        value = self.i.payload.value
        # The highest set bit, one-hot, then each bit of its position an OR of the positions
        # that have it: a tree a few LUTs deep (a chain of 32 multiplexers was the compactor's
        # longest path).
        highest = [value[bit] & ~value[bit + 1:].any() for bit in range(31)] + [value[31]]
        log2 = Cat(Cat(highest[bit] for bit in range(32) if bit >> place & 1).any()
                   for place in range(5))
        return [leading.value.eq(value), leading.side.eq(self.i.payload.side),
                leading.log2.eq(log2)]

    @staticmethod
    def _normalised(leading, first):
        return [first.value.eq(leading.value), first.side.eq(leading.side),
                first.log2.eq(leading.log2), first.divisor.eq(leading.value << (~leading.log2)[:5]),
                # Beside the shift, not after the leading one's search.
                first.zero.eq(leading.value == 0),
                first.exact.eq((leading.value & (leading.value - 1)) == 0),
                first.rem.eq(Const(1 << 32, 33)), first.quot.eq(0)]

    @staticmethod
    def _divided(src, dst):
        # Restoring division of 2**56 by the divisor, a quotient bit a stage; the remainder
        # is kept doubled, so it is zero at the end exactly when the division is exact.
        fits = src.rem >= src.divisor
        rem = Mux(fits, src.rem - src.divisor, src.rem)
        return [dst.value.eq(src.value), dst.side.eq(src.side), dst.divisor.eq(src.divisor),
                dst.log2.eq(src.log2), dst.exact.eq(src.exact), dst.zero.eq(src.zero),
                dst.quot.eq(Cat(fits, src.quot[:-1])), dst.rem.eq((rem << 1)[:33])]

    @staticmethod
    def _rounded(m, last):
        # Not a power of two: 1/d = 2**-(log2 + 1) * quot / 2**24, quot in [2**24, 2**25),
        # its low bit the round bit.
        quot = last.quot
        significand = quot[1:]
        up = quot[0] & ((last.rem != 0) | significand[0])
        rounded = Signal(25)
        exponent = Signal(8)
        bits = Signal(32)
        m.d.comb += [
            rounded.eq(significand + up),
            exponent.eq(126 - last.log2 + rounded[24]),
            bits.eq(Mux(last.zero, 0,
                        Mux(last.exact, Cat(Const(0, 23), (127 - last.log2)[:8]),
                            Cat(Mux(rounded[24], 0, rounded[:23]), exponent)))),
        ]
        return bits
