"""One lane's bins of the frontier queue (Enterprise §4.1: "when a thread finds a frontier, it
stores it in its own bin"; §4.2: one bin per degree class): entries gathered into lines and
written to memory, four to a line, with a count per bin that the prefix sum and the next
level's reader use.

Bin (buffer b, class c) of lane ``lane`` starts at line
``queue_base + (((b * 4 + c) * lanes + lane) << bin_shift)``.
"""

from amaranth.hdl import Array, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.fanout import register_copies
from hw.lib.memory.port import LINE_LANES, LINE_BYTES, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from .layouts import CLASS_BITS, ENTRIES_PER_LINE, LaneGroup, QueueEntry


__all__ = ["BinWriter", "CLASSES"]

CLASSES = 1 << CLASS_BITS


class BinWriter(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    lane : int
        This writer's lane.
    lanes : int

    Members
    -------
    entries : ``In(stream.Signature(LaneGroup))``
        Groups of this lane's entries (``lane`` is not looked at), a group a cycle, each
        into its class's bin: up to a line's worth, so at most one line is written a cycle.
    buffer : ``In(1)``
        The queue buffer written (held while entries flow).
    queue_base : ``In(addr_width)``; bin_shift : ``In(5)``
    clear : ``In(1)``
        A pulse: every bin empty again.
    flush : ``In(1)``
        A pulse: the lines not yet full are written (the counts say how much of them holds).
    counts : ``Out(32).array(4)``
        Entries written into each class's bin since ``clear``.
    busy : ``Out(1)``
        A flush or a write is under way.
    mem : ``Out(MemoryPortSignature(addr_width))``
        Writes only.
    """

    def __init__(self, *, addr_width: int, lane: int, lanes: int):
        check_int("BinWriter", "addr_width", addr_width, high=32)
        check_int("BinWriter", "lanes", lanes)
        check_int("BinWriter", "lane", lane, low=0, high=lanes - 1)
        self._addr_width = addr_width
        self._lane = lane
        self._lanes = lanes
        super().__init__({
            "entries": In(stream.Signature(LaneGroup)),
            "buffer": In(1),
            "queue_base": In(addr_width),
            "bin_shift": In(5),
            "clear": In(1),
            "flush": In(1),
            "counts": Out(32).array(CLASSES),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def _bin_bases(self, m):
        """Each class's bin's first line in the buffer written, in registers updated every
        cycle from the settings (held while entries flow): a line's address is then one
        add, not a shift by ``bin_shift`` and two adds behind the entry's class."""
        bases = []
        for c in range(CLASSES):
            base = Signal(self._addr_width, name=f"bin_base{c}")
            bin_index = (self.buffer * CLASSES + c) * self._lanes + self._lane
            m.d.sync += base.eq(self.queue_base + (bin_index << self.bin_shift))
            bases.append(base)
        return bases

    def _line_address(self, m, bases, cls, line):
        base = Signal(self._addr_width)
        with m.Switch(cls):
            for c in range(CLASSES):
                with m.Case(c):
                    m.d.comb += base.eq(bases[c])
        return base + line

    @staticmethod
    def _line_out(m, gathered, placed, flush_class_next, flushing_next):
        """The line written: ``placed`` (the class's line completed by the group), or while
        flushing the partial line of the class flushed. The flush's class and whether it
        flushes select between 512-bit lines: they are registers kept once per entry of the
        line (:mod:`hw.lib.fanout`), each copy beside its quarter of the multiplexer."""
        line = Signal(data.ArrayLayout(QueueEntry, ENTRIES_PER_LINE))
        flush_classes = register_copies(m, flush_class_next[:CLASS_BITS], ENTRIES_PER_LINE,
                                        name="flush_class")
        flushes = register_copies(m, flushing_next, ENTRIES_PER_LINE, name="flushing")
        for i, (flush_class, flushing) in enumerate(zip(flush_classes, flushes)):
            m.d.comb += line[i].eq(Mux(flushing, Array(g[i] for g in gathered)[flush_class],
                                       placed[i]))
        return line

    def _place(self, m, held, position):
        """The group's entries packed in order after the ``position`` entries ``held`` in
        its class's line: seven places, the first four a line, the rest what overflows."""
        group = self.entries.payload
        # Entry i's place among the group's entries: the valid ones before it.
        ranks = [sum(group.valid[:i]) if i else Const(0, 1) for i in range(ENTRIES_PER_LINE)]
        packed = []
        for j in range(ENTRIES_PER_LINE):
            chosen = Signal(QueueEntry, name=f"packed{j}")
            for i in reversed(range(ENTRIES_PER_LINE)):
                with m.If(group.valid[i] & (ranks[i] == j)):
                    m.d.comb += chosen.eq(group.entries[i])
            packed.append(chosen)
        placed = []
        for place in range(2 * ENTRIES_PER_LINE - 1):
            entry = Signal(QueueEntry, name=f"placed{place}")
            with m.Switch(position):
                for p in range(ENTRIES_PER_LINE):
                    with m.Case(p):
                        if place < p:
                            m.d.comb += entry.eq(held[place])
                        elif place - p < ENTRIES_PER_LINE:
                            m.d.comb += entry.eq(packed[place - p])
            placed.append(entry)
        return placed

    def elaborate(self, platform):
        m = Module()
        bases = self._bin_bases(m)
        line_layout = data.ArrayLayout(QueueEntry, ENTRIES_PER_LINE)
        write_layout = data.StructLayout({"addr": self._addr_width, "line": line_layout})
        m.submodules.writes = writes = StreamFIFO(write_layout, 2, lanes=LINE_LANES)
        m.d.comb += [
            self.mem.req.valid.eq(writes.o.valid),
            self.mem.req.payload.addr.eq(writes.o.payload.addr),
            self.mem.req.payload.write.eq(1),
            self.mem.req.payload.wdata.eq(writes.o.payload.line),
            self.mem.req.payload.wmask.eq((1 << LINE_BYTES) - 1),
            writes.o.ready.eq(self.mem.req.ready),
            self.mem.resp.ready.eq(1),
        ]
        gathered = [Signal(line_layout, name=f"gathered{c}") for c in range(CLASSES)]
        flushing = Signal()
        flush_class = Signal(range(CLASSES + 1))

        group, cls = self.entries.payload, self.entries.payload.cls
        size = Signal(range(ENTRIES_PER_LINE + 1))
        m.d.comb += size.eq(sum(group.valid))
        count = Signal(32)
        held = Signal(line_layout)
        with m.Switch(cls):
            for c in range(CLASSES):
                with m.Case(c):
                    m.d.comb += [count.eq(self.counts[c]), held.eq(gathered[c])]
        position = count[:2]
        completes = Signal()
        m.d.comb += completes.eq(position + size >= ENTRIES_PER_LINE)
        m.d.comb += self.entries.ready.eq(~flushing & (~completes | writes.i.ready))
        taken = self.entries.valid & self.entries.ready
        placed = self._place(m, held, position)

        for c in range(CLASSES):
            with m.If(taken & (cls == c)):
                for i in range(ENTRIES_PER_LINE):
                    over = placed[i + ENTRIES_PER_LINE] \
                        if i + ENTRIES_PER_LINE < len(placed) else placed[i]
                    m.d.sync += gathered[c][i].eq(Mux(completes, over, placed[i]))
                m.d.sync += self.counts[c].eq(self.counts[c] + size)
        # A flush writes each class's partial line, one class a cycle.
        partial_count = Signal(32)
        with m.Switch(flush_class):
            for c in range(CLASSES):
                with m.Case(c):
                    m.d.comb += partial_count.eq(self.counts[c])
        flush_class_next, flushing_next = Signal.like(flush_class), Signal()
        m.d.comb += [flush_class_next.eq(flush_class), flushing_next.eq(flushing)]
        with m.If(flushing):
            needed = partial_count[:2] != 0
            with m.If(~needed | writes.i.ready):
                m.d.comb += flush_class_next.eq(flush_class + 1)
                with m.If(flush_class == CLASSES - 1):
                    m.d.comb += flushing_next.eq(0)
            m.d.comb += [
                writes.i.valid.eq(needed),
                writes.i.payload.addr.eq(self._line_address(m, bases, flush_class[:CLASS_BITS],
                                                            partial_count >> 2)),
            ]
        with m.Else():
            m.d.comb += [
                writes.i.valid.eq(taken & completes),
                writes.i.payload.addr.eq(self._line_address(m, bases, cls, count >> 2)),
            ]
        with m.If(self.flush):
            m.d.comb += [flushing_next.eq(1), flush_class_next.eq(0)]
        m.d.sync += [flush_class.eq(flush_class_next), flushing.eq(flushing_next)]
        m.d.comb += writes.i.payload.line.eq(
            self._line_out(m, gathered, placed, flush_class_next, flushing_next))
        with m.If(self.clear):
            m.d.sync += [self.counts[c].eq(0) for c in range(CLASSES)]
        m.d.comb += self.busy.eq(flushing | writes.o.valid)
        return m
