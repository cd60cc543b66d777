"""One DepGraph engine (Yao et al., HPCA 2021, §III-B, figure 6): the HDTL walking the
engine's partition, the FIFO edge buffer it fills, the processing element that pops it, the
engine's circular queue in memory, and the vertex-store bank holding the partition.

Blocks are joined as the paper draws them: queue → HDTL → FIFO edge buffer → PE → (the
update network, outside) → bank, whose activations return to the queue. The HDTL asks the
bank to fold the vertices it visits and to tell which destinations its walk may enter.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..config import ConfigError
from ..memory_port import MemoryPortSignature
from ..stream_throttle import StreamLinks
from ..stream_fifo import StreamFIFO
from .circular_queue import CircularQueue
from .config import DepGraphConfig
from .ddmu import LookupAnswer, LookupRequest, PseudoEdge
from .fifo_edge_buffer import FIFOEdgeBuffer
from .hdtl import HDTL
from .hub_index_learner import ObserveRequest
from .layouts import ORIGIN_BITS, LoadRecord, VertexUpdate
from .processing_element import ProcessingElement
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
    offsets_base, edges_base, queue_base : ``In(addr_width)``; tolerance : ``In(32)``
    updates : ``Out(stream.Signature(VertexUpdate))``
        The PE's updates, into the network.
    incoming : ``In(stream.Signature(VertexUpdate))``
        Updates of this partition's vertices, from the network.
    ack, ack_origin, ack_left : ``Out(1)``, ``Out(ORIGIN_BITS)``, ``Out(1)``
        The bank applied an update from that origin, and whether it left a vertex for the
        origin's walk.
    sent : ``Out(1)``
        The HDTL put an edge into the FIFO edge buffer (an update that will need an ack).
    drained : ``In(1)``
        Every edge this engine sent has been acked.
    left : ``In(1)``
        A bank acked an update of this engine that left a vertex for its walk.
    load : ``In(stream.Signature(LoadRecord))``
    dump : ``In(stream.Signature(32))``; dumped : ``Out(stream.Signature(32))``
    offsets_mem, edges_mem, queue_mem : ``Out(MemoryPortSignature(addr_width))``
    lookup, answers, pseudo, observe
        With the hub index: the HDTL's lookups to the DDMU and its answers, the DDMU's
        pseudo-edges into this engine's pseudo-edge buffer (PageRank), the HDTL's
        observations to the learner.
    busy : ``Out(1)``
        Anything inside but the updates on their way back (``drained`` covers those).
    store_busy : ``Out(1)``
        The vertex-store bank has operations in flight (loading ends when it has none).
    counters: ``visits``, ``stale_visits``, ``edges_fetched``, ``scanned_edges``, ``walks``,
    ``vertex_updates``, ``updates_applied``, ``activations``, ``pushes``,
    ``stack_overflows``, ``queue_line_reads``, ``queue_line_writes``, ``observations``,
    ``pseudo_edges`` (the last two 0 without the hub index) : ``Out(32)``;
    ``queue_overflow`` : ``Out(1)``
    """

    COUNTERS = ("visits", "stale_visits", "edges_fetched", "scanned_edges", "walks",
                "vertex_updates", "updates_applied", "activations", "pushes",
                "stack_overflows", "queue_line_reads", "queue_line_writes", "observations",
                "pseudo_edges")

    def __init__(self, config: DepGraphConfig, index: int):
        if not 0 <= index < config.engines:
            raise ConfigError(f"Engine: index must be from 0 to {config.engines - 1}, not "
                              f"{index!r}")
        self._config = config
        self._index = index
        aw = config.addr_width
        members = {
            "start": In(1), "enable": In(1),
            "first": In(32), "last": In(32),
            "offsets_base": In(aw), "edges_base": In(aw), "queue_base": In(aw),
            "tolerance": In(32),
            "updates": Out(stream.Signature(VertexUpdate)),
            "incoming": In(stream.Signature(VertexUpdate)),
            "ack": Out(1), "ack_origin": Out(ORIGIN_BITS), "ack_left": Out(1),
            "sent": Out(1), "drained": In(1), "left": In(1),
            "load": In(stream.Signature(LoadRecord)),
            "dump": In(stream.Signature(32)), "dumped": Out(stream.Signature(32)),
            "offsets_mem": Out(MemoryPortSignature(aw)),
            "edges_mem": Out(MemoryPortSignature(aw)),
            "queue_mem": Out(MemoryPortSignature(aw)),
            "busy": Out(1), "store_busy": Out(1), "queue_overflow": Out(1),
        }
        if config.hub_index:
            members.update({
                "lookup": Out(stream.Signature(LookupRequest)),
                "answers": In(stream.Signature(LookupAnswer)),
                "pseudo": In(stream.Signature(PseudoEdge)),
                "observe": Out(stream.Signature(ObserveRequest)),
            })
        members.update({name: Out(32) for name in self.COUNTERS})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        super().__init__(members)
        self.link_probes = []

    @property
    def queue_lines(self) -> int:
        """Lines of the circular queue: room for the whole partition (a vertex is queued at
        most once), so it never overflows."""
        return self._config.bank_vertices // 16

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        m.submodules.hdtl = hdtl = HDTL(addr_width=cfg.addr_width, stack_depth=cfg.stack_depth,
                                        algo=cfg.algo, hub_index=cfg.hub_index,
                                        track_entries=cfg.track_entries, engine=self._index)
        m.submodules.fifo = fifo = FIFOEdgeBuffer(depth=cfg.edge_fifo_depth)
        m.submodules.pe = pe = ProcessingElement(algo=cfg.algo, engine=self._index)
        m.submodules.queue = queue = CircularQueue(addr_width=cfg.addr_width,
                                                   lines=self.queue_lines)
        m.submodules.bank = bank = VertexStoreBank(algo=cfg.algo, words=cfg.bank_vertices,
                                                   engine=self._index)
        link = StreamLinks(m, percent=cfg.stall_injection,
                           seed=self.stall_seed if cfg.stall_injection else None,
                           prefix=f"engine{self._index}.")
        self.link_probes = link.probes

        # Roots reach the HDTL only once the vertex store is loaded.
        roots = stream.Signature(queue.pop.payload.shape()).create()
        m.d.comb += [
            roots.valid.eq(queue.pop.valid & self.enable),
            roots.payload.eq(queue.pop.payload),
            queue.pop.ready.eq(roots.ready & self.enable),
        ]
        link(roots, hdtl.pop, "queue->hdtl")
        link(hdtl.visit, bank.visit, "hdtl.visit->bank")
        link(bank.visited, hdtl.visited, "bank->hdtl.visited")
        link(hdtl.probe, bank.probe, "hdtl.probe->bank")
        link(bank.probed, hdtl.probed, "bank->hdtl.probed")
        link(hdtl.edges, fifo.i, "hdtl->fifo_edge_buffer")
        link(fifo.o, pe.edges, "fifo_edge_buffer->pe")
        link(pe.updates, wiring.flipped(self.updates), "pe->network")
        link(wiring.flipped(self.incoming), bank.update, "network->bank")
        link(bank.push, queue.push, "bank->queue")
        link(wiring.flipped(self.load), bank.load, "loader->bank")
        link(wiring.flipped(self.dump), bank.dump, "writer->bank")
        link(bank.dumped, wiring.flipped(self.dumped), "bank->writer")
        wiring.connect(m, hdtl.offsets_mem, wiring.flipped(self.offsets_mem))
        wiring.connect(m, hdtl.edges_mem, wiring.flipped(self.edges_mem))
        wiring.connect(m, queue.mem, wiring.flipped(self.queue_mem))

        m.d.comb += [
            hdtl.start.eq(self.start), queue.start.eq(self.start),
            hdtl.first.eq(self.first), hdtl.last.eq(self.last),
            hdtl.offsets_base.eq(self.offsets_base), hdtl.edges_base.eq(self.edges_base),
            hdtl.drained.eq(self.drained), hdtl.left.eq(self.left),
            queue.base.eq(self.queue_base + self._index * self.queue_lines),
            bank.base.eq(self.first), bank.tolerance.eq(self.tolerance),
            self.ack.eq(bank.ack), self.ack_origin.eq(bank.ack_origin),
            self.ack_left.eq(bank.ack_left),
            self.sent.eq(hdtl.edges.valid & hdtl.edges.ready),
            self.busy.eq(hdtl.busy | queue.busy | bank.busy | link.busy),
            self.store_busy.eq(bank.busy),
            self.queue_overflow.eq(queue.overflow),
        ]
        for name in ("visits", "stale_visits", "edges_fetched", "scanned_edges", "walks"):
            m.d.comb += getattr(self, name).eq(getattr(hdtl, name))
        for name in ("vertex_updates", "activations", "pushes", "stack_overflows"):
            m.d.comb += getattr(self, name).eq(getattr(bank, name))
        m.d.comb += self.updates_applied.eq(bank.updates)
        m.d.comb += [self.queue_line_reads.eq(queue.line_reads),
                     self.queue_line_writes.eq(queue.line_writes)]

        if cfg.hub_index:
            # The pseudo-edge buffer holds what the DDMU lends per root at most, so the DDMU
            # never waits for a walk to end.
            m.submodules.pending = pending = StreamFIFO(PseudoEdge, cfg.pseudo_edge_buffer)
            link(wiring.flipped(self.pseudo), pending.i, "ddmu->pseudo_edge_buffer")
            link(pending.o, hdtl.pending, "pseudo_edge_buffer->hdtl")
            link(hdtl.lookup, wiring.flipped(self.lookup), "hdtl.lookup->ddmu")
            link(wiring.flipped(self.answers), hdtl.answers, "ddmu->hdtl.answers")
            link(hdtl.observe, wiring.flipped(self.observe), "hdtl.observe->learner")
            m.d.comb += [self.observations.eq(hdtl.observations),
                         self.pseudo_edges.eq(hdtl.pseudo_edges)]
            with m.If((pending.level != 0) | link.busy):
                m.d.comb += self.busy.eq(1)
        return m
