"""Operation issue, in file order: Awad et al. apply a batch's operations with many warps at
once; here each edge operation goes on to its source vertex's word read, the bucket hash and
:class:`~hw.dyngraph.lock_issue.LockIssue` (one in flight per bucket), and

* an edge operation with an absent end is skipped at once (a search answers "absent");
* a vertex operation waits until every edge operation before it has ended and runs alone
  (it changes the presence bits the next operations read, and frees or takes slabs);
* a batch ends when all its operations have ended (the GPU's kernel boundary).
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.range_streamer import range_out_layout
from .layouts import OpKind, Outcome, OpWords, Retire, TablePurpose, \
    TableCtx, VertexOp
from .vertex_table import table_request_layout


__all__ = ["OpIssue"]


class OpIssue(wiring.Component):
    """Parameters
    ----------
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
    edges : ``Out(stream.Signature(table_request_layout(TableCtx)))``
        Edge operations with both ends present, searches numbered: their source vertex's
        word read.
    released : ``In(1)``
        An edge operation ended (its lock released).
    skips : ``Out(stream.Signature(Retire))``
    vertex_ops : ``Out(stream.Signature(VertexOp))``
        Taken when the vertex operation has finished.
    issued : ``Out(32)``; batches : ``Out(32)``
    finished : ``Out(1)``
        Every operation issued and ended, every batch counted.
    """

    def __init__(self, *, sweep_group: int):
        check_int("OpIssue", "sweep_group", sweep_group)
        self._sweep_group = sweep_group
        super().__init__({
            "go": In(1),
            "ops_count": In(32),
            "batch_size": In(32),
            "ops": In(stream.Signature(range_out_layout(4, 1))),
            "read_en": Out(1), "read_u": Out(32), "read_v": Out(32),
            "present_u": In(1), "present_v": In(1),
            "edges": Out(stream.Signature(table_request_layout(TableCtx))),
            "released": In(1),
            "skips": Out(stream.Signature(Retire)),
            "vertex_ops": Out(stream.Signature(VertexOp)),
            "issued": Out(32),
            "batches": Out(32),
            "finished": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
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
        edge = kind < OpKind.INSERT_VERTEX
        # Edge operations issued and not yet ended; a vertex operation waits for none.
        in_flight = Signal(16)
        edge_sent = self.edges.valid & self.edges.ready
        with m.If(edge_sent & ~self.released):
            m.d.sync += in_flight.eq(in_flight + 1)
        with m.Elif(~edge_sent & self.released):
            m.d.sync += in_flight.eq(in_flight - 1)
        drained = in_flight == 0
        # ``x + 1 == n`` as ``x == n - 1`` with ``n - 1`` registered (the run's settings do
        # not change while it issues): no adder between the counters and the issue's
        # choice, which ran on through the vertex operation into the sweep's start.
        batch_last = Signal(32)
        ops_last = Signal(32)
        m.d.sync += [batch_last.eq(self.batch_size - 1), ops_last.eq(self.ops_count - 1)]
        # ``in_batch == batch_size``, kept beside ``in_batch`` (a register, not a compare).
        batch_full = Signal()
        with m.If(~self.go):
            m.d.sync += batch_full.eq(self.batch_size == 0)
        last_op = self.issued == ops_last
        present = self.present_u & self.present_v
        # A batch boundary: wait for the batch's operations to end, then count it.
        with m.If(held & batch_full & drained):
            m.d.sync += [in_batch.eq(0), self.batches.eq(self.batches + 1),
                         batch_full.eq(self.batch_size == 0)]
        ready_to_go = held & ~batch_full

        # Edge operations.
        issue = ready_to_go & edge & present
        skip = ready_to_go & edge & ~present
        edge_op = self.edges.payload.ctx.op
        m.d.comb += [
            self.edges.valid.eq(issue),
            self.edges.payload.write.eq(0),
            self.edges.payload.vertex.eq(op.u),
            self.edges.payload.ctx.purpose.eq(TablePurpose.TO_HASH),
            edge_op.kind.eq(kind),
            edge_op.u.eq(op.u),
            edge_op.v.eq(op.v),
            edge_op.w.eq(op.w),
            edge_op.answer.eq(searches),
            self.skips.valid.eq(skip),
            self.skips.payload.outcome.eq(Outcome.SKIPPED),
            self.skips.payload.search.eq(kind == OpKind.SEARCH),
            self.skips.payload.answer.index.eq(searches),
        ]

        # Vertex operations, alone; a run of deletions shares one sweep.
        next_op = data.View(OpWords, self.ops.payload.data)
        next_known = self.ops.valid | last_op
        next_is_delete = self.ops.valid & (next_op.kind[:3] == OpKind.DELETE_VERTEX)
        group_end = (last_op | (in_batch == batch_last) |
                     (group == self._sweep_group - 1) | ~next_is_delete)
        vertex = self.vertex_ops.payload
        m.d.comb += [
            self.vertex_ops.valid.eq(ready_to_go & ~edge & drained & next_known),
            vertex.insert.eq(kind == OpKind.INSERT_VERTEX),
            vertex.u.eq(op.u),
            vertex.present.eq(self.present_u),
            vertex.group_end.eq(group_end),
        ]

        # The presence bits (the bitmap's read, the latest input here) only pick which
        # ready counts.
        m.d.comb += leave.eq(Mux(edge, ready_to_go & Mux(present, self.edges.ready,
                                                         self.skips.ready),
                                 self.vertex_ops.valid & self.vertex_ops.ready))
        with m.If(leave):
            m.d.sync += [self.issued.eq(self.issued + 1), in_batch.eq(in_batch + 1),
                         batch_full.eq(in_batch == batch_last)]
            with m.If(kind == OpKind.SEARCH):
                m.d.sync += searches.eq(searches + 1)
            with m.If(kind == OpKind.DELETE_VERTEX):
                m.d.sync += group.eq(0)
                with m.If(~group_end):
                    m.d.sync += group.eq(group + 1)
        # The last batch is counted when its operations have ended.
        counted = Signal()
        all_issued = (self.issued == self.ops_count) & ~held
        with m.If(self.go & all_issued & drained & ~counted & (self.ops_count != 0)):
            m.d.sync += [counted.eq(1), self.batches.eq(self.batches + 1)]
        m.d.comb += self.finished.eq(self.go & all_issued & drained &
                                     (counted | (self.ops_count == 0)))
        return m
