"""Proof that a stream buffer (FIFO, register slice) passes on every word it takes exactly
once and in order.

The tracked-word technique: the harness counts the transfers into (``i``) and out of
(``o``) the design, and remembers the payload of the ``pick``-th word taken, ``pick`` an
``AnyConst``. When the ``pick``-th word leaves, it must have been taken before and be
equal to the remembered payload. As ``pick`` is any index and the payloads any values
(``AnySeq``), the words given are the words taken, in order, none dropped, duplicated or
made up (a dropped or repeated word shifts every later index). Also asserted:

* the design's ``level`` equals the words taken minus the words given;
* it holds at most ``max_held`` words, and takes a word whenever it holds fewer than
  ``capacity``;
* it keeps no word back: when it has held words for ``latency`` cycles without giving one,
  ``o.valid`` is asserted (``latency`` 1: offered the cycle after it was taken; a buffered
  FIFO's output register makes it 2);
* ``o`` keeps the stream rules: ``valid`` stays asserted and the payload unchanged until a
  transfer.

Nothing is assumed about the input: ``i.valid``, ``i.payload`` and ``o.ready`` are free
each cycle (the buffers must not rely on their producer keeping the rules). The counters
are wide enough not to wrap within the proof's depth, so the proof is bounded (BMC).
"""

from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from tests.formal.harnesses.common import Properties, as_value, stream_rule


__all__ = ["StreamOrderHarness", "fifo_harness", "slice_harness", "FIFODropsWhenFull",
           "FIFORepeatsAWord", "FIFOWithdrawsValid", "MutatedRegisterSlice"]


class StreamOrderHarness(Elaboratable):
    """``dut`` has ``i``/``o`` streams of ``width``-bit payloads (and ``level`` if
    ``has_level``); ``bound`` is the proof depth the counters must cover; ``only``, when
    given, names the properties to assert (``order``, ``level``, ``capacity``,
    ``kept_back``, ``output_rule``)."""

    def __init__(self, dut, *, width: int, bound: int, latency: int = 1,
                 capacity: int | None = None, max_held: int | None = None,
                 has_level: bool = True, only=None):
        self.dut = dut
        self.width = width
        self.bound = bound
        self.latency = latency
        self.capacity = capacity
        self.max_held = max_held
        self.has_level = has_level
        self.only = only

    def elaborate(self, platform):
        m = Module()
        props = self.properties = Properties(self.only)
        m.submodules.dut = dut = self.dut
        i, o = dut.i, dut.o
        i_payload, o_payload = as_value(i.payload), as_value(o.payload)
        m.d.comb += [
            i.valid.eq(AnySeq(1)),
            i_payload.eq(AnySeq(self.width)),
            o.ready.eq(AnySeq(1)),
        ]

        count_width = (self.bound + 1).bit_length()
        in_count = Signal(count_width)
        out_count = Signal(count_width)
        took = Signal()
        gave = Signal()
        m.d.comb += [took.eq(i.valid & i.ready), gave.eq(o.valid & o.ready)]
        with m.If(took):
            m.d.sync += in_count.eq(in_count + 1)
        with m.If(gave):
            m.d.sync += out_count.eq(out_count + 1)
        held = Signal(count_width)
        m.d.comb += held.eq(in_count - out_count)

        # The tracked word.
        pick = AnyConst(count_width)
        tracked = Signal(self.width)
        with m.If(took & (in_count == pick)):
            m.d.sync += tracked.eq(i_payload)
        with m.If(gave & (out_count == pick)):
            props.add(m, "order", in_count > pick)
            props.add(m, "order", o_payload == tracked)
        props.add(m, "order", out_count <= in_count)

        if self.has_level:
            props.add(m, "level", dut.level == held)
        if self.max_held is not None:
            props.add(m, "capacity", held <= self.max_held)
        if self.capacity is not None:
            props.add(m, "capacity", i.ready | (held >= self.capacity))

        # No word kept back: ``waited`` counts the cycles (up to ``latency``) in which words
        # were held and none was given.
        waited = Signal(range(self.latency + 1))
        with m.If((held != 0) & ~gave):
            with m.If(waited != self.latency):
                m.d.sync += waited.eq(waited + 1)
        with m.Else():
            m.d.sync += waited.eq(0)
        with m.If((held != 0) & (waited >= self.latency - 1)):
            props.add(m, "kept_back", o.valid)

        stream_rule(m, props, "output_rule", o)
        return m


