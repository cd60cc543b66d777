"""A reader of many short ranges of an array, back to back: the lines of the next range are
requested while the previous one's still arrive, so a stream of small ranges (a frontier's
edge lists, a queue's bins) reads a line a cycle instead of waiting one memory latency per
range as :class:`hw.lib.memory.range_reader.RangeReader` does.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_LANES, LINE_BITS, WORDS_PER_LINE, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice


__all__ = ["RangeStreamer", "range_cmd_layout", "range_out_layout"]


def range_cmd_layout(addr_width: int, ctx_width: int) -> data.StructLayout:
    return data.StructLayout({"base": addr_width, "first": 32, "count": 32,
                              "ctx": max(ctx_width, 1)})


def range_out_layout(item_words: int, ctx_width: int) -> data.StructLayout:
    return data.StructLayout({"data": 32 * item_words, "index": 32, "last": 1,
                              "ctx": max(ctx_width, 1)})


class RangeStreamer(wiring.Component):
    """Items ``first .. first + count - 1`` of the array at line ``base``, per command, in
    command order, each with the command's ``ctx``.

    Parameters
    ----------
    addr_width : int
    item_words : int
        Words per item, a power of two dividing a line.
    ctx_width : int
        Bits of context carried from a command to its items.
    window : int
        Lines requested and not yet handed out, at most (their landing queue's depth): the
        reader keeps up a line a cycle when this covers the memory latency.
    cmd_slice : bool
        Take commands through a :class:`hw.lib.stream.register_slice.StreamRegisterSlice`:
        ``cmd.ready`` is then a register, and the span's adder and the end-of-range tests
        are worked out before the slice, so the block that sends the commands and this one
        share no combinational path (the BFS engine's top-down check: its edge reader's
        ``have`` through the check's command logic into ``next_final``). One cycle more per
        command's first line.

    Members
    -------
    cmd : ``In(stream.Signature(range_cmd_layout(addr_width, ctx_width)))``
        A command with ``count`` 0 gives nothing.
    items : ``Out(stream.Signature(range_out_layout(item_words, ctx_width)))``
        ``last`` marks a command's last item.
    busy : ``Out(1)``
        A command taken has items not yet handed out.
    mem : ``Out(MemoryPortSignature(addr_width))``
    lines_read : ``Out(32)``
    """

    def __init__(self, *, addr_width: int, item_words: int = 1, ctx_width: int = 1,
                 window: int = 32, cmd_slice: bool = False):
        check_int("RangeStreamer", "addr_width", addr_width, high=32)
        check_int("RangeStreamer", "ctx_width", ctx_width, low=0)
        if item_words not in (1, 2, 4, 8, 16):
            raise ConfigError(f"RangeStreamer: item_words must be 1, 2, 4, 8 or 16, not "
                              f"{item_words!r}")
        if window < 1:
            raise ConfigError(f"RangeStreamer: window must be at least 1, not {window!r}")
        self._addr_width = addr_width
        self._item_words = item_words
        self._ctx_width = ctx_width
        self._window = window
        self._cmd_slice = cmd_slice
        super().__init__({
            "cmd": In(stream.Signature(range_cmd_layout(addr_width, ctx_width))),
            "items": Out(stream.Signature(range_out_layout(item_words, ctx_width))),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
            "lines_read": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        per_line = WORDS_PER_LINE // self._item_words
        shift = per_line.bit_length() - 1
        slot_bits = max(shift, 1)
        ctx_width = max(self._ctx_width, 1)
        meta_layout = data.StructLayout({"lo": slot_bits, "hi": slot_bits, "index": 32,
                                         "last": 1, "ctx": ctx_width})

        # Prepare: a command's line span, worked out in a register stage.
        prepared = Signal(data.StructLayout({
            "base": self._addr_width, "line": 32, "left": 32, "lo": slot_bits,
            "hi": slot_bits, "index": 32, "ctx": ctx_width}))
        have = Signal()
        # With several items a line, a line's part of its range leaves ``meta`` from a
        # register: its first item's place and the choice of the item's word in the line then
        # do not follow the queue's read.
        m.submodules.meta = meta = StreamFIFO(meta_layout, self._window, buffered=per_line > 1)
        m.submodules.lines = lines = StreamFIFO(LINE_BITS, self._window,
                                                buffered=self._window > 8, lanes=LINE_LANES)
        wiring.connect(m, wiring.flipped(self.mem.resp), lines.i)

        cmd = self._commands(m, prepared.shape(), per_line, shift)
        # ``in_flight`` never passes the window, so "below it" is "not equal to it": a test
        # of a few bits for equality, not a subtraction.
        in_flight = Signal(range(self._window + 1))
        request = have & (in_flight != self._window) & meta.i.ready
        requested = request & self.mem.req.ready
        # Whether the line to request is the command's last (``final``) and whether the one
        # after it is (``next_final``) are registers, worked out a line ahead from ``left``
        # (the range's last line less the line to request, counted down): no compare of two
        # 32-bit line numbers on the way from ``final`` through ``cmd.ready`` to the upstream
        # block and back into every prepared register (once the deepest path of the BFS
        # engine's status reader), and no adder before the test.
        final = Signal()
        next_final = Signal()
        m.d.comb += cmd.ready.eq(~have | (requested & final))
        # (A command taken in the cycle the last line of the one before goes out replaces it:
        # these statements come first so that the command's own win.)
        with m.If(requested):
            m.d.sync += [prepared.line.eq(prepared.line + 1), prepared.lo.eq(0),
                         prepared.left.eq(prepared.left - 1),
                         prepared.index.eq(prepared.index + per_line - prepared.lo),
                         self.lines_read.eq(self.lines_read + 1),
                         final.eq(next_final),
                         next_final.eq(prepared.left == 2)]
        with m.If(cmd.valid & cmd.ready):
            m.d.sync += [prepared.eq(cmd.payload.span), final.eq(cmd.payload.final),
                         next_final.eq(cmd.payload.next_final), have.eq(cmd.payload.nonempty)]
        with m.Elif(requested & final):
            m.d.sync += have.eq(0)

        # Requests: a line a cycle, its part of the range recorded in ``meta``.
        m.d.comb += [
            self.mem.req.valid.eq(request),
            self.mem.req.payload.addr.eq(prepared.base + prepared.line),
            self.mem.req.payload.write.eq(0),
            meta.i.valid.eq(requested),
            meta.i.payload.lo.eq(prepared.lo),
            meta.i.payload.hi.eq(prepared.hi if per_line > 1 else 0),
            meta.i.payload.index.eq(prepared.index),
            meta.i.payload.last.eq(final),
            meta.i.payload.ctx.eq(prepared.ctx),
        ]
        with m.If(~final):
            m.d.comb += meta.i.payload.hi.eq(per_line - 1)

        # Hand-out: the items of the line at the head, from its ``lo`` to its ``hi``.
        offset = Signal(slot_bits + 1)
        head = meta.o.payload
        slot = (head.lo + offset)[:slot_bits] if shift else 0
        words = data.ArrayLayout(32 * self._item_words, per_line)(lines.o.payload)
        line_done = (slot == head.hi) if shift else 1
        m.d.comb += [
            self.items.valid.eq(meta.o.valid & lines.o.valid),
            self.items.payload.data.eq(words[slot]),
            self.items.payload.index.eq(head.index + offset),
            self.items.payload.last.eq(head.last & line_done),
            self.items.payload.ctx.eq(head.ctx),
        ]
        handed = self.items.valid & self.items.ready
        popped = handed & line_done
        m.d.comb += [meta.o.ready.eq(popped), lines.o.ready.eq(popped)]
        with m.If(popped):
            m.d.sync += offset.eq(0)
        with m.Elif(handed):
            m.d.sync += offset.eq(offset + 1)
        m.d.sync += in_flight.eq(in_flight + requested - popped)
        queued = [cmd.valid] if self._cmd_slice else []      # a command in the slice
        m.d.comb += self.busy.eq(any_busy(have, in_flight, *queued))
        return m

    def _commands(self, m, span_layout, per_line, shift):
        """The commands as the prepare stage takes them, each with its line span and its
        end-of-range tests: from ``cmd`` itself, or through the register slice
        (``cmd_slice``), the span's adder and the tests then before the slice."""
        cmd = self.cmd.payload
        first, count = cmd.first, cmd.count
        last_item = first + count - 1
        ready_layout = data.StructLayout({"span": span_layout, "final": 1, "next_final": 1,
                                          "nonempty": 1})
        ready = Signal(ready_layout)
        # The range ends in its first line if ``count`` is at most the items left in it
        # (``per_line - lo``), in the second if at most ``per_line`` more: tests of a few low
        # bits and of the high ones for zero, no 32-bit adder before them.
        lo = first[:shift] if shift else 0
        if shift:
            # With ``reach`` = lo + count (while count < 4 lines): final if reach is at most a
            # line, next_final if it is in the line after; tests of its bits, one short adder.
            reach = Signal(shift + 3)
            short = count >> (shift + 2) == 0
            m.d.comb += [
                reach.eq(lo + count[:shift + 2]),
                ready.final.eq(short & (reach[shift + 1:] == 0) &
                               (~reach[shift] | (reach[:shift] == 0))),
                ready.next_final.eq(short & ~reach[shift + 2] & (
                    (reach[shift + 1] & (reach[:shift + 1] == 0)) |
                    (~reach[shift + 1] & reach[shift] & (reach[:shift] != 0)))),
            ]
        else:
            m.d.comb += [ready.final.eq(count >> 1 == 0), ready.next_final.eq(count == 2)]
        m.d.comb += [
            ready.nonempty.eq(count != 0),
            ready.span.base.eq(cmd.base),
            ready.span.line.eq(first >> shift),
            ready.span.left.eq((last_item >> shift) - (first >> shift)),
            ready.span.lo.eq(lo), ready.span.hi.eq(last_item[:shift] if shift else 0),
            ready.span.index.eq(first), ready.span.ctx.eq(cmd.ctx),
        ]
        if self._cmd_slice:
            m.submodules.cmd_slice = taken = StreamRegisterSlice(ready_layout)
            taken_in, taken_out = taken.i, taken.o
        else:
            taken_in = taken_out = stream.Signature(ready_layout).create()
        m.d.comb += [taken_in.valid.eq(self.cmd.valid), taken_in.payload.eq(ready),
                     self.cmd.ready.eq(taken_in.ready)]
        return taken_out
