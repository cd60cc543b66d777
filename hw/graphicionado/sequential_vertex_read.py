"""Sequential Vertex Read (Graphicionado §3.2; stages P1, A1, A2; prefetching as in §4.C).

Reads an array of fixed-size items from consecutive 64-byte lines starting at a line address,
buffers whole lines and hands out one item per cycle. Up to ``prefetch_lines`` lines are
requested ahead of the one being handed out (next-line prefetch). It reads as
:class:`hw.lib.memory.range_streamer.RangeStreamer` does one range from item 0, with the
start taken into registers first (two cycles more) and the lines counted down, so that its last
line is a flip-flop: RangeStreamer compares the line with the range's end on the way to its
command's ready and the memory handshake (once the longest path of the smallest
configuration).
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_LANES, LINE_BITS, WORDS_PER_LINE, MemoryPortSignature
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
        per_line = WORDS_PER_LINE // self._item_words
        shift = per_line.bit_length() - 1
        slot_bits = max(shift, 1)
        # The head line's last slot comes from a register (a buffered queue), not through the
        # queue's read multiplexer, on its way to the pop of the lines' queue and the level.
        m.submodules.meta = meta = StreamFIFO(
            data.StructLayout({"hi": slot_bits, "index": 32}), self._prefetch_lines,
            buffered=True)
        m.submodules.lines = lines = StreamFIFO(LINE_BITS, self._prefetch_lines,
                                                buffered=self._prefetch_lines > 8,
                                                lanes=LINE_LANES)
        wiring.connect(m, wiring.flipped(self.mem.resp), lines.i)
        requested = self._requests(m, meta, per_line, shift)

        # Hand-out: the items of the line at the head, from slot 0 to its ``hi``.
        offset = Signal(slot_bits)
        head = meta.o.payload
        words = data.ArrayLayout(32 * self._item_words, per_line)(lines.o.payload)
        line_done = (offset == head.hi) if shift else 1
        m.d.comb += [
            self.o.valid.eq(meta.o.valid & lines.o.valid),
            self.o.payload.data.eq(words[offset] if shift else words[0]),
            self.o.payload.index.eq(head.index + (offset << self._index_shift)),
        ]
        handed = self.o.valid & self.o.ready
        popped = handed & line_done
        m.d.comb += [meta.o.ready.eq(popped), lines.o.ready.eq(popped)]
        with m.If(popped):
            m.d.sync += offset.eq(0)
        with m.Elif(handed):
            m.d.sync += offset.eq(offset + 1)
        in_flight = self._in_flight
        m.d.sync += in_flight.eq(in_flight + requested - popped)
        m.d.comb += self.busy.eq(any_busy(self._pending, self._counted, self._have, in_flight))
        return m

    def _requests(self, m, meta, per_line, shift):
        """A line a cycle from ``base``, at most ``prefetch_lines`` not yet handed out, each
        with its last slot and the index of its first item recorded in ``meta``. The start
        is taken into registers first and the lines to go counted down, so the last line is
        a flip-flop (``final``) and no count compare is on the way to the memory's
        handshake. Returns whether a line is requested this cycle."""
        pending = self._pending = Signal()
        have = self._have = Signal()
        in_flight = self._in_flight = Signal(range(self._prefetch_lines + 1))
        base, count = Signal(self._addr_width), Signal(32)
        line, left = Signal(self._addr_width), Signal(32 - shift)
        final, last_hi, index = Signal(), Signal(max(shift, 1)), Signal(32)
        request = have & (in_flight < self._prefetch_lines) & meta.i.ready
        requested = request & self.mem.req.ready
        # A third stage makes ``final`` from ``left``, a register: ``count <= per_line`` was
        # a 32-bit compare on the way from ``count`` (once the ecp5 preset's longest path of
        # its own).
        counted = self._counted = Signal()
        nonzero = Signal()
        m.d.sync += [pending.eq(self.start), counted.eq(pending)]
        with m.If(self.start):
            m.d.sync += [base.eq(self.base), count.eq(self.count),
                         index.eq(self.first_index)]
        with m.If(pending):
            m.d.sync += [
                nonzero.eq(count != 0), line.eq(base),
                left.eq((count + per_line - 1) >> shift),
                last_hi.eq((count - 1)[:shift] if shift else 0),
            ]
        with m.If(counted):
            m.d.sync += [have.eq(nonzero), final.eq(left == 1)]
        with m.Elif(requested):
            m.d.sync += [line.eq(line + 1), left.eq(left - 1), final.eq(left == 2),
                         index.eq(index + (per_line << self._index_shift))]
            with m.If(final):
                m.d.sync += have.eq(0)
        m.d.comb += [
            self.mem.req.valid.eq(request),
            self.mem.req.payload.addr.eq(line),
            self.mem.req.payload.write.eq(0),
            meta.i.valid.eq(requested),
            meta.i.payload.hi.eq(Mux(final, last_hi, per_line - 1)),
            meta.i.payload.index.eq(index),
        ]
        return requested
