"""A register slice between two stream interfaces: both directions registered, full rate.

Graphicionado's stages are joined by small FIFOs (Ham et al. §3.2); where a FIFO is wide and
spread over the chip (a queue of 512-bit lines), its read enable, coming from the consumer's
decision, crosses the chip and then its pointer logic. A register slice after such a queue
drives the queue's read enable from a flip-flop.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["StreamRegisterSlice"]


class StreamRegisterSlice(wiring.Component):
    """Passes a stream on one cycle later, with ``i.ready`` and ``o.valid`` both registers.

    It holds up to two payloads: the one offered on ``o``, and one taken while ``o`` was
    stalled (the skid register), so a transfer every cycle is kept up through the slice.

    Parameters
    ----------
    shape : shape-like
        Payload shape.
    skid : bool
        False: no skid register; only ``o.valid`` and ``o.payload`` are registers and
        ``i.ready`` is ``o.ready`` or an empty output register (a combinational path back
        through the slice), at one register per payload bit instead of two and a
        multiplexer. For a wide payload whose forward path is the long one.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape, *, skid: bool = True):
        if not isinstance(skid, bool):
            raise ConfigError(f"StreamRegisterSlice: skid must be True or False, not {skid!r}")
        self._shape = shape
        self._skid = skid
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
        })

    def elaborate(self, platform):
        m = Module()
        if not self._skid:
            return self._forward_only(m)
        skid_valid = Signal()
        skid = Signal(self._shape, reset_less=True)
        out_valid = Signal()
        out = Signal(self._shape, reset_less=True)
        m.d.comb += [
            self.i.ready.eq(~skid_valid),
            self.o.valid.eq(out_valid),
            self.o.payload.eq(out),
        ]
        with m.If(self.o.ready | ~out_valid):
            # The output register is free next cycle: the skid first, else the input.
            with m.If(skid_valid):
                m.d.sync += [out.eq(skid), out_valid.eq(1), skid_valid.eq(0)]
            with m.Else():
                m.d.sync += [out.eq(self.i.payload), out_valid.eq(self.i.valid)]
        with m.Elif(self.i.valid & ~skid_valid):
            m.d.sync += [skid.eq(self.i.payload), skid_valid.eq(1)]
        return m

    def _forward_only(self, m):
        out_valid = Signal()
        out = Signal(self._shape, reset_less=True)
        m.d.comb += [
            self.i.ready.eq(self.o.ready | ~out_valid),
            self.o.valid.eq(out_valid),
            self.o.payload.eq(out),
        ]
        with m.If(self.i.ready):
            m.d.sync += [out.eq(self.i.payload), out_valid.eq(self.i.valid)]
        return m
