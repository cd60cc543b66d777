"""A first-in first-out queue between two stream interfaces: the small hardware FIFOs
(4–8 entries) that join Graphicionado's stages (Ham et al. §3.2)."""

from amaranth.hdl import Module, Shape, Signal, Value
from amaranth.lib import data, fifo, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.fanout import lane_slices


__all__ = ["StreamFIFO"]


class StreamFIFO(wiring.Component):
    """A stream FIFO of ``depth`` entries of ``shape``.

    Parameters
    ----------
    shape : shape-like
        Payload shape (a :class:`data.StructLayout` for structured payloads).
    depth : int
        Number of entries.
    buffered : bool
        Register the output (block-RAM friendly, one more cycle of latency) instead of reading
        the storage asynchronously (registers or distributed RAM, fall-through).
    lanes : int
        The payload's bits are kept in this many queues side by side, each with its own
        pointers and level (which always agree): the read and write enables of a queue of
        512-bit lines are then several short nets instead of one that spans the chip
        (:mod:`hw.lib.fanout`). Lane 0's flags drive ``i.ready``, ``o.valid`` and ``level``.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    level : ``Out(range(depth + 1))``
        Number of entries held.
    """

    def __init__(self, shape, depth: int, *, buffered: bool = False, lanes: int = 1):
        if depth < 1:
            raise ConfigError(f"StreamFIFO: depth must be at least 1, not {depth!r}")
        check_int("StreamFIFO", "lanes", lanes)
        self._shape = shape
        self._depth = depth
        self._buffered = buffered
        self._lanes = lanes
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
            "level": Out(range(depth + 1)),
        })

    @property
    def depth(self) -> int:
        return self._depth

    def elaborate(self, platform):
        m = Module()
        width = Shape.cast(self._shape).width
        queue_class = fifo.SyncFIFOBuffered if self._buffered else fifo.SyncFIFO
        w_data = Value.cast(self.i.payload)
        r_data = Signal(width)
        queues = []
        for k, part in enumerate(lane_slices(width, self._lanes)):
            queue = queue_class(width=part.stop - part.start, depth=self._depth)
            m.submodules["queue" if self._lanes == 1 else f"queue{k}"] = queue
            m.d.comb += [queue.w_data.eq(w_data[part]), queue.w_en.eq(self.i.valid),
                         r_data[part].eq(queue.r_data), queue.r_en.eq(self.o.ready)]
            queues.append(queue)
        m.d.comb += [
            self.i.ready.eq(queues[0].w_rdy),
            self.o.payload.eq(r_data),
            self.o.valid.eq(queues[0].r_rdy),
            self.level.eq(queues[0].level),
        ]
        return m
