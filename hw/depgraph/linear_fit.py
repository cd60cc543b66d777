"""The FP32 line through two observations of a hub-index entry, for PageRank's learner
(Zhang et al., HPCA 2021, §III-B, "maintaining the hub index": y = mu · x + eps from two
pairs); see :mod:`hw.depgraph.hub_index_learner` for the rule it is part of."""

from amaranth.hdl import Module, Signal
from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.arith.fp32 import FP32Adder, FP32Divider, FP32Multiplier


__all__ = ["LinearFit", "FitOutcome"]

_SIGN = 0x8000_0000


class FitOutcome(enum.Enum, shape=2):
    EQUAL = 0       # x == x0 as numbers: no line through the two
    REFUSED = 1     # mu or eps not finite
    FIT = 2


def _finite(value):
    return value[23:31] != 0xFF


class LinearFit(wiring.Component):
    """mu = (y - y0) / (x - x0), eps = y - mu · x in FP32, each operation rounded to nearest
    even in this order (as ``np.float32``), on one adder, one multiplier and one divider,
    one operation in flight at a time.

    ``x - x0`` is exact when it is zero: the outcome is then EQUAL, known after the first
    subtraction. A slope that is not finite gives an eps that is not finite either: REFUSED
    after the division. Otherwise FIT if eps is finite, REFUSED if not.

    Members
    -------
    start : ``In(1)``
        Starts a fit (taken while ``busy`` is low).
    x, x0, y, y0 : ``In(32)``
        The two observations (FP32); held from ``start`` until ``done``.
    busy : ``Out(1)``
    done : ``Out(1)``
        ``outcome`` (and with FIT, ``mu`` and ``eps``) hold in this cycle only.
    outcome : ``Out(FitOutcome)``
    mu, eps : ``Out(32)``
    """

    def __init__(self):
        super().__init__({
            "start": In(1), "x": In(32), "x0": In(32), "y": In(32), "y0": In(32),
            "busy": Out(1), "done": Out(1), "outcome": Out(FitOutcome),
            "mu": Out(32), "eps": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.add = add = FP32Adder(tag_width=0)
        m.submodules.mul = mul = FP32Multiplier(tag_width=0)
        m.submodules.div = div = FP32Divider(tag_width=0)
        # One operation in flight at a time, so every result can be taken as it comes.
        m.d.comb += [add.o.ready.eq(1), mul.o.ready.eq(1), div.o.ready.eq(1)]
        d1 = Signal(32)
        d2 = Signal(32)
        product = Signal(32)
        m.d.comb += [self.eps.eq(add.o.payload.result), self.outcome.eq(FitOutcome.REFUSED)]

        def subtract(a, b, then):
            m.d.comb += [add.i.valid.eq(1), add.i.payload.a.eq(a),
                         add.i.payload.b.eq(b ^ _SIGN)]
            with m.If(add.i.ready):
                m.next = then

        with m.FSM() as fsm:
            with m.State("IDLE"):
                with m.If(self.start):
                    m.next = "SUB_X"
            with m.State("SUB_X"):
                subtract(self.x, self.x0, "WAIT_X")
            with m.State("WAIT_X"):
                with m.If(add.o.valid):
                    m.d.sync += d2.eq(add.o.payload.result)
                    with m.If(add.o.payload.result[:31] == 0):
                        m.d.comb += [self.done.eq(1), self.outcome.eq(FitOutcome.EQUAL)]
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "SUB_Y"
            with m.State("SUB_Y"):
                subtract(self.y, self.y0, "WAIT_Y")
            with m.State("WAIT_Y"):
                with m.If(add.o.valid):
                    m.d.sync += d1.eq(add.o.payload.result)
                    m.next = "DIVIDE"
            with m.State("DIVIDE"):
                m.d.comb += [div.i.valid.eq(1), div.i.payload.a.eq(d1), div.i.payload.b.eq(d2)]
                with m.If(div.i.ready):
                    m.next = "WAIT_DIVIDE"
            with m.State("WAIT_DIVIDE"):
                with m.If(div.o.valid):
                    m.d.sync += self.mu.eq(div.o.payload.result)
                    with m.If(_finite(div.o.payload.result)):
                        m.next = "MULTIPLY"
                    with m.Else():
                        m.d.comb += self.done.eq(1)
                        m.next = "IDLE"
            with m.State("MULTIPLY"):
                m.d.comb += [mul.i.valid.eq(1), mul.i.payload.a.eq(self.mu),
                             mul.i.payload.b.eq(self.x)]
                with m.If(mul.i.ready):
                    m.next = "WAIT_MULTIPLY"
            with m.State("WAIT_MULTIPLY"):
                with m.If(mul.o.valid):
                    m.d.sync += product.eq(mul.o.payload.result)
                    m.next = "SUB_PRODUCT"
            with m.State("SUB_PRODUCT"):
                subtract(self.y, product, "WAIT_PRODUCT")
            with m.State("WAIT_PRODUCT"):
                with m.If(add.o.valid):
                    m.d.comb += self.done.eq(1)
                    with m.If(_finite(add.o.payload.result)):
                        m.d.comb += self.outcome.eq(FitOutcome.FIT)
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(~fsm.ongoing("IDLE"))
        return m
