"""The sweep of the slab pool that removes deleted vertices' in-edges: every slab read in
order, all 15 keys compared with each deleted vertex at once, the pairs that point at one
turned into tombstones. Awad et al. delete a vertex of an undirected graph by visiting its
neighbours' tables; a directed graph keeps no in-edge lists, so the deleted vertices of a run
of deletions are looked for in every table in one pass (two lines a slab, at the memory's
rate).
"""

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import FREE_OWNER, SLAB_PAIRS, TOMBSTONE_KEY, SlabPurpose, SlabCtx, SlabWrite
from .slab_port import slab_out_layout, slab_read_layout


__all__ = ["PoolSweep"]


class PoolSweep(wiring.Component):
    """Parameters
    ----------
    group : int
        Deleted vertices looked for at once.

    Members
    -------
    start : ``In(1)``
        Sweep the pool for ``ids[:count]``.
    ids : ``In(32).array(group)``; count : ``In(range(group + 1))``
    pool_slabs : ``In(32)``
    reads : ``Out(stream.Signature(slab_read_layout(SlabCtx)))``
    slabs : ``In(stream.Signature(slab_out_layout(SlabCtx)))``
    writes : ``Out(stream.Signature(SlabWrite))``
    busy : ``Out(1)``
        From ``start`` until every slab is read and its tombstones queued.
    removed : ``Out(32)``; slab_reads : ``Out(32)``
    """

    def __init__(self, *, group: int):
        check_int("PoolSweep", "group", group)
        self._group = group
        super().__init__({
            "start": In(1),
            "ids": In(32).array(group),
            "count": In(range(group + 1)),
            "pool_slabs": In(32),
            "reads": Out(stream.Signature(slab_read_layout(SlabCtx))),
            "slabs": In(stream.Signature(slab_out_layout(SlabCtx))),
            "writes": Out(stream.Signature(SlabWrite)),
            "busy": Out(1),
            "removed": Out(32),
            "slab_reads": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        sent = Signal(32)
        received = Signal(32)
        with m.If(self.start):
            m.d.sync += [sent.eq(0), received.eq(0), self.busy.eq(1)]
        m.d.comb += [self.reads.valid.eq(self.busy & (sent != self.pool_slabs)),
                     self.reads.payload.slab.eq(sent),
                     self.reads.payload.ctx.purpose.eq(SlabPurpose.SWEEP)]
        with m.If(self.reads.valid & self.reads.ready):
            m.d.sync += [sent.eq(sent + 1), self.slab_reads.eq(self.slab_reads + 1)]

        hits, compared_index, compared_owner, compared = self._compare(m, received)
        # A slab's hits: line 0 (cells 0-7), then line 1 (cells 8-14), a write each.
        pending = Signal(SLAB_PAIRS)
        index = Signal(32)
        owner = Signal(32)
        taken = Signal()
        m.d.comb += self.slabs.ready.eq(~compared | ~taken)
        # The hits are counted the cycle after, from ``pending`` (a register; no write
        # changes it before then): the compares and the count are not one path.
        fresh = Signal()
        m.d.sync += fresh.eq(compared & ~taken)
        with m.If(fresh):
            m.d.sync += self.removed.eq(self.removed + _count_ones(pending))
        with m.If(compared & ~taken):
            m.d.sync += [pending.eq(hits), index.eq(compared_index),
                         owner.eq(compared_owner), taken.eq(1)]
        line = Signal()
        m.d.comb += line.eq(pending[:8] == 0)
        cells = Signal(8)
        m.d.comb += cells.eq(pending[:8])
        with m.If(line):
            m.d.comb += cells.eq(pending[8:])
        # The tombstones leave through a register slice: the pending cells' test and the
        # line's mask are not in one path with the slab-write arbiter's grant.
        m.submodules.tombstones = out = StreamRegisterSlice(SlabWrite)
        wiring.connect(m, out.o, wiring.flipped(self.writes))
        tombstones = out.i
        write = tombstones.payload
        m.d.comb += [
            tombstones.valid.eq(taken & (pending != 0)),
            write.write.eq(1),
            write.slab.eq(index),
            write.vertex.eq(owner),         # the port of the owner's slabs
            write.line.eq(line),
            write.data.eq(Cat(*[Cat(C(TOMBSTONE_KEY, 32), C(0, 32))] * 8)),
            write.mask.eq(Cat(*[Cat(*[cells[p]] * 4, C(0, 4)) for p in range(8)])),
        ]
        with m.If(taken & (pending == 0)):
            m.d.sync += taken.eq(0)
        with m.Elif(tombstones.valid & tombstones.ready):
            with m.If(line):
                m.d.sync += pending[8:].eq(0)
            with m.Else():
                m.d.sync += pending[:8].eq(0)
        with m.If(self.busy & ~self.start & (received == self.pool_slabs) & ~taken &
                  ~compared & ~out.o.valid):
            m.d.sync += self.busy.eq(0)
        return m

    def _compare(self, m, received):
        """The slabs' keys compared with each deleted vertex, registered a stage ahead of
        the pending cells (``compared``: the stage holds a slab); the cells that hit, from
        the registered compares, the vertices in the group and the owner's word."""
        slab = self.slabs.payload.slab
        group = self._group
        # Which of the ids are in the group: constant through a sweep, so registered.
        active = Signal(group)
        m.d.sync += active.eq(Cat(k < self.count for k in range(group)))
        equal = Signal(SLAB_PAIRS * group)
        owned = Signal()
        index = Signal(32)
        owner = Signal(32)
        compared = Signal()
        with m.If(self.slabs.valid & self.slabs.ready):
            m.d.sync += [
                equal.eq(Cat(slab.pairs[cell].key == self.ids[k]
                             for cell in range(SLAB_PAIRS) for k in range(group))),
                owned.eq(slab.aux != FREE_OWNER),
                index.eq(self.slabs.payload.index),
                owner.eq(slab.aux),
                received.eq(received + 1),
            ]
        with m.If(self.slabs.ready):
            m.d.sync += compared.eq(self.slabs.valid)
        hits = Signal(SLAB_PAIRS)
        m.d.comb += hits.eq(Cat(owned & (equal[cell * group:(cell + 1) * group] & active).any()
                                for cell in range(SLAB_PAIRS)))
        return hits, index, owner, compared


def _count_ones(bits):
    """The set bits of ``bits``, summed as a balanced tree (not a chain of adders)."""
    terms = [bits[k] for k in range(len(bits))]
    while len(terms) > 1:
        terms = [a + b for a, b in zip(terms[::2], terms[1::2])] + terms[len(terms) & ~1:]
    return terms[0]
