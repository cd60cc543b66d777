"""The HDTL's scan for the walk's next vertex (DepGraph, Zhang et al., HPCA 2021, §III-B: the
HDTL "gets the next unvisited active neighbour" of the vertex on top of its stack).

A scan takes the top entry <vertex, next edge offset, end offset> and reads the rest of the
edge line its next offset falls in (at most to its end offset), asking the vertex store, for
every destination in the engine's partition, whether it is active and may be walked into;
the first such edge, in edge order, is the answer. Its next offset is then that edge's
successor, or the end of the line when none was found (the HDTL scans again from there).

The first ``kept_lines`` lines of the last batch are kept here: the scans of an entry just
pushed read exactly those lines, and reading them again from memory cost a memory latency
per line. With ``levels`` > 1 every stack level keeps the lines of the batch of the vertex
visited at that depth (the entry pushed there, while it is on the stack), so a walk resuming
an entry after the subtree below it scans the entry's first lines without a memory read:
the paper's stack entry is about 610 bits (6.1 Kbit at depth 10), room for a 64-byte line of
edges beside the entry's three words.

An edge is ``edge_words`` words (:func:`hw.depgraph.layouts.edge_layout`): the destination
alone (sixteen a line) when the program reads no weight, else (dst, weight) (eight a line).
The scanned line, the kept lines (``kept_lines`` x 512 bits either way) and the probes in
flight follow the edges a line; a one-word edge's weight is the constant 1 in the answer.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import ProbeResult, check_edge_words, edge_fields, edge_layout, edges_per_line
from hw.lib.memory.range_reader import range_command_layout, range_item_layout


__all__ = ["WalkScanner", "ScanRequest", "ScanResult", "MAX_LEVELS"]

# The deepest stack a scan request can name (DepGraphConfig.stack_depth's bound too).
MAX_LEVELS = 64
# The top entry to scan, and its stack level (0 at the bottom).
ScanRequest = data.StructLayout({"vertex": 32, "next": 32, "end": 32,
                                 "level": range(MAX_LEVELS)})
# ``found``: the edge ``edge`` leads to the walkable ``vertex`` over ``weight``; ``next``: the
# entry's next offset after the scan.
ScanResult = data.StructLayout({"found": 1, "edge": 32, "vertex": 32, "weight": 32,
                                "next": 32})


def _probe_layout(edge_words: int) -> data.StructLayout:
    """A destination asked about, and the edge that leads to it (its weight when edges have
    one)."""
    fields = {"edge": 32, "vertex": 32}
    if edge_words == 2:
        fields["weight"] = 32
    return data.StructLayout(fields)


def _batch_line_layout(kept: int) -> data.StructLayout:
    """The kept edges: whose, from which edge id, how many (``end`` = first + count, counted
    beside it), and whether the batch is complete."""
    return data.StructLayout({"vertex": 32, "first": 32, "count": range(kept + 1), "end": 32,
                              "valid": 1})


def _replay_layout(kept: int, per_line: int) -> data.StructLayout:
    """A scan reading the kept edges: from which of them, how many left (of a line)."""
    return data.StructLayout({"on": 1, "at": range(kept), "left": range(per_line + 1)})


class WalkScanner(wiring.Component):
    """One scan at a time of the walk's top entry (see the module docstring).

    Parameters
    ----------
    addr_width : int
    kept_lines : int
        Lines of a batch's edges kept for the scans (at least 1).
    levels : int
        Stack levels with lines of their own (1: only the last batch's lines are kept).
    edge_words : int
        Words of an edge in memory: 1 (dst; sixteen a line) or 2 (dst, weight; eight).

    Members
    -------
    first, last : ``In(32)``
        The engine's partition, vertices ``first .. last - 1``.
    edges_base : ``In(addr_width)``
    request : ``In(stream.Signature(ScanRequest))``
        An entry whose next offset is below its end.
    result : ``Out(stream.Signature(ScanResult))``
    read : ``Out(stream.Signature(range_command_layout(addr_width)))``;
    items : ``In(stream.Signature(range_item_layout(edge_words)))``
        To and from the HDTL's edge reader, when the line is not the batch's.
    probe : ``Out(stream.Signature(32))``; probed : ``In(stream.Signature(ProbeResult))``
        To and from the vertex store, answers in order.
    batch_start : ``In(1)``; batch_vertex, batch_first : ``In(32)``; batch_level : ``In(range(levels))``
        A batch of ``batch_vertex``'s edges from ``batch_first`` on begins (forget the lines
        of ``batch_level``).
    batch_edge : ``In(1)``; batch_data : ``In(edge_layout(edge_words))``
        The batch's next edge went to the FIFO edge buffer (the first ``kept_lines`` lines'
        are kept).
    batch_done : ``In(1)``
        The batch's last edge went: the kept line may be scanned.
    scanned_edges : ``Out(32)``
        Edges examined.
    scan_read_edges : ``Out(32)``
        Edges of those read from memory (the rest came from the kept lines).
    """

    def __init__(self, *, addr_width: int, kept_lines: int = 1, levels: int = 1,
                 edge_words: int = 2):
        check_int("WalkScanner", "addr_width", addr_width, high=32)
        if kept_lines < 1:
            raise ConfigError(f"WalkScanner: kept_lines must be at least 1, not {kept_lines!r}")
        if not 1 <= levels <= MAX_LEVELS:
            raise ConfigError(f"WalkScanner: levels must be from 1 to {MAX_LEVELS}, "
                              f"not {levels!r}")
        self._edge_words = check_edge_words("WalkScanner", edge_words)
        self._per_line = edges_per_line(edge_words)
        self._line_bits = self._per_line.bit_length() - 1
        self._kept = kept_lines * self._per_line
        self._levels = levels
        super().__init__({
            "first": In(32), "last": In(32),
            "edges_base": In(addr_width),
            "request": In(stream.Signature(ScanRequest)),
            "result": Out(stream.Signature(ScanResult)),
            "read": Out(stream.Signature(range_command_layout(addr_width))),
            "items": In(stream.Signature(range_item_layout(edge_words))),
            "probe": Out(stream.Signature(32)),
            "probed": In(stream.Signature(ProbeResult)),
            "batch_start": In(1), "batch_vertex": In(32), "batch_first": In(32),
            "batch_level": In(range(levels)),
            "batch_edge": In(1), "batch_data": In(edge_layout(edge_words)),
            "batch_done": In(1),
            "scanned_edges": Out(32), "scan_read_edges": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        entry = Signal(ScanRequest)
        # ``level_line``: the kept lines of the entry's level, read while in BOUNDS; ``line``
        # the same from ASK on.
        level_line, line, replay, replayed = self._elaborate_batch_line(m, entry.level)

        per_line, line_bits = self._per_line, self._line_bits
        probe_layout = _probe_layout(self._edge_words)
        m.submodules.probes = probes = StreamFIFO(probe_layout, per_line)
        scan_first = Signal(32)
        scan_count = Signal(range(per_line + 1))
        scan_end = Signal(32)           # scan_first + scan_count, worked out beside it
        scan_line_vertex = Signal()     # the entry's vertex is the batch line's
        items_done = Signal()
        items_taken = Signal()
        found = Signal()
        found_probe = Signal(probe_layout)

        with m.FSM():
            with m.State("IDLE"):
                # The request is registered before its line's bounds are worked out: it comes
                # from the stack's asynchronous read, and the two in one cycle were the
                # accelerator's critical path on ECP5 (docs/results.md).
                m.d.comb += self.request.ready.eq(1)
                with m.If(self.request.valid):
                    m.d.sync += entry.eq(self.request.payload)
                    m.next = "BOUNDS"

            with m.State("BOUNDS"):
                line_room = per_line - entry.next[:line_bits]
                left = entry.end - entry.next
                line_boundary = Cat(Const(0, line_bits), entry.next[line_bits:] + 1)
                m.d.sync += [scan_first.eq(entry.next),
                             scan_count.eq(Mux(left < line_room, left, line_room)),
                             scan_end.eq(Mux(left < line_room, entry.end, line_boundary)),
                             scan_line_vertex.eq(entry.vertex == level_line.vertex)]
                m.next = "ASK"

            with m.State("ASK"):
                buffered = line.valid & scan_line_vertex & \
                    (scan_first >= line.first) & (scan_end <= line.end)
                m.d.sync += [items_done.eq(0), items_taken.eq(0), found.eq(0),
                             replay.on.eq(buffered), replay.at.eq(scan_first - line.first),
                             replay.left.eq(scan_count)]
                with m.If(buffered):
                    m.next = "LINE"
                with m.Else():
                    m.d.comb += [self.read.valid.eq(1),
                                 self.read.payload.base.eq(self.edges_base),
                                 self.read.payload.first.eq(scan_first),
                                 self.read.payload.count.eq(scan_count)]
                    with m.If(self.read.ready):
                        m.next = "LINE"

            with m.State("LINE"):
                item = stream.Signature(range_item_layout(self._edge_words)).create()
                with m.If(replay.on):
                    wiring.connect(m, replayed, wiring.flipped(item))
                with m.Else():
                    wiring.connect(m, wiring.flipped(self.items), wiring.flipped(item))
                    with m.If(self.items.valid & self.items.ready):
                        m.d.sync += self.scan_read_edges.eq(self.scan_read_edges + 1)
                self._elaborate_probes(m, item, probes, items_taken, items_done)
                m.d.comb += [probes.o.ready.eq(self.probed.valid),
                             self.probed.ready.eq(probes.o.valid)]
                with m.If(self.probed.valid & probes.o.valid &
                          self.probed.payload.walkable & ~found):
                    m.d.sync += [found.eq(1), found_probe.eq(probes.o.payload)]
                # Every probe answered: the first walkable one, if any, is the answer.
                m.d.comb += [
                    self.result.valid.eq(items_done & (probes.level == 0)),
                    self.result.payload.found.eq(found),
                    self.result.payload.edge.eq(found_probe.edge),
                    self.result.payload.vertex.eq(found_probe.vertex),
                    self.result.payload.weight.eq(
                        found_probe.weight if self._edge_words == 2 else 1),
                    self.result.payload.next.eq(Mux(found, found_probe.edge + 1, scan_end)),
                ]
                with m.If(self.result.valid & self.result.ready):
                    m.next = "IDLE"
        return m

    def _elaborate_probes(self, m, item, probes, items_taken, items_done):
        """The line's edges, in order, pass a register slice and then the probe register;
        those of the partition are probed (the probe and its edge enter the vertex store and
        ``probes`` together)."""
        # The edges first pass a register slice: the edge data (a distributed-RAM read of the
        # edge reader's line queue, or the batch's line) reaches only its flip-flops, and
        # the bound compares start from them (the data, the replay's choice and the compares
        # in one cycle were the two-engine ECP5 build's critical path once the memory's
        # responses were registered). Its ready is a register: no path from the probe port
        # back to the edge reader.
        m.submodules.edge_stage = stage = StreamRegisterSlice(item.payload.shape())
        m.d.comb += stage.i.payload.eq(item.payload)
        with m.If(item.valid & ~items_taken):
            m.d.comb += [stage.i.valid.eq(1), item.ready.eq(stage.i.ready)]
        with m.If(item.valid & item.ready):
            m.d.sync += items_taken.eq(item.payload.last)
        staged = stage.o
        reg_valid = Signal()
        reg_last = Signal()
        reg_local = Signal()
        reg = Signal(_probe_layout(self._edge_words))
        dst, weight = edge_fields(edge_layout(self._edge_words)(staged.payload.data))
        # A destination of another partition is not probed; it must not wait for the probe
        # port's ready, which a shared bank gives only to a valid probe.
        out_ready = probes.i.ready & (self.probe.ready | ~reg_local)
        m.d.comb += staged.ready.eq(~reg_valid | out_ready)
        with m.If(staged.valid & staged.ready):
            m.d.sync += [reg_valid.eq(1), reg_last.eq(staged.payload.last),
                         reg_local.eq((dst >= self.first) & (dst < self.last)),
                         reg.edge.eq(staged.payload.index), reg.vertex.eq(dst)]
            if self._edge_words == 2:
                m.d.sync += reg.weight.eq(weight)
        with m.Elif(out_ready):
            m.d.sync += reg_valid.eq(0)
        m.d.comb += [probes.i.payload.eq(reg), self.probe.payload.eq(reg.vertex)]
        with m.If(reg_valid & reg_local):
            m.d.comb += [self.probe.valid.eq(probes.i.ready),
                         probes.i.valid.eq(self.probe.ready)]
        with m.If(reg_valid & out_ready):
            m.d.sync += self.scanned_edges.eq(self.scanned_edges + 1)
            with m.If(reg_last):
                m.d.sync += items_done.eq(1)

    def _elaborate_batch_line(self, m, scan_level):
        """The first lines of a batch, written as its edges go out, kept for its stack level
        and replayed as the items of a scan of that level. Returns the kept lines' registers
        of the scan's level (as read, and registered a cycle later), the replay's registers
        and the replayed items."""
        kept, levels = self._kept, self._levels
        level_width = max(1, (levels - 1).bit_length())
        m.submodules.batch_line = batch_line = memory.Memory(
            shape=edge_layout(self._edge_words), depth=kept * levels, init=[])
        write = batch_line.write_port()
        read = batch_line.read_port(domain="comb")
        line = Signal(_batch_line_layout(kept))
        line_level = Signal(level_width)
        replay = Signal(_replay_layout(kept, self._per_line))
        with m.If(self.batch_start):
            m.d.sync += [line.valid.eq(0), line.vertex.eq(self.batch_vertex),
                         line.first.eq(self.batch_first), line.count.eq(0),
                         line.end.eq(self.batch_first), line_level.eq(self.batch_level)]
        # The edge is written a cycle after it goes out, from registers: its handshake (the
        # FIFO edge buffer's ready and the HDTL's state) then reaches one flip-flop, not the
        # write enable of a distributed RAM (once the two-engine DepGraph's critical path on
        # ECP5: docs/results.md). A scan reads the lines two cycles after the batch's last edge at
        # the earliest (BATCH_DONE comes between), when the last write has landed.
        write_en = Signal()
        write_addr = Signal.like(write.addr)
        write_data = Signal(edge_layout(self._edge_words))
        m.d.sync += [write_en.eq(self.batch_edge & (line.count != kept)),
                     write_addr.eq(line_level * kept + line.count),
                     write_data.eq(self.batch_data)]
        with m.If(self.batch_edge & (line.count != kept)):
            m.d.sync += [line.count.eq(line.count + 1), line.end.eq(line.end + 1)]
        with m.If(self.batch_done):
            m.d.sync += line.valid.eq(1)
        m.d.comb += [write.en.eq(write_en), write.addr.eq(write_addr),
                     write.data.eq(write_data),
                     read.addr.eq(scan_level[:level_width] * kept + replay.at)]

        if levels == 1:
            level_line = scan_line = line
        else:
            # Each level's registers, written when its batch starts (forgotten) and the
            # cycle after its last edge (complete).
            m.submodules.level_lines = level_lines = memory.Memory(
                shape=line.shape(), depth=levels, init=[])
            level_write = level_lines.write_port()
            level_read = level_lines.read_port(domain="comb")
            complete = Signal()
            m.d.sync += complete.eq(self.batch_done)
            with m.If(self.batch_start):
                m.d.comb += [level_write.en.eq(1), level_write.addr.eq(self.batch_level)]
            with m.Elif(complete):
                m.d.comb += [level_write.en.eq(1), level_write.addr.eq(line_level),
                             level_write.data.eq(line)]
            level_line = level_read.data
            scan_line = Signal.like(line)
            m.d.comb += level_read.addr.eq(scan_level[:level_width])
            m.d.sync += scan_line.eq(level_line)

        items = stream.Signature(range_item_layout(self._edge_words)).create()
        m.d.comb += [items.valid.eq(replay.left != 0),
                     items.payload.data.eq(read.data),
                     items.payload.index.eq(scan_line.first + replay.at),
                     items.payload.last.eq(replay.left == 1)]
        with m.If(items.valid & items.ready):
            m.d.sync += [replay.at.eq(replay.at + 1), replay.left.eq(replay.left - 1)]
        return level_line, scan_line, replay, items
