"""An array written from its first line on, items packed into 64-byte lines: how a unit that
produces a list in order (the dynamic graph's compactor: edge records, EdgeIDTable entries,
PageRank's VConst) stores it without read-modify-write."""

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, WORDS_PER_LINE, line_request_layout


__all__ = ["SequentialLineWriter", "line_item_layout"]


def line_item_layout(item_words: int) -> data.StructLayout:
    """``data``: the item (word ``i`` at bits ``32 * i``); ``empty``: no item, only ``last``;
    ``last``: the list ends here (its partial line is written)."""
    return data.StructLayout({"data": 32 * item_words, "empty": 1, "last": 1})


class SequentialLineWriter(wiring.Component):
    """Items to consecutive slots of the array at line ``base``, a line write when a line is
    full or the list ends (byte enables cover the items written, so the words after the list
    keep their contents).

    Parameters
    ----------
    addr_width : int
    item_words : int
        Words per item, a power of two dividing a line.

    Members
    -------
    base : ``In(addr_width)``
    restart : ``In(1)``
        Back to slot 0, ``done`` cleared.
    items : ``In(stream.Signature(line_item_layout(item_words)))``
    req : ``Out(stream.Signature(line_request_layout(addr_width)))``
        Writes only.
    done : ``Out(1)``
        The last item's line has left.
    written : ``Out(32)``
        Items written since ``restart``.
    """

    def __init__(self, *, addr_width: int, item_words: int):
        check_int("SequentialLineWriter", "addr_width", addr_width, high=32)
        if item_words not in (1, 2, 4, 8, 16):
            raise ConfigError(f"SequentialLineWriter: item_words must be 1, 2, 4, 8 or 16, "
                              f"not {item_words!r}")
        self._item_words = item_words
        super().__init__({
            "base": In(addr_width),
            "restart": In(1),
            "items": In(stream.Signature(line_item_layout(item_words))),
            "req": Out(stream.Signature(line_request_layout(addr_width))),
            "done": Out(1),
            "written": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        per_line = WORDS_PER_LINE // self._item_words
        item_bits = 32 * self._item_words
        item_bytes = 4 * self._item_words
        line = Signal(LINE_BITS)
        mask = Signal(64)
        slot = Signal(range(per_line))
        line_index = Signal(32)
        finishing = Signal()
        item = self.items.payload

        free = ~self.req.valid | self.req.ready
        m.d.comb += [self.items.ready.eq(free & ~finishing),
                     self.req.payload.write.eq(1)]
        with m.If(self.req.valid & self.req.ready):
            m.d.sync += self.req.valid.eq(0)
        with m.If(finishing & free):
            m.d.sync += [finishing.eq(0), self.done.eq(1)]

        filled = Signal(LINE_BITS)
        filled_mask = Signal(64)
        full = Signal()
        m.d.comb += [filled.eq(line), filled_mask.eq(mask)]
        with m.If(~item.empty):
            for k in range(per_line):
                with m.If(slot == k):
                    m.d.comb += [filled.word_select(k, item_bits).eq(item.data),
                                 filled_mask.word_select(k, item_bytes).eq(
                                     Const((1 << item_bytes) - 1, item_bytes))]
            m.d.comb += full.eq(slot == per_line - 1)
        flush = full | (item.last & (filled_mask != 0))
        with m.If(self.items.valid & self.items.ready):
            m.d.sync += [line.eq(filled), mask.eq(filled_mask),
                         finishing.eq(item.last)]
            with m.If(~item.empty):
                m.d.sync += [slot.eq(slot + 1), self.written.eq(self.written + 1)]
            with m.If(flush):
                m.d.sync += [self.req.valid.eq(1), self.req.payload.wdata.eq(filled),
                             self.req.payload.wmask.eq(filled_mask),
                             self.req.payload.addr.eq(self.base + line_index),
                             line_index.eq(line_index + 1), slot.eq(0), mask.eq(0)]
        with m.If(self.restart):
            m.d.sync += [slot.eq(0), mask.eq(0), line_index.eq(0), finishing.eq(0),
                         self.done.eq(0), self.written.eq(0)]
        return m
