"""A stream pass-through that randomly withholds transfers: backpressure and idle cycles
injected inside a design for verification (Graphicionado's FIFOs then see both), never part
of a configuration meant for synthesis."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


__all__ = ["StreamThrottle", "stream_linker"]


class StreamThrottle(wiring.Component):
    """Blocks the stream in roughly ``percent`` % of cycles, chosen by a 16-bit LFSR.

    Parameters
    ----------
    shape : shape-like
    percent : int
        1–99.
    seed : int
        Nonzero LFSR start, so that throttles in one design are not in step.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape, *, percent: int, seed: int):
        assert 1 <= percent <= 99 and seed & 0xFFFF
        self._percent = percent
        self._seed = seed & 0xFFFF
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
        })

    def elaborate(self, platform):
        m = Module()
        lfsr = Signal(16, init=self._seed)
        # x^16 + x^14 + x^13 + x^11 + 1, maximal length.
        feedback = lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]
        m.d.sync += lfsr.eq((lfsr << 1) | feedback)
        blocked = lfsr[:8] < (256 * self._percent // 100)
        m.d.comb += [
            self.o.payload.eq(self.i.payload),
            self.o.valid.eq(self.i.valid & ~blocked),
            self.i.ready.eq(self.o.ready & ~blocked),
        ]
        return m


def stream_linker(m, *, percent: int, seeds):
    """A ``link(source, sink, shape)`` that joins two stream interfaces of module ``m``:
    directly when ``percent`` is 0, else through a :class:`StreamThrottle` blocking about
    ``percent`` % of cycles, each seeded with the next of ``seeds`` (nonzero 16-bit)."""
    seeds = iter(seeds)

    def link(source, sink, shape):
        if not percent:
            wiring.connect(m, source, sink)
            return
        seed = next(seeds)
        throttle = StreamThrottle(shape, percent=percent, seed=seed)
        m.submodules[f"throttle_{seed}"] = throttle
        wiring.connect(m, source, throttle.i)
        wiring.connect(m, throttle.o, sink)

    return link
