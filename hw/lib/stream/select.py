"""Steering one stream between blocks that take turns with it: a demultiplexer that hands a
stream to one of several sinks, by a select input or by a field of each payload, and a
multiplexer that takes one of several sources. No storage; ``ready`` comes from the chosen
side only.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["StreamDemux", "StreamMux"]


class StreamDemux(wiring.Component):
    """One stream of ``shape`` to ``count`` outputs.

    Parameters
    ----------
    shape : shape-like
    count : int
    route : callable or None
        Payload to the output index; None: the ``select`` input chooses.

    Members
    -------
    select : ``In(range(count))``
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape)).array(count)``
    """

    def __init__(self, shape, count: int, *, route=None):
        if route is not None and not callable(route):
            raise ConfigError(f"StreamDemux: route must be None or a callable from payload to "
                              f"output number, not {route!r}")
        if count < 1:
            raise ConfigError(f"StreamDemux: count must be at least 1, not {count!r}")
        self._count = count
        self._route = route
        super().__init__({
            "select": In(range(max(count, 2))),
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)).array(count),
        })

    def elaborate(self, platform):
        m = Module()
        index = self.select if self._route is None else self._route(self.i.payload)
        for k, out in enumerate(self.o):
            chosen = index == k
            m.d.comb += [out.valid.eq(self.i.valid & chosen), out.payload.eq(self.i.payload)]
            with m.If(chosen):
                m.d.comb += self.i.ready.eq(out.ready)
        return m


class StreamMux(wiring.Component):
    """``count`` streams of ``shape``, the one ``select`` names passed on.

    Members
    -------
    select : ``In(range(count))``
    i : ``In(stream.Signature(shape)).array(count)``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape, count: int):
        if count < 1:
            raise ConfigError(f"StreamMux: count must be at least 1, not {count!r}")
        self._count = count
        super().__init__({
            "select": In(range(max(count, 2))),
            "i": In(stream.Signature(shape)).array(count),
            "o": Out(stream.Signature(shape)),
        })

    def elaborate(self, platform):
        m = Module()
        for k, source in enumerate(self.i):
            with m.If(self.select == k):
                m.d.comb += [self.o.valid.eq(source.valid), self.o.payload.eq(source.payload),
                             source.ready.eq(self.o.ready)]
        return m
