"""An array written in order, items packed into 64-byte lines, each line written once it is
full and the last, partial one with a byte mask, so nothing is read back: Graphicionado's
Sequential Vertex Write (§3.2 stages A4 and A5: VProperty and the ActiveVertex list; the
scratchpad's spill) and the dynamic graph's compactor (edge records, EdgeIDTable entries,
PageRank's VConst)."""

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, LINE_BYTES, WORDS_PER_LINE, MemoryPortSignature


__all__ = ["SequentialLineWriter", "changed_item_layout", "line_item_layout"]


def line_item_layout(item_words: int) -> data.StructLayout:
    """``data``: the item (word ``i`` at bits ``32 * i``); ``empty``: no item, only ``last``;
    ``last``: the list ends here (its partial line is written)."""
    return data.StructLayout({"data": 32 * item_words, "empty": 1, "last": 1})


def changed_item_layout(item_words: int) -> data.StructLayout:
    """``data``: the item; ``changed``: it differs from what the array holds in its slot."""
    return data.StructLayout({"data": 32 * item_words, "changed": 1})


class SequentialLineWriter(wiring.Component):
    """Items to consecutive slots of the array at line ``base`` from slot ``first`` on.

    A complete line moves to a one-line write buffer, so items keep flowing at one a cycle
    while the previous line waits for the memory; only the item that would complete the next
    line waits. The list ends with an item marked ``last`` or with a ``flush`` pulse: the
    partial line, if any, is written with byte enables for its items only, so the words
    before ``first`` and after the list keep their contents.

    Parameters
    ----------
    addr_width : int
    item_words : int
        Words per item (1, 2, 4, 8 or 16).
    marked : bool
        Items come as ``line_item_layout(item_words)``, ``last`` ending the list; without
        marks, as their ``32 * item_words`` bits alone, and only ``flush`` ends the list.
    changes : bool
        Items (unmarked) come as ``changed_item_layout(item_words)``, and a line none of
        whose items changed is not written: the array is rewritten in place and already
        holds it (Graphicionado's VProperty in the apply phase of a frontier program).

    Members
    -------
    start : ``In(1)``
        Pulse: the next item goes to slot ``first`` of the array at ``base``; clears
        ``written`` and ``done``.
    base : ``In(addr_width)``
    first : ``In(32)``
        Items already in the array: the writes append after them, the first line's earlier
        items left alone by the byte mask (graph slicing appends each slice's ActiveVertex
        entries to one list).
    items : ``In(stream.Signature(line_item_layout(item_words)))``
        (``In(stream.Signature(32 * item_words))`` unmarked,
        ``In(stream.Signature(changed_item_layout(item_words)))`` with ``changes``.)
    flush : ``In(1)``
        Pulse after the last item, for a list without a ``last`` item: write the partial
        line, if any.
    busy : ``Out(1)``
        A line is waiting for the memory or a flush is under way.
    done : ``Out(1)``
        The list has ended (``last`` or ``flush``) and its last line has left.
    written : ``Out(32)``
        Items taken since ``start`` (``empty`` ones aside).
    lines_skipped : ``Out(32)``
        With ``changes``: lines since ``start`` left unwritten, none of their items changed.
    mem : ``Out(MemoryPortSignature(addr_width))``
        Write requests only; ``mem.resp`` is never used.
    """

    def __init__(self, *, addr_width: int, item_words: int, marked: bool = True,
                 changes: bool = False):
        check_int("SequentialLineWriter", "addr_width", addr_width, high=32)
        if item_words not in (1, 2, 4, 8, 16):
            raise ConfigError(f"SequentialLineWriter: item_words must be 1, 2, 4, 8 or 16, "
                              f"not {item_words!r}")
        if not isinstance(marked, bool):
            raise ConfigError(f"SequentialLineWriter: marked must be True or False, not "
                              f"{marked!r}")
        if changes and marked:
            raise ConfigError("SequentialLineWriter: changes is for unmarked items")
        self._item_words = item_words
        self._addr_width = addr_width
        self._marked = marked
        self._changes = bool(changes)
        if marked:
            item = line_item_layout(item_words)
        else:
            item = changed_item_layout(item_words) if changes else 32 * item_words
        extra = {"lines_skipped": Out(32)} if changes else {}
        super().__init__({
            **extra,
            "start": In(1),
            "base": In(addr_width),
            "first": In(32),
            "items": In(stream.Signature(item)),
            "flush": In(1),
            "busy": Out(1),
            "done": Out(1),
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
        ended = Signal()
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

        if self._marked:
            item_data, empty, last = (self.items.payload.data, self.items.payload.empty,
                                      self.items.payload.last)
        elif self._changes:
            item_data, empty, last = self.items.payload.data, Const(0), Const(0)
        else:
            item_data, empty, last = self.items.payload, Const(0), Const(0)
        # Whether an item of the line being filled changed (``dirty``; with the item offered,
        # ``line_dirty``): always, without ``changes``.
        dirty = Signal()
        keep_dirty, clear_dirty = [], []
        held_dirty = line_dirty = Const(1)
        if self._changes:
            held_dirty, line_dirty = dirty, dirty | self.items.payload.changed
            keep_dirty, clear_dirty = [dirty.eq(line_dirty)], [dirty.eq(0)]
        completes_line = ~empty & (slot == items_per_line - 1)
        m.d.comb += [
            self.items.ready.eq(~flush_pending & (~completes_line | out_free)),
            self.busy.eq(out_valid | flush_pending),
            self.done.eq(ended & ~out_valid & ~flush_pending),
        ]
        item_mask = Const((1 << item_bytes) - 1, LINE_BYTES)
        new_line = Signal(LINE_BITS)
        new_mask = Signal(LINE_BYTES)
        m.d.comb += [
            new_line.eq(line),
            new_line.word_select(slot, item_bits).eq(item_data),
            new_mask.eq(mask | (item_mask << (slot * item_bytes))),
        ]
        taken = self.items.valid & self.items.ready
        with m.If(taken & ~empty):
            m.d.sync += [line.eq(new_line), mask.eq(new_mask), slot.eq(slot + 1),
                         self.written.eq(self.written + 1), partial.eq(1), *keep_dirty]
            with m.If(completes_line):
                m.d.sync += [out_valid.eq(line_dirty), out_line.eq(new_line),
                             out_mask.eq(new_mask), out_addr.eq(line_addr),
                             line_addr.eq(line_addr + 1), slot.eq(0), mask.eq(0),
                             partial.eq(0), *clear_dirty]
                self._skipped(m, ~line_dirty)

        with m.If(self.flush | (taken & last)):
            m.d.sync += flush_pending.eq(1)
        with m.If(flush_pending & out_free):
            m.d.sync += [flush_pending.eq(0), ended.eq(1)]
            with m.If(partial):
                m.d.sync += [out_valid.eq(held_dirty), out_line.eq(line),
                             out_mask.eq(mask), out_addr.eq(line_addr),
                             line_addr.eq(line_addr + 1), slot.eq(0), mask.eq(0),
                             partial.eq(0), *clear_dirty]
                self._skipped(m, ~held_dirty)

        slot_bits = (items_per_line - 1).bit_length()
        with m.If(self.start):
            m.d.sync += [line_addr.eq(self.base + (self.first >> slot_bits)),
                         slot.eq(self.first[:slot_bits] if slot_bits else 0), mask.eq(0),
                         partial.eq(0), ended.eq(0), self.written.eq(0), *clear_dirty]
            if self._changes:
                m.d.sync += self.lines_skipped.eq(0)
        return m

    def _skipped(self, m, skipped):
        if self._changes:
            with m.If(skipped):
                m.d.sync += self.lines_skipped.eq(self.lines_skipped + 1)
