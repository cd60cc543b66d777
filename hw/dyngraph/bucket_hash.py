"""The bucket hash: which base slab of a vertex's table a key lives in (the slab hash's
``hash(key) mod B``, Ashkiani et al.; Awad et al. §"Graph structure").

``slab = base + (((key * 0x9E3779B1) mod 2^32) * buckets) >> 32``: Fibonacci hashing, then a
multiply-high range reduction, so any bucket count works with two multipliers and no divider
(:mod:`golden.dyngraph.slab` gives the same function).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from .layouts import HASH_MULTIPLIER, EdgeOp, SlabPurpose, SlabCtx, TableCtx, vertex_word_layout
from .slab_port import slab_read_layout
from .vertex_table import table_answer_layout


__all__ = ["BucketHash"]


class BucketHash(wiring.Component):
    """A three-stage pipeline, one operation a cycle: its key's hash, the hash's bucket (the
    multiply-high), then the bucket's slab (the table's base added), from the source vertex's
    word (base slab, bucket count). The multiply and the add take a stage each: together
    they were the unit's longest path at 0.18 um (4.2 ns).

    Parameters
    ----------
    slab_index_bits : int
        Width of the vertex word's base field; its bucket count has the other bits.

    Members
    -------
    i : ``In(stream.Signature(table_answer_layout(TableCtx)))``
        An edge operation with its source vertex's word.
    o : ``Out(stream.Signature(slab_read_layout(SlabCtx)))``
        The operation's first slab read (``ctx.op.slab`` and ``ctx.op.bucket`` are the slab
        too).
    busy : ``Out(1)``
    """

    def __init__(self, *, slab_index_bits: int):
        check_int("BucketHash", "slab_index_bits", slab_index_bits, high=31)
        self._word = vertex_word_layout(slab_index_bits)
        super().__init__({
            "i": In(stream.Signature(table_answer_layout(TableCtx))),
            "o": Out(stream.Signature(slab_read_layout(SlabCtx))),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        word = self._word(self.i.payload.word)
        hashed = Signal(32)
        base = Signal(word.base.shape())
        buckets = Signal(word.buckets.shape())
        op = Signal(EdgeOp)
        bucket = Signal(word.buckets.shape())
        bucket_base = Signal(word.base.shape())
        bucket_op = Signal(EdgeOp)
        first_valid = Signal()
        second_valid = Signal()
        second_ready = Signal()
        third_ready = Signal()
        m.d.comb += [self.i.ready.eq(~first_valid | second_ready),
                     second_ready.eq(~second_valid | third_ready),
                     third_ready.eq(~self.o.valid | self.o.ready)]
        with m.If(self.i.ready):
            op_in = self.i.payload.ctx.op
            m.d.sync += [first_valid.eq(self.i.valid), op.eq(op_in), base.eq(word.base),
                         buckets.eq(word.buckets),
                         hashed.eq((op_in.v * HASH_MULTIPLIER)[:32])]
        with m.If(second_ready):
            m.d.sync += [second_valid.eq(first_valid), bucket_op.eq(op), bucket_base.eq(base),
                         bucket.eq((hashed * buckets) >> 32)]
        with m.If(third_ready):
            slab = bucket_base + bucket
            out = self.o.payload
            m.d.sync += [self.o.valid.eq(second_valid), out.slab.eq(slab),
                         out.ctx.purpose.eq(SlabPurpose.WALK), out.ctx.op.eq(bucket_op),
                         out.ctx.op.slab.eq(slab), out.ctx.op.bucket.eq(slab)]
        m.d.comb += self.busy.eq(first_valid | second_valid | self.o.valid)
        return m
