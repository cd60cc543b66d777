"""Apply (Graphicionado §3.2, stages A1–A5): combines each vertex's VProperty with its
VTempProperty, emits the new VProperty (to Sequential Vertex Write, A4) and, for frontier
algorithms, the changed vertices (to the ActiveVertex list, A5)."""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.arith.fp32 import SIGN_BIT
from hw.lib.arith.fp32_vector import FP32Lanes, check_lanes
from .layouts import ActiveVertex
from .scratchpad import TempItem, temp_item
from .sequential_vertex_read import item_layout


__all__ = ["ApplyMin", "ApplyPageRank", "ApplyCF"]


class ApplyMin(wiring.Component):
    """BFS, SSSP, CC: ``vprop = min(vprop, temp)``; a vertex whose property fell is active.

    Members
    -------
    prop : ``In(stream.Signature(item_layout(1)))``
        VProperty in vertex order (A1).
    temp : ``In(stream.Signature(TempItem))``
        VTempProperty in vertex order (A2).
    o_prop : ``Out(stream.Signature(32))``
    o_active : ``Out(stream.Signature(ActiveVertex))``
    """

    def __init__(self):
        super().__init__({
            "prop": In(stream.Signature(item_layout(1))),
            "temp": In(stream.Signature(TempItem)),
            "o_prop": Out(stream.Signature(32)),
            "o_active": Out(stream.Signature(ActiveVertex)),
        })

    def elaborate(self, platform):
        m = Module()
        old, temp = self.prop.payload.data, self.temp.payload.temp
        lower = temp < old
        both = self.prop.valid & self.temp.valid
        # A fork: each output is offered until taken, whatever the other's consumer does
        # (an offer is never withdrawn); ``*_sent`` marks the output already taken for the
        # vertex in hand.
        prop_sent = Signal()
        active_sent = Signal()
        prop_done = prop_sent | self.o_prop.ready
        active_done = ~lower | active_sent | self.o_active.ready
        fire = both & prop_done & active_done
        with m.If(fire):
            m.d.sync += [prop_sent.eq(0), active_sent.eq(0)]
        with m.Else():
            with m.If(self.o_prop.valid & self.o_prop.ready):
                m.d.sync += prop_sent.eq(1)
            with m.If(self.o_active.valid & self.o_active.ready):
                m.d.sync += active_sent.eq(1)
        m.d.comb += [
            self.o_prop.valid.eq(both & ~prop_sent),
            self.o_prop.payload.eq(Mux(lower, temp, old)),
            self.o_active.valid.eq(both & lower & ~active_sent),
            self.o_active.payload.id.eq(self.temp.payload.index),
            self.o_active.payload.prop.eq(temp),
            self.prop.ready.eq(fire),
            self.temp.ready.eq(fire),
        ]
        return m


