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

from pathlib import Path

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from hw.lib.axi.rdl_map import RDLSource
from hw.lib.busy import any_busy
from hw.lib.memory.arbiter import MemoryArbiter
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.file import RegisterFile
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.links import StreamLinks
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.ddmu import DDMU, LookupRequest
from hw.depgraph.engine import Engine
from hw.depgraph.hub_index_learner import HubIndexLearner, ObserveRequest
from hw.depgraph.layouts import ORIGIN_DDMU
from hw.depgraph.run_control import RunControl
from hw.depgraph.update_network import UpdateNetwork
from hw.depgraph.vertex_loader import VertexLoader, VertexWriter


__all__ = ["DepGraph", "GLOBAL_REGISTERS", "registers", "register_description", "COUNTERS",
           "HUB_COUNTERS", "track_walks"]

# What ``DEP_configure`` passes (§III-B, table I): the line addresses of the memory regions
# (CSR arrays, vertex data, H'' bitmap, circular queues, hub index), the vertex count and the
# tolerance (FP32 bits).
GLOBAL_REGISTERS = ("offsets_base", "edges_base", "state_base", "delta_base", "const_base",
                    "stop_base", "queue_base", "queue_lines", "hash_base", "hash_slots",
                    "index_base", "num_vertices", "tolerance")

# Totals over the engines, the hub index's figures (0 without it), then the run's own.
HUB_COUNTERS = ("lookups", "shortcut_uses", "hash_probes", "learner_observations",
                "entries_learnt", "fits_rejected")
COUNTERS = Engine.COUNTERS + HUB_COUNTERS + ("cycles", "load_cycles", "run_cycles",
                                             "write_cycles", "memory_reads", "memory_writes")


def registers(engines: int) -> tuple[str, ...]:
    """The register names in address order: :data:`GLOBAL_REGISTERS`, then ``first<e>`` (the
    first vertex of engine e's partition; ``first<engines>`` = the vertex count) for
    e = 0 .. engines."""
    return GLOBAL_REGISTERS + tuple(f"first{e}" for e in range(engines + 1))


def register_description(engines: int) -> RDLSource:
    """``registers.rdl`` (beside this file) for ``engines`` engines: the map of
    :func:`registers` and :data:`COUNTERS` (a test keeps them equal)."""
    return RDLSource(Path(__file__).with_name("registers.rdl"), "depgraph",
                     {"ENGINES": engines})


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


