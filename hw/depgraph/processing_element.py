"""The processing element that replaces DepGraph's core (Zhang et al., HPCA 2021, §III-B: the
core pops the FIFO edge buffer with ``DEP_FETCH_EDGE`` and runs the algorithm's functions):
it pops an edge u→w with the value x that u propagates and computes EdgeCompute, the
influence Accum'd into w's delta, which it sends to the vertex-store bank owning w.

EdgeCompute (``golden.depgraph.gas``): BFS x + 1 and SSSP x + weight, both saturating at
0xFFFFFFFF; CC x; PageRank x · (alpha / outdeg(u)) in FP32 (u's constant travels with the
edge). A pseudo-edge (sum-type Accum only) sends -x unchanged: the PE multiplies -x by 1.0,
which is exact, so both go through the one multiplier.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.arith.fp32 import FP32Multiplier
from hw.lib.arith.integer import saturating_add
from .config import ALGORITHMS
from .layouts import WALK_BITS, EdgeTask, VertexUpdate


__all__ = ["ProcessingElement"]

_FP32_ONE = 0x3F80_0000
_SIGN = 0x8000_0000

# What travels beside the multiplication.
_Tag = data.StructLayout({"vertex": 32, "leave": 1, "walk": WALK_BITS})


class ProcessingElement(wiring.Component):
    """EdgeCompute of one engine.

    Parameters
    ----------
    algo : str
        bfs, sssp, cc or pagerank.
    engine : int
        The engine's number.
    walk_bits : int
        Bits of a walk's number within the engine: an update's origin is the walk slot
        ``engine << walk_bits | walk`` of the edge's walk.

    Members
    -------
    edges : ``In(stream.Signature(EdgeTask))``
        From the FIFO edge buffer.
    updates : ``Out(stream.Signature(VertexUpdate))``
    busy : ``Out(1)``
        An edge taken has not yet left as an update.
    """

    def __init__(self, *, algo: str, engine: int, walk_bits: int = 0):
        if algo not in ALGORITHMS:
            raise ConfigError(f"ProcessingElement: algo must be one of {', '.join(ALGORITHMS)}, "
                              f"not {algo!r}")
        if engine < 0:
            raise ConfigError(f"ProcessingElement: engine must not be negative, not {engine!r}")
        if not 0 <= walk_bits <= WALK_BITS:
            raise ConfigError(f"ProcessingElement: walk_bits must be from 0 to {WALK_BITS}, "
                              f"not {walk_bits!r}")
        self._algo = algo
        self._engine = engine
        self._walk_bits = walk_bits
        super().__init__({
            "edges": In(stream.Signature(EdgeTask)),
            "updates": Out(stream.Signature(VertexUpdate)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        task = self.edges.payload
        out = self.updates
        def origin(walk):
            return (self._engine << self._walk_bits) | walk[:self._walk_bits] \
                if self._walk_bits else self._engine
        if self._algo == "pagerank":
            m.submodules.multiplier = multiplier = FP32Multiplier(tag_width=_Tag.size)
            tag_in = _Tag(multiplier.i.payload.tag)
            tag_out = _Tag(multiplier.o.payload.tag)
            m.d.comb += [
                multiplier.i.valid.eq(self.edges.valid),
                self.edges.ready.eq(multiplier.i.ready),
                multiplier.i.payload.a.eq(Mux(task.pseudo, task.x ^ _SIGN, task.x)),
                multiplier.i.payload.b.eq(Mux(task.pseudo, _FP32_ONE, task.const)),
                tag_in.vertex.eq(task.dst),
                tag_in.leave.eq(task.leave),
                tag_in.walk.eq(task.walk),
                out.valid.eq(multiplier.o.valid),
                multiplier.o.ready.eq(out.ready),
                out.payload.vertex.eq(tag_out.vertex),
                out.payload.leave.eq(tag_out.leave),
                out.payload.origin.eq(origin(tag_out.walk)),
                out.payload.value.eq(multiplier.o.payload.result),
            ]
            # Busy while an operation is anywhere in the multiplier's pipeline.
            in_flight = Signal(range(multiplier.latency + 2))
            taken = self.edges.valid & self.edges.ready
            given = out.valid & out.ready
            m.d.sync += in_flight.eq(in_flight + taken - given)
            m.d.comb += self.busy.eq(in_flight != 0)
        else:
            addend = {"bfs": 1, "sssp": task.weight, "cc": 0}[self._algo]
            m.d.comb += self.edges.ready.eq(~out.valid | out.ready)
            with m.If(self.edges.ready):
                m.d.sync += [
                    out.valid.eq(self.edges.valid),
                    out.payload.vertex.eq(task.dst),
                    out.payload.leave.eq(task.leave),
                    out.payload.origin.eq(origin(task.walk)),
                    out.payload.value.eq(saturating_add(task.x, addend)),
                ]
            m.d.comb += self.busy.eq(out.valid)
        return m
