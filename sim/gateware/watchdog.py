"""A watchdog over a design's stream links, for simulation: it raises ``hang`` when none of
them has moved for ``limit`` cycles while the design is busy, so a deadlock stops the run
at once instead of at the cycle limit, with every link's state still showing."""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["Watchdog"]


class Watchdog(wiring.Component):
    """Counts the busy cycles since the last transfer on any of ``links`` stream links.

    Parameters
    ----------
    links : int
        Number of links watched.

    Members
    -------
    valid, ready : ``In(links)``
        Each link's handshake, as its sink sees it.
    busy : ``In(1)``
        The design is running (an idle design moves nothing and is not hung).
    limit : ``In(32)``
        Busy cycles without a transfer that count as a hang; 0 switches the watchdog off.
    hang : ``Out(1)``
        Sticky until reset.
    quiet_cycles : ``Out(32)``
        Busy cycles since the last transfer.
    """

    def __init__(self, links: int):
        if links < 1:
            raise ConfigError(f"a watchdog needs at least one link to watch, not {links}")
        self._links = links
        super().__init__({
            "valid": In(links), "ready": In(links), "busy": In(1), "limit": In(32),
            "hang": Out(1), "quiet_cycles": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        moved = Signal()
        m.d.comb += moved.eq((self.valid & self.ready).any())
        with m.If(moved | ~self.busy):
            m.d.sync += self.quiet_cycles.eq(0)
        with m.Elif(self.quiet_cycles != 0xFFFF_FFFF):
            m.d.sync += self.quiet_cycles.eq(self.quiet_cycles + 1)
        with m.If((self.limit != 0) & (self.quiet_cycles >= self.limit)):
            m.d.sync += self.hang.eq(1)
        return m


def probe_bits(probes) -> tuple:
    """The ``valid`` and ``ready`` buses of a list of :class:`hw.lib.stream.links.LinkProbe`."""
    return Cat(p.valid for p in probes), Cat(p.ready for p in probes)
