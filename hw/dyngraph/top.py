"""The dynamic graph unit: a slab-hash graph in accelerator memory updated by batches of edge
and vertex operations (Awad et al., "Dynamic Graphs on the GPU", on Ashkiani et al.'s slab
hash), on one memory port shared through an arbiter.

Operations are read in file order (:class:`OpIssue`); an edge operation reads its source
vertex's word (:class:`VertexTable`), hashes its key to a bucket (:class:`BucketHash`), takes
the bucket's lock (:class:`LockIssue`) and walks the bucket's chain a slab at a time
(:class:`SlabPort`, :class:`SlabCompare`, :class:`OpStep`), allocating a slab when the chain is
full (:class:`SlabAllocator`); it ends at :class:`Retire` (its write, its answer, its count).
Vertex operations run alone (:class:`VertexOps`, with :class:`PoolSweep` for the in-edges of
deleted vertices). After the operations, :class:`SlabCompactor` can write the updated graph out
as Graphicionado's edge list. :mod:`hw.dyngraph.layouts` gives the memory image.
"""

from amaranth.hdl import Module, ResetInserter, Signal
from amaranth.lib import wiring

from hw.lib.busy import any_busy
from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from hw.lib.memory.interconnect import MemoryInterconnect
from hw.lib.memory.range_streamer import RangeStreamer
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.file import RegisterFile
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.register_slice import StreamRegisterSlice
from hw.lib.stream.select import StreamDemux
from hw.lib.stream.links import StreamLinks
from hw.dyngraph.bucket_hash import BucketHash
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.lock_issue import LockIssue
from hw.dyngraph.layouts import OUTCOMES, OP_WORDS, AllocRequest, Retire as RetireRecord, SlabCtx, \
    SlabWrite, TableCtx
from hw.dyngraph.op_issue import OpIssue
from hw.dyngraph.op_step import OpStep
from hw.dyngraph.pool_sweep import PoolSweep
from hw.dyngraph.presence_bitmap import PresenceBitmap
from hw.dyngraph.registers import COUNTERS, REGISTER_DESCRIPTION, REGISTERS
from hw.dyngraph.retire import Retire
from hw.dyngraph.run_control import RunControl
from hw.dyngraph.slab_allocator import SlabAllocator
from hw.dyngraph.slab_compactor import CLIENTS as COMPACT_CLIENTS, SlabCompactor
from hw.dyngraph.slab_compare import SlabCompare
from hw.dyngraph.slab_port import slab_out_layout, slab_read_layout
from hw.dyngraph.slab_ports import SlabPorts
from hw.dyngraph.vertex_ops import VertexOps
from hw.dyngraph.vertex_table import VertexTable, table_answer_layout, table_request_layout


__all__ = ["UpdateUnit", "REGISTERS", "COUNTERS"]


