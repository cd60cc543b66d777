"""Sequential Vertex Write (Graphicionado §3.2; stages A4 and A5).

Packs a stream of fixed-size items into a 64-byte line buffer and writes each line to memory
once it is full; a flush writes the last, partial line with a byte mask. Used for VProperty
(A4) and for the ActiveVertex list (A5).

Beside :class:`hw.lib.memory.line_writer.SequentialLineWriter`, which packs lines too: this
writer keeps taking items while a full line waits for the memory (only the item that would
complete the next line waits), where that one takes no item while its line waits; the list
ends with a ``flush`` pulse, not a ``last`` flag on an item; and ``first`` appends to items
already in the array.
"""

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, LINE_BYTES, WORDS_PER_LINE, MemoryPortSignature


__all__ = ["SequentialVertexWrite"]


class SequentialVertexWrite(wiring.Component):
    """Writes the items of ``i`` to consecutive positions of an array at line ``base``.

    A complete line moves to a one-line write buffer, so items keep flowing at one per cycle
    while the previous line waits for the memory.

    Parameters
    ----------
    item_words : int
        32-bit words per item (1, 2, 4, 8 or 16).
    addr_width : int

    Members
    -------
    start : ``In(1)``
        Pulse: the next item goes to position ``first`` of the array at ``base``; clears
        ``written``.
    base : ``In(addr_width)``
    first : ``In(32)``
        Items already in the array: the writes append after them, the first line's earlier
        items left alone by the byte mask (graph slicing appends each slice's ActiveVertex
        entries to one list).
    i : ``In(stream.Signature(32 * item_words))``
    flush : ``In(1)``
        Pulse after the last item: write the partial line, if any.
    busy : ``Out(1)``
        A line is waiting for the memory or a flush is in progress.
    written : ``Out(32)``
        Items taken since ``start``.
    mem : ``Out(MemoryPortSignature(addr_width))``
        Write requests only; ``mem.resp`` is never used.
    """

    def __init__(self, *, item_words: int, addr_width: int):
        check_int("SequentialVertexWrite", "addr_width", addr_width, high=32)
        if item_words not in (1, 2, 4, 8, 16):
            raise ConfigError("SequentialVertexWrite: item_words must be 1, 2, 4, 8 or 16, not "
                              f"{item_words!r}")
        self._item_words = item_words
        self._addr_width = addr_width
        super().__init__({
            "start": In(1),
            "base": In(addr_width),
            "first": In(32),
            "i": In(stream.Signature(32 * item_words)),
            "flush": In(1),
            "busy": Out(1),
            "written": Out(32),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        items_per_line = WORDS_PER_LINE // self._item_words
        item_bits = 32 * self._item_words
        item_bytes = 4 * self._item_words

        line = Signal(LINE_BITS)
        mask = Signal(LINE_BYTES)
        slot = Signal(range(items_per_line))
        line_addr = Signal(self._addr_width)
        flush_pending = Signal()
        # ``mask != 0`` as a register: the flush's decision, which loads the wide output
        # registers by the memory arbiter, then waits on no 64-bit test.
        partial = Signal()

        out_valid = Signal()
        out_line = Signal(LINE_BITS)
        out_mask = Signal(LINE_BYTES)
        out_addr = Signal(self._addr_width)
        m.d.comb += [
            self.mem.req.valid.eq(out_valid),
            self.mem.req.payload.addr.eq(out_addr),
            self.mem.req.payload.write.eq(1),
            self.mem.req.payload.wdata.eq(out_line),
            self.mem.req.payload.wmask.eq(out_mask),
            self.mem.resp.ready.eq(1),
        ]
        out_free = ~out_valid | self.mem.req.ready
        with m.If(self.mem.req.ready):
            m.d.sync += out_valid.eq(0)

        completes_line = slot == items_per_line - 1
        m.d.comb += [
            self.i.ready.eq(~flush_pending & (~completes_line | out_free)),
            self.busy.eq(out_valid | flush_pending),
        ]
        item_mask = Const((1 << item_bytes) - 1, LINE_BYTES)
        new_line = Signal(LINE_BITS)
        new_mask = Signal(LINE_BYTES)
        m.d.comb += [
            new_line.eq(line),
            new_line.word_select(slot, item_bits).eq(self.i.payload),
            new_mask.eq(mask | (item_mask << (slot * item_bytes))),
        ]
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [line.eq(new_line), mask.eq(new_mask), slot.eq(slot + 1),
                         self.written.eq(self.written + 1), partial.eq(1)]
            with m.If(completes_line):
                m.d.sync += [out_valid.eq(1), out_line.eq(new_line), out_mask.eq(new_mask),
                             out_addr.eq(line_addr), line_addr.eq(line_addr + 1),
                             slot.eq(0), mask.eq(0), partial.eq(0)]

        with m.If(self.flush):
            m.d.sync += flush_pending.eq(1)
        with m.If(flush_pending & out_free):
            m.d.sync += flush_pending.eq(0)
            with m.If(partial):
                m.d.sync += [out_valid.eq(1), out_line.eq(line), out_mask.eq(mask),
                             out_addr.eq(line_addr), line_addr.eq(line_addr + 1),
                             slot.eq(0), mask.eq(0), partial.eq(0)]

        slot_bits = (items_per_line - 1).bit_length()
        with m.If(self.start):
            m.d.sync += [line_addr.eq(self.base + (self.first >> slot_bits)),
                         slot.eq(self.first[:slot_bits] if slot_bits else 0), mask.eq(0),
                         partial.eq(0), self.written.eq(0)]
        return m