def fifo_harness(width, depth, buffered, bound, dut=None, only=None):
    """The harness for ``StreamFIFO(width, depth, buffered=buffered)`` (or a mutant)."""
    dut = dut if dut is not None else StreamFIFO(width, depth, buffered=buffered)
    # The buffered FIFO's inner queue holds depth - 1 words: with a word in the output
    # register being given and the inner queue full it may refuse for a cycle at depth - 1.
    return StreamOrderHarness(dut, width=width, bound=bound, latency=2 if buffered else 1,
                              capacity=depth - 1 if buffered and depth > 1 else depth,
                              max_held=depth, only=only)


def slice_harness(width, bound, dut=None, only=None, skid=True, lanes=1):
    """The harness for ``StreamRegisterSlice(width, skid=skid, lanes=lanes)`` (or a
    mutant): two words held with the skid register, one without."""
    dut = dut if dut is not None else StreamRegisterSlice(width, skid=skid, lanes=lanes)
    held = 2 if skid else 1
    return StreamOrderHarness(dut, width=width, bound=bound, latency=1, capacity=held,
                              max_held=held, has_level=False, only=only)


# Broken variants: each must make the proof fail (tests/formal/test_formal.py).

class _Wrapped(wiring.Component):
    """A stream buffer with the interface of ``inner`` around it, broken from outside."""

    def __init__(self, inner, width: int):
        self.inner = inner
        super().__init__({
            "i": In(stream.Signature(width)),
            "o": Out(stream.Signature(width)),
            "level": Out(len(inner.level)),
        })

    def wire(self, m):
        m.submodules.inner = inner = self.inner
        m.d.comb += [
            inner.i.valid.eq(self.i.valid),
            inner.i.payload.eq(self.i.payload),
            self.i.ready.eq(inner.i.ready),
            self.o.payload.eq(inner.o.payload),
            self.level.eq(inner.level),
        ]
        return inner


class FIFODropsWhenFull(_Wrapped):
    """Claims to take a word when full, and loses it."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        m.d.comb += [self.i.ready.eq(1),
                     self.o.valid.eq(inner.o.valid), inner.o.ready.eq(self.o.ready)]
        return m


class FIFORepeatsAWord(_Wrapped):
    """Gives the word 0b11 without letting it go, so it comes out again."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        m.d.comb += [self.o.valid.eq(inner.o.valid),
                     inner.o.ready.eq(self.o.ready & (inner.o.payload != 0b11))]
        return m


class FIFOWithdrawsValid(_Wrapped):
    """Offers its head only every other cycle: breaks the stream rules on ``o``."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        phase = Signal()
        m.d.sync += phase.eq(~phase)
        m.d.comb += [self.o.valid.eq(inner.o.valid & phase),
                     inner.o.ready.eq(self.o.ready & phase)]
        return m


class MutatedRegisterSlice(StreamRegisterSlice):
    """``StreamRegisterSlice`` with one of two bugs:

    ``"take_while_refilling"``: also takes a word in the cycle the skid word moves to the
    output register (``i.ready = ~skid_valid | o.ready``), and loses it;
    ``"skid_overtaken"``: when the output register frees, loads the input ahead of the skid
    word.
    """

    def __init__(self, shape, bug: str):
        if bug not in ("take_while_refilling", "skid_overtaken"):
            raise ConfigError(f"MutatedRegisterSlice: bug must be take_while_refilling or "
                              f"skid_overtaken, not {bug!r}")
        self._bug = bug
        super().__init__(shape)

    def elaborate(self, platform):
        m = Module()
        skid_valid = Signal()
        skid = Signal(self._shape)
        out_valid = Signal()
        out = Signal(self._shape)
        if self._bug == "take_while_refilling":
            m.d.comb += self.i.ready.eq(~skid_valid | self.o.ready)
        else:
            m.d.comb += self.i.ready.eq(~skid_valid)
        m.d.comb += [self.o.valid.eq(out_valid), self.o.payload.eq(out)]
        skid_first = skid_valid
        if self._bug == "skid_overtaken":
            skid_first = skid_valid & ~self.i.valid
        with m.If(self.o.ready | ~out_valid):
            with m.If(skid_first):
                m.d.sync += [out.eq(skid), out_valid.eq(1), skid_valid.eq(0)]
            with m.Else():
                m.d.sync += [out.eq(self.i.payload), out_valid.eq(self.i.valid)]
        with m.Elif(self.i.valid & ~skid_valid):
            m.d.sync += [skid.eq(self.i.payload), skid_valid.eq(1)]
        return m