class UpdateUnit(RegisterDesign):
    """The members of :class:`~hw.lib.registers.design.RegisterDesign`: the registers
    :data:`REGISTERS`, the counters :data:`COUNTERS`."""

    CONFIG = DynGraphConfig

    def __init__(self, config: DynGraphConfig, *, throttle=None):
        super().__init__(config, registers=REGISTERS, counters=COUNTERS, throttle=throttle)

    def register_description(self):
        return REGISTER_DESCRIPTION

    def _blocks(self, m, restart):
        cfg = self._config
        aw = cfg.addr_width
        depth = cfg.memory_outstanding // 2
        b = {
            "regs": RegisterFile(REGISTERS),
            "control": RunControl(addr_width=aw),
            # The whole bitmap in flight at once where it fits the window (128 lines of
            # 2**16 vertices): its load is the one part of a run nothing else overlaps.
            "present_reader": RangeStreamer(addr_width=aw, item_words=16,
                                            window=min(256, max(cfg.read_window,
                                                                cfg.max_vertices // 512))),
            "bitmap": PresenceBitmap(max_vertices=cfg.max_vertices),
            "op_reader": RangeStreamer(addr_width=aw, item_words=OP_WORDS,
                                       window=cfg.read_window),
            "issue": OpIssue(sweep_group=cfg.sweep_group),
            "lock_issue": LockIssue(slots=cfg.slots),
            # The lock stage offers only buckets its probes found free and that nothing
            # staged or locked since holds (so none is being removed): the insert need not
            # compare tags, and a register per set says whether it has a free way.
            "lock": AtomicUpdateCAM(CAMConfig(entries=4 * cfg.slots, ways=cfg.lock_ways),
                                    second_probe=True, insert_checked=False,
                                    free_registers=True),
            "table": VertexTable(addr_width=aw, ctx_shape=TableCtx, depth=2 * cfg.slots),
            # Every arbiter's grant is a register: none joins its sources' valid/ready chains
            # (the vertex operations' state, the walk's queues, the allocator's stack top)
            # into one path with its sink's.
            "table_requests": StreamArbiter(table_request_layout(TableCtx), 2,
                                            registered_grant=True),
            "table_answers": StreamDemux(table_answer_layout(TableCtx), 2,
                                         route=lambda p: p.ctx.purpose.as_value()),
            "hash": BucketHash(slab_index_bits=cfg.slab_index_bits),
            "slab_reads": StreamArbiter(slab_read_layout(SlabCtx), 4, registered_grant=True),
            "slab_port": SlabPorts(ports=cfg.slab_ports, addr_width=aw, depth=depth),
            "slabs": StreamDemux(slab_out_layout(SlabCtx), 3,
                                 route=lambda p: p.ctx.purpose.as_value()),
            "compare": SlabCompare(ctx_shape=SlabCtx, key_of=lambda ctx: ctx.op.v),
            "step": OpStep(),
            "allocator": SlabAllocator(addr_width=aw, plenty=cfg.slots),
            "alloc_requests": StreamArbiter(AllocRequest, 2, registered_grant=True),
            "retire_in": StreamArbiter(RetireRecord, 3, registered_grant=True),
            "retire": Retire(addr_width=aw),
            "slab_writes": StreamArbiter(SlabWrite, 4, registered_grant=True),
            "vertex_ops": VertexOps(slab_index_bits=cfg.slab_index_bits,
                                    group=cfg.sweep_group),
            "sweep": PoolSweep(group=cfg.sweep_group),
            "compactor": SlabCompactor(addr_width=aw, slab_index_bits=cfg.slab_index_bits,
                                       depth=depth, read_window=cfg.read_window,
                                       edge_words=cfg.compact_edge_words),
        }
        # A START after a run (or after ERROR) puts every block in its state out of reset,
        # the cycle the run control restarts: counters, the issue's progress, the retire's
        # outcomes. The allocator and the bitmap take ``restart`` themselves (the allocator
        # loads the host's stack top), and the registers keep what the host wrote.
        for name, block in b.items():
            if name not in ("regs", "control", "allocator", "bitmap"):
                block = ResetInserter(restart)(block)
            m.submodules[name] = block
        return b

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        restart = Signal()
        b = self._blocks(m, restart)
        m.d.comb += restart.eq(b["control"].restart)
        memory_busy = Signal()        # the interconnect's, made below
        regs = b["regs"]
        m.d.comb += [regs.addr.eq(self.regs.addr), regs.data.eq(self.regs.data),
                     regs.write.eq(self.regs.write)]
        link = StreamLinks(m, percent=cfg.stall_injection, throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self._links = link
        self._wire_streams(m, b, link)
        self._wire_direct(m, b)
        self._wire_settings(m, b, memory_busy)
        clients = [("op_reader", b["op_reader"].mem, False),
                   ("present_reader", b["present_reader"].mem, False),
                   ("table", b["table"].mem, True),
                   *((f"slab_port{k}", port, True) for k, port in enumerate(b["slab_port"].mem)),
                   ("stack", b["allocator"].mem, True),
                   ("answers", b["retire"].mem, True),
                   *((name, port, name == COMPACT_CLIENTS[-1])
                     for name, port in zip(COMPACT_CLIENTS, b["compactor"].mem))]
        self._memory_clients = [name for name, _, _ in clients]
        m.submodules.interconnect = interconnect = MemoryInterconnect(
            ports=len(clients), channels=cfg.memory_channels, addr_width=cfg.addr_width,
            outstanding=cfg.memory_outstanding,
            read_only=[index for index, (_, _, writes) in enumerate(clients) if not writes])
        m.d.comb += memory_busy.eq(interconnect.busy)
        for (name, client, _), port in zip(clients, interconnect.clients):
            link.port(client, port, name)
        channels = [self.mem] if cfg.memory_channels == 1 else list(self.mem)
        for channel, mem in zip(interconnect.channels, channels):
            wiring.connect(m, channel, wiring.flipped(mem))

        busy = [b[name].busy for name in ("op_reader", "present_reader", "table", "hash",
                                          "slab_port", "compare", "step", "allocator",
                                          "retire", "vertex_ops", "sweep", "compactor")]
        busy.append(~b["lock_issue"].idle)
        busy.append(b["lock"].remove.valid)
        control = b["control"]
        m.d.comb += [control.quiet.eq(~any_busy(busy, interconnect.busy, link.busy)),
                     control.start.eq(self.control.start), self.control.busy.eq(control.busy),
                     self.control.done.eq(control.done), self.control.error.eq(b["lock"].remove_miss)]
        self._counters(m, b, interconnect)
        return m

    def _wire_streams(self, m, b, link):
        """The links whose order nothing depends on (throttled when stalls are injected)."""
        issue, retire_in = b["issue"], b["retire_in"]
        # Register slices cut the longest paths of an ECP5 build (the issue's edge operations
        # leave through its own): the operation reader into the issue, the lock stage's
        # probes back into the hash, the slab port's line assembly into the 15-key compare,
        # the sweep's and the retire and slab-write arbiters' grants into the slab ports'
        # address adders. Forward-only (one register a bit, no skid multiplexer) where the
        # payload is wide and the ready path short.
        link(b["op_reader"].items, issue.ops, "op_reader->issue", register=True)
        link(b["issue"].edges, b["table_requests"].i[0], "issue->table")
        link(b["table_answers"].o[0], b["hash"].i, "table->hash")
        link(b["hash"].o, b["lock_issue"].i, "hash->lock", register=True)
        link(b["lock_issue"].o, b["slab_reads"].i[0], "lock->slab_port")
        link(b["step"].next, b["slab_reads"].i[1], "step->slab_port")
        link(b["slabs"].o[0], b["compare"].i, "slab_port->compare", register=True)
        link(b["compare"].o, b["step"].i, "compare->step")
        link(b["step"].retire, retire_in.i[0], "step->retire")
        link(b["allocator"].retire, retire_in.i[1], "allocator->retire")
        link(issue.skips, retire_in.i[2], "issue->retire")
        link(retire_in.o, b["retire"].i, "retire_in->retire", register=True, skid=False)
        link(b["retire"].writes, b["slab_writes"].i[0], "retire->slab_port", register=True)
        link(b["step"].allocate, b["alloc_requests"].i[0], "step->allocator")
        link(b["sweep"].reads, b["slab_reads"].i[3], "sweep->slab_port", register=True,
             skid=False)
        link(b["slabs"].o[2], b["sweep"].slabs, "slab_port->sweep", register=True,
             skid=False)

    def _wire_direct(self, m, b):
        """The links a later operation's reads must find done when their producer moves on:
        a vertex operation's writes, the allocator's new slabs, the sweep's tombstones."""
        vertex_ops, allocator, bitmap = b["vertex_ops"], b["allocator"], b["bitmap"]
        connect = wiring.connect
        connect(m, b["present_reader"].items, bitmap.load)
        connect(m, b["control"].load_cmd, b["present_reader"].cmd)
        connect(m, b["control"].ops_cmd, b["op_reader"].cmd)
        connect(m, vertex_ops.table, b["table_requests"].i[1])
        connect(m, b["table_requests"].o, b["table"].requests)
        connect(m, b["table"].answers, b["table_answers"].i)
        connect(m, b["table_answers"].o[1], vertex_ops.table_answers)
        connect(m, vertex_ops.presence, bitmap.update)
        connect(m, vertex_ops.alloc, b["alloc_requests"].i[1])
        connect(m, b["alloc_requests"].o, allocator.requests)
        connect(m, allocator.granted, vertex_ops.granted)
        connect(m, vertex_ops.frees, allocator.frees)
        connect(m, vertex_ops.reads, b["slab_reads"].i[2])
        connect(m, b["slab_reads"].o, b["slab_port"].reads)
        connect(m, b["slab_port"].slabs, b["slabs"].i)
        connect(m, b["slabs"].o[1], vertex_ops.slabs)
        connect(m, allocator.writes, b["slab_writes"].i[1])
        connect(m, vertex_ops.writes, b["slab_writes"].i[2])
        connect(m, b["sweep"].writes, b["slab_writes"].i[3])
        connect(m, b["slab_writes"].o, b["slab_port"].writes)
        connect(m, b["issue"].vertex_ops, vertex_ops.op)
        connect(m, b["lock_issue"].lock, b["lock"].insert)
        # A lock is freed the cycle after its write enters the slab port: the CAM's remove
        # and its insert for the next operation are then not one combinational path.
        m.submodules.release = release = StreamRegisterSlice(32, skid=False)
        connect(m, b["slab_port"].released, release.i)
        connect(m, release.o, b["lock"].remove)

    def _wire_settings(self, m, b, memory_busy):
        regs, control, issue, bitmap = b["regs"], b["control"], b["issue"], b["bitmap"]
        lock_issue = b["lock_issue"]
        allocator, sweep, vertex_ops = b["allocator"], b["sweep"], b["vertex_ops"]
        aw = self._config.addr_width
        present = b["present_reader"]
        m.d.comb += [
            control.present_base.eq(regs.present_base[:aw]),
            control.present_lines.eq(regs.present_lines),
            control.line_loaded.eq(present.items.valid & present.items.ready),
            control.finished.eq(issue.finished),
            bitmap.restart.eq(control.restart),
            control.ops_base.eq(regs.ops_base[:aw]),
            control.ops_count.eq(regs.ops_count),
            issue.go.eq(control.go),
            issue.ops_count.eq(regs.ops_count),
            issue.batch_size.eq(regs.batch_size),
            issue.present_u.eq(bitmap.present_u),
            issue.present_v.eq(bitmap.present_v),
            bitmap.read_en.eq(issue.read_en),
            bitmap.read_u.eq(issue.read_u),
            bitmap.read_v.eq(issue.read_v),
            issue.released.eq(b["lock"].remove.valid),
            lock_issue.released.eq(b["lock"].remove.valid),
            lock_issue.parallel.eq(allocator.plenty),
            b["lock"].probe_id.eq(lock_issue.probe_id),
            lock_issue.probe_hit.eq(b["lock"].probe_hit),
            b["lock"].probe2_id.eq(lock_issue.probe2_id),
            lock_issue.probe2_hit.eq(b["lock"].probe2_hit),
            b["table"].base.eq(regs.vertices_base[:aw]),
            b["slab_port"].pool_base.eq(regs.pool_base[:aw]),
            allocator.stack_base.eq(regs.stack_base[:aw]),
            allocator.start_top.eq(regs.stack_top),
            allocator.restart.eq(control.restart),
            b["retire"].answers_base.eq(regs.answers_base[:aw]),
            sweep.start.eq(vertex_ops.sweep_start),
            sweep.count.eq(vertex_ops.sweep_count),
            sweep.pool_slabs.eq(regs.pool_slabs),
            vertex_ops.sweep_busy.eq(sweep.busy),
            vertex_ops.memory_quiet.eq(~b["slab_port"].busy & ~memory_busy),
        ]
        compactor = b["compactor"]
        m.d.comb += [
            control.compact_vertices.eq(regs.compact_vertices),
            compactor.start.eq(control.compact_start),
            control.compact_done.eq(compactor.done),
            compactor.num_vertices.eq(regs.compact_vertices),
            compactor.vertices_base.eq(regs.vertices_base[:aw]),
            compactor.pool_base.eq(regs.pool_base[:aw]),
            compactor.edges_base.eq(regs.edges_base[:aw]),
            compactor.table_base.eq(regs.table_base[:aw]),
            compactor.vconst_base.eq(regs.vconst_base[:aw]),
        ]
        m.d.comb += [sweep.ids[k].eq(vertex_ops.sweep_ids[k])
                     for k in range(self._config.sweep_group)]

    def _counters(self, m, b, interconnect):
        reads, writes = Signal(32), Signal(32)
        read_sent = [bus.req.valid & bus.req.ready & ~bus.req.payload.write
                     for bus in interconnect.channels]
        write_sent = [bus.req.valid & bus.req.ready & bus.req.payload.write
                      for bus in interconnect.channels]
        with m.If(self.control.start):
            m.d.sync += [reads.eq(0), writes.eq(0)]
        with m.Else():
            m.d.sync += [reads.eq(reads + sum(read_sent)), writes.eq(writes + sum(write_sent))]
        control, issue, retire = b["control"], b["issue"], b["retire"]
        vertex_ops, allocator, sweep = b["vertex_ops"], b["allocator"], b["sweep"]
        sources = {
            "cycles": control.cycles, "load_cycles": control.load_cycles,
            "issued": issue.issued, "batches": issue.batches,
            **{name: getattr(retire, name) for name in OUTCOMES},
            "vertices_inserted": vertex_ops.inserted,
            "vertex_insert_present": vertex_ops.insert_present,
            "vertices_deleted": vertex_ops.deleted,
            "vertex_delete_absent": vertex_ops.delete_absent,
            "in_edges_removed": sweep.removed, "walk_slab_reads": b["step"].steps,
            "free_slab_reads": vertex_ops.free_reads, "sweeps": vertex_ops.sweeps,
            "sweep_slab_reads": sweep.slab_reads, "allocations": allocator.allocations,
            "allocation_failures": allocator.failures, "slabs_freed": allocator.pushes,
            "stack_top": allocator.top, "lock_waits": b["lock_issue"].lock_waits,
            "deferred": b["lock_issue"].deferred, "port_waits": b["lock_issue"].port_waits,
            "slot_waits": b["lock_issue"].slot_waits,
            "slab_reads": b["slab_port"].reads_done, "slab_writes": b["slab_port"].writes_done,
            "memory_reads": reads, "memory_writes": writes,
            "compact_cycles": control.compact_cycles,
            "compacted_edges": b["compactor"].edges,
            "compact_slab_reads": b["compactor"].slab_reads,
            "compact_chain_reads": b["compactor"].chain_reads,
        }
        m.d.comb += [getattr(self.counters, name).eq(value) for name, value in sources.items()]
