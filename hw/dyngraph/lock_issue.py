"""The lock on each source vertex, and a waiting queue so a conflict does not stop the issue.

Awad et al. give each source vertex's operations to one warp (a vote picks the edges of one
source), so one vertex's updates never race; here each edge operation in flight holds its
source vertex in the lock CAM (Graphicionado's atomic-update CAM). An operation whose vertex
is held waits in a small queue instead of holding up the operations behind it; a later
operation of a vertex that waits there queues behind it, so each vertex's operations still
take effect in file order. The waiting queue's head goes first when its vertex is free.

When fewer slabs are free than ``slots`` (``parallel`` low) operations go one at a time in
file order, the waiting ones (earlier in the file) first, so the inserts the pool refuses
are exactly the golden model's.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..stream_fifo import StreamFIFO
from .layouts import TO_HASH, EdgeOp, TableCtx
from .vertex_table import table_request_layout


__all__ = ["LockIssue"]


class LockIssue(wiring.Component):
    """Parameters
    ----------
    slots : int
        Operations in flight at most.
    waiting : int
        Entries of the waiting queue (a power of two).

    Members
    -------
    i : ``In(stream.Signature(EdgeOp))``
        Edge operations in file order, both ends present.
    o : ``Out(stream.Signature(table_request_layout(TableCtx)))``
        An operation issued: its source vertex's word read.
    lock : ``Out(stream.Signature(32))``
        To the lock CAM's ``insert``.
    probe_id : ``Out(32)``; probe_hit : ``In(1)``
        The lock CAM's probe: is the waiting queue's head's vertex held?
    probe2_id : ``Out(32)``; probe2_hit : ``In(1)``
        Its second probe: is the next operation's vertex held?
    released : ``In(1)``
        An operation ended.
    parallel : ``In(1)``
        Enough free slabs for ``slots`` operations at once.
    in_flight : ``Out(range(slots + 1))``
    idle : ``Out(1)``
        Nothing offered, waiting or in flight.
    lock_waits, table_waits, deferred : ``Out(32)``
        Cycles the issue stopped on the lock (a full CAM set, or a held vertex with the
        waiting queue full) and on the vertex table's port, and operations that went to the
        waiting queue.
    """

    def __init__(self, *, slots: int, waiting: int = 16):
        self._slots = slots
        self._waiting = waiting
        super().__init__({
            "i": In(stream.Signature(EdgeOp)),
            "o": Out(stream.Signature(table_request_layout(TableCtx))),
            "lock": Out(stream.Signature(32)),
            "probe_id": Out(32),
            "probe_hit": In(1),
            "probe2_id": Out(32),
            "probe2_hit": In(1),
            "released": In(1),
            "parallel": In(1),
            "in_flight": Out(range(slots + 1)),
            "idle": Out(1),
            "lock_waits": Out(32),
            "table_waits": Out(32),
            "deferred": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._waiting
        m.submodules.queue = queue = StreamFIFO(EdgeOp, depth)
        # The vertices in the queue, by position, for the comparison with a new operation.
        waiting_u = [Signal(32, name=f"waiting_u{k}") for k in range(depth)]
        waiting_valid = Signal(depth)
        write_at = Signal(range(depth))
        read_at = Signal(range(depth))

        head = queue.o.payload
        m.d.comb += [self.probe_id.eq(head.u), self.probe2_id.eq(self.i.payload.u)]
        head_free = queue.o.valid & ~self.probe_hit
        drained = self.in_flight == 0
        credit = (self.in_flight < self._slots) & (self.parallel | drained)
        behind = Cat((waiting_valid[k] & (waiting_u[k] == self.i.payload.u))
                     for k in range(depth)).any()
        # A new operation waits: its vertex is held, or an earlier one of its vertex waits.
        # (The probes read the lock's state at the start of the cycle, as the insert does.)
        defer = self.i.valid & (behind | self.probe2_hit)
        # The head goes first when its vertex is free; one at a time, it goes before any new
        # operation.
        from_queue = head_free | (queue.o.valid & ~self.parallel)
        candidate = Signal(EdgeOp)
        offered = Signal()
        m.d.comb += [candidate.eq(self.i.payload),
                     offered.eq(self.i.valid & ~defer)]
        with m.If(from_queue):
            m.d.comb += [candidate.eq(head), offered.eq(1)]

        # Neither valid waits for the other side's ready, only for its own sink's: the
        # lock's ready does not depend on its valid, the table's arbiter's does.
        m.d.comb += [
            self.lock.payload.eq(candidate.u),
            self.o.valid.eq(offered & credit & self.lock.ready),
            self.lock.valid.eq(offered & credit & self.o.ready),
            self.o.payload.write.eq(0),
            self.o.payload.vertex.eq(candidate.u),
            self.o.payload.ctx.purpose.eq(TO_HASH),
            self.o.payload.ctx.op.eq(candidate),
        ]
        issued = self.lock.valid & self.lock.ready
        parked = ~from_queue & defer & queue.i.ready
        m.d.comb += [
            queue.i.payload.eq(self.i.payload),
            queue.i.valid.eq(~from_queue & defer),
            queue.o.ready.eq(from_queue & issued),
            self.i.ready.eq((~from_queue & issued) | parked),
        ]
        with m.If(queue.i.valid & queue.i.ready):
            m.d.sync += [write_at.eq(write_at + 1), self.deferred.eq(self.deferred + 1)]
            with m.Switch(write_at):
                for k in range(depth):
                    with m.Case(k):
                        m.d.sync += waiting_u[k].eq(self.i.payload.u)
        set_bits = Cat(queue.i.valid & queue.i.ready & (write_at == k) for k in range(depth))
        clear_bits = Cat(queue.o.valid & queue.o.ready & (read_at == k) for k in range(depth))
        m.d.sync += waiting_valid.eq((waiting_valid & ~clear_bits) | set_bits)
        with m.If(queue.o.valid & queue.o.ready):
            m.d.sync += read_at.eq(read_at + 1)
        with m.If((offered & credit & ~self.lock.ready) | (self.i.valid & defer & ~parked)):
            m.d.sync += self.lock_waits.eq(self.lock_waits + 1)
        with m.If(offered & credit & ~self.o.ready):
            m.d.sync += self.table_waits.eq(self.table_waits + 1)

        with m.If(issued & ~self.released):
            m.d.sync += self.in_flight.eq(self.in_flight + 1)
        with m.Elif(~issued & self.released):
            m.d.sync += self.in_flight.eq(self.in_flight - 1)
        m.d.comb += self.idle.eq(~self.i.valid & ~queue.o.valid & drained)
        return m
