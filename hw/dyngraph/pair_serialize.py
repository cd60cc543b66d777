"""The compactor's pair serializer: a slab's live pairs (key neither EMPTY nor TOMBSTONE, the
slab hash's sentinels) as edges, one a cycle in cell order (the hardware reading of the
warp's ballot over a slab, Ashkiani et al. §4)."""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layouts import EMPTY_KEY, SLAB_PAIRS, TOMBSTONE_KEY, CompactCtx, CompactEdge, Pair
from .slab_port import slab_out_layout


__all__ = ["PairSerialize"]


class PairSerialize(wiring.Component):
    """Slabs in, edges (source ``u``, key, value) out; a slab without live pairs gives none, the
    end marker one edge with ``end`` set.

    Members
    -------
    slabs : ``In(stream.Signature(slab_out_layout(CompactCtx)))``
    edges : ``Out(stream.Signature(CompactEdge))``
    busy : ``Out(1)``
    """

    def __init__(self):
        super().__init__({
            "slabs": In(stream.Signature(slab_out_layout(CompactCtx))),
            "edges": Out(stream.Signature(CompactEdge)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        held = Signal()
        pairs = Signal(SLAB_PAIRS * Pair.size)
        live = Signal(SLAB_PAIRS)
        u = Signal(32)
        end = Signal()
        lowest = Signal(SLAB_PAIRS)           # the first live cell, one-hot
        m.d.comb += lowest.eq(live & (~live + 1))
        pair = Signal(Pair)
        for cell in range(SLAB_PAIRS):
            with m.If(lowest[cell]):
                m.d.comb += pair.eq(pairs.word_select(cell, Pair.size))
        out = self.edges
        m.d.comb += [out.valid.eq(held & (live.any() | end)),
                     out.payload.u.eq(u), out.payload.v.eq(pair.key),
                     out.payload.w.eq(pair.value), out.payload.end.eq(end),
                     self.busy.eq(held)]
        remaining = live & ~lowest
        drained = ~held | (~live.any() & ~end) | \
            (out.valid & out.ready & (end | ~remaining.any()))
        m.d.comb += self.slabs.ready.eq(drained)
        with m.If(out.valid & out.ready):
            m.d.sync += live.eq(remaining)
        with m.If(drained):
            m.d.sync += held.eq(0)
        with m.If(self.slabs.valid & self.slabs.ready):
            slab = self.slabs.payload
            keys = [slab.slab.pairs[cell].key for cell in range(SLAB_PAIRS)]
            m.d.sync += [held.eq(1), pairs.eq(slab.slab.pairs), u.eq(slab.ctx.u),
                         end.eq(slab.ctx.end),
                         live.eq(Cat(*((key != EMPTY_KEY) & (key != TOMBSTONE_KEY)
                                       for key in keys)) & ~slab.ctx.end.replicate(SLAB_PAIRS))]
        return m
