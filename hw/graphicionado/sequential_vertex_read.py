"""Sequential Vertex Read (Graphicionado §3.2; stages P1, A1, A2; prefetching as in §4.C).

Reads an array of fixed-size items from consecutive 64-byte lines starting at a line address,
buffers whole lines and hands out one item per cycle. Up to ``prefetch_lines`` lines are
requested ahead of the one being handed out (next-line prefetch).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.memory.port import LINE_BITS, WORDS_PER_LINE, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO


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
        Pulse: read ``count`` items from line ``base``.
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
        items_per_line = WORDS_PER_LINE // self._item_words
        shift = items_per_line.bit_length() - 1
        item_bits = 32 * self._item_words

        m.submodules.lines = lines = StreamFIFO(LINE_BITS, self._prefetch_lines,
                                                buffered=self._prefetch_lines > 8)
        wiring.connect(m, wiring.flipped(self.mem.resp), lines.i)

        # Request side: one line per request while fewer than ``prefetch_lines`` are out.
        next_line = Signal(self._addr_width)
        lines_to_request = Signal(32)
        in_flight = Signal(range(self._prefetch_lines + 1))  # requested, not yet handed out
        # Hand-out side.
        items_left = Signal(32)
        # ``items_left != 0`` and ``items_left == 1`` as registers: the hand-out's valid and
        # the release of a line, on the path back to the line buffer's read enable, then wait
        # on no 32-bit compare.
        has_items = Signal()
        last_item = Signal()
        slot = Signal(range(items_per_line))
        index = Signal(32)

        request = Signal()
        release = Signal()
        # ``lines_to_request != 0`` as a register: a request, which loads the memory
        # arbiter's queue across the chip, then waits on no 32-bit test.
        lines_left = Signal()
        m.d.comb += [
            request.eq(lines_left & (in_flight < self._prefetch_lines)),
            self.mem.req.valid.eq(request),
            self.mem.req.payload.addr.eq(next_line),
            self.mem.req.payload.write.eq(0),
            self.busy.eq(has_items),
        ]
        requested = request & self.mem.req.ready
        with m.If(requested):
            m.d.sync += [next_line.eq(next_line + 1), lines_to_request.eq(lines_to_request - 1),
                         lines_left.eq(lines_to_request != 1)]
        m.d.sync += in_flight.eq(in_flight + requested - release)

        line = lines.o.payload
        m.d.comb += [
            self.o.valid.eq(lines.o.valid & has_items),
            self.o.payload.index.eq(index),
            self.o.payload.data.eq(line.word_select(slot, item_bits)),
        ]
        handed = self.o.valid & self.o.ready
        last_of_line = (slot == items_per_line - 1) | last_item
        m.d.comb += [
            release.eq(handed & last_of_line),
            lines.o.ready.eq(release),
        ]
        with m.If(handed):
            m.d.sync += [items_left.eq(items_left - 1), index.eq(index + (1 << self._index_shift)),
                         slot.eq(slot + 1), has_items.eq(~last_item),
                         last_item.eq(items_left == 2)]
            with m.If(last_of_line):
                m.d.sync += slot.eq(0)

        with m.If(self.start):
            m.d.sync += [
                next_line.eq(self.base),
                lines_to_request.eq((self.count + items_per_line - 1) >> shift),
                lines_left.eq(self.count != 0),
                items_left.eq(self.count),
                has_items.eq(self.count != 0),
                last_item.eq(self.count == 1),
                index.eq(self.first_index),
                slot.eq(0),
            ]
        return m
