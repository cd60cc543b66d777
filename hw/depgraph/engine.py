"""One DepGraph engine (Zhang et al., HPCA 2021, §III-B, figure 6): the HDTL walking the
engine's partition, the FIFO edge buffer it fills, the processing element that pops it, the
engine's circular queue in memory, and the vertex-store bank holding the partition.

Blocks are joined as the paper draws them: queue → HDTL → FIFO edge buffer → PE → (the
update network, outside) → bank, whose activations return to the queue. The HDTL asks the
bank to fold the vertices it visits and to tell which destinations its walk may enter.

With ``walks`` > 1 the engine runs that many walks at once, one HDTL each (issue 17: a walk
spends a memory latency per visit on its edges, two when the offsets are not on chip, which
the others' work hides).
A root goes to an idle HDTL; the HDTLs share the FIFO edge buffer (round robin), the bank
(visits and probes merged, answers routed back in order) and the engine's memory ports (the
edges', and the offsets' when they are not on chip);
each edge carries its walk's number, so updates, acks, ``drained`` and ``left`` are per walk.
"""

from amaranth.hdl import Module, ResetInserter
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError
from hw.lib.stream.lowest_occupancy import LowestOccupancyDispatch
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.stream.ordered_merge import MemoryPortMerge, OrderedMerge
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.links import StreamLinks
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from .circular_queue import CircularQueue
from .config import DepGraphConfig
from .ddmu import LookupAnswer, LookupRequest, PseudoEdge
from .fifo_edge_buffer import FIFOEdgeBuffer
from .hdtl import HDTL
from .hub_index_learner import ObserveRequest
from .layouts import (ORIGIN_BITS, EdgeTask, LoadRecord, ProbeResult, VertexUpdate,
                      VisitRequest, VisitResult)
from .processing_element import ProcessingElement
from .update_scheduler import UpdateScheduler
from .vertex_store import VertexStoreBank


__all__ = ["Engine"]