class ApplyPageRank(wiring.Component):
    """PageRank: ``r = 0.15 + 0.85 * temp`` in FP32 (a multiply, then an add, each rounded to
    nearest even, as ``golden/``); every vertex stays active, so no ActiveVertex list.

    Parameters
    ----------
    multiplier, adder : Component
        FP32 stream units ({a, b, tag} → {result, tag}).

    Members
    -------
    temp : ``In(stream.Signature(TempItem))``
    o_prop : ``Out(stream.Signature(32))``
    """

    def __init__(self, *, multiplier, adder, alpha: int, one_minus_alpha: int):
        for name, unit in (("multiplier", multiplier), ("adder", adder)):
            if not isinstance(unit, wiring.Component) or \
                    not {"i", "o"} <= set(unit.signature.members.keys()):
                raise ConfigError(f"ApplyPageRank: {name} must be an FP32 stream unit (a "
                                  f"Component with i and o), not {unit!r}")
        check_int("ApplyPageRank", "alpha", alpha, low=0, high=2**32 - 1)
        check_int("ApplyPageRank", "one_minus_alpha", one_minus_alpha, low=0, high=2**32 - 1)
        self._multiplier = multiplier
        self._adder = adder
        self._alpha = alpha
        self._one_minus_alpha = one_minus_alpha
        super().__init__({
            "temp": In(stream.Signature(TempItem)),
            "o_prop": Out(stream.Signature(32)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.multiplier = multiplier = self._multiplier
        m.submodules.adder = adder = self._adder
        m.d.comb += [
            multiplier.i.valid.eq(self.temp.valid),
            multiplier.i.payload.a.eq(self._alpha),
            multiplier.i.payload.b.eq(self.temp.payload.temp),
            self.temp.ready.eq(multiplier.i.ready),
            adder.i.valid.eq(multiplier.o.valid),
            adder.i.payload.a.eq(multiplier.o.payload.result),
            adder.i.payload.b.eq(self._one_minus_alpha),
            multiplier.o.ready.eq(adder.i.ready),
            self.o_prop.valid.eq(adder.o.valid),
            self.o_prop.payload.eq(adder.o.payload.result),
            adder.o.ready.eq(self.o_prop.ready),
        ]
        return m


class ApplyCF(wiring.Component):
    """Collaborative filtering, a flit of ``lanes`` features at a time (§IV.E):
    ``p = p + gamma * (temp - lam * p)`` lane by lane in FP32, each operation rounded, in
    ``golden.algorithms.cf_program``'s order (``temp - x`` as ``temp + (-x)``, which IEEE
    defines as the same). Four vector units in a row; the operands still needed ride in
    the tags. Every vertex stays active.

    Parameters
    ----------
    lanes : int

    Members
    -------
    gamma, lam : ``In(32)``
        binary32 bit patterns of the step and the regularisation (registers of a run).
    prop : ``In(stream.Signature(item_layout(lanes)))``
        VProperty flits in order (A1).
    temp : ``In(stream.Signature(temp_item(32 * lanes)))``
        VTempProperty flits in the same order (A2).
    o_prop : ``Out(stream.Signature(32 * lanes))``
    """

    def __init__(self, *, lanes: int):
        check_lanes("ApplyCF", lanes, power_of_two=True)
        self._lanes = lanes
        width = 32 * lanes
        self._scaled = FP32Lanes("mul", lanes, 2 * width)        # lam * p       | p, temp
        self._difference = FP32Lanes("add", lanes, width)        # temp - lam*p  | p
        self._step = FP32Lanes("mul", lanes, width)              # gamma * ...   | p
        self._sum = FP32Lanes("add", lanes)                      # p + step
        super().__init__({
            "gamma": In(32), "lam": In(32),
            "prop": In(stream.Signature(item_layout(lanes))),
            "temp": In(stream.Signature(temp_item(width))),
            "o_prop": Out(stream.Signature(width)),
        })

    def elaborate(self, platform):
        m = Module()
        lanes, width = self._lanes, 32 * self._lanes
        m.submodules.scaled = scaled = self._scaled
        m.submodules.difference = difference = self._difference
        m.submodules.step = step = self._step
        m.submodules.sum = total = self._sum
        both = self.prop.valid & self.temp.valid
        p = self.prop.payload.data
        m.d.comb += [
            scaled.i.valid.eq(both),
            scaled.i.payload.b.eq(p),
            scaled.i.payload.tag.eq(Cat(p, self.temp.payload.temp)),
            self.prop.ready.eq(both & scaled.i.ready),
            self.temp.ready.eq(both & scaled.i.ready),

            difference.i.valid.eq(scaled.o.valid),
            difference.i.payload.a.eq(scaled.o.payload.tag[width:]),
            difference.i.payload.tag.eq(scaled.o.payload.tag[:width]),
            scaled.o.ready.eq(difference.i.ready),

            step.i.valid.eq(difference.o.valid),
            step.i.payload.b.eq(difference.o.payload.result),
            step.i.payload.tag.eq(difference.o.payload.tag),
            difference.o.ready.eq(step.i.ready),

            total.i.valid.eq(step.o.valid),
            total.i.payload.a.eq(step.o.payload.tag),
            total.i.payload.b.eq(step.o.payload.result),
            step.o.ready.eq(total.i.ready),

            self.o_prop.valid.eq(total.o.valid),
            self.o_prop.payload.eq(total.o.payload.result),
            total.o.ready.eq(self.o_prop.ready),
        ]
        for k in range(lanes):
            m.d.comb += [
                scaled.i.payload.a[k].eq(self.lam),
                difference.i.payload.b[k].eq(scaled.o.payload.result[k] ^ SIGN_BIT),
                step.i.payload.a[k].eq(self.gamma),
            ]
        return m
