"""The compactor's chain follower: a bucket's chain slabs (Awad et al. §3: a full slab links
the next through its last word) put right behind the slab that points at them, so a vertex's
edges stay together and the vertices stay in order."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layouts import NULL_SLAB, CompactCtx
from .slab_port import slab_out_layout, slab_read_layout


__all__ = ["ChainMerge"]


class _Source:
    def __init__(self, layout):
        self.valid, self.ready = Signal(name="source_valid"), Signal(name="source_ready")
        self.payload = Signal(layout, name="source")


class ChainMerge(wiring.Component):
    """Base slabs (in walk order) and chain slabs (read on their own port) into one stream:
    after a slab whose ``next`` is not NULL, its chain slab is read and handed on before any
    further base slab, and so on down the chain. A chain costs a memory latency a link; the
    base slabs behind it wait in their port.

    Members
    -------
    base : ``In(stream.Signature(slab_out_layout(CompactCtx)))``
    chained : ``In(stream.Signature(slab_out_layout(CompactCtx)))``
        The answers to ``chain_reads``.
    slabs : ``Out(stream.Signature(slab_out_layout(CompactCtx)))``
    chain_reads : ``Out(stream.Signature(slab_read_layout(CompactCtx)))``
    following : ``Out(1)``
        A chain slab is awaited.
    """

    def __init__(self):
        super().__init__({
            "base": In(stream.Signature(slab_out_layout(CompactCtx))),
            "chained": In(stream.Signature(slab_out_layout(CompactCtx))),
            "slabs": Out(stream.Signature(slab_out_layout(CompactCtx))),
            "chain_reads": Out(stream.Signature(slab_read_layout(CompactCtx))),
            "following": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        following = self.following
        source = _Source(slab_out_layout(CompactCtx))
        with m.If(following):
            m.d.comb += [source.valid.eq(self.chained.valid),
                         source.payload.eq(self.chained.payload),
                         self.chained.ready.eq(source.ready)]
        with m.Else():
            m.d.comb += [source.valid.eq(self.base.valid), source.payload.eq(self.base.payload),
                         self.base.ready.eq(source.ready)]
        # A new chain read waits for the previous one to leave (there is one at a time).
        m.d.comb += [self.slabs.valid.eq(source.valid & ~self.chain_reads.valid),
                     self.slabs.payload.eq(source.payload),
                     source.ready.eq(self.slabs.ready & ~self.chain_reads.valid)]
        with m.If(self.chain_reads.valid & self.chain_reads.ready):
            m.d.sync += self.chain_reads.valid.eq(0)
        with m.If(self.slabs.valid & self.slabs.ready):
            slab = source.payload
            chained = (slab.slab.next != NULL_SLAB) & ~slab.ctx.end
            m.d.sync += following.eq(chained)
            with m.If(chained):
                m.d.sync += [self.chain_reads.valid.eq(1),
                             self.chain_reads.payload.slab.eq(slab.slab.next),
                             self.chain_reads.payload.ctx.eq(slab.ctx)]
        return m
