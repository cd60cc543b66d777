"""The bucket hash: which base slab of a vertex's table a key lives in (the slab hash's
``hash(key) mod B``, Ashkiani et al.; Awad et al. §"Graph structure").

``slab = base + (((key * 0x9E3779B1) mod 2^32) * buckets) >> 32``: Fibonacci hashing, then a
multiply-high range reduction, so any bucket count works with two multipliers and no divider
(:mod:`golden.dyngraph.slab` gives the same function).
"""

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from .layouts import HASH_MULTIPLIER, EdgeOp, SlabPurpose, SlabCtx, TableCtx, vertex_word_layout
from .slab_port import slab_read_layout
from .vertex_table import table_answer_layout


__all__ = ["BucketHash"]


class BucketHash(wiring.Component):
    """A five-stage pipeline, one operation a cycle: the operation and its source vertex's
    word (base slab, bucket count) taken into registers, its key times the two 16-bit halves
    of the hash's multiplier, their sum (the hash), the hash's bucket (the multiply-high),
    then the bucket's slab (the table's base added). In fewer stages these were the unit's
    longest paths at 0.18 um: 4.7 ns from the vertex table's answer through the hash, 4.1
    ns for the hash's whole multiply, 4.4 ns for the multiply-high with the add.

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
        # Each stage holds the operation, the table's base and what it worked out; a stage
        # takes the one before it when it is empty or the one after takes it.
        names = ("taken", "partial", "hashed", "bucket")
        valid = {name: Signal(name=f"{name}_valid") for name in names}
        ready = {name: Signal(name=f"{name}_ready") for name in names}
        op = {name: Signal(EdgeOp, name=f"{name}_op") for name in names}
        base = {name: Signal(word.base.shape(), name=f"{name}_base") for name in names}
        buckets = {name: Signal(word.buckets.shape(), name=f"{name}_buckets")
                   for name in names[:3]}
        key = Signal.like(self.i.payload.ctx.op.v)
        low, high = Signal(32), Signal(16)
        hashed = Signal(32)
        bucket = Signal(word.buckets.shape())
        out_ready = ~self.o.valid | self.o.ready
        for name, after in zip(names, (*names[1:], None)):
            m.d.comb += ready[name].eq(~valid[name] | (ready[after] if after else out_ready))
        m.d.comb += self.i.ready.eq(ready["taken"])
        with m.If(ready["taken"]):
            m.d.sync += [valid["taken"].eq(self.i.valid), op["taken"].eq(self.i.payload.ctx.op),
                         base["taken"].eq(word.base), buckets["taken"].eq(word.buckets),
                         key.eq(self.i.payload.ctx.op.v)]
        for name, before in (("partial", "taken"), ("hashed", "partial")):
            with m.If(ready[name]):
                m.d.sync += [valid[name].eq(valid[before]), op[name].eq(op[before]),
                             base[name].eq(base[before]), buckets[name].eq(buckets[before])]
        # key * multiplier mod 2^32 as its two 16-bit halves' products, added a stage later.
        with m.If(ready["partial"]):
            m.d.sync += [low.eq((key * (HASH_MULTIPLIER & 0xFFFF))[:32]),
                         high.eq((key * (HASH_MULTIPLIER >> 16))[:16])]
        with m.If(ready["hashed"]):
            m.d.sync += hashed.eq((low + Cat(C(0, 16), high))[:32])
        with m.If(ready["bucket"]):
            m.d.sync += [valid["bucket"].eq(valid["hashed"]), op["bucket"].eq(op["hashed"]),
                         base["bucket"].eq(base["hashed"]),
                         bucket.eq((hashed * buckets["hashed"]) >> 32)]
        with m.If(out_ready):
            slab = base["bucket"] + bucket
            out = self.o.payload
            m.d.sync += [self.o.valid.eq(valid["bucket"]), out.slab.eq(slab),
                         out.ctx.purpose.eq(SlabPurpose.WALK), out.ctx.op.eq(op["bucket"]),
                         out.ctx.op.slab.eq(slab), out.ctx.op.bucket.eq(slab)]
        m.d.comb += self.busy.eq(Cat(*valid.values(), self.o.valid).any())
        return m
