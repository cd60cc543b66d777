"""The search slots of the bottom-up check (Enterprise §4.3): a vertex's search holds a slot
(its line of in-edges in :class:`~hw.bfs.search_lines.SearchLines`) from its start to its
end, and a new search starts only while a slot is free.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["SlotPool"]


class SlotPool(wiring.Component):
    """A pool of ``slots`` slot numbers: the lowest free one is offered, and any number of
    slots come back in a cycle.

    The offer is not a stream: a slot that comes back below the one offered replaces it in
    the next cycle, so the taker takes the slot offered in the cycle it takes it (a search
    does not care which slot it gets). A slot taken and another given back in one cycle are
    both seen at the clock edge.

    Parameters
    ----------
    slots : int
        Slots in the pool, 1..256; all free after reset.
    releases : int
        Ports that give slots back (each one slot a cycle).

    Members
    -------
    room : ``Out(1)``
        Some slot is free.
    offer : ``Out(range(slots))``
        The lowest free slot (while ``room``).
    take : ``In(1)``
        The slot offered is taken (only while ``room``).
    release : ``In(stream.Signature(range(slots), always_ready=True)).array(releases)``
        Slots given back (each taken before).
    busy : ``Out(1)``
        Some slot is taken.
    """

    def __init__(self, *, slots: int, releases: int = 1):
        if not 1 <= slots <= 256:
            raise ConfigError(f"SlotPool: slots must be 1..256, not {slots!r}")
        if releases < 1:
            raise ConfigError(f"SlotPool: releases must be at least 1, not {releases!r}")
        self._slots = slots
        super().__init__({
            "room": Out(1), "offer": Out(range(slots)), "take": In(1),
            "release": In(stream.Signature(range(slots), always_ready=True)).array(releases),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        slots = self._slots
        free = Signal(slots, init=(1 << slots) - 1)
        # The lowest free slot, one-hot (``free & -free``, a carry chain from the register),
        # is taken as it is: no priority chain over the slots for the offer and no decode of
        # the offer for the take (together, at 32 slots, once the ecp5 preset's deepest path,
        # 15 ns estimated). The offer is its OR-encoding.
        lowest = Signal(slots)
        m.d.comb += [lowest.eq(free & (~free + 1)[:slots]),
                     self.room.eq(free.any()), self.busy.eq(~free.all())]
        for bit in range(len(self.offer)):
            m.d.comb += self.offer[bit].eq(
                Cat(lowest[index] for index in range(slots) if index >> bit & 1).any())
        freed = Signal(slots)
        for port in self.release:
            with m.If(port.valid):
                m.d.comb += freed.bit_select(port.payload, 1).eq(1)
        taken = lowest & self.take.replicate(slots)
        m.d.sync += free.eq((free & ~taken) | freed)
        return m
