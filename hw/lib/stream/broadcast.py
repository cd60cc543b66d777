"""One stream copied to several consumers, each taking every word at its own pace: how a
Graphicionado source stream hands each source vertex to all of its parallel edge readers
(Ham et al. §V.B: "each source vertex ID is broadcast to all Read Edge units")."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["StreamBroadcast"]


class StreamBroadcast(wiring.Component):
    """``i`` to ``count`` outputs: a word leaves ``i`` once every output has taken it.

    Each output is offered the word until it takes it, whatever the others do (an offer is
    never withdrawn); a register per output marks it served for the word in hand.

    Parameters
    ----------
    shape : shape-like
    count : int

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape)).array(count)``
    """

    def __init__(self, shape, count: int):
        if count < 1:
            raise ConfigError(f"StreamBroadcast: count must be at least 1, not {count!r}")
        self._count = count
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)).array(count),
        })

    def elaborate(self, platform):
        m = Module()
        sent = [Signal(name=f"sent{k}") for k in range(self._count)]
        done = [s | o.ready for s, o in zip(sent, self.o)]
        last = self.i.valid
        for d in done:
            last = last & d
        m.d.comb += self.i.ready.eq(last)
        for o, s in zip(self.o, sent):
            m.d.comb += [o.valid.eq(self.i.valid & ~s), o.payload.eq(self.i.payload)]
            with m.If(last):
                m.d.sync += s.eq(0)
            with m.Elif(o.valid & o.ready):
                m.d.sync += s.eq(1)
        return m
