"""The compactor's walk over the vertex table: every bucket's base slab of every present
vertex, in vertex order, then the end marker (issue 19, item 3; the slab layout of Awad et
al. §3)."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.range_streamer import range_out_layout
from .layouts import CompactCtx, vertex_word_layout
from .slab_port import slab_read_layout


__all__ = ["CompactWalk"]


class CompactWalk(wiring.Component):
    """Vertex words in, base-slab reads out: buckets ``0 .. count - 1`` of a vertex are its
    slabs ``base .. base + count - 1``; a vertex without buckets is absent and reads nothing.
    After the last vertex, one read of slab 0 carries the end marker (its contents unused).

    Parameters
    ----------
    slab_index_bits : int

    Members
    -------
    vertices : ``In(stream.Signature(range_out_layout(1, 1)))``
        The vertex table's words; ``index`` is the vertex, ``last`` ends the walk.
    reads : ``Out(stream.Signature(slab_read_layout(CompactCtx)))``
    busy : ``Out(1)``
    """

    def __init__(self, *, slab_index_bits: int):
        check_int("CompactWalk", "slab_index_bits", slab_index_bits, high=31)
        self._bits = slab_index_bits
        super().__init__({
            "vertices": In(stream.Signature(range_out_layout(1, 1))),
            "reads": Out(stream.Signature(slab_read_layout(CompactCtx))),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        word = vertex_word_layout(self._bits)(self.vertices.payload.data)
        held = Signal()
        u = Signal(32)
        base = Signal(self._bits)
        buckets = Signal(32 - self._bits)
        bucket = Signal(32 - self._bits)
        last = Signal()
        # Every slab of the vertex asked for: a register, so the count's compare is not in
        # the path to the vertex reader's and the slab port's readies.
        asked = Signal()
        m.d.comb += [
            self.reads.valid.eq(held & (~asked | last)),
            self.reads.payload.slab.eq(base + bucket),
            self.reads.payload.ctx.u.eq(u),
            self.reads.payload.ctx.end.eq(asked),
            # The next vertex is taken the cycle this one has nothing left to ask.
            self.vertices.ready.eq(~held | (asked & ~last)),
            self.busy.eq(held),
        ]
        with m.If(asked):
            m.d.comb += self.reads.payload.slab.eq(0)
        with m.If(self.reads.valid & self.reads.ready):
            m.d.sync += [bucket.eq(bucket + 1), asked.eq(bucket + 1 == buckets)]
            with m.If(asked):
                m.d.sync += held.eq(0)
        with m.If(self.vertices.ready):
            m.d.sync += held.eq(self.vertices.valid)
        with m.If(self.vertices.valid & self.vertices.ready):
            m.d.sync += [u.eq(self.vertices.payload.index), base.eq(word.base),
                         buckets.eq(word.buckets), bucket.eq(0), asked.eq(word.buckets == 0),
                         last.eq(self.vertices.payload.last)]
        return m