class Engine(wiring.Component):
    """Engine ``index`` of a :class:`DepGraphConfig` design.

    Members
    -------
    start : ``In(1)``
        Pulse before loading: empty the queue, forget the stack.
    enable : ``In(1)``
        The HDTL may take roots from the queue (low while the vertex store is loaded).
    first, last : ``In(32)``
        The partition.
    tolerance : ``In(32)``
    updates : ``Out(stream.Signature(VertexUpdate))``
        The PE's updates, into the network.
    incoming : ``In(stream.Signature(VertexUpdate))``
        Updates of this partition's vertices, from the network.
    ack, ack_origin, ack_left : ``Out(1)``, ``Out(ORIGIN_BITS)``, ``Out(1)``
        The bank applied an update from that origin, and whether it left a vertex for the
        origin's walk.
    sent : ``Out(walks)``
        Walk k's HDTL put an edge into the FIFO edge buffer (an update that will need an ack
        of origin walk slot ``index × walks + k``).
    drained : ``In(walks)``
        Every edge walk k sent has been acked.
    left : ``In(walks)``
        A bank acked an update of walk k that left a vertex for its walk.
    load : ``In(stream.Signature(LoadRecord))``
    dump : ``In(stream.Signature(32))``; dumped : ``Out(stream.Signature(32))``
    <region>_mem : ``Out(MemoryPortSignature(addr_width))``
        With ``<region>_base`` for each of ``memory_ports``: ``edges`` and ``queue``, and
        ``offsets`` first when the offsets are not on chip.
    lookup, answers, pseudo, observe : arrays of ``walks`` streams
        With the hub index, per walk: the HDTL's lookups to the DDMU and its answers, the
        DDMU's pseudo-edges into the walk's pseudo-edge buffer (PageRank), the HDTL's
        observations to the learner.
    busy : ``Out(1)``
        Anything inside but the updates on their way back (``drained`` covers those).
    store_busy : ``Out(1)``
        The vertex-store bank has operations in flight (loading ends when it has none).
    counters: ``visits``, ``stale_visits``, ``edges_fetched``, ``scanned_edges``,
    ``scan_read_edges`` (those of the scanned edges read from memory), ``walks``,
    ``vertex_updates``, ``updates_applied``, ``activations``, ``pushes``,
    ``stack_overflows``, ``queue_line_reads``, ``queue_line_writes``, ``observations``,
    ``pseudo_edges`` (the last two 0 without the hub index), ``hazard_waits`` (the bank's
    cycles waiting on a read-modify-write hazard), ``updates_passed`` (updates the update
    scheduler sent past an older one; 0 without it), ``walk_idle_cycles`` (summed over the
    walks, the cycles an HDTL had no walk while the engine was enabled), ``queue_empty_cycles``
    (the enabled cycles neither the circular queue nor the root buffer held a vertex) :
    ``Out(32)``;
    ``queue_overflow`` : ``Out(1)``
    """

    COUNTERS = ("visits", "stale_visits", "edges_fetched", "scanned_edges", "scan_read_edges",
                "walks", "vertex_updates", "updates_applied", "activations", "pushes",
                "stack_overflows", "queue_line_reads", "queue_line_writes", "observations",
                "pseudo_edges", "hazard_waits", "updates_passed", "walk_idle_cycles",
                "queue_empty_cycles")

    def __init__(self, config: DepGraphConfig, index: int, *, throttle=None):
        self._throttle = throttle
        if not 0 <= index < config.engines:
            raise ConfigError(f"Engine: index must be from 0 to {config.engines - 1}, not "
                              f"{index!r}")
        self._config = config
        self._index = index
        aw = config.addr_width
        members = {
            "start": In(1), "enable": In(1),
            "first": In(32), "last": In(32),
            "tolerance": In(32),
            "updates": Out(stream.Signature(VertexUpdate)),
            "incoming": In(stream.Signature(VertexUpdate)),
            "ack": Out(1), "ack_origin": Out(ORIGIN_BITS), "ack_left": Out(1),
            "sent": Out(config.walks), "drained": In(config.walks), "left": In(config.walks),
            "load": In(stream.Signature(LoadRecord)),
            "dump": In(stream.Signature(32)), "dumped": Out(stream.Signature(32)),
            "busy": Out(1), "store_busy": Out(1), "queue_overflow": Out(1),
        }
        # The memory regions the engine reads, each a base and a port.
        self.memory_ports = (() if config.offsets_on_chip else ("offsets",)) + ("edges", "queue")
        for name in self.memory_ports:
            members[f"{name}_base"] = In(aw)
            members[f"{name}_mem"] = Out(MemoryPortSignature(aw))
        if config.hub_index:
            members.update({
                "lookup": Out(stream.Signature(LookupRequest)).array(config.walks),
                "answers": In(stream.Signature(LookupAnswer)).array(config.walks),
                "pseudo": In(stream.Signature(PseudoEdge)).array(config.walks),
                "observe": Out(stream.Signature(ObserveRequest)).array(config.walks),
            })
        members.update({name: Out(32) for name in self.COUNTERS})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        super().__init__(members)
        self.link_probes = []
        self.hdtls = []         # verification: the walks' HDTLs, known once elaborated
        self.queue = None       # verification: the circular queue, known once elaborated
        self.root_buffer = None  # and the FIFO between it and the HDTLs

    @property
    def queue_lines(self) -> int:
        """Lines of the circular queue: room for the whole partition (a vertex is queued at
        most once), so it never overflows."""
        return self._config.bank_vertices // 16

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        hdtls = self._elaborate_hdtls(m)
        m.submodules.fifo = fifo = FIFOEdgeBuffer(depth=cfg.edge_fifo_depth)
        m.submodules.pe = pe = ProcessingElement(algo=cfg.algo, engine=self._index,
                                                 walk_bits=cfg.walk_bits)
        m.submodules.queue = queue = CircularQueue(addr_width=cfg.addr_width,
                                                   lines=self.queue_lines)
        self.queue = queue
        m.submodules.bank = bank = VertexStoreBank(algo=cfg.algo, words=cfg.bank_vertices,
                                                   engine=self._index,
                                                   walk_bits=cfg.walk_bits,
                                                   offsets=cfg.offsets_on_chip)
        link = StreamLinks(m, percent=cfg.stall_injection, throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None,
                           prefix=f"engine{self._index}.")
        self.link_probes = link.probes

        # Roots pass a two-entry FIFO: its ``ready`` is a register, so the HDTLs' state does
        # not reach the queue's head and tail lines, whose 512-bit clock enables it drove
        # (once the two-engine ECP5 build's critical path). They reach the HDTLs only
        # once the vertex store is loaded.
        root_buffer = StreamFIFO(queue.pop.payload.shape(), 2)
        self.root_buffer = root_buffer
        m.submodules.root_buffer = ResetInserter(self.start)(root_buffer)
        link(queue.pop, root_buffer.i, "queue->root_buffer")
        roots = stream.Signature(queue.pop.payload.shape()).create()
        m.d.comb += [
            roots.valid.eq(root_buffer.o.valid & self.enable),
            roots.payload.eq(root_buffer.o.payload),
            root_buffer.o.ready.eq(roots.ready & self.enable),
        ]
        shared = self._elaborate_sharing(m, hdtls, roots, bank, link)
        link(fifo.o, pe.edges, "fifo_edge_buffer->pe")
        link(pe.updates, wiring.flipped(self.updates), "pe->network")
        scheduler_busy = 0
        if cfg.update_window:
            m.submodules.update_scheduler = scheduler = UpdateScheduler(
                window=cfg.update_window, spacing=bank.record_spacing,
                index_width=cfg.bank_index_width)
            # Through a register slice: the scheduler compares the incoming update's record
            # with its entries and its history of sends, into its waits (from the network's
            # queue read, the two-engine build's deepest path).
            link(wiring.flipped(self.incoming), scheduler.i, "network->update_scheduler",
                 register=True)
            link(scheduler.o, bank.update, "update_scheduler->bank")
            scheduler_busy = scheduler.busy
            m.d.comb += self.updates_passed.eq(scheduler.passed)
        else:
            link(wiring.flipped(self.incoming), bank.update, "network->bank")
        # A register slice between the bank's push queue and the circular queue: the bank's
        # push credit counter waits for the queue's ready, and the two sit apart on a chip.
        m.submodules.push_slice = push_slice = StreamRegisterSlice(bank.push.payload.shape())
        link(bank.push, push_slice.i, "bank->push_slice")
        link(push_slice.o, queue.push, "push_slice->queue")
        link(wiring.flipped(self.load), bank.load, "loader->bank")
        link(wiring.flipped(self.dump), bank.dump, "writer->bank")
        link(bank.dumped, wiring.flipped(self.dumped), "bank->writer")
        link(shared["edges"], fifo.i, "hdtl->fifo_edge_buffer")
        if not cfg.offsets_on_chip:
            wiring.connect(m, shared["offsets_mem"], wiring.flipped(self.offsets_mem))
        wiring.connect(m, shared["edges_mem"], wiring.flipped(self.edges_mem))
        wiring.connect(m, queue.mem, wiring.flipped(self.queue_mem))

        for k, hdtl in enumerate(hdtls):
            if not cfg.offsets_on_chip:
                m.d.comb += hdtl.offsets_base.eq(self.offsets_base)
            m.d.comb += [
                hdtl.start.eq(self.start),
                hdtl.first.eq(self.first), hdtl.last.eq(self.last),
                hdtl.edges_base.eq(self.edges_base),
                hdtl.drained.eq(self.drained[k]), hdtl.left.eq(self.left[k]),
                self.sent[k].eq(hdtl.edges.valid & hdtl.edges.ready),
            ]
        m.d.comb += [
            queue.start.eq(self.start),
            queue.base.eq(self.queue_base + self._index * self.queue_lines),
            bank.base.eq(self.first), bank.tolerance.eq(self.tolerance),
            self.ack.eq(bank.ack), self.ack_origin.eq(bank.ack_origin),
            self.ack_left.eq(bank.ack_left),
            self.busy.eq(any_busy((h.busy for h in hdtls), shared["busy"], queue.busy,
                                  root_buffer.level, bank.busy, scheduler_busy,
                                  push_slice.o.valid, link.busy)),
            self.store_busy.eq(bank.busy | scheduler_busy),
            self.queue_overflow.eq(queue.overflow),
        ]
        self._counters(m, hdtls, bank, queue, root_buffer)
        if cfg.hub_index:
            self._elaborate_hub_links(m, hdtls, link)
        return m

    def _elaborate_hdtls(self, m):
        """The engine's HDTLs, one a walk (walk slot engine × walks + walk)."""
        cfg = self._config
        hdtls = []
        for k in range(cfg.walks):
            hdtl = HDTL(addr_width=cfg.addr_width, stack_depth=cfg.stack_depth,
                        kept_lines=cfg.kept_lines, stack_lines=cfg.stack_lines,
                        algo=cfg.algo, offsets_on_chip=cfg.offsets_on_chip,
                        hub_index=cfg.hub_index, track_entries=cfg.track_entries,
                        engine=self._index * cfg.walks + k, walk=k,
                        edge_words=cfg.edge_words, leave_max_edges=cfg.leave_max_edges)
            m.submodules[f"hdtl{k}" if cfg.walks > 1 else "hdtl"] = hdtl
            hdtls.append(hdtl)
        self.hdtls = hdtls
        return hdtls

    def _counters(self, m, hdtls, bank, queue, root_buffer):
        """The counters: the HDTLs' summed, the bank's and the queue's, the occupancy."""
        for name in ("visits", "stale_visits", "edges_fetched", "scanned_edges",
                     "scan_read_edges", "walks"):
            m.d.comb += getattr(self, name).eq(sum(getattr(h, name) for h in hdtls))
        for name in ("vertex_updates", "activations", "pushes", "stack_overflows",
                     "hazard_waits"):
            m.d.comb += getattr(self, name).eq(getattr(bank, name))
        m.d.comb += self.updates_applied.eq(bank.updates)
        m.d.comb += [self.queue_line_reads.eq(queue.line_reads),
                     self.queue_line_writes.eq(queue.line_writes)]
        self._count_waits(m, hdtls, queue, root_buffer)

    def _elaborate_hub_links(self, m, hdtls, link):
        """Each walk's links to the DDMU and the learner, and its pseudo-edge buffer."""
        cfg = self._config
        walks = cfg.walks
        for k, hdtl in enumerate(hdtls):
            # The pseudo-edge buffer holds what the DDMU lends per root at most, so the
            # DDMU never waits for a walk to end.
            suffix = f"{k}" if walks > 1 else ""
            pending = StreamFIFO(PseudoEdge, cfg.pseudo_edge_buffer)
            m.submodules[f"pending{suffix}"] = pending
            link(wiring.flipped(self.pseudo[k]), pending.i,
                 f"ddmu->pseudo_edge_buffer{suffix}")
            link(pending.o, hdtl.pending, f"pseudo_edge_buffer{suffix}->hdtl{suffix}")
            link(hdtl.lookup, wiring.flipped(self.lookup[k]), f"hdtl{suffix}.lookup->ddmu")
            link(wiring.flipped(self.answers[k]), hdtl.answers,
                 f"ddmu->hdtl{suffix}.answers")
            link(hdtl.observe, wiring.flipped(self.observe[k]),
                 f"hdtl{suffix}.observe->learner")
            with m.If(pending.level != 0):
                m.d.comb += self.busy.eq(1)
        m.d.comb += [self.observations.eq(sum(h.observations for h in hdtls)),
                     self.pseudo_edges.eq(sum(h.pseudo_edges for h in hdtls))]

    def _count_waits(self, m, hdtls, queue, root_buffer):
        """The occupancy counters: walk slots without a walk and cycles without a root, while
        the engine is enabled (they tell a run short of roots from one whose walks are busy)."""
        idle_walks = sum(h.pop.ready for h in hdtls)
        with m.If(self.start):
            m.d.sync += [self.walk_idle_cycles.eq(0), self.queue_empty_cycles.eq(0)]
        with m.Elif(self.enable):
            m.d.sync += [self.walk_idle_cycles.eq(self.walk_idle_cycles + idle_walks),
                         self.queue_empty_cycles.eq(self.queue_empty_cycles +
                                                    ((queue.level == 0) &
                                                     (root_buffer.level == 0)))]

    def _elaborate_sharing(self, m, hdtls, roots, bank, link):
        """Join the walks to what they share: roots go to an idle HDTL; visits and probes
        reach the bank, and edge (and, not on chip, offset) reads the memory, merged with
        their answers routed back in order; edges enter the FIFO edge buffer round robin.
        With one walk, direct links. Returns the merged edge stream, the memory ports (the
        offsets' None when on chip) and a busy flag."""
        cfg = self._config
        walks = len(hdtls)
        if walks == 1:
            hdtl = hdtls[0]
            link(roots, hdtl.pop, "queue->hdtl")
            link(hdtl.visit, bank.visit, "hdtl.visit->bank")
            # Visits' answers through a register slice: the HDTL works out whether the
            # vertex has edges (a 32-bit compare) from it, not from the bank's queue read.
            link(bank.visited, hdtl.visited, "bank->hdtl.visited", register=True)
            link(hdtl.probe, bank.probe, "hdtl.probe->bank")
            link(bank.probed, hdtl.probed, "bank->hdtl.probed")
            return {"edges": hdtl.edges, "offsets_mem": getattr(hdtl, "offsets_mem", None),
                    "edges_mem": hdtl.edges_mem, "busy": 0}

        m.submodules.roots = dispatch = LowestOccupancyDispatch(
            roots.payload.shape(), walks, level_width=1)
        wiring.connect(m, roots, dispatch.i)
        m.submodules.visits = visits = OrderedMerge(VisitRequest, VisitResult, walks,
                                                    outstanding=walks)
        m.submodules.probes = probes = OrderedMerge(32, ProbeResult, walks,
                                                    outstanding=cfg.edges_per_line * walks)
        m.submodules.edges = edges = StreamArbiter(EdgeTask, walks)
        offsets_mem = None
        if not cfg.offsets_on_chip:
            m.submodules.offsets_mem = offsets_mem = MemoryPortMerge(
                addr_width=cfg.addr_width, count=walks, outstanding=HDTL.OFFSET_WINDOW * walks)
        m.submodules.edges_mem = edges_mem = MemoryPortMerge(
            addr_width=cfg.addr_width, count=walks, outstanding=hdtls[0].edge_window * walks)
        for k, hdtl in enumerate(hdtls):
            m.d.comb += dispatch.levels[k].eq(0)
            link(dispatch.o[k], hdtl.pop, f"queue->hdtl{k}")
            link(hdtl.visit, visits.requests[k], f"hdtl{k}.visit->visits")
            link(visits.responses[k], hdtl.visited, f"visits->hdtl{k}.visited", register=True)
            link(hdtl.probe, probes.requests[k], f"hdtl{k}.probe->probes")
            link(probes.responses[k], hdtl.probed, f"probes->hdtl{k}.probed")
            link(hdtl.edges, edges.i[k], f"hdtl{k}->edges")
            if offsets_mem is not None:
                wiring.connect(m, hdtl.offsets_mem, offsets_mem.clients[k])
            wiring.connect(m, hdtl.edges_mem, edges_mem.clients[k])
        link(visits.request, bank.visit, "visits->bank")
        link(bank.visited, visits.response, "bank->visits")
        link(probes.request, bank.probe, "probes->bank")
        link(bank.probed, probes.response, "bank->probes")
        busy = visits.busy | probes.busy | edges_mem.busy
        if offsets_mem is not None:
            busy |= offsets_mem.busy
        return {"edges": edges.o, "offsets_mem": offsets_mem and offsets_mem.mem,
                "edges_mem": edges_mem.mem, "busy": busy}
