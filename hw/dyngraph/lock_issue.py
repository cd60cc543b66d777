"""The lock on each bucket, and a waiting queue so a conflict does not stop the issue.

The slab hash lets many warps update one table at once: each warp works on one bucket's chain
and its compare-and-swap on a slab settles a race on that slab (Ashkiani et al. §4; Awad et
al. give each source vertex's operations to one warp). Here each edge operation in flight
holds its bucket (the base slab of its chain, :data:`layouts.LOCK_BITS` bits) in the lock CAM
(Graphicionado's atomic-update CAM) from its first slab read to its write, so two operations
of one chain never race while a vertex's other buckets are updated at once (a hub's
operations overlap). Operations arrive here from the bucket hash in file order. An operation
whose bucket is held waits in a small queue instead of holding up the operations behind it;
a later operation of a bucket that waits there queues behind it, so each bucket's operations
still take effect in file order. The waiting queue's head goes first when its bucket is free.

When fewer slabs are free than ``slots`` (``parallel`` low) operations go one at a time in
file order, the waiting ones (earlier in the file) first, so the inserts the pool refuses
are exactly the golden model's.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import LOCK_BITS, SlabCtx
from .slab_port import slab_read_layout


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
    i : ``In(stream.Signature(slab_read_layout(SlabCtx)))``
        Edge operations in file order with their first slab read (``ctx.op.bucket`` set).
    o : ``Out(stream.Signature(slab_read_layout(SlabCtx)))``
        An operation issued: its first slab read.
    lock : ``Out(stream.Signature(32))``
        To the lock CAM's ``insert``.
    probe_id : ``Out(32)``; probe_hit : ``In(1)``
        The lock CAM's probe: is the waiting queue's head's bucket held?
    probe2_id : ``Out(32)``; probe2_hit : ``In(1)``
        Its second probe: is the next operation's bucket held?
    released : ``In(1)``
        An operation ended.
    parallel : ``In(1)``
        Enough free slabs for ``slots`` operations at once.
    in_flight : ``Out(range(slots + 1))``
    idle : ``Out(1)``
        Nothing offered, waiting or in flight.
    lock_waits, port_waits, slot_waits, deferred : ``Out(32)``
        Cycles the issue stopped on the lock (a full CAM set, or a held bucket with the
        waiting queue full), on the slab ports and on every slot being taken, and operations
        that went to the waiting queue.
    """

    def __init__(self, *, slots: int, waiting: int = 16):
        check_int("LockIssue", "slots", slots)
        check_int("LockIssue", "waiting", waiting)
        self._slots = slots
        self._waiting = waiting
        super().__init__({
            "i": In(stream.Signature(slab_read_layout(SlabCtx))),
            "o": Out(stream.Signature(slab_read_layout(SlabCtx))),
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
            "port_waits": Out(32),
            "slot_waits": Out(32),
            "deferred": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._waiting
        read_layout = slab_read_layout(SlabCtx)
        # Buffered: the head comes from a register, not a LUT-RAM read, ahead of the CAM probe.
        m.submodules.queue = queue = StreamFIFO(read_layout, depth, buffered=True)
        # The issued reads leave through a register: the slab ports' release, which the lock
        # CAM takes in the cycle it admits an operation, depends on the reads offered to them.
        m.submodules.issued = issued_reads = StreamRegisterSlice(read_layout)
        wiring.connect(m, issued_reads.o, wiring.flipped(self.o))
        out = issued_reads.i
        head = queue.o.payload
        bucket = self.i.payload.ctx.op.bucket
        # The operation chosen last cycle: it takes its lock and offers its read now. Choosing
        # (the probes) and locking (the CAM set's free way) in different cycles keeps the two
        # out of one combinational path; the probes also compare with this register, since
        # its bucket is not in the CAM yet.
        staged = Signal(read_layout)
        staged_valid = Signal()
        fire = staged_valid & self.lock.ready & out.ready
        m.d.comb += [
            self.lock.payload.eq(staged.ctx.op.bucket),
            self.lock.valid.eq(staged_valid & out.ready),
            out.valid.eq(staged_valid & self.lock.ready),
            out.payload.eq(staged),
        ]
        staged_bucket = staged.ctx.op.bucket
        m.d.comb += [self.probe_id.eq(head.ctx.op.bucket), self.probe2_id.eq(bucket)]
        # The probes' answers are registered: the CAM's compare of every way is not in the
        # path to the choice. An answer is used the cycle after, for an operation that was
        # there (not taken) when it was probed: a bucket freed since is still seen held (the
        # operation waits a cycle or queues, which keeps each bucket's order); the bucket
        # locked since, by the operation that left the stage last cycle, is compared here.
        probe_hit, probe2_hit = Signal(), Signal()
        head_seen, new_seen = Signal(), Signal()
        locked_valid = Signal()
        m.d.sync += [probe_hit.eq(self.probe_hit), probe2_hit.eq(self.probe2_hit),
                     head_seen.eq(queue.o.valid & ~queue.o.ready),
                     new_seen.eq(self.i.valid & ~self.i.ready),
                     locked_valid.eq(fire)]
        issued = Signal()
        head_held, new_held = self._held(m, staged_bucket, head.ctx.op.bucket, bucket, issued)
        head_held = (staged_valid & head_held[0]) | (locked_valid & head_held[1])
        new_held = (staged_valid & new_held[0]) | (locked_valid & new_held[1])

        head_free = (queue.o.valid & head_seen & ~probe_hit & ~head_held)
        drained = self.in_flight == 0
        credit = (self.in_flight < self._slots) & (self.parallel | drained)
        # Registered like the probes: the waiting buckets' compare is not in the path to the
        # choice. Read a cycle late it can only be too cautious: no operation enters the
        # waiting queue while this one waits unseen, and one that left it since is still
        # counted (the new operation queues behind, in order).
        behind = Signal()
        m.d.sync += behind.eq(self._waiting_buckets(m, queue, bucket))
        # A new operation waits: its bucket is held, or an earlier one of its bucket waits.
        # (The probes read the lock's state at the start of the cycle, as the insert does.)
        known = self.i.valid & new_seen
        defer = known & (behind | probe2_hit | new_held)
        # The head goes first when its bucket is free; one at a time, it goes before any new
        # operation.
        from_queue = head_free | (queue.o.valid & ~self.parallel)
        candidate = Signal(read_layout)
        offered = Signal()
        m.d.comb += [candidate.eq(self.i.payload),
                     offered.eq(known & ~defer)]
        with m.If(from_queue):
            m.d.comb += [candidate.eq(head), offered.eq(1)]

        m.d.comb += issued.eq(offered & credit & (~staged_valid | fire))
        with m.If(issued):
            m.d.sync += [staged.eq(candidate), staged_valid.eq(1)]
        with m.Elif(fire):
            m.d.sync += staged_valid.eq(0)
        parked = ~from_queue & defer & queue.i.ready
        m.d.comb += [
            queue.i.payload.eq(self.i.payload),
            queue.i.valid.eq(~from_queue & defer),
            queue.o.ready.eq(from_queue & issued),
            self.i.ready.eq((~from_queue & issued) | parked),
        ]
        with m.If((staged_valid & ~self.lock.ready) | (self.i.valid & defer & ~parked)):
            m.d.sync += self.lock_waits.eq(self.lock_waits + 1)
        with m.If(staged_valid & ~out.ready):
            m.d.sync += self.port_waits.eq(self.port_waits + 1)

        with m.If(offered & (self.in_flight == self._slots)):
            m.d.sync += self.slot_waits.eq(self.slot_waits + 1)

        with m.If(issued & ~self.released):
            m.d.sync += self.in_flight.eq(self.in_flight + 1)
        with m.Elif(~issued & self.released):
            m.d.sync += self.in_flight.eq(self.in_flight - 1)
        m.d.comb += self.idle.eq(~self.i.valid & ~queue.o.valid & ~self.o.valid & drained
                                 & ~staged_valid)
        return m

    @staticmethod
    def _held(m, staged_bucket, head_bucket, bucket, issued):
        """Whether the head's and the new operation's buckets are the staged one's and the
        one locked last cycle (each a pair: staged, locked), compared a cycle ahead and
        registered: the compares are not in the path to the choice. They are used only for
        an operation that was there, not taken, a cycle before: the bucket locked now was
        staged then, and the one staged now was staged then or was the other operation's
        (the one issued then)."""
        staged_head, staged_new = staged_bucket == head_bucket, staged_bucket == bucket
        head_new = head_bucket == bucket
        head_held, new_held = Signal(2), Signal(2)
        m.d.sync += [head_held.eq(Cat(Mux(issued, head_new, staged_head), staged_head)),
                     new_held.eq(Cat(Mux(issued, head_new, staged_new), staged_new))]
        return head_held, new_held

    def _waiting_buckets(self, m, queue, bucket):
        """The buckets of the operations parked in ``queue``, by position (written as one
        enters, its valid bit cleared as it leaves; ``deferred`` counts the entries): whether
        an operation of ``bucket`` waits there."""
        depth = self._waiting
        waiting_bucket = [Signal(LOCK_BITS, name=f"waiting_bucket{k}") for k in range(depth)]
        waiting_valid = Signal(depth)
        write_at = Signal(range(depth))
        read_at = Signal(range(depth))
        with m.If(queue.i.valid & queue.i.ready):
            m.d.sync += [write_at.eq(write_at + 1), self.deferred.eq(self.deferred + 1)]
            with m.Switch(write_at):
                for k in range(depth):
                    with m.Case(k):
                        m.d.sync += waiting_bucket[k].eq(bucket)
        set_bits = Cat(queue.i.valid & queue.i.ready & (write_at == k) for k in range(depth))
        clear_bits = Cat(queue.o.valid & queue.o.ready & (read_at == k) for k in range(depth))
        m.d.sync += waiting_valid.eq((waiting_valid & ~clear_bits) | set_bits)
        with m.If(queue.o.valid & queue.o.ready):
            m.d.sync += read_at.eq(read_at + 1)
        return Cat((waiting_valid[k] & (waiting_bucket[k] == bucket)) for k in range(depth)).any()
