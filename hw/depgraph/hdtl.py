"""HDTL, DepGraph's hub-dependency-aware traversal logic (Zhang et al., HPCA 2021, §III-B,
figure 7): it takes an active root from the engine's circular queue and walks its dependency
chain depth first, streaming the edges of every vertex it visits into the FIFO edge buffer.

The walk follows the rules of ``golden.depgraph.engine``. A visit asks the vertex store to
fold the vertex (a stale visit, one whose delta holds no work, ends there); the vertex's CSR
offsets and edges are read and its edges, with the value x it propagates, enter the FIFO edge
buffer. Once the processing element's updates of that batch are all applied (``drained``),
the vertex is pushed on the stack if its depth is below ``stack_depth`` and its batch left
a vertex for the walk: an entry is <vertex, next edge offset, end offset>. (Without one, its
scan could only find vertices an ancestor's batch left, which the ancestor's own scan
finds.) The top entry then scans its edges from its next offset, a line at a time, asking
the vertex store whether each destination of its own partition is active and may be walked
into (not in the stop bitmap, H''); the first such edge is taken, its destination visited
one level deeper. An entry whose edges are exhausted is popped; the walk ends when the stack
is empty.

The destinations a batch activates are left for the walk when they are walkable and the
batch's depth is below ``stack_depth`` (the vertex store then does not queue them); the scan
finds them, because every one of them is an out-neighbour of an entry still on the stack.

With the hub index (§III-B, "shortcut propagation" and "maintaining the hub index"), a root
that heads hub-index entries (a bit of its record, from the host) is looked up in the DDMU,
which lends the
shortcuts of its A entries and answers its N and I entries, kept in a small table. A depth-2
visit whose vertex is an answered entry's second vertex L tracks that entry for its subtree;
every entry on the stack also holds y, the value the root's x gives along the walk's own
edges (EdgeCompute composed edge by edge, kept as its edge-independent part: y for the
min-type algorithms, y · const for PageRank). When the batch of a vertex at the tracked
entry's depth holds an edge to its tail, the observation <entry, root's x, EdgeCompute(y)>
goes to the learner. The walk ends once the DDMU has answered its root; for PageRank the
pseudo-edges of the root's shortcuts then enter the FIFO edge buffer, paying the loans back.

The edges are read ``edge_words`` words each (:func:`hw.depgraph.layouts.edge_layout`): the
destination alone, sixteen a line, for a program that reads no weight; (dst, weight), eight a
line, otherwise. A one-word edge enters the FIFO edge buffer with the weight 1, so the
processing element and the hub tracker are the same for both layouts.
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, MemoryPortSignature
from .program import edge_value, gas_of
from .ddmu import LookupAnswer, LookupRequest, PseudoEdge
from .hub_index_learner import ObserveRequest
from .hub_tracker import HubTracker
from .layouts import (WALK_BITS, EdgeTask, ProbeResult, VisitRequest, VisitResult,
                      check_edge_words, edge_fields, edge_layout, edges_per_line)
from hw.lib.memory.range_reader import RangeReader
from .walk_scanner import WalkScanner
from .walk_stack import WalkStack, stack_entry_layout


__all__ = ["HDTL"]



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
    kept_lines : int
        Lines of a batch's edges kept for the scans.
    stack_lines : bool
        Every stack level keeps its batch's lines (its entry's first ``kept_lines`` lines),
        so resuming an entry after its subtree needs no memory read; off, only the last
        batch's lines are kept.
    offsets_on_chip : bool
        The fold's answer carries the vertex's CSR offsets (the bank keeps them): no offsets
        reader, no ``offsets_mem``.
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`; EdgeCompute of the path value y).
    hub_index : bool
        Look roots up in the DDMU, track and observe their entries, pay pseudo-edges back.
    track_entries : int
        Answered entries kept per walk.
    engine : int
        The walk slot sent with its lookups (engine × walks + walk: the DDMU's answers and
        pseudo-edges come back to it).
    walk : int
        This HDTL's walk within its engine, sent with its edges (the origin of their
        updates).
    leave_max_edges : int
        A vertex of more out-edges leaves nothing for the walk (its batch's activations are
        queued, for every walk of the engine) and is not pushed; 0: no limit.
    edge_words : int
        Words of an edge in memory (``DepGraphConfig.edge_words``): 1, the destination alone
        (sixteen a line; the weight is 1), refused for a program that reads the weight; or 2,
        (dst, weight) (eight a line).

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
        (``offsets_base`` and ``offsets_mem`` only without ``offsets_on_chip``.)
    busy : ``Out(1)``
    visits, stale_visits, edges_fetched, scanned_edges, scan_read_edges, walks : ``Out(32)``
        Counters: folding visits, visits that found no work (stale pops included), edges
        sent to the FIFO edge buffer, edges examined by the scan (from the kept lines, or read
        again from memory: ``scan_read_edges`` those), walks started.

    With ``hub_index``:

    lookup : ``Out(stream.Signature(LookupRequest))``; answers : ``In(stream.Signature(LookupAnswer))``
        To and from the DDMU.
    pending : ``In(stream.Signature(PseudoEdge))``
        The engine's pseudo-edge buffer, filled by the DDMU (PageRank).
    observe : ``Out(stream.Signature(ObserveRequest))``
        To the hub-index learner.
    observations, pseudo_edges : ``Out(32)``
        Counters: observations sent, pseudo-edges put into the FIFO edge buffer.
    """

    def __init__(self, *, addr_width: int, stack_depth: int, edge_window: int = 8,
                 kept_lines: int = 1, stack_lines: bool = False,
                 offsets_on_chip: bool = False,
                 algo: str = "bfs", hub_index: bool = False, track_entries: int = 8,
                 engine: int = 0, walk: int = 0, edge_words: int = 2,
                 leave_max_edges: int = 0):
        check_int("HDTL", "addr_width", addr_width, high=32)
        check_int("HDTL", "leave_max_edges", leave_max_edges, low=0)
        self._leave_max_edges = leave_max_edges
        check_int("HDTL", "kept_lines", kept_lines)
        if stack_depth < 1 or edge_window < 1:
            raise ConfigError("HDTL: stack_depth and edge_window must be at least 1, not "
                              f"{stack_depth!r} and {edge_window!r}")
        self._gas = gas_of(algo)
        if track_entries < 1 or engine < 0 or not 0 <= walk < 1 << WALK_BITS:
            raise ConfigError("HDTL: track_entries must be at least 1, engine not negative and "
                              f"walk from 0 to {(1 << WALK_BITS) - 1}, not {track_entries!r}, "
                              f"{engine!r} and {walk!r}")
        check_edge_words("HDTL", edge_words)
        if edge_words == 1 and self._gas.uses_weight:
            raise ConfigError(f"HDTL: program {self._gas.name} reads the edge weight: "
                              f"edge_words must be 2, not 1")
        self._edge_words = edge_words
        self._addr_width = addr_width
        self._stack_depth = stack_depth
        self._edge_window = edge_window
        self._kept_lines = kept_lines
        self._stack_lines = stack_lines
        self._offsets_on_chip = offsets_on_chip
        self._algo = algo
        self._hub_index = hub_index
        self._track_entries = track_entries
        self._engine = engine
        self._walk = walk
        members = {
            "start": In(1),
            "first": In(32), "last": In(32),
            "edges_base": In(addr_width),
            "pop": In(stream.Signature(32)),
            "visit": Out(stream.Signature(VisitRequest)),
            "visited": In(stream.Signature(VisitResult)),
            "probe": Out(stream.Signature(32)),
            "probed": In(stream.Signature(ProbeResult)),
            "edges": Out(stream.Signature(EdgeTask)),
            "drained": In(1), "left": In(1),
            "edges_mem": Out(MemoryPortSignature(addr_width)),
            "busy": Out(1),
            "visits": Out(32), "stale_visits": Out(32), "edges_fetched": Out(32),
            "scanned_edges": Out(32), "scan_read_edges": Out(32),
            "walks": Out(32),
        }
        if not offsets_on_chip:
            members["offsets_base"] = In(addr_width)
            members["offsets_mem"] = Out(MemoryPortSignature(addr_width))
        if hub_index:
            members.update({
                "lookup": Out(stream.Signature(LookupRequest)),
                "answers": In(stream.Signature(LookupAnswer)),
                "pending": In(stream.Signature(PseudoEdge)),
                "observe": Out(stream.Signature(ObserveRequest)),
                "observations": Out(32), "pseudo_edges": Out(32),
            })
        super().__init__(members)

    # Lines of offsets requested ahead (a vertex's two offsets span at most two lines).
    OFFSET_WINDOW = 2

    @property
    def edge_window(self) -> int:
        return self._edge_window

    @property
    def edges_per_line(self) -> int:
        """Edges of a 64-byte line: at most the probes a scan has in flight."""
        return edges_per_line(self._edge_words)

    @property
    def stack_bits(self) -> int:
        """Bits of the stack, with each level's kept lines of edges when ``stack_lines``
        (the paper's: 6.1 Kbit at depth 10; its entry layout is not given, but 610 bits an
        entry is a 64-byte line of edges and three words)."""
        entry = stack_entry_layout(self._hub_index).size
        if self._stack_lines:
            entry += self._kept_lines * LINE_BITS
        return self._stack_depth * entry

    def elaborate(self, platform):
        m = Module()
        hub = self._hub_index
        blocks = SimpleNamespace()
        blocks.offsets = None
        if not self._offsets_on_chip:
            blocks.offsets = m.submodules.offsets = RangeReader(
                addr_width=self._addr_width, item_words=1, window=self.OFFSET_WINDOW)
            wiring.connect(m, blocks.offsets.mem, wiring.flipped(self.offsets_mem))
        blocks.edge_reader = m.submodules.edge_reader = RangeReader(
            addr_width=self._addr_width, item_words=self._edge_words, window=self._edge_window)
        wiring.connect(m, blocks.edge_reader.mem, wiring.flipped(self.edges_mem))

        # The stack, read asynchronously at its top (distributed RAM).
        blocks.stack = m.submodules.stack = WalkStack(depth=self._stack_depth, hub_index=hub)
        m.d.comb += blocks.stack.clear.eq(self.start)

        # The vertex being visited, and whether its range is empty (cur.hi == cur.lo), a
        # register set where the range is: the edge reader's command valid, which is the
        # clock enable of its counters, would otherwise come through a 32-bit compare.
        cur = blocks.cur = Signal(self._visit_layout)
        blocks.no_edges = Signal()

        # The scan for the next vertex: it reads through the edge reader while the HDTL is
        # in SCANNING, and keeps the batch's first lines.
        levels = self._stack_depth if self._stack_lines else 1
        scanner = blocks.scanner = m.submodules.scanner = WalkScanner(
            addr_width=self._addr_width, kept_lines=self._kept_lines, levels=levels,
            edge_words=self._edge_words)
        m.d.comb += [scanner.first.eq(self.first), scanner.last.eq(self.last),
                     scanner.edges_base.eq(self.edges_base),
                     scanner.batch_vertex.eq(cur.vertex), scanner.batch_first.eq(cur.lo),
                     # A vertex at depth d is the stack's level d - 1 once pushed.
                     scanner.batch_level.eq(Mux(cur.depth > levels, levels - 1,
                                                cur.depth - 1)),
                     scanner.batch_data.eq(blocks.edge_reader.items.payload.data),
                     self.scanned_edges.eq(scanner.scanned_edges),
                     self.scan_read_edges.eq(scanner.scan_read_edges)]
        wiring.connect(m, scanner.probe, wiring.flipped(self.probe))
        wiring.connect(m, wiring.flipped(self.probed), scanner.probed)

        # An update of the current batch left a vertex for the walk.
        blocks.batch_left = Signal()
        blocks.leaves = Signal()        # the batch may leave vertices for the walk
        with m.If(self.left):
            m.d.sync += blocks.batch_left.eq(1)

        blocks.tracker = None
        if hub:
            tracker = blocks.tracker = m.submodules.hub_tracker = HubTracker(
                algo=self._algo, track_entries=self._track_entries,
                depth_bits=len(cur.depth))
            wiring.connect(m, wiring.flipped(self.answers), tracker.answers)
            wiring.connect(m, tracker.observe, wiring.flipped(self.observe))
            m.d.comb += [
                tracker.new_walk.eq(self.pop.valid & self.pop.ready),
                tracker.fold_x.eq(self.visited.payload.x),
                tracker.fold_const.eq(self.visited.payload.const),
                tracker.vertex.eq(cur.vertex), tracker.depth.eq(cur.depth),
                self.observations.eq(tracker.observations),
            ]

        with m.FSM():
            self._visit_states(m, blocks)
            self._batch_states(m, blocks)
            self._scan_states(m, blocks)
        readers = [blocks.edge_reader] + ([blocks.offsets] if blocks.offsets is not None else [])
        m.d.comb += self.busy.eq(~self.pop.ready | Cat(r.busy for r in readers).any() |
                                 (blocks.stack.size != 0))
        return m

    @property
    def _visit_layout(self):
        """The vertex being visited: its id, its depth on the walk, the value x it
        propagates, its constant and whether it is a leaf (from the fold), its edges
        lo .. hi - 1."""
        return data.StructLayout({"vertex": 32, "depth": range(self._stack_depth + 2),
                                  "x": 32, "const": 32, "leaf": 1, "lo": 32, "hi": 32})

    def _visit_states(self, m, b):
        """A root from the queue, or the child the scan found: fold it in the vertex store,
        which answers its CSR offsets when it keeps them (else they are read from memory,
        requested before the fold so that their latency overlaps it); a root heading
        hub-index entries is looked up."""
        cur, offsets, tracker = b.cur, b.offsets, b.tracker
        batch = "BATCH_START" if tracker is None else "TRACK"
        folded = "OFFSET_LO" if offsets is not None else batch
        with m.State("IDLE"):
            m.d.comb += self.pop.ready.eq(1)
            with m.If(self.pop.valid):
                m.d.sync += [cur.vertex.eq(self.pop.payload), cur.depth.eq(1),
                             self.walks.eq(self.walks + 1)]
                m.next = "VISIT"

        if offsets is not None:
            with m.State("VISIT"):
                m.d.comb += [offsets.cmd.valid.eq(1),
                             offsets.cmd.payload.base.eq(self.offsets_base),
                             offsets.cmd.payload.first.eq(cur.vertex),
                             offsets.cmd.payload.count.eq(2)]
                with m.If(offsets.cmd.ready):
                    m.next = "FOLD_ASK"

        with m.State("FOLD_ASK" if offsets is not None else "VISIT"):
            m.d.comb += [self.visit.valid.eq(1),
                         self.visit.payload.vertex.eq(cur.vertex),
                         self.visit.payload.root.eq(cur.depth == 1)]
            with m.If(self.visit.ready):
                m.next = "FOLD"

        with m.State("FOLD"):
            answer = self.visited.payload
            m.d.comb += self.visited.ready.eq(1)
            with m.If(self.visited.valid):
                with m.If(answer.worth):
                    m.d.sync += [cur.x.eq(answer.x), cur.const.eq(answer.const),
                                 cur.leaf.eq(answer.leaf), self.visits.eq(self.visits + 1)]
                    if offsets is None:
                        m.d.sync += [cur.lo.eq(answer.lo), cur.hi.eq(answer.hi),
                                     b.no_edges.eq(answer.hi == answer.lo)]
                    m.next = folded
                    if tracker is not None:
                        m.d.comb += tracker.folded.eq(1)
                        with m.If((cur.depth == 1) & answer.head):
                            m.next = "LOOKUP"
                with m.Else():
                    if offsets is not None:
                        m.d.comb += offsets.abort.eq(1)
                    m.d.sync += self.stale_visits.eq(self.stale_visits + 1)
                    m.next = "RESUME"

        if tracker is not None:
            with m.State("LOOKUP"):
                m.d.comb += [self.lookup.valid.eq(1),
                             self.lookup.payload.root.eq(cur.vertex),
                             self.lookup.payload.x.eq(cur.x),
                             self.lookup.payload.engine.eq(self._engine)]
                with m.If(self.lookup.ready):
                    m.d.comb += tracker.looked_up.eq(1)
                    m.next = folded

        if offsets is not None:
            with m.State("OFFSET_LO"):
                m.d.comb += offsets.items.ready.eq(1)
                with m.If(offsets.items.valid):
                    m.d.sync += cur.lo.eq(offsets.items.payload.data)
                    m.next = "OFFSET_HI"

            with m.State("OFFSET_HI"):
                m.d.comb += offsets.items.ready.eq(1)
                with m.If(offsets.items.valid):
                    m.d.sync += [cur.hi.eq(offsets.items.payload.data),
                                 b.no_edges.eq(offsets.items.payload.data == cur.lo)]
                    m.next = batch

        if tracker is not None:
            with m.State("TRACK"):
                # A depth-2 vertex chooses the entry its subtree may observe, once the DDMU
                # has answered the root.
                with m.If(cur.depth != 2):
                    m.next = "BATCH_START"
                with m.Elif(tracker.answered):
                    m.d.comb += tracker.choose.eq(1)
                    m.next = "BATCH_START"

    def _batch_states(self, m, b):
        """The visited vertex's edges into the FIFO edge buffer; once their updates are
        applied, the vertex becomes a stack entry if its batch left a vertex for the walk."""
        cur, edge_reader, stack, scanner, tracker = (b.cur, b.edge_reader, b.stack,
                                                     b.scanner, b.tracker)
        with m.State("BATCH_START"):
            leaves = cur.depth < self._stack_depth
            if self._leave_max_edges:
                leaves &= (cur.hi - cur.lo) <= self._leave_max_edges
            m.d.sync += [b.batch_left.eq(0), b.leaves.eq(leaves)]
            m.d.comb += scanner.batch_start.eq(1)
            if tracker is not None:
                m.d.comb += tracker.batch_start.eq(1)
            with m.If(b.no_edges):
                m.next = "BATCH_DONE"
            with m.Else():
                m.d.comb += [edge_reader.cmd.valid.eq(1),
                             edge_reader.cmd.payload.base.eq(self.edges_base),
                             edge_reader.cmd.payload.first.eq(cur.lo),
                             edge_reader.cmd.payload.count.eq(cur.hi - cur.lo)]
                with m.If(edge_reader.cmd.ready):
                    m.next = "BATCH"

        with m.State("BATCH"):
            dst, weight = edge_fields(edge_layout(self._edge_words)(
                edge_reader.items.payload.data))
            m.d.comb += [
                self.edges.valid.eq(edge_reader.items.valid),
                self.edges.payload.dst.eq(dst),
                self.edges.payload.weight.eq(weight),
                self.edges.payload.x.eq(cur.x),
                self.edges.payload.const.eq(cur.const),
                self.edges.payload.leave.eq(b.leaves),
                self.edges.payload.pseudo.eq(0),
                self.edges.payload.walk.eq(self._walk),
                edge_reader.items.ready.eq(self.edges.ready),
            ]
            with m.If(self.edges.valid & self.edges.ready):
                m.d.sync += self.edges_fetched.eq(self.edges_fetched + 1)
                m.d.comb += scanner.batch_edge.eq(1)
                if tracker is not None:
                    m.d.comb += [tracker.batch_edge.eq(1),
                                 tracker.batch_dst.eq(dst),
                                 tracker.batch_weight.eq(weight)]
                with m.If(edge_reader.items.payload.last):
                    m.d.comb += scanner.batch_done.eq(1)
                    # A leaf's batch cannot leave a vertex for the walk, nor can it change
                    # what a scan of an entry below would find (no edge of it reaches a
                    # walkable vertex of the partition), so its updates are not waited for.
                    with m.If(cur.leaf):
                        m.next = "BATCH_DONE"
                    with m.Else():
                        m.next = "DRAIN"

        with m.State("DRAIN"):
            with m.If(self.drained):
                m.next = "BATCH_DONE"

        with m.State("BATCH_DONE"):
            # Ready once the hub-index work of the batch is done.
            with m.If(tracker.batch_finished if tracker is not None else 1):
                with m.If((cur.depth < self._stack_depth) & b.batch_left):
                    m.d.comb += [stack.push.eq(1),
                                 stack.entry.vertex.eq(cur.vertex),
                                 stack.entry.next.eq(cur.lo),
                                 stack.entry.end.eq(cur.hi)]
                    if tracker is not None:
                        m.d.comb += stack.entry.y.eq(tracker.yc)
                    m.next = "SCAN"
                with m.Else():
                    m.next = "RESUME"

    def _scan_states(self, m, b):
        """The top entry's scan for the next vertex (popped when exhausted); the walk's end,
        where the pseudo-edges of its root's shortcuts pay the loans back (PageRank)."""
        cur, edge_reader, stack, scanner, tracker = (b.cur, b.edge_reader, b.stack,
                                                     b.scanner, b.tracker)
        top = stack.top
        with m.State("RESUME"):
            with m.If(stack.size == 0):
                m.next = "IDLE" if tracker is None else "WALK_END"
            with m.Else():
                m.next = "SCAN"

        with m.State("SCAN"):
            with m.If(top.next == top.end):
                m.d.comb += stack.pop.eq(1)
                m.next = "RESUME"
            with m.Else():
                m.d.comb += [scanner.request.valid.eq(1),
                             scanner.request.payload.vertex.eq(top.vertex),
                             scanner.request.payload.next.eq(top.next),
                             scanner.request.payload.end.eq(top.end),
                             scanner.request.payload.level.eq(stack.size - 1)]
                with m.If(scanner.request.ready):
                    m.next = "SCANNING"

        with m.State("SCANNING"):
            wiring.connect(m, scanner.read, edge_reader.cmd)
            wiring.connect(m, edge_reader.items, scanner.items)
            result = scanner.result.payload
            m.d.comb += scanner.result.ready.eq(1)
            with m.If(scanner.result.valid):
                m.d.comb += [stack.advance.eq(1), stack.next.eq(result.next)]
                with m.If(result.found):
                    m.d.sync += [cur.vertex.eq(result.vertex), cur.depth.eq(stack.size + 1)]
                    if tracker is not None:
                        m.d.comb += [tracker.descend.eq(1), tracker.descend_y.eq(
                            edge_value(self._gas, top.y, result.weight))]
                    m.next = "VISIT"
                with m.Else():
                    m.next = "SCAN"

        if tracker is None:
            return
        with m.State("WALK_END"):
            # The DDMU's answer for the root (if it was looked up) says how many pseudo-edges
            # it lent; they may still be on their way to the buffer.
            with m.If(tracker.answered):
                m.next = "IDLE" if self._gas.selective else "PAY_BACK"
        if not self._gas.selective:
            with m.State("PAY_BACK"):
                pending, owed = self.pending, tracker.owed
                m.d.comb += [
                    self.edges.valid.eq(pending.valid & (owed != 0)),
                    self.edges.payload.dst.eq(pending.payload.tail),
                    self.edges.payload.x.eq(pending.payload.z),
                    self.edges.payload.pseudo.eq(1),
                    self.edges.payload.walk.eq(self._walk),
                    pending.ready.eq(self.edges.ready & (owed != 0)),
                ]
                with m.If(pending.valid & self.edges.ready & (owed != 0)):
                    m.d.sync += self.pseudo_edges.eq(self.pseudo_edges + 1)
                    m.d.comb += tracker.paid.eq(1)
                with m.If(owed == 0):
                    m.next = "IDLE"
