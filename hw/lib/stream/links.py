"""The stream links of a design's top: direct joins, optional register slices, and the record
of every link that the simulation watchdog reads.

For verification a link can pass through a throttle that stalls it at random; the throttle is
simulation-only gateware (:mod:`sim.gateware.stream_throttle`), handed in by the design's
simulation top, so nothing here depends on it.
"""

import zlib

from amaranth.hdl import C, Cat, Shape
from amaranth.lib import wiring

from hw.lib.config import ConfigError
from hw.lib.fanout import lanes_for
from hw.lib.stream.register_slice import StreamRegisterSlice


__all__ = ["StreamLinks", "LinkProbe"]


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
    """Joins the stream links of one module: directly, or through a ``throttle`` when
    ``percent`` is nonzero (seeded from ``seed``, salted by the link's name), and records
    every link it makes as a :class:`LinkProbe` for the simulation watchdog.

    Parameters
    ----------
    m : Module
        The module the links belong to.
    percent : int
        0 (direct links) or 1–99.
    throttle : class or None
        Needed when ``percent`` is nonzero: ``throttle(shape, percent=, salt=)`` builds a
        component with ``i``, ``o``, ``seed``, ``busy`` and ``pending`` members
        (:class:`sim.gateware.stream_throttle.StreamThrottle`, simulation only).
    seed : Value or None
        The run's stall seed (needed when ``percent`` is nonzero).
    prefix : str
        Prepended to every link's name (which block the links belong to).
    """

    def __init__(self, m, *, percent: int, throttle=None, seed=None, prefix: str = ""):
        if percent and seed is None:
            raise ConfigError("stall injection needs a seed input")
        if percent and throttle is None:
            raise ConfigError("stall injection is for simulation: build the design through "
                              "its simulation top, which supplies the stream throttle")
        self._throttle = throttle
        self._m = m
        self._percent = percent
        self._seed = seed
        self._prefix = prefix
        self._busy = []
        self.probes: list[LinkProbe] = []

    def __call__(self, source, sink, name: str, *, register: bool = False, skid: bool = True):
        """Join stream ``source`` (a producer's output, or a flipped input) to ``sink``; with
        ``register``, through a :class:`StreamRegisterSlice` (``skid``: registered in both
        directions; else valid and payload only), whose held words count as busy; a wide
        payload in lanes (:func:`hw.lib.fanout.lanes_for`)."""
        full_name = self._prefix + name
        if register:
            shape = source.payload.shape()
            stage = StreamRegisterSlice(shape, skid=skid, lanes=lanes_for(Shape.cast(shape).width))
            self._m.submodules["stage_" + _identifier(name)] = stage
            wiring.connect(self._m, source, stage.i)
            self._busy.append(stage.o.valid | ~stage.i.ready)
            source = stage.o
        if self._percent:
            shape = source.payload.shape()
            throttle = self._throttle(shape, percent=self._percent,
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
