"""A first-in first-out queue between two stream interfaces: the small hardware FIFOs
(4–8 entries) that join Graphicionado's stages (Ham et al. §3.2)."""

from amaranth.hdl import Module, Shape
from amaranth.lib import data, fifo, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


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

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    level : ``Out(range(depth + 1))``
        Number of entries held.
    """

    def __init__(self, shape, depth: int, *, buffered: bool = False):
        if depth < 1:
            raise ConfigError(f"StreamFIFO: depth must be at least 1, not {depth!r}")
        self._shape = shape
        self._depth = depth
        self._buffered = buffered
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
        m.submodules.queue = queue = queue_class(width=width, depth=self._depth)
        m.d.comb += [
            queue.w_data.eq(self.i.payload.as_value() if isinstance(self.i.payload, data.View)
                            else self.i.payload),
            queue.w_en.eq(self.i.valid),
            self.i.ready.eq(queue.w_rdy),
            self.o.payload.eq(queue.r_data),
            self.o.valid.eq(queue.r_rdy),
            queue.r_en.eq(self.o.ready),
            self.level.eq(queue.level),
        ]
        return m
