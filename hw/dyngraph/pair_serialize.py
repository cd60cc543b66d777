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
        u = Signal(32)
        end = Signal()
        # The cells still to send, their first (one-hot) and whether another follows it, all
        # registers: the choice of the next cell (a carry chain) and the slab's end (an OR
        # over the cells) are computed a cycle ahead, not in the loop through the ready.
        live = Signal(SLAB_PAIRS)
        lowest = Signal(SLAB_PAIRS)
        more = Signal()
        any_live = Signal()
        pair = Signal(Pair)
        for cell in range(SLAB_PAIRS):
            with m.If(lowest[cell]):
                m.d.comb += pair.eq(pairs.word_select(cell, Pair.size))
        out = self.edges
        m.d.comb += [out.valid.eq(held & (any_live | end)),
                     out.payload.u.eq(u), out.payload.v.eq(pair.key),
                     out.payload.w.eq(pair.value), out.payload.end.eq(end),
                     self.busy.eq(held)]
        sent = out.valid & out.ready
        drained = ~held | (~any_live & ~end) | (sent & (end | ~more))
        m.d.comb += self.slabs.ready.eq(drained)
        rest = Signal(SLAB_PAIRS)
        m.d.comb += rest.eq(live & ~lowest)
        with m.If(sent):
            m.d.sync += [live.eq(rest), lowest.eq(_first(rest)), any_live.eq(more),
                         more.eq(_two_or_more(rest))]
        with m.If(drained):
            m.d.sync += held.eq(0)
        with m.If(self.slabs.valid & self.slabs.ready):
            slab = self.slabs.payload
            keys = [slab.slab.pairs[cell].key for cell in range(SLAB_PAIRS)]
            loaded = Signal(SLAB_PAIRS)
            m.d.comb += loaded.eq(Cat(*((key != EMPTY_KEY) & (key != TOMBSTONE_KEY)
                                        for key in keys)) & ~slab.ctx.end.replicate(SLAB_PAIRS))
            m.d.sync += [held.eq(1), pairs.eq(slab.slab.pairs), u.eq(slab.ctx.u),
                         end.eq(slab.ctx.end), live.eq(loaded), lowest.eq(_first(loaded)),
                         any_live.eq(loaded.any()), more.eq(_two_or_more(loaded))]
        return m


def _first(bits):
    """The lowest set bit of ``bits``, one-hot."""
    return bits & (~bits + 1)


def _two_or_more(bits):
    """At least two bits of ``bits`` set."""
    return (bits & (bits - 1)).any()
