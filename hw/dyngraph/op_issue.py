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
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import EdgeKind, OpKind, Outcome, OpWords, Retire, TablePurpose, \
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

    def _edge_out(self, m):
        """The edge operations' output register (a register slice): the bitmap's read, the
        latest input here, goes only into its payload, not into the issue's choice; after
        it, the presence bits pick ``edges`` or ``skips``."""
        m.submodules.edge_out = out = StreamRegisterSlice(data.StructLayout({
            "present": 1, "request": table_request_layout(TableCtx)}))
        present, request = out.o.payload.present, out.o.payload.request
        m.d.comb += [
            self.edges.valid.eq(out.o.valid & present),
            self.edges.payload.eq(request),
            self.skips.valid.eq(out.o.valid & ~present),
            self.skips.payload.outcome.eq(Outcome.SKIPPED),
            self.skips.payload.search.eq(request.ctx.op.kind == EdgeKind.SEARCH),
            self.skips.payload.answer.index.eq(request.ctx.op.answer),
            out.o.ready.eq(Mux(present, self.edges.ready, self.skips.ready)),
        ]
        return out

    def _drained(self, m, out):
        """Whether no edge operation is in flight (from its entry into the output register
        to its end) and no skip waits there: a vertex operation waits for that."""
        in_flight = Signal(16)
        edge_sent = out.i.valid & out.i.ready & out.i.payload.present
        with m.If(edge_sent & ~self.released):
            m.d.sync += in_flight.eq(in_flight + 1)
        with m.Elif(~edge_sent & self.released):
            m.d.sync += in_flight.eq(in_flight - 1)
        return (in_flight == 0) & ~out.o.valid

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
        out = self._edge_out(m)
        drained = self._drained(m, out)
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
        present = self.present_u & self.present_v
        # A batch boundary: wait for the batch's operations to end, then count it.
        boundary = held & batch_full & drained
        # A vertex operation's group end from registered compares (not in the path to the
        # vertex operations' start): right a cycle after the counters last moved, so a
        # vertex operation waits for that cycle.
        last_op, batch_end, settled = Signal(), Signal(), Signal()
        m.d.sync += [last_op.eq(self.issued == ops_last), batch_end.eq(in_batch == batch_last),
                     settled.eq(~leave & ~boundary)]
        with m.If(boundary):
            m.d.sync += [in_batch.eq(0), self.batches.eq(self.batches + 1),
                         batch_full.eq(self.batch_size == 0)]
        ready_to_go = held & ~batch_full

        # Edge operations, with their presence bits, into the output register.
        edge_op = out.i.payload.request.ctx.op
        m.d.comb += [
            out.i.valid.eq(ready_to_go & edge),
            out.i.payload.present.eq(present),
            out.i.payload.request.write.eq(0),
            out.i.payload.request.vertex.eq(op.u),
            out.i.payload.request.ctx.purpose.eq(TablePurpose.TO_HASH),
            edge_op.kind.eq(kind),
            edge_op.u.eq(op.u),
            edge_op.v.eq(op.v),
            edge_op.w.eq(op.w),
            edge_op.answer.eq(searches),
        ]

        # Vertex operations, alone; a run of deletions shares one sweep.
        next_op = data.View(OpWords, self.ops.payload.data)
        next_known = self.ops.valid | last_op
        next_is_delete = self.ops.valid & (next_op.kind[:3] == OpKind.DELETE_VERTEX)
        group_end = (last_op | batch_end |
                     (group == self._sweep_group - 1) | ~next_is_delete)
        vertex = self.vertex_ops.payload
        m.d.comb += [
            self.vertex_ops.valid.eq(ready_to_go & ~edge & drained & next_known & settled),
            vertex.insert.eq(kind == OpKind.INSERT_VERTEX),
            vertex.u.eq(op.u),
            vertex.present.eq(self.present_u),
            vertex.group_end.eq(group_end),
        ]

        m.d.comb += leave.eq(Mux(edge, ready_to_go & out.i.ready,
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
