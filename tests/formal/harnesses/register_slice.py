"""An unbounded proof (k-induction) that the register slice passes on every word it takes
exactly once and in order.

``stream_order`` proves this from reset for a bounded number of cycles, with counters. Here
the harness's state is bounded, so that induction can close: ``held`` counts the words
inside (asserted at most two), and a word taken at any moment (``AnySeq`` choice) is
tracked with the number of words ahead of it; when it leaves, those must all have left and
it must carry the payload it came in with. Nothing is assumed of the input. The induction
needs the slice's state to agree with the harness's, so these invariants over its internal
registers are asserted too (``state``): the words inside are ``out`` and, behind it,
``skid``; the tracked word is the one its position says. Also asserted: no word given while
none is held, a held word is offered (``o.valid``), the input is taken while fewer than two
are held, and the output keeps the stream rules.
"""

from amaranth.asserts import AnySeq
from amaranth.hdl import Elaboratable, Module, Signal

from hw.lib.stream.register_slice import StreamRegisterSlice
from tests.formal.harnesses.common import Properties, as_value, elaborate_with_internals, stream_rule


__all__ = ["RegisterSliceHarness"]


class RegisterSliceHarness(Elaboratable):
    def __init__(self, width: int, *, dut=None, only=None):
        self.width = width
        self.dut = dut if dut is not None else StreamRegisterSlice(width)
        self.only = only

    def elaborate(self, platform):
        m = Module()
        props = self.properties = Properties(self.only)
        dut = self.dut
        fragment, internal = elaborate_with_internals(dut, platform)
        m.submodules.dut = fragment
        i, o = dut.i, dut.o
        i_payload, o_payload = as_value(i.payload), as_value(o.payload)
        m.d.comb += [
            i.valid.eq(AnySeq(1)),
            i_payload.eq(AnySeq(self.width)),
            o.ready.eq(AnySeq(1)),
        ]
        took = Signal()
        gave = Signal()
        m.d.comb += [took.eq(i.valid & i.ready), gave.eq(o.valid & o.ready)]
        held = Signal(range(4))
        m.d.sync += held.eq(held + took - gave)
        props.add(m, "order", ~gave | (held != 0))
        props.add(m, "capacity", held <= 2)
        props.add(m, "capacity", i.ready | (held == 2))
        props.add(m, "kept_back", o.valid | (held == 0))

        tracking = Signal()
        ahead = Signal(range(3))
        value = Signal(self.width)
        with m.If(tracking & gave):
            with m.If(ahead == 0):
                props.add(m, "order", o_payload == value)
                m.d.sync += tracking.eq(0)
            with m.Else():
                m.d.sync += ahead.eq(ahead - 1)
        with m.If(~tracking & took & AnySeq(1)):
            m.d.sync += [tracking.eq(1), value.eq(i_payload), ahead.eq(held - gave)]
        with m.If(tracking):
            props.add(m, "order", ahead < held)

        skid_valid, skid = internal["skid_valid"], internal["skid"]
        out_valid, out = internal["out_valid"], internal["out"]
        props.add(m, "state", held == out_valid + skid_valid)
        props.add(m, "state", out_valid | ~skid_valid)
        with m.If(tracking & (ahead == 0)):
            props.add(m, "state", out == value)
        with m.If(tracking & (ahead == 1)):
            props.add(m, "state", skid == value)

        stream_rule(m, props, "output_rule", o)
        return m
