"""HDTL, DepGraph's hub-dependency-aware traversal logic (Yao et al., HPCA 2021, §III-B,
figure 7): it takes an active root from the engine's circular queue and walks its dependency
chain depth first, streaming the edges of every vertex it visits into the FIFO edge buffer.

The walk follows the rules of ``golden.depgraph.engine``. A visit asks the vertex store to
fold the vertex (a stale visit, one whose delta holds no work, ends there); the vertex's CSR
offsets and edges are read and its edges, with the value x it propagates, enter the FIFO edge
buffer. Once the processing element's updates of that batch are all applied (``drained``),
the vertex is pushed on the stack if its depth is below ``stack_depth`` and its batch left
a vertex for the walk: an entry is <vertex, next edge offset, end offset>. (Without one, its
scan could only find vertices an ancestor's batch left, which the ancestor's own scan finds.) The top entry then scans its edges from its next
offset, a line at a time, asking the vertex store whether each destination of its own
partition is active and may be walked into (not in the stop bitmap, H''); the first such
edge is taken, its destination visited one level deeper. An entry whose edges are exhausted
is popped; the walk ends when the stack is empty.

The destinations a batch activates are left for the walk when they are walkable and the
batch's depth is below ``stack_depth`` (the vertex store then does not queue them); the scan
finds them, because every one of them is an out-neighbour of an entry still on the stack.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out

from ..memory_port import MemoryPortSignature
from ..stream_fifo import StreamFIFO
from .layouts import EDGES_PER_LINE, EdgeTask, ProbeResult, VisitRequest, VisitResult
from .range_reader import RangeReader


__all__ = ["HDTL", "StackEntry"]

StackEntry = data.StructLayout({"vertex": 32, "next": 32, "end": 32})

# A destination asked about, and the edge that leads to it.
_Probe = data.StructLayout({"edge": 32, "vertex": 32})


class HDTL(wiring.Component):
    """One engine's traversal logic.

    Parameters
    ----------
    addr_width : int
    stack_depth : int
        Stack entries; a vertex at this depth is not pushed and its walkable destinations
        go to the queue (stack overflows).
    edge_window : int
        Edge lines requested ahead of the hand-out into the FIFO edge buffer.

    Members
    -------
    start : ``In(1)``
        Pulse while idle: forget the stack (a new run).
    first, last : ``In(32)``
        The engine's partition, vertices ``first .. last - 1``.
    offsets_base, edges_base : ``In(addr_width)``
        First lines of the CSR offsets and edges.
    pop : ``In(stream.Signature(32))``
        Roots from the circular queue.
    visit : ``Out(stream.Signature(VisitRequest))``; visited : ``In(stream.Signature(VisitResult))``
    probe : ``Out(stream.Signature(32))``; probed : ``In(stream.Signature(ProbeResult))``
    edges : ``Out(stream.Signature(EdgeTask))``
        Into the FIFO edge buffer.
    drained : ``In(1)``
        Every edge this engine sent has been applied by the vertex store.
    left : ``In(1)``
        An update of this engine's batch activated a vertex left for the walk.
    offsets_mem, edges_mem : ``Out(MemoryPortSignature(addr_width))``
    busy : ``Out(1)``
    visits, stale_visits, edges_fetched, scanned_edges, walks : ``Out(32)``
        Counters: folding visits, visits that found no work (stale pops included), edges
        sent to the FIFO edge buffer, edges read again by the scan, walks started.
    """

    def __init__(self, *, addr_width: int, stack_depth: int, edge_window: int = 8):
        assert stack_depth >= 1 and edge_window >= 1
        self._addr_width = addr_width
        self._stack_depth = stack_depth
        self._edge_window = edge_window
        super().__init__({
            "start": In(1),
            "first": In(32), "last": In(32),
            "offsets_base": In(addr_width), "edges_base": In(addr_width),
            "pop": In(stream.Signature(32)),
            "visit": Out(stream.Signature(VisitRequest)),
            "visited": In(stream.Signature(VisitResult)),
            "probe": Out(stream.Signature(32)),
            "probed": In(stream.Signature(ProbeResult)),
            "edges": Out(stream.Signature(EdgeTask)),
            "drained": In(1), "left": In(1),
            "offsets_mem": Out(MemoryPortSignature(addr_width)),
            "edges_mem": Out(MemoryPortSignature(addr_width)),
            "busy": Out(1),
            "visits": Out(32), "stale_visits": Out(32), "edges_fetched": Out(32),
            "scanned_edges": Out(32), "walks": Out(32),
        })

    @property
    def stack_bits(self) -> int:
        """Bits of the stack (the paper's 6.1 Kbit is for its 10 entries of 5 words)."""
        return self._stack_depth * StackEntry.size

    def elaborate(self, platform):
        m = Module()
        depth_limit = self._stack_depth

        m.submodules.offsets = offsets = RangeReader(addr_width=self._addr_width, item_words=1,
                                                     window=2)
        m.submodules.edge_reader = edge_reader = RangeReader(
            addr_width=self._addr_width, item_words=2, window=self._edge_window)
        wiring.connect(m, offsets.mem, wiring.flipped(self.offsets_mem))
        wiring.connect(m, edge_reader.mem, wiring.flipped(self.edges_mem))

        # The stack, read asynchronously at its top (distributed RAM).
        m.submodules.stack = stack = memory.Memory(shape=StackEntry, depth=depth_limit, init=[])
        stack_write = stack.write_port()
        stack_top = stack.read_port(domain="comb")
        size = Signal(range(depth_limit + 1))
        top = stack_top.data
        m.d.comb += stack_top.addr.eq(size - 1)

        # The vertex being visited.
        vertex = Signal(32)
        depth = Signal(range(depth_limit + 2))
        x = Signal(32)
        const = Signal(32)
        lo = Signal(32)
        hi = Signal(32)

        # The scan of the top entry's current line.
        m.submodules.probes = probes = StreamFIFO(_Probe, EDGES_PER_LINE)
        scan_first = Signal(32)
        scan_count = Signal(range(EDGES_PER_LINE + 1))
        scan_items_done = Signal()
        found = Signal()
        found_edge = Signal(32)
        found_vertex = Signal(32)

        edge_fields = data.StructLayout({"dst": 32, "weight": 32})
        batch_left = Signal()
        with m.If(self.left):
            m.d.sync += batch_left.eq(1)

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.pop.ready.eq(1)
                with m.If(self.pop.valid):
                    m.d.sync += [vertex.eq(self.pop.payload), depth.eq(1),
                                 self.walks.eq(self.walks + 1)]
                    m.next = "VISIT"

            with m.State("VISIT"):
                # The offsets are requested before the fold's answer, so their memory latency
                # overlaps it; a stale visit drops them.
                m.d.comb += [offsets.cmd.valid.eq(1),
                             offsets.cmd.payload.base.eq(self.offsets_base),
                             offsets.cmd.payload.first.eq(vertex),
                             offsets.cmd.payload.count.eq(2)]
                with m.If(offsets.cmd.ready):
                    m.next = "FOLD_ASK"

            with m.State("FOLD_ASK"):
                m.d.comb += [self.visit.valid.eq(1),
                             self.visit.payload.vertex.eq(vertex),
                             self.visit.payload.root.eq(depth == 1)]
                with m.If(self.visit.ready):
                    m.next = "FOLD"

            with m.State("FOLD"):
                m.d.comb += self.visited.ready.eq(1)
                with m.If(self.visited.valid):
                    with m.If(self.visited.payload.worth):
                        m.d.sync += [x.eq(self.visited.payload.x),
                                     const.eq(self.visited.payload.const),
                                     self.visits.eq(self.visits + 1)]
                        m.next = "OFFSET_LO"
                    with m.Else():
                        m.d.comb += offsets.abort.eq(1)
                        m.d.sync += self.stale_visits.eq(self.stale_visits + 1)
                        m.next = "RESUME"

            with m.State("RESUME"):
                with m.If(size == 0):
                    m.next = "IDLE"
                with m.Else():
                    m.next = "SCAN"

            with m.State("OFFSET_LO"):
                m.d.comb += offsets.items.ready.eq(1)
                with m.If(offsets.items.valid):
                    m.d.sync += lo.eq(offsets.items.payload.data)
                    m.next = "OFFSET_HI"

            with m.State("OFFSET_HI"):
                m.d.comb += offsets.items.ready.eq(1)
                with m.If(offsets.items.valid):
                    m.d.sync += hi.eq(offsets.items.payload.data)
                    m.next = "BATCH_START"

            with m.State("BATCH_START"):
                m.d.sync += batch_left.eq(0)
                with m.If(hi == lo):
                    m.next = "BATCH_DONE"
                with m.Else():
                    m.d.comb += [edge_reader.cmd.valid.eq(1),
                                 edge_reader.cmd.payload.base.eq(self.edges_base),
                                 edge_reader.cmd.payload.first.eq(lo),
                                 edge_reader.cmd.payload.count.eq(hi - lo)]
                    with m.If(edge_reader.cmd.ready):
                        m.next = "BATCH"

            with m.State("BATCH"):
                edge = edge_fields(edge_reader.items.payload.data)
                m.d.comb += [
                    self.edges.valid.eq(edge_reader.items.valid),
                    self.edges.payload.dst.eq(edge.dst),
                    self.edges.payload.weight.eq(edge.weight),
                    self.edges.payload.x.eq(x),
                    self.edges.payload.const.eq(const),
                    self.edges.payload.leave.eq(depth < depth_limit),
                    edge_reader.items.ready.eq(self.edges.ready),
                ]
                with m.If(self.edges.valid & self.edges.ready):
                    m.d.sync += self.edges_fetched.eq(self.edges_fetched + 1)
                    with m.If(edge_reader.items.payload.last):
                        m.next = "DRAIN"

            with m.State("DRAIN"):
                with m.If(self.drained):
                    m.next = "BATCH_DONE"

            with m.State("BATCH_DONE"):
                with m.If((depth < depth_limit) & batch_left):
                    m.d.comb += [stack_write.en.eq(1), stack_write.addr.eq(size),
                                 stack_write.data.vertex.eq(vertex),
                                 stack_write.data.next.eq(lo),
                                 stack_write.data.end.eq(hi)]
                    m.d.sync += size.eq(size + 1)
                    m.next = "SCAN"
                with m.Else():
                    m.next = "RESUME"

            with m.State("SCAN"):
                # The top entry: exhausted → pop it; else read the rest of its current line
                # (the count is registered first: the stack is read asynchronously).
                line_room = EDGES_PER_LINE - top.next[:EDGES_PER_LINE.bit_length() - 1]
                left = top.end - top.next
                with m.If(top.next == top.end):
                    m.d.sync += size.eq(size - 1)
                    m.next = "RESUME"
                with m.Else():
                    m.d.sync += [scan_first.eq(top.next),
                                 scan_count.eq(Mux(left < line_room, left, line_room))]
                    m.next = "SCAN_ASK"

            with m.State("SCAN_ASK"):
                m.d.comb += [edge_reader.cmd.valid.eq(1),
                             edge_reader.cmd.payload.base.eq(self.edges_base),
                             edge_reader.cmd.payload.first.eq(scan_first),
                             edge_reader.cmd.payload.count.eq(scan_count)]
                with m.If(edge_reader.cmd.ready):
                    m.d.sync += [scan_items_done.eq(0), found.eq(0)]
                    m.next = "SCAN_LINE"

            with m.State("SCAN_LINE"):
                # Destinations of the partition are probed, in edge order; the first one that
                # is active and walkable is the child.
                edge = edge_fields(edge_reader.items.payload.data)
                local = (edge.dst >= self.first) & (edge.dst < self.last)
                item = edge_reader.items
                m.d.comb += [
                    probes.i.payload.edge.eq(item.payload.index),
                    probes.i.payload.vertex.eq(edge.dst),
                    self.probe.payload.eq(edge.dst),
                ]
                with m.If(item.valid & ~scan_items_done):
                    with m.If(local):
                        m.d.comb += [self.probe.valid.eq(probes.i.ready),
                                     probes.i.valid.eq(self.probe.ready),
                                     item.ready.eq(probes.i.ready & self.probe.ready)]
                    with m.Else():
                        m.d.comb += item.ready.eq(1)
                with m.If(item.valid & item.ready):
                    m.d.sync += self.scanned_edges.eq(self.scanned_edges + 1)
                    with m.If(item.payload.last):
                        m.d.sync += scan_items_done.eq(1)

                m.d.comb += [probes.o.ready.eq(self.probed.valid),
                             self.probed.ready.eq(probes.o.valid)]
                with m.If(self.probed.valid & probes.o.valid &
                          self.probed.payload.walkable & ~found):
                    m.d.sync += [found.eq(1), found_edge.eq(probes.o.payload.edge),
                                 found_vertex.eq(probes.o.payload.vertex)]

                with m.If(scan_items_done & (probes.level == 0)):
                    m.d.comb += [stack_write.en.eq(1), stack_write.addr.eq(size - 1),
                                 stack_write.data.vertex.eq(top.vertex),
                                 stack_write.data.end.eq(top.end)]
                    with m.If(found):
                        m.d.comb += stack_write.data.next.eq(found_edge + 1)
                        m.d.sync += [vertex.eq(found_vertex), depth.eq(size + 1)]
                        m.next = "VISIT"
                    with m.Else():
                        m.d.comb += stack_write.data.next.eq(scan_first + scan_count)
                        m.next = "SCAN"

        with m.If(self.start):
            m.d.sync += size.eq(0)
        m.d.comb += self.busy.eq(~self.pop.ready | offsets.busy | edge_reader.busy |
                                 (size != 0))
        return m
