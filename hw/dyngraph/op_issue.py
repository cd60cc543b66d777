"""Operation issue, in file order: Awad et al. apply a batch's operations with many warps at
once, each warp on one source vertex's table; here up to ``slots`` edge operations are in
flight, each on a different source vertex (the lock CAM, Graphicionado's atomic-update CAM),
so operations on one vertex take effect in file order and the others overtake freely.

* an edge operation with an absent end is skipped at once (a search answers "absent");
* a vertex operation waits until every edge operation before it has ended and runs alone
  (it changes the presence bits the next operations read, and frees or takes slabs);
* a batch ends when all its operations have ended (the GPU's kernel boundary);
* when fewer slabs are free than ``slots``, edge operations go one at a time, so the inserts
  that find the pool empty are exactly those the file order says (an insert allocates at
  most one slab, so with ``slots`` free no operation in flight can be refused).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..range_streamer import range_out_layout
from .layouts import (DELETE_VERTEX, INSERT_VERTEX, SEARCH, SKIPPED, TO_HASH, OpWords,
                      Retire, TableCtx, VertexOp)
from .vertex_table import table_request_layout


__all__ = ["OpIssue"]


class OpIssue(wiring.Component):
    """Parameters
    ----------
    slots : int
        Edge operations in flight at most.
    sweep_group : int
        Consecutive vertex deletions that share a sweep.

    Members
    -------
    go : ``In(1)``
        Issue (after the presence bitmap is loaded).
    ops_count, batch_size : ``In(32)``
    ops : ``In(stream.Signature(range_out_layout(4, 1)))``
        The operation words, in order.
    read_en : ``Out(1)``; read_u, read_v : ``Out(32)``; present_u, present_v : ``In(1)``
        The presence bitmap's read port.
    lock : ``Out(stream.Signature(32))``
        The source vertex of an edge operation issued (the lock CAM's insert).
    lookups : ``Out(stream.Signature(table_request_layout(TableCtx)))``
        An issued edge operation's vertex-table read.
    skips : ``Out(stream.Signature(Retire))``
    vertex_ops : ``Out(stream.Signature(VertexOp))``
        Taken when the vertex operation has finished.
    released : ``In(1)``
        An edge operation ended (its lock released).
    free_slabs : ``In(32)``
    issued : ``Out(32)``; batches : ``Out(32)``; lock_waits : ``Out(32)``
    finished : ``Out(1)``
        Every operation issued and ended, every batch counted.
    in_flight : ``Out(range(slots + 1))``
    """

    def __init__(self, *, slots: int, sweep_group: int):
        self._slots = slots
        self._sweep_group = sweep_group
        super().__init__({
            "go": In(1),
            "ops_count": In(32),
            "batch_size": In(32),
            "ops": In(stream.Signature(range_out_layout(4, 1))),
            "read_en": Out(1), "read_u": Out(32), "read_v": Out(32),
            "present_u": In(1), "present_v": In(1),
            "lock": Out(stream.Signature(32)),
            "lookups": Out(stream.Signature(table_request_layout(TableCtx))),
            "skips": Out(stream.Signature(Retire)),
            "vertex_ops": Out(stream.Signature(VertexOp)),
            "released": In(1),
            "free_slabs": In(32),
            "issued": Out(32),
            "batches": Out(32),
            "lock_waits": Out(32),
            "finished": Out(1),
            "in_flight": Out(range(slots + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        slots = self._slots
        op = Signal(OpWords)
        held = Signal()
        leave = Signal()
        m.d.comb += [self.ops.ready.eq(self.go & (~held | leave)),
                     self.read_en.eq(self.ops.valid & self.ops.ready)]
        incoming = data.View(OpWords, self.ops.payload.data)
        m.d.comb += [self.read_u.eq(incoming.u), self.read_v.eq(incoming.v)]
        with m.If(self.ops.ready):
            m.d.sync += [held.eq(self.ops.valid), op.eq(incoming)]

        in_batch = Signal(32)
        group = Signal(range(self._sweep_group + 1))
        searches = Signal(32)
        kind = op.kind[:3]
        edge = kind < INSERT_VERTEX
        drained = self.in_flight == 0
        batch_full = in_batch == self.batch_size
        last_op = self.issued + 1 == self.ops_count
        present = self.present_u & self.present_v
        # A batch boundary: wait for the batch's operations to end, then count it.
        with m.If(held & batch_full & drained):
            m.d.sync += [in_batch.eq(0), self.batches.eq(self.batches + 1)]
        ready_to_go = held & ~batch_full

        # Edge operations.
        parallel = self.free_slabs >= slots
        credit = (self.in_flight < slots) & (parallel | drained)
        issue = ready_to_go & edge & present & credit
        skip = ready_to_go & edge & ~present
        lookup = self.lookups.payload
        m.d.comb += [
            self.lock.payload.eq(op.u),
            self.lock.valid.eq(issue & self.lookups.ready),
            self.lookups.valid.eq(issue & self.lock.ready),
            lookup.write.eq(0),
            lookup.vertex.eq(op.u),
            lookup.ctx.purpose.eq(TO_HASH),
            lookup.ctx.op.kind.eq(kind),
            lookup.ctx.op.u.eq(op.u),
            lookup.ctx.op.v.eq(op.v),
            lookup.ctx.op.w.eq(op.w),
            lookup.ctx.op.answer.eq(searches),
            self.skips.valid.eq(skip),
            self.skips.payload.outcome.eq(SKIPPED),
            self.skips.payload.search.eq(kind == SEARCH),
            self.skips.payload.answer.index.eq(searches),
        ]
        with m.If(issue & ~self.lock.ready):
            m.d.sync += self.lock_waits.eq(self.lock_waits + 1)

        # Vertex operations, alone; a run of deletions shares one sweep.
        next_op = data.View(OpWords, self.ops.payload.data)
        next_known = self.ops.valid | last_op
        next_is_delete = self.ops.valid & (next_op.kind[:3] == DELETE_VERTEX)
        group_end = (last_op | (in_batch + 1 == self.batch_size) |
                     (group + 1 == self._sweep_group) | ~next_is_delete)
        vertex = self.vertex_ops.payload
        m.d.comb += [
            self.vertex_ops.valid.eq(ready_to_go & ~edge & drained & next_known),
            vertex.insert.eq(kind == INSERT_VERTEX),
            vertex.u.eq(op.u),
            vertex.present.eq(self.present_u),
            vertex.group_end.eq(group_end),
        ]

        m.d.comb += leave.eq((self.lock.valid & self.lock.ready) |
                             (self.skips.valid & self.skips.ready) |
                             (self.vertex_ops.valid & self.vertex_ops.ready))
        with m.If(leave):
            m.d.sync += [self.issued.eq(self.issued + 1), in_batch.eq(in_batch + 1)]
            with m.If(kind == SEARCH):
                m.d.sync += searches.eq(searches + 1)
            with m.If(kind == DELETE_VERTEX):
                m.d.sync += group.eq(0)
                with m.If(~group_end):
                    m.d.sync += group.eq(group + 1)
        issued_now = self.lock.valid & self.lock.ready
        with m.If(issued_now & ~self.released):
            m.d.sync += self.in_flight.eq(self.in_flight + 1)
        with m.Elif(~issued_now & self.released):
            m.d.sync += self.in_flight.eq(self.in_flight - 1)
        # The last batch is counted when its operations have ended.
        counted = Signal()
        all_issued = (self.issued == self.ops_count) & ~held
        with m.If(self.go & all_issued & drained & ~counted & (self.ops_count != 0)):
            m.d.sync += [counted.eq(1), self.batches.eq(self.batches + 1)]
        m.d.comb += self.finished.eq(self.go & all_issued & drained &
                                     (counted | (self.ops_count == 0)))
        return m
