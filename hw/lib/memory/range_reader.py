"""A reader of consecutive items of an array in memory: the HDTL's way to its vertex's CSR
offsets and edges (Zhang et al., HPCA 2021, §III-B: the HDTL "fetches the edges of the visited
vertex"), one item per cycle once the lines arrive.

A command names an array (its first line), the first item and the number of items; the
reader requests the lines that hold them, up to ``window`` lines ahead of the hand-out, and
hands the items out in order. ``abort`` ends a command early: nothing more is handed out and
the lines still on their way are dropped as they arrive.

Beside :class:`hw.lib.memory.range_streamer.RangeStreamer`, which reads the same ranges: this
reader takes a command only once the last one's lines are all handed out or dropped, spends
a cycle with the command in registers before its first request (the streamer requests the
cycle after it takes a command, and takes the next once the last one's lines are requested),
can abort, and carries no context.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_LANES, LINE_BITS, WORDS_PER_LINE, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["RangeReader", "range_command_layout", "range_item_layout"]


def range_command_layout(addr_width: int) -> data.StructLayout:
    return data.StructLayout({"base": addr_width, "first": 32, "count": 32})


def range_item_layout(item_words: int) -> data.StructLayout:
    return data.StructLayout({"data": 32 * item_words, "index": 32, "last": 1})


class RangeReader(wiring.Component):
    """Items ``first .. first + count - 1`` of an array of ``item_words``-word items.

    Parameters
    ----------
    addr_width : int
    item_words : int
        Words per item, a power of two dividing a line.
    window : int
        Lines requested ahead of the hand-out.
    buffered_lines : bool
        Keep the line at the head of the line queue in a register (a buffered queue: one
        cycle more from a line's arrival to its items): the items' word multiplexer then
        starts at flip-flops, not at the queue's distributed-RAM read (the one-engine
        DepGraph's vertex loader's deepest path, into the register slice after it).
    flags_cycle : bool
        Spend a second cycle on a command before its first request: the first works out
        whether it has items and lines (32-bit compares of the registered command) into
        registers, the second sets the hand-out's flags from them (the one-engine DepGraph's
        vertex loader's deepest path once its line queues were buffered).

    Members
    -------
    cmd : ``In(stream.Signature(range_command_layout(addr_width)))``
        Taken while idle; ``count`` must be at least 1.
    items : ``Out(stream.Signature(range_item_layout(item_words)))``
        The item's words, its index and whether it is the command's last.
    abort : ``In(1)``
        Ends the command being handed out (a pulse).
    busy : ``Out(1)``
        A command is under way or lines are still on their way.
    mem : ``Out(MemoryPortSignature(addr_width))``
    lines_read : ``Out(32)``
    """

    def __init__(self, *, addr_width: int, item_words: int, window: int = 4,
                 buffered_lines: bool = False, flags_cycle: bool = False):
        check_int("RangeReader", "addr_width", addr_width, high=32)
        if item_words not in (1, 2, 4, 8, 16):
            raise ConfigError("RangeReader: item_words must be 1, 2, 4, 8 or 16, not "
                              f"{item_words!r}")
        if window < 1:
            raise ConfigError(f"RangeReader: window must be at least 1, not {window!r}")
        self._addr_width = addr_width
        self._item_words = item_words
        if buffered_lines and window < 3:
            # A buffered queue of two refuses a line for a cycle after taking one into its
            # empty inner store: the window would no longer promise room.
            raise ConfigError(f"RangeReader: buffered_lines needs a window of at least 3, "
                              f"not {window!r}")
        self._window = window
        self._buffered_lines = buffered_lines
        self._flags_cycle = flags_cycle
        super().__init__({
            "cmd": In(stream.Signature(range_command_layout(addr_width))),
            "items": Out(stream.Signature(range_item_layout(item_words))),
            "abort": In(1),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
            "lines_read": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        per_line = WORDS_PER_LINE // self._item_words
        shift = per_line.bit_length() - 1
        item_bits = 32 * self._item_words

        # The queue has room for every line requested (``in_flight`` never exceeds the
        # window, the queue's depth): a response is never refused.
        m.submodules.lines = lines = StreamFIFO(LINE_BITS, self._window,
                                                buffered=self._buffered_lines,
                                                lanes=LINE_LANES)
        wiring.connect(m, wiring.flipped(self.mem.resp), lines.i)

        active = Signal()
        base = Signal(self._addr_width)
        next_line = Signal(32)          # next line to request, counted from the array's start
        lines_left = Signal(32)         # lines still to request
        in_flight = Signal(range(self._window + 1))   # requested, not yet handed out or dropped
        index = Signal(32)              # next item to hand out
        items_left = Signal(32)
        # items_left != 0 and items_left == 1, kept as registers beside it: the hand-out's
        # valid and last come from flip-flops, not from 32-bit compares.
        have_items = Signal()
        final_item = Signal()
        dropping = Signal(range(self._window + 1))    # lines to drop after an abort

        have_lines = Signal()           # lines_left != 0, as a register
        request = active & have_lines & (in_flight < self._window)
        m.d.comb += [
            self.mem.req.valid.eq(request),
            self.mem.req.payload.addr.eq(base + next_line),
            self.mem.req.payload.write.eq(0),
        ]
        requested = self.mem.req.valid & self.mem.req.ready
        with m.If(requested):
            m.d.sync += [next_line.eq(next_line + 1), lines_left.eq(lines_left - 1),
                         have_lines.eq(lines_left != 1), self.lines_read.eq(self.lines_read + 1)]

        # Hand-out: the item at ``index`` of the line at the FIFO's head.
        slot = index[:shift] if shift else 0
        words = data.ArrayLayout(item_bits, per_line)(lines.o.payload)
        last_of_line = (index[:shift] == per_line - 1) if shift else 1
        handing = active & (dropping == 0) & have_items & lines.o.valid
        m.d.comb += [
            self.items.valid.eq(handing),
            self.items.payload.data.eq(words[slot]),
            self.items.payload.index.eq(index),
            self.items.payload.last.eq(final_item),
        ]
        handed = self.items.valid & self.items.ready
        line_done = handed & (last_of_line | final_item)
        dropped = (dropping != 0) & lines.o.valid
        m.d.comb += lines.o.ready.eq(line_done | dropped)
        with m.If(handed):
            m.d.sync += [index.eq(index + 1), items_left.eq(items_left - 1),
                         have_items.eq(~final_item), final_item.eq(items_left == 2)]
            with m.If(final_item):
                m.d.sync += active.eq(0)
        m.d.sync += in_flight.eq(in_flight + requested - (line_done | dropped))

        with m.If(dropped):
            m.d.sync += dropping.eq(dropping - 1)
        with m.If(self.abort & active):
            # The lines requested and not yet handed out are dropped as they come.
            m.d.sync += [active.eq(0), lines_left.eq(0), have_lines.eq(0), items_left.eq(0),
                         have_items.eq(0), final_item.eq(0),
                         dropping.eq(in_flight + requested - (line_done | dropped))]

        # A command is taken into registers as it is, and the lines it spans are worked out
        # from them in the next cycle: no arithmetic on the path from the command's source
        # (the HDTL's scanner works the command out of a line in the same cycle).
        setup = Signal()
        flagging = Signal()             # the command's first cycle with ``flags_cycle``
        idle = ~active & ~setup & ~flagging & (dropping == 0)
        m.d.comb += self.cmd.ready.eq(idle)
        with m.If(self.cmd.valid & idle):
            m.d.sync += [base.eq(self.cmd.payload.base),
                         index.eq(self.cmd.payload.first), items_left.eq(self.cmd.payload.count)]
            m.d.sync += (flagging if self._flags_cycle else setup).eq(1)
        # ``spanned != 0`` without the adder: some item, or a first line begun.
        some_items = items_left != 0
        some_lines = some_items | (index[:shift] != 0) if shift else some_items
        one_item = items_left == 1
        if self._flags_cycle:
            flags = Signal(3)
            with m.If(flagging):
                m.d.sync += [flagging.eq(0), setup.eq(~self.abort),   # aborted: dropped
                             flags.eq(Cat(some_items, some_lines, one_item))]
            some_items, some_lines, one_item = flags[0], flags[1], flags[2]
        with m.If(setup):
            # Lines spanned: the items from the first line's start to the last item, rounded
            # up to whole lines.
            head = index[:shift] if shift else 0
            spanned = (items_left + head + (per_line - 1)) >> shift
            m.d.sync += [setup.eq(0), active.eq(~self.abort), next_line.eq(index >> shift),
                         lines_left.eq(spanned), have_lines.eq(some_lines),
                         have_items.eq(some_items), final_item.eq(one_item)]
        m.d.comb += self.busy.eq(any_busy(~idle, in_flight))
        return m
