"""Sequential Vertex Read (Graphicionado §3.2; stages P1, A1, A2; prefetching as in §4.C).

Reads an array of fixed-size items from consecutive 64-byte lines starting at a line address,
buffers whole lines and hands out one item per cycle. Up to ``prefetch_lines`` lines are
requested ahead of the one being handed out (next-line prefetch). The reading is
:class:`hw.lib.memory.range_streamer.RangeStreamer`'s, one range from item 0; this block
gives it Graphicionado's start pulse and the vertex ids of a partition.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.memory.range_streamer import RangeStreamer


__all__ = ["item_layout", "SequentialVertexRead"]


def item_layout(item_words: int, index_width: int = 32) -> data.StructLayout:
    """An item and its position in the array (the vertex id for per-vertex arrays)."""
    return data.StructLayout({"index": index_width, "data": 32 * item_words})


class SequentialVertexRead(wiring.Component):
    """Streams items ``0 .. count - 1`` of an array at line ``base``.

    Items never straddle lines: ``item_words`` divides the 16 words of a line.

    Parameters
    ----------
    item_words : int
        32-bit words per item (1, 2, 4, 8 or 16).
    addr_width : int
        Width of a line address.
    prefetch_lines : int
        Lines requested ahead of the one being handed out (the paper: N = 4).
    index_shift : int
        Item ``i`` is handed out with index ``first_index + (i << index_shift)``: the vertex
        id of an item of a partition of the vertices (``index_shift`` = log2 of the number of
        partitions, ``first_index`` the partition's number; §V.A).

    Members
    -------
    start : ``In(1)``
        Pulse, while not ``busy``: read ``count`` items from line ``base``.
    base : ``In(addr_width)``
    count : ``In(32)``
    first_index : ``In(32)``
        The index of item 0 (0 unless the array is a partition).
    busy : ``Out(1)``
        Items are still to be handed out.
    mem : ``Out(MemoryPortSignature(addr_width))``
    o : ``Out(stream.Signature(item_layout(item_words)))``
    """

    def __init__(self, *, item_words: int, addr_width: int, prefetch_lines: int = 4,
                 index_shift: int = 0):
        check_int("SequentialVertexRead", "addr_width", addr_width, high=32)
        check_int("SequentialVertexRead", "index_shift", index_shift, low=0)
        if item_words not in (1, 2, 4, 8, 16):
            raise ConfigError("SequentialVertexRead: item_words must be 1, 2, 4, 8 or 16, not "
                              f"{item_words!r}")
        if prefetch_lines < 1:
            raise ConfigError("SequentialVertexRead: prefetch_lines must be at least 1, not "
                              f"{prefetch_lines!r}")
        self._item_words = item_words
        self._addr_width = addr_width
        self._prefetch_lines = prefetch_lines
        self._index_shift = index_shift
        super().__init__({
            "start": In(1),
            "base": In(addr_width),
            "count": In(32),
            "first_index": In(32),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
            "o": Out(stream.Signature(item_layout(item_words))),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.reader = reader = RangeStreamer(
            addr_width=self._addr_width, item_words=self._item_words,
            window=self._prefetch_lines)
        wiring.connect(m, reader.mem, wiring.flipped(self.mem))
        first_index = Signal(32)
        with m.If(self.start):
            m.d.sync += first_index.eq(self.first_index)
        item = reader.items.payload
        m.d.comb += [
            reader.cmd.valid.eq(self.start),
            reader.cmd.payload.base.eq(self.base),
            reader.cmd.payload.count.eq(self.count),
            self.o.valid.eq(reader.items.valid),
            self.o.payload.index.eq(first_index + (item.index << self._index_shift)),
            self.o.payload.data.eq(item.data),
            reader.items.ready.eq(self.o.ready),
            self.busy.eq(reader.busy),
        ]
        return m
