"""Random stalls on a design's stream links, for verification, and the record of those links
that the simulation watchdog reads.

A :class:`StreamThrottle` sits on a link only when a design is built with ``stall_injection``;
it is never part of a configuration meant for synthesis. Its random sequence starts from a
``seed`` input read after reset, so one build of a design stalls in a different pattern for
every run seed, and every link's pattern differs from every other's.
"""

import zlib

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .config import ConfigError
from .stream_fifo import StreamFIFO
from .stream_register_slice import StreamRegisterSlice


__all__ = ["StreamThrottle", "StreamLinks", "LinkProbe"]


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


class LinkProbe:
    """One stream link of a design as the watchdog sees it: its name (``source->sink``), the
    sink's ``ready`` and whether a word is offered to it (``valid``; through a throttle,
    whether one waits there)."""

    def __init__(self, name: str, valid, ready):
        self.name = name
        self.valid = valid
        self.ready = ready

    def __repr__(self):
        return f"LinkProbe({self.name!r})"


class StreamLinks:
    """Joins the stream links of one module: directly, or through a :class:`StreamThrottle`
    when ``percent`` is nonzero (seeded from ``seed``, salted by the link's name), and records
    every link it makes as a :class:`LinkProbe` for the simulation watchdog.

    Parameters
    ----------
    m : Module
        The module the links belong to.
    percent : int
        0 (direct links) or 1–99.
    seed : Value or None
        The run's stall seed (needed when ``percent`` is nonzero).
    prefix : str
        Prepended to every link's name (which block the links belong to).
    """

    def __init__(self, m, *, percent: int, seed=None, prefix: str = ""):
        if percent and seed is None:
            raise ConfigError("stall injection needs a seed input")
        self._m = m
        self._percent = percent
        self._seed = seed
        self._prefix = prefix
        self._busy = []
        self.probes: list[LinkProbe] = []

    def __call__(self, source, sink, name: str, *, register: bool = False, skid: bool = True):
        """Join stream ``source`` (a producer's output, or a flipped input) to ``sink``; with
        ``register``, through a :class:`StreamRegisterSlice` (``skid``: registered in both
        directions; else valid and payload only), whose held words count as busy."""
        full_name = self._prefix + name
        if register:
            stage = StreamRegisterSlice(source.payload.shape(), skid=skid)
            self._m.submodules["stage_" + _identifier(name)] = stage
            wiring.connect(self._m, source, stage.i)
            self._busy.append(stage.o.valid | ~stage.i.ready)
            source = stage.o
        if self._percent:
            shape = source.payload.shape()
            throttle = StreamThrottle(shape, percent=self._percent,
                                      salt=zlib.crc32(full_name.encode()))
            self._m.submodules["throttle_" + _identifier(name)] = throttle
            self._m.d.comb += throttle.seed.eq(self._seed)
            wiring.connect(self._m, source, throttle.i)
            wiring.connect(self._m, throttle.o, sink)
            self._busy.append(throttle.busy)
            self.probes.append(LinkProbe(full_name, throttle.pending, sink.ready))
        else:
            wiring.connect(self._m, source, sink)
            self.probes.append(LinkProbe(full_name, sink.valid, sink.ready))

    def port(self, client, memory, client_name: str, memory_name: str = "arbiter"):
        """Join a memory client's port (request out, response in) to ``memory``'s."""
        self(client.req, memory.req, f"{client_name}.req->{memory_name}")
        self(memory.resp, client.resp, f"{memory_name}->{client_name}.resp")

    @property
    def busy(self):
        """A word sits in one of the throttles."""
        return Cat(*self._busy).any() if self._busy else C(0, 1)


def _identifier(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)
