"""Random stalls on a design's stream links, for verification only.

A :class:`StreamThrottle` sits on a link only when a design is built for simulation with
``stall_injection`` (its simulation top hands the class to the design, which passes it to
:class:`hw.lib.stream.links.StreamLinks`); it is never part of a configuration meant for
synthesis. Its random sequence starts from a ``seed`` input read after reset, so one build of
a design stalls in a different pattern for every run seed, and every link's pattern differs
from every other's.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["StreamThrottle"]


def _xorshift32(x):
    x = x ^ (x << 13)[:32]
    x = x ^ (x >> 17)
    return x ^ (x << 5)[:32]


class StreamThrottle(wiring.Component):
    """A two-entry queue whose input withholds ``ready`` and whose output holds back ``valid``,
    each in about ``percent`` % of cycles, independently.

    Upstream thus sees back-pressure and downstream sees idle cycles on patterns of their own
    (a throttle without storage can only block both sides of a transfer at once). The output
    keeps Amaranth's stream rules: a word once offered stays offered, unchanged, until it is
    taken; only the start of an offer is delayed. With no cycle blocked it passes one word a
    cycle. Before its first cycle out of reset the throttle loads its generator from ``seed``
    and passes nothing.

    Parameters
    ----------
    shape : shape-like
    percent : int
        1–99.
    salt : int
        32-bit constant mixed into the seed, distinct for each link of a design.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    seed : ``In(32)``
        The run's stall seed, held steady from reset on.
    busy : ``Out(1)``
        A word is inside (the design's idle checks must wait for it).
    pending : ``Out(1)``
        A word waits at the output, shown or withheld (what the watchdog reports as the
        link's ``valid``: a random withheld cycle is not the state of the design).
    """

    def __init__(self, shape, *, percent: int, salt: int):
        if not 1 <= percent <= 99:
            raise ConfigError(f"a stream throttle blocks 1 to 99 % of cycles, not {percent}")
        self._shape = shape
        self._percent = percent
        self._salt = salt & 0xFFFF_FFFF
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
            "seed": In(32),
            "busy": Out(1),
            "pending": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.queue = queue = StreamFIFO(self._shape, 2)
        state = Signal(32)
        loaded = Signal()
        with m.If(loaded):
            m.d.sync += state.eq(_xorshift32(state))
        with m.Else():
            # Bit 0 set: a xorshift generator started at zero stays there.
            m.d.sync += [state.eq(self.seed ^ self._salt | 1), loaded.eq(1)]
        threshold = 256 * self._percent // 100
        hold_in = ~loaded | (state[0:8] < threshold)
        offered = Signal()          # the head was offered last cycle and not taken
        hold_out = ~offered & (~loaded | (state[16:24] < threshold))
        m.d.sync += offered.eq(self.o.valid & ~self.o.ready)
        m.d.comb += [
            queue.i.payload.eq(self.i.payload),
            queue.i.valid.eq(self.i.valid & ~hold_in),
            self.i.ready.eq(queue.i.ready & ~hold_in),
            self.o.payload.eq(queue.o.payload),
            self.o.valid.eq(queue.o.valid & ~hold_out),
            queue.o.ready.eq(self.o.ready & ~hold_out),
            self.busy.eq(queue.level != 0),
            self.pending.eq(queue.o.valid),
        ]
        return m
