"""The DepGraph accelerator (Zhang et al., HPCA 2021, §III-B, figure 6): ``engines`` engines
over contiguous partitions, the network carrying the processing elements' updates to the
banks that own the vertices, the configuration registers, and one memory port shared through
an arbiter.

A run: ``start`` empties the queues and loads the vertex store from memory (each worth
vertex is activated and queued, in id order); then the engines run until nothing is left
anywhere (every queue, stack, FIFO, network queue and bank empty and every update acked),
the states are written back to memory and ``done`` rises. The status counters count from
reset (one run per reset), except the cycle counts, which restart with every run.

With the hub index the engines share the DDMU (lookups, round robin) and the hub-index
learner (observations, round robin); the DDMU's shortcut updates enter the network as one
more source, its answers and pseudo-edges go back to the walk that looked up.

With several walks per engine, each walk is a walk slot (engine × walks + walk): the origin
of its updates, the owner of its in-flight count (``drained``) and of ``left``.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.memory.arbiter import MemoryArbiter
from hw.lib.memory.port import MEMORY_TAG_WIDTH, mem_port_signature
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.links import StreamLinks
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.ddmu import DDMU, LookupRequest
from hw.depgraph.engine import Engine
from hw.depgraph.hub_index_learner import HubIndexLearner, ObserveRequest
from hw.depgraph.layouts import ORIGIN_DDMU
from hw.depgraph.register_block import RegisterBlock, register_map
from hw.depgraph.update_network import UpdateNetwork
from hw.depgraph.vertex_loader import VertexLoader, VertexWriter


__all__ = ["DepGraph", "COUNTERS", "HUB_COUNTERS", "track_walks"]

# Totals over the engines, the hub index's figures (0 without it), then the run's own.
HUB_COUNTERS = ("lookups", "shortcut_uses", "hash_probes", "learner_observations",
                "entries_learnt", "fits_rejected")
COUNTERS = Engine.COUNTERS + HUB_COUNTERS + ("cycles", "load_cycles", "run_cycles",
                                             "write_cycles", "memory_reads", "memory_writes")


def track_walks(m, engines, walks):
    """Each walk's updates not yet applied: counted up when its HDTL sends an edge, down when
    any bank acks an update of that origin (the walk slot); its ``drained`` and ``left``.

    A send is registered before it is counted (the edge handshake came from the other end of
    the engine into a 32-bit adder: the two-engine ECP5 build's critical path at one seed);
    ``drained`` also waits for that register, and an ack comes at least three cycles after
    its edge (FIFO edge buffer, PE, bank), so the count never runs below the truth.
    """
    for e, engine in enumerate(engines):
        for k in range(walks):
            slot = e * walks + k
            in_flight = Signal(32, name=f"in_flight{slot}")
            sent = Signal(name=f"sent{slot}")
            acks = sum(((other.ack & (other.ack_origin == slot)) for other in engines))
            m.d.sync += [sent.eq(engine.sent[k]), in_flight.eq(in_flight + sent - acks)]
            m.d.comb += [
                engine.drained[k].eq((in_flight == 0) & ~sent),
                engine.left[k].eq(Cat(other.ack & other.ack_left & (other.ack_origin == slot)
                                      for other in engines).any()),
            ]


class DepGraph(wiring.Component):
    """The accelerator of a :class:`DepGraphConfig`.

    Members
    -------
    reg_addr : ``In(8)``; reg_data : ``In(32)``; reg_write : ``In(1)``
        The configuration registers' write port (:func:`register_map`).
    start : ``In(1)``; busy, done : ``Out(1)``
    error : ``Out(1)``
        A circular queue overflowed (cannot happen with a well-formed image).
    mem : ``Out(mem_port_signature(addr_width, MEMORY_TAG_WIDTH))``
        Tagged with the client's index: reads of different clients may come back in any order.
    stat_<counter> : ``Out(32)`` for every name of :data:`COUNTERS`
    """

    def __init__(self, config: DepGraphConfig, *, throttle=None):
        self._throttle = throttle
        self._config = config
        members = {
            "reg_addr": In(8), "reg_data": In(32), "reg_write": In(1),
            "start": In(1), "busy": Out(1), "done": Out(1), "error": Out(1),
            "mem": Out(mem_port_signature(config.addr_width, MEMORY_TAG_WIDTH)),
        }
        members.update({f"stat_{name}": Out(32) for name in COUNTERS})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        super().__init__(members)
        self._links = None
        self._engines = []

    @property
    def link_probes(self) -> list:
        """Every stream link of the accelerator and its engines (known once elaborated)."""
        probes = list(self._links.probes) if self._links else []
        for engine in self._engines:
            probes += engine.link_probes
        return probes

    @property
    def config(self) -> DepGraphConfig:
        return self._config

    @property
    def register_map(self) -> dict[str, int]:
        return register_map(self._config.engines)

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        n_eng = cfg.engines
        m.submodules.registers = regs = RegisterBlock(engines=n_eng)
        m.d.comb += [regs.addr.eq(self.reg_addr), regs.data.eq(self.reg_data),
                     regs.write.eq(self.reg_write)]
        firsts = [getattr(regs, f"first{e}") for e in range(n_eng + 1)]
        bounds = firsts[1:n_eng]            # first vertex of banks 1 .. n - 1

        link = StreamLinks(m, percent=cfg.stall_injection, throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self._links = link
        engines = []
        for e in range(n_eng):
            engine = Engine(cfg, e, throttle=self._throttle)
            m.submodules[f"engine{e}"] = engine
            engines.append(engine)
            if cfg.stall_injection:
                m.d.comb += engine.stall_seed.eq(self.stall_seed)
            m.d.comb += [getattr(engine, f"{name}_base").eq(getattr(regs, f"{name}_base"))
                         for name in engine.memory_ports]
            m.d.comb += [
                engine.first.eq(firsts[e]), engine.last.eq(firsts[e + 1]),
                engine.tolerance.eq(regs.tolerance),
            ]

        hub = cfg.hub_index
        m.submodules.network = network = UpdateNetwork(sources=n_eng + hub, banks=n_eng)
        for b, bound in enumerate(bounds):
            m.d.comb += network.bounds[b].eq(bound)
        self._engines = engines
        for e, engine in enumerate(engines):
            link(engine.updates, network.i[e], f"engine{e}->network")
            link(network.o[e], engine.incoming, f"network->engine{e}")

        hub_clients, hub_quiet = [], 1
        if hub:
            hub_clients, hub_quiet = self._elaborate_hub(m, regs, engines, network, link)

        track_walks(m, engines, cfg.walks)

        m.submodules.loader = loader = VertexLoader(addr_width=cfg.addr_width, banks=n_eng,
                                                    offsets=cfg.offsets_on_chip)
        m.submodules.writer = writer = VertexWriter(addr_width=cfg.addr_width, banks=n_eng)
        for part in (loader, writer):
            m.d.comb += part.num_vertices.eq(regs.num_vertices)
            for b, bound in enumerate(bounds):
                m.d.comb += part.bounds[b].eq(bound)
        m.d.comb += [getattr(loader, f"{name}_base").eq(getattr(regs, f"{name}_base"))
                     for name in loader.arrays]
        m.d.comb += writer.state_base.eq(regs.state_base)
        for e, engine in enumerate(engines):
            mine = loader.records.payload.bank == e
            m.d.comb += [
                engine.load.valid.eq(loader.records.valid & mine),
                engine.load.payload.eq(loader.records.payload.item),
                engine.dump.valid.eq(writer.requests.valid & (writer.requests.payload.bank == e)),
                engine.dump.payload.eq(writer.requests.payload.item),
            ]
            with m.If(mine):
                m.d.comb += loader.records.ready.eq(engine.load.ready)
            with m.If(writer.requests.payload.bank == e):
                m.d.comb += writer.requests.ready.eq(engine.dump.ready)
            with m.If(writer.response_bank == e):
                m.d.comb += [writer.states.valid.eq(engine.dumped.valid),
                             writer.states.payload.eq(engine.dumped.payload),
                             engine.dumped.ready.eq(writer.states.ready)]

        # (name, port, writes): a client that only reads queues just its line addresses in
        # the arbiter, not a line of write data (600 bits an entry).
        clients = []
        for e, engine in enumerate(engines):
            clients += [(f"engine{e}.{name}", getattr(engine, f"{name}_mem"), name == "queue")
                        for name in engine.memory_ports]
        clients += [(f"loader.{name}", getattr(loader, f"{name}_mem"), False)
                    for name in loader.arrays]
        clients += [("writer", writer.mem, True)] + hub_clients
        # The response buffer and the request slice: the loader's and the engines' ports are
        # spread over the chip, and without them each one's line-queue write enable decoded
        # the memory's tag in the same cycle (the two-engine ECP5 build's critical path at
        # 23d598e), and the queue heads' valids reached the outbox's write enable (6c326d4).
        m.submodules.arbiter = arbiter = MemoryArbiter(
            ports=len(clients), addr_width=cfg.addr_width, outstanding=cfg.memory_outstanding,
            read_only=[index for index, (_, _, writes) in enumerate(clients) if not writes],
            response_buffer=True, request_slice=True)
        for (name, client, _), port in zip(clients, arbiter.clients):
            link.port(client, port, name)
        wiring.connect(m, arbiter.bus, wiring.flipped(self.mem))

        # Control. The quiet check is registered and must hold for two cycles: a block that
        # hands work to another shows it busy in the cycle after at the latest.
        quiet_now = ~Cat(e.busy for e in engines).any() & \
            Cat(e.drained.all() for e in engines).all() & ~network.busy & hub_quiet & \
            ~link.busy
        quiet = Signal()
        quiet_before = Signal()
        m.d.sync += [quiet.eq(quiet_now), quiet_before.eq(quiet)]
        loaded_now = ~Cat(e.store_busy for e in engines).any() & ~link.busy
        loaded = Signal()
        loaded_before = Signal()
        m.d.sync += [loaded.eq(loaded_now), loaded_before.eq(loaded)]
        enable = Signal()
        m.d.comb += [e.enable.eq(enable) for e in engines]
        for e in engines:
            m.d.comb += e.start.eq(self.start)
        m.d.comb += [loader.start.eq(self.start)]
        writer_start = Signal()
        m.d.comb += writer.start.eq(writer_start)
        phase_cycles = {name: getattr(self, f"stat_{name}")
                        for name in ("load_cycles", "run_cycles", "write_cycles")}
        # run_cycles > 3, as a flag set when run_cycles is 3 (the 32-bit compare stays off
        # the path to the writer's start).
        settled = Signal()
        with m.FSM() as control:
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [self.done.eq(0), enable.eq(0), self.stat_cycles.eq(0),
                                 settled.eq(0)]
                    m.d.sync += [counter.eq(0) for counter in phase_cycles.values()]
                    m.next = "LOAD"
            with m.State("LOAD"):
                m.d.sync += phase_cycles["load_cycles"].eq(phase_cycles["load_cycles"] + 1)
                with m.If(loader.done & loaded & loaded_before):
                    m.d.sync += enable.eq(1)
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.sync += phase_cycles["run_cycles"].eq(phase_cycles["run_cycles"] + 1)
                with m.If(phase_cycles["run_cycles"] == 3):
                    m.d.sync += settled.eq(1)
                # ``quiet`` is two cycles old: wait for both to have seen the engines enabled.
                with m.If(quiet & quiet_before & settled):
                    m.d.sync += enable.eq(0)
                    m.d.comb += writer_start.eq(1)
                    m.next = "WRITE"
            with m.State("WRITE"):
                m.d.sync += phase_cycles["write_cycles"].eq(phase_cycles["write_cycles"] + 1)
                with m.If(writer.done & ~writer_start & ~arbiter.busy & ~link.busy):
                    m.d.sync += self.done.eq(1)
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(self.start | ~control.ongoing("IDLE"))
        with m.If(self.busy):
            m.d.sync += self.stat_cycles.eq(self.stat_cycles + 1)

        for name in Engine.COUNTERS:
            m.d.comb += getattr(self, f"stat_{name}").eq(sum(getattr(e, name) for e in engines))
        self._count_memory_requests(m)
        m.d.comb += self.error.eq(Cat(e.queue_overflow for e in engines).any())
        return m

    def _count_memory_requests(self, m):
        """The memory's reads and writes since ``start`` (``stat_memory_reads``, ``_writes``)."""
        reads = Signal(32)
        writes = Signal(32)
        with m.If(self.mem.req.valid & self.mem.req.ready):
            with m.If(self.mem.req.payload.write):
                m.d.sync += writes.eq(writes + 1)
            with m.Else():
                m.d.sync += reads.eq(reads + 1)
        with m.If(self.start):
            m.d.sync += [reads.eq(0), writes.eq(0)]
        m.d.comb += [self.stat_memory_reads.eq(reads), self.stat_memory_writes.eq(writes)]

    def _elaborate_hub(self, m, regs, engines, network, link):
        """The DDMU and the learner, shared by the engines. Returns their memory ports and
        whether they are quiet (nothing inside, every shortcut update acked)."""
        cfg = self._config
        m.submodules.ddmu = ddmu = DDMU(
            algo=cfg.algo, addr_width=cfg.addr_width, candidates=cfg.track_entries,
            loans=None if cfg.is_min else cfg.pseudo_edge_buffer)
        m.submodules.learner = learner = HubIndexLearner(algo=cfg.algo,
                                                         addr_width=cfg.addr_width)
        m.d.comb += [ddmu.hash_base.eq(regs.hash_base), ddmu.index_base.eq(regs.index_base),
                     ddmu.hash_slots.eq(regs.hash_slots),
                     learner.index_base.eq(regs.index_base)]
        slots = [(e, k) for e in range(len(engines)) for k in range(cfg.walks)]
        m.submodules.lookups = lookups = StreamArbiter(LookupRequest, len(slots))
        m.submodules.observations = observations = StreamArbiter(ObserveRequest, len(slots))
        link(lookups.o, ddmu.lookup, "lookups->ddmu")
        link(observations.o, learner.observe, "observations->learner")
        link(ddmu.updates, network.i[len(engines)], "ddmu->network")
        for slot, (e, k) in enumerate(slots):
            engine = engines[e]
            name = f"engine{e}" + (f".walk{k}" if cfg.walks > 1 else "")
            link(engine.lookup[k], lookups.i[slot], f"{name}.lookup->lookups")
            link(engine.observe[k], observations.i[slot], f"{name}.observe->observations")
            for source, sink in ((ddmu.answers, engine.answers[k]),
                                 (ddmu.pseudo, engine.pseudo[k])):
                mine = source.payload.engine == slot
                m.d.comb += [sink.valid.eq(source.valid & mine),
                             sink.payload.eq(source.payload)]
                with m.If(mine):
                    m.d.comb += source.ready.eq(sink.ready)

        # Shortcut updates not yet applied.
        in_flight = Signal(32)
        sent = ddmu.updates.valid & ddmu.updates.ready
        acks = sum(((e.ack & (e.ack_origin == ORIGIN_DDMU)) for e in engines))
        m.d.sync += in_flight.eq(in_flight + sent - acks)

        for name, value in (("lookups", ddmu.lookups), ("shortcut_uses", ddmu.shortcut_uses),
                            ("hash_probes", ddmu.probes),
                            ("learner_observations", learner.observations),
                            ("entries_learnt", learner.learnt),
                            ("fits_rejected", learner.rejected)):
            m.d.comb += getattr(self, f"stat_{name}").eq(value)
        return [("ddmu", ddmu.mem, False), ("learner", learner.mem, True)], \
            ~ddmu.busy & ~learner.busy & (in_flight == 0)
