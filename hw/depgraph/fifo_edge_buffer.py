"""The FIFO edge buffer between an engine's HDTL and its processing element (DepGraph, Zhang et
al., HPCA 2021, §III-B: the HDTL fills it, the PE takes its edges with ``DEP_FETCH_EDGE``)."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.stream.fifo import StreamFIFO
from .layouts import EdgeTask


__all__ = ["FIFOEdgeBuffer"]


class FIFOEdgeBuffer(wiring.Component):
    """A queue of ``depth`` :data:`EdgeTask` entries.

    Parameters
    ----------
    depth : int

    Members
    -------
    i : ``In(stream.Signature(EdgeTask))``
        From the HDTL (edges and pseudo-edges).
    o : ``Out(stream.Signature(EdgeTask))``
        To the processing element.
    level : ``Out(range(depth + 1))``
    busy : ``Out(1)``
        Holds an entry.
    """

    def __init__(self, *, depth: int):
        if depth < 1:
            raise ConfigError(f"FIFOEdgeBuffer: depth must be at least 1, not {depth!r}")
        self._depth = depth
        super().__init__({
            "i": In(stream.Signature(EdgeTask)),
            "o": Out(stream.Signature(EdgeTask)),
            "level": Out(range(depth + 1)),
            "busy": Out(1),
        })

    @property
    def depth(self) -> int:
        return self._depth

    @property
    def bits(self) -> int:
        """Storage in bits (the paper's buffer: 4.8 Kbit)."""
        return self._depth * EdgeTask.size

    def elaborate(self, platform):
        m = Module()
        m.submodules.queue = queue = StreamFIFO(EdgeTask, self._depth)
        # ``ready`` is a register (whether the queue will have room, from its level and this
        # cycle's push and pop) instead of the queue's compare of its level: the HDTL's
        # batch state waits on it (the one-engine build's path from the HDTL's state through
        # the queue's level back into its state).
        room = Signal(init=1)
        level, depth = queue.level, self._depth
        pushed = self.i.valid & room
        popped = queue.o.valid & queue.o.ready
        m.d.comb += [queue.i.payload.eq(self.i.payload), queue.i.valid.eq(self.i.valid & room),
                     self.i.ready.eq(room)]
        m.d.sync += room.eq(~(((level == depth) & ~(popped & ~pushed)) |
                              ((level == depth - 1) & pushed & ~popped)))
        wiring.connect(m, queue.o, wiring.flipped(self.o))
        m.d.comb += [self.level.eq(queue.level), self.busy.eq(queue.level != 0)]
        return m
