"""Vertex insertion and deletion (Awad et al.: "insert vertex" gives a vertex an empty table;
"delete vertex" frees its table and removes it from its neighbours' tables), one at a time,
with no edge operation in flight.

* insert: a present vertex is left as it is; otherwise one slab is allocated as its table's
  only bucket, its vertex word written and its presence bit set;
* delete: an absent vertex is left as it is; otherwise its word is read, every slab of every
  bucket's chain is read (for its next index), marked free and pushed on the free stack, its
  word cleared and its presence bit cleared; it joins the run's group, and after the run's
  last deletion :class:`~hw.dyngraph.pool_sweep.PoolSweep` removes the group's in-edges.
"""

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from .layouts import (FREE_OWNER, NULL_SLAB, AllocRequest, SlabCtx, SlabPurpose, SlabWrite,
                      TableCtx, TablePurpose, VertexOp, vertex_word_layout)
from .slab_allocator import Grant
from .slab_port import slab_out_layout, slab_read_layout
from .vertex_table import table_answer_layout, table_request_layout


__all__ = ["VertexOps"]


class VertexOps(wiring.Component):
    """Parameters
    ----------
    slab_index_bits : int
    group : int
        Deletions a sweep serves at most.

    Members
    -------
    op : ``In(stream.Signature(VertexOp))``
        Taken when the operation (and a sweep after it) has finished.
    table : ``Out(stream.Signature(table_request_layout(TableCtx)))``
    table_answers : ``In(stream.Signature(table_answer_layout(TableCtx)))``
    presence : ``Out(stream.Signature(data.StructLayout({"vertex": 32, "set": 1})))``
    alloc : ``Out(stream.Signature(AllocRequest))``; granted : ``In(stream.Signature(Grant))``
    reads : ``Out(stream.Signature(slab_read_layout(SlabCtx)))``
    slabs : ``In(stream.Signature(slab_out_layout(SlabCtx)))``
    writes : ``Out(stream.Signature(SlabWrite))``
    frees : ``Out(stream.Signature(32))``
    sweep_start : ``Out(1)``; sweep_ids : ``Out(32).array(group)``
    sweep_count : ``Out(range(group + 1))``; sweep_busy : ``In(1)``
    memory_quiet : ``In(1)``
        Every slab port and the memory idle: a sweep starts, and an operation ends, only
        then (the slab ports' orders are per vertex; the sweep's is by slab).
    inserted, insert_present, deleted, delete_absent, free_reads, sweeps : ``Out(32)``
    busy : ``Out(1)``
    """

    def __init__(self, *, slab_index_bits: int, group: int):
        check_int("VertexOps", "slab_index_bits", slab_index_bits, high=31)
        check_int("VertexOps", "group", group)
        self._word = vertex_word_layout(slab_index_bits)
        self._group = group
        super().__init__({
            "op": In(stream.Signature(VertexOp)),
            "table": Out(stream.Signature(table_request_layout(TableCtx))),
            "table_answers": In(stream.Signature(table_answer_layout(TableCtx))),
            "presence": Out(stream.Signature(data.StructLayout({"vertex": 32, "set": 1}))),
            "alloc": Out(stream.Signature(AllocRequest)),
            "granted": In(stream.Signature(Grant)),
            "reads": Out(stream.Signature(slab_read_layout(SlabCtx))),
            "slabs": In(stream.Signature(slab_out_layout(SlabCtx))),
            "writes": Out(stream.Signature(SlabWrite)),
            "frees": Out(stream.Signature(32)),
            "sweep_start": Out(1),
            "sweep_ids": Out(32).array(group),
            "sweep_count": Out(range(group + 1)),
            "sweep_busy": In(1),
            "memory_quiet": In(1),
            "inserted": Out(32), "insert_present": Out(32), "deleted": Out(32),
            "delete_absent": Out(32), "free_reads": Out(32), "sweeps": Out(32),
            "busy": Out(1),
        })

    def _payloads(self, m, word, slab, table_write):
        """The outputs' payloads and the ready of every answer stream."""
        op = self.op.payload
        m.d.comb += [
            self.table.payload.vertex.eq(op.u),
            self.table.payload.write.eq(table_write),
            self.table.payload.word.eq(word),
            self.table.payload.ctx.purpose.eq(TablePurpose.TO_VERTEX_OPS),
            self.presence.payload.vertex.eq(op.u),
            self.presence.payload.set.eq(op.insert),
            self.alloc.payload.vertex.eq(op.u),
            self.reads.payload.slab.eq(slab),
            self.reads.payload.ctx.purpose.eq(SlabPurpose.FREE),
            self.reads.payload.ctx.op.u.eq(op.u),     # the port of the vertex's slabs
            self.frees.payload.eq(slab),
            self.table_answers.ready.eq(1),
            self.granted.ready.eq(1),
            self.slabs.ready.eq(1),
        ]
        write = self.writes.payload
        # The owner word of line 1 (word 14 of the line) marked free.
        m.d.comb += [write.write.eq(1), write.slab.eq(slab), write.line.eq(1),
                     write.vertex.eq(op.u),
                     write.data.eq(Cat(*[C(FREE_OWNER, 32)] * 16)),
                     write.mask.eq(C(0xF << 56, 64))]

    def _insertion(self, m, word, table_write):
        """The states of an insertion (and the end of a deletion: its word written, its
        presence bit cleared)."""
        op, count = self.op.payload, self.sweep_count
        with m.State("ALLOCATE"):
            # The allocator takes the request the cycle it grants it.
            m.d.comb += self.alloc.valid.eq(1)
            with m.If(self.granted.valid & self.granted.payload.ok):
                m.d.sync += [word.base.eq(self.granted.payload.slab), word.buckets.eq(1)]
                m.next = "WRITE_WORD"
            with m.Elif(self.granted.valid):
                m.next = "ACK"
        with m.State("WRITE_WORD"):
            m.d.comb += [self.table.valid.eq(1), table_write.eq(1)]
            with m.If(self.table.ready):
                m.next = "PRESENCE"
        with m.State("PRESENCE"):
            m.d.comb += self.presence.valid.eq(1)
            with m.If(self.presence.ready):
                with m.If(op.insert):
                    m.d.sync += self.inserted.eq(self.inserted + 1)
                    m.next = "ACK"
                with m.Else():
                    m.d.sync += [self.deleted.eq(self.deleted + 1), count.eq(count + 1)]
                    with m.Switch(count):
                        for k in range(self._group):
                            with m.Case(k):
                                m.d.sync += self.sweep_ids[k].eq(op.u)
                    m.next = "GROUP_END"

    def _deletion(self, m, word, bucket, slab, following):
        """The states of a deletion: the chains of every bucket freed."""
        # ``bucket == word.buckets``, set beside them (a register, not a compare in the path
        # to the next state).
        buckets_done = Signal()
        with m.State("READ_WORD"):
            m.d.comb += self.table.valid.eq(1)
            with m.If(self.table.ready):
                m.next = "WORD"
        with m.State("WORD"):
            with m.If(self.table_answers.valid):
                answer = self._word(self.table_answers.payload.word)
                m.d.sync += [word.eq(answer), bucket.eq(0),
                             buckets_done.eq(answer.buckets == 0)]
                m.next = "BUCKET"
        with m.State("BUCKET"):
            with m.If(buckets_done):
                m.d.sync += word.eq(0)
                m.next = "WRITE_WORD"
            with m.Else():
                m.d.sync += [slab.eq(word.base + bucket), bucket.eq(bucket + 1),
                             buckets_done.eq(bucket + 1 == word.buckets)]
                m.next = "READ_SLAB"
        with m.State("READ_SLAB"):
            m.d.comb += self.reads.valid.eq(1)
            with m.If(self.reads.ready):
                m.next = "SLAB"
        with m.State("SLAB"):
            with m.If(self.slabs.valid):
                m.d.sync += [following.eq(self.slabs.payload.slab.next),
                             self.free_reads.eq(self.free_reads + 1)]
                m.next = "MARK"
        with m.State("MARK"):
            m.d.comb += self.writes.valid.eq(1)
            with m.If(self.writes.ready):
                m.next = "PUSH"
        with m.State("PUSH"):
            m.d.comb += self.frees.valid.eq(1)
            with m.If(self.frees.ready):
                m.d.sync += slab.eq(following)
                with m.If(following == NULL_SLAB):
                    m.next = "BUCKET"
                with m.Else():
                    m.next = "READ_SLAB"

    def elaborate(self, platform):
        m = Module()
        op = self.op.payload
        word = Signal(self._word)
        bucket = Signal(32)
        slab = Signal(32)
        following = Signal(32)
        count = self.sweep_count
        table_write = Signal()
        group_end = Signal()
        self._payloads(m, word, slab, table_write)

        with m.FSM():
            with m.State("IDLE"):
                # Kept from the start: the issue's group end (its counters' compares) is
                # then not in the path to the sweep's start.
                m.d.sync += group_end.eq(op.group_end)
                with m.If(self.op.valid & op.insert & op.present):
                    m.d.sync += self.insert_present.eq(self.insert_present + 1)
                    m.next = "ACK"
                with m.Elif(self.op.valid & op.insert):
                    m.next = "ALLOCATE"
                with m.Elif(self.op.valid & op.present):
                    m.next = "READ_WORD"
                with m.Elif(self.op.valid):
                    m.d.sync += self.delete_absent.eq(self.delete_absent + 1)
                    m.next = "GROUP_END"
            self._insertion(m, word, table_write)
            self._deletion(m, word, bucket, slab, following)
            # After a run's last deletion, the sweep for the deleted vertices.
            # The sweep reads every slab through the port of its index, not of its vertex:
            # the memory takes every earlier write first, and the next operation waits for
            # the sweep's writes likewise.
            with m.State("GROUP_END"):
                with m.If(group_end & (count != 0) & self.memory_quiet):
                    m.d.comb += self.sweep_start.eq(1)
                    m.d.sync += self.sweeps.eq(self.sweeps + 1)
                    m.next = "SWEEP"
                with m.Elif(~(group_end & (count != 0))):
                    m.next = "ACK"
            with m.State("SWEEP"):
                with m.If(~self.sweep_busy):
                    m.d.sync += count.eq(0)
                    m.next = "ACK"
            with m.State("ACK"):
                with m.If(self.memory_quiet):
                    m.d.comb += self.op.ready.eq(1)
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(self.op.valid)
        return m
