"""A stream stopped while a condition holds: how an extended-slicing destination stream
(Graphicionado §VI.B) keeps a slice's edges out of its pipeline until the scratchpad region
their updates go to is loaded, while they are already being read."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


__all__ = ["StreamGate"]


class StreamGate(wiring.Component):
    """``i`` to ``o`` while ``open``; nothing passes while it is low.

    Close it only while ``i`` offers nothing (an offer on ``o`` is then never withdrawn):
    the gate is for holding a stream back before its first word, not for pausing it.

    Parameters
    ----------
    shape : shape-like
        Payload shape.

    Members
    -------
    open : ``In(1)``
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape):
        super().__init__({
            "open": In(1),
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
        })

    def elaborate(self, platform):
        m = Module()
        m.d.comb += [
            self.o.valid.eq(self.i.valid & self.open),
            self.o.payload.eq(self.i.payload),
            self.i.ready.eq(self.o.ready & self.open),
        ]
        return m