class DepGraph(RegisterDesign):
    """The DepGraph accelerator (§III-B, figure 6; see the module).

    Parameters
    ----------
    config : DepGraphConfig
    throttle : type or None
        The stream throttle of stall injection (the simulation top's).

    Members
    -------
    The members of :class:`~hw.lib.registers.design.RegisterDesign`: the registers
    :func:`registers`, the counters :data:`COUNTERS`, one memory port ``mem`` (tagged with
    the client's index: reads of different clients may come back in any order);
    ``control.error``: a circular queue overflowed (cannot happen with a well-formed image).
    """

    CONFIG = DepGraphConfig

    def __init__(self, config: DepGraphConfig, *, throttle=None):
        self.check_config(config)
        super().__init__(config, registers=registers(config.engines), counters=COUNTERS,
                         throttle=throttle)
        self._engines = []

    def register_description(self):
        return register_description(self.config.engines)

    @property
    def link_probes(self) -> list:
        """Every stream link of the accelerator and its engines (known once elaborated)."""
        probes = super().link_probes
        for engine in self._engines:
            probes += engine.link_probes
        return probes

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        m.submodules.registers = regs = RegisterFile(self._registers)
        m.d.comb += [regs.addr.eq(self.regs.addr), regs.data.eq(self.regs.data),
                     regs.write.eq(self.regs.write)]
        bounds = [getattr(regs, f"first{e}") for e in range(1, cfg.engines)]
        link = StreamLinks(m, percent=cfg.stall_injection, throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self._links = link
        engines = self._elaborate_engines(m, regs)

        hub = cfg.hub_index
        m.submodules.network = network = UpdateNetwork(sources=cfg.engines + hub,
                                                        banks=cfg.engines)
        m.d.comb += [network.bounds[b].eq(bound) for b, bound in enumerate(bounds)]
        for e, engine in enumerate(engines):
            link(engine.updates, network.i[e], f"engine{e}->network")
            link(network.o[e], engine.incoming, f"network->engine{e}")

        hub_clients, hub_quiet = [], 1
        if hub:
            hub_clients, hub_quiet = self._elaborate_hub(m, regs, engines, network, link)

        track_walks(m, engines, cfg.walks)
        loader, writer = self._elaborate_vertex_data(m, regs, bounds, engines)

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
        # the memory's tag in the same cycle, and the queue heads' valids reached the outbox's
        # write enable (each once the two-engine ECP5 build's critical path: docs/results.md).
        # No client refuses a response: the range readers (the HDTLs', the loader's, the
        # DDMU's) and the circular queue count their reads in flight against the room in their
        # line queues, the writer and the hub-index learner take theirs at once; so the
        # router does not wait on their ``ready`` (spread over the chip) either. Not with stall
        # injection, whose throttles on the response links refuse at random.
        self._memory_clients = [name for name, _, _ in clients]
        m.submodules.arbiter = arbiter = MemoryArbiter(
            ports=len(clients), addr_width=cfg.addr_width, outstanding=cfg.memory_outstanding,
            read_only=[index for index, (_, _, writes) in enumerate(clients) if not writes],
            response_buffer=True, request_slice=True,
            responses_never_refused=not cfg.stall_injection)
        for (name, client, _), port in zip(clients, arbiter.clients):
            link.port(client, port, name)
        wiring.connect(m, arbiter.bus, wiring.flipped(self.mem))

        m.submodules.control = control = RunControl()
        m.d.comb += [
            control.start.eq(self.control.start), self.control.busy.eq(control.busy),
            self.control.done.eq(control.done),
            loader.start.eq(self.control.start), writer.start.eq(control.write_start),
        ]
        # The load's end through a register each: whether the banks are idle comes from
        # every bank's queues (the smallest build's deepest path into the control's own
        # register of it); the loader's done is delayed alike, so the control sees both as
        # they were in the same cycle (one cycle more per run). ``start`` clears the delayed
        # done, which would otherwise still show the last run's in the load's first cycle.
        loader_done, store_idle = Signal(), Signal()
        m.d.sync += [loader_done.eq(loader.done & ~self.control.start),
                     store_idle.eq(~any_busy((e.store_busy for e in engines), link.busy))]
        m.d.comb += [
            control.loader_done.eq(loader_done), control.store_idle.eq(store_idle),
            control.quiet.eq(self._registered_quiet(m, engines, network, link, hub_quiet)),
            control.written.eq(writer.done & ~arbiter.busy & ~link.busy),
        ]
        for e in engines:
            m.d.comb += [e.start.eq(self.control.start), e.enable.eq(control.enable)]
        for name in ("cycles", "load_cycles", "run_cycles", "write_cycles"):
            m.d.comb += getattr(self.counters, name).eq(getattr(control, name))
        for name in Engine.COUNTERS:
            m.d.comb += getattr(self.counters, name).eq(sum(getattr(e, name) for e in engines))
        self._count_memory_requests(m)
        m.d.comb += self.control.error.eq(Cat(e.queue_overflow for e in engines).any())
        return m

    @staticmethod
    def _registered_quiet(m, engines, network, link, hub_quiet):
        """Whether nothing is left, from its terms each through a register where it is made
        (an engine's busy came from its HDTLs' states through the engine's and the top's
        ORs into the control's register: the one-engine build's path): the control sees
        every term one cycle late, alike (:class:`RunControl` allows for it)."""
        terms = [~e.busy for e in engines] + [e.drained.all() for e in engines]
        hub = Const(hub_quiet, 1) if isinstance(hub_quiet, int) else hub_quiet
        terms += [~network.busy, ~link.busy, hub]
        registered = Signal(len(terms))
        m.d.sync += registered.eq(Cat(terms))
        return registered.all()

    def _elaborate_engines(self, m, regs):
        """The engines, each on its partition ``first<e>`` .. ``first<e + 1>``."""
        cfg = self._config
        engines = []
        for e in range(cfg.engines):
            engine = Engine(cfg, e, throttle=self._throttle)
            m.submodules[f"engine{e}"] = engine
            engines.append(engine)
            if cfg.stall_injection:
                m.d.comb += engine.stall_seed.eq(self.stall_seed)
            m.d.comb += [getattr(engine, f"{name}_base").eq(getattr(regs, f"{name}_base"))
                         for name in engine.memory_ports]
            m.d.comb += [
                engine.first.eq(getattr(regs, f"first{e}")),
                engine.last.eq(getattr(regs, f"first{e + 1}")),
                engine.tolerance.eq(regs.tolerance),
            ]
        self._engines = engines
        return engines

    def _elaborate_vertex_data(self, m, regs, bounds, engines):
        """The vertex loader and writer, each bank's records routed to and from its engine.
        Returns them."""
        cfg = self._config
        m.submodules.loader = loader = VertexLoader(addr_width=cfg.addr_width,
                                                    banks=cfg.engines,
                                                    offsets=cfg.offsets_on_chip,
                                                    window=cfg.load_window)
        m.submodules.writer = writer = VertexWriter(addr_width=cfg.addr_width, banks=cfg.engines)
        m.d.comb += loader.num_vertices.eq(regs.num_vertices)
        for b, bound in enumerate(bounds):
            m.d.comb += loader.bounds[b].eq(bound)
        m.d.comb += [getattr(loader, f"{name}_base").eq(getattr(regs, f"{name}_base"))
                     for name in loader.arrays]
        m.d.comb += writer.state_base.eq(regs.state_base)
        for e, engine in enumerate(engines):
            mine = loader.records.payload.bank == e
            m.d.comb += [
                engine.load.valid.eq(loader.records.valid & mine),
                engine.load.payload.eq(loader.records.payload.item),
                writer.first[e].eq(engine.first), writer.last[e].eq(engine.last),
            ]
            with m.If(mine):
                m.d.comb += loader.records.ready.eq(engine.load.ready)
            wiring.connect(m, writer.requests[e], engine.dump)
            wiring.connect(m, engine.dumped, writer.states[e])
        return loader, writer

    def _count_memory_requests(self, m):
        """The memory's reads and writes since ``start`` (``counters.memory_reads``,
        ``counters.memory_writes``)."""
        reads = Signal(32)
        writes = Signal(32)
        with m.If(self.mem.req.valid & self.mem.req.ready):
            with m.If(self.mem.req.payload.write):
                m.d.sync += writes.eq(writes + 1)
            with m.Else():
                m.d.sync += reads.eq(reads + 1)
        with m.If(self.control.start):
            m.d.sync += [reads.eq(0), writes.eq(0)]
        m.d.comb += [self.counters.memory_reads.eq(reads), self.counters.memory_writes.eq(writes)]

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
            m.d.comb += getattr(self.counters, name).eq(value)
        return [("ddmu", ddmu.mem, False), ("learner", learner.mem, True)], \
            ~ddmu.busy & ~learner.busy & (in_flight == 0)
