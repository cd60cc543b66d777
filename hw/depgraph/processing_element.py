"""The processing element that replaces DepGraph's core (Zhang et al., HPCA 2021, §III-B: the
core pops the FIFO edge buffer with ``DEP_FETCH_EDGE`` and runs the algorithm's functions):
it pops an edge u→w with the value x that u propagates and computes EdgeCompute, the
influence Accum'd into w's delta, which it sends to the vertex-store bank owning w.

EdgeCompute is the program's (:mod:`hw.depgraph.program`), a
:class:`hw.lib.program.Datapath` of ``x``, ``weight`` and ``src_const`` (u's constant, which
travels with the edge): BFS x + 1 and SSSP x + weight, both saturating at 0xFFFFFFFF; CC x;
PageRank x · (alpha / outdeg(u)) in FP32; widest paths min(x, weight). An expression without
a register (CC's x) gets one at the output, so every EdgeCompute takes a cycle at least. A
max Accum's words are complemented (:mod:`hw.depgraph.program`): x is complemented before
the datapath and its result after it. A pseudo-edge (sum Accum with the hub index, where
EdgeCompute is x · src_const) sends -x unchanged: the PE multiplies -x by 1.0, which is
exact, so both go through the one multiplier.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs.expr import Float32, UInt
from hw.lib.config import ConfigError
from hw.lib.program import Datapath
from .layouts import WALK_BITS, EdgeTask, VertexUpdate
from .program import gas_of, is_product


__all__ = ["ProcessingElement"]

_FP32_ONE = 0x3F80_0000
_SIGN = 0x8000_0000

# What travels beside EdgeCompute.
_Tag = data.StructLayout({"vertex": 32, "leave": 1, "walk": WALK_BITS})


class ProcessingElement(wiring.Component):
    """EdgeCompute of one engine.

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`).
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
        self._gas = gas_of(algo)
        if engine < 0:
            raise ConfigError(f"ProcessingElement: engine must not be negative, not {engine!r}")
        if not 0 <= walk_bits <= WALK_BITS:
            raise ConfigError(f"ProcessingElement: walk_bits must be from 0 to {WALK_BITS}, "
                              f"not {walk_bits!r}")
        self._engine = engine
        self._walk_bits = walk_bits
        word = Float32 if self._gas.accum == "sum" else UInt(32)
        const = self._gas.const.type if self._gas.const is not None else UInt(32)
        self._datapath = Datapath(self._gas.edge_compute,
                                  {"x": word, "weight": UInt(32), "src_const": const},
                                  tag_width=_Tag.size)
        super().__init__({
            "edges": In(stream.Signature(EdgeTask)),
            "updates": Out(stream.Signature(VertexUpdate)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        task = self.edges.payload
        out = self.updates
        m.submodules.datapath = datapath = self._datapath
        flip = 0xFFFF_FFFF if self._gas.accum == "max" else 0
        x, const = task.x ^ flip, task.const
        if is_product(self._gas):
            x = Mux(task.pseudo, task.x ^ _SIGN, task.x)
            const = Mux(task.pseudo, _FP32_ONE, task.const)
        tag_in = _Tag(datapath.i.payload.tag)
        m.d.comb += [
            datapath.i.valid.eq(self.edges.valid),
            self.edges.ready.eq(datapath.i.ready),
            datapath.i.payload.x.eq(x),
            datapath.i.payload.weight.eq(task.weight),
            datapath.i.payload.src_const.eq(const),
            tag_in.vertex.eq(task.dst),
            tag_in.leave.eq(task.leave),
            tag_in.walk.eq(task.walk),
        ]
        result = datapath.o
        if datapath.latency == 0:
            result = self._register(m, datapath.o)
        tag_out = _Tag(result.payload.tag)
        origin = (self._engine << self._walk_bits) | tag_out.walk[:self._walk_bits] \
            if self._walk_bits else self._engine
        m.d.comb += [
            out.valid.eq(result.valid),
            result.ready.eq(out.ready),
            out.payload.vertex.eq(tag_out.vertex),
            out.payload.leave.eq(tag_out.leave),
            out.payload.origin.eq(origin),
            out.payload.value.eq(result.payload.result ^ flip),
        ]
        # Busy while an edge is anywhere in the datapath (or the output register).
        in_flight = Signal(range(datapath.latency + 3))
        taken = self.edges.valid & self.edges.ready
        given = out.valid & out.ready
        m.d.sync += in_flight.eq(in_flight + taken - given)
        m.d.comb += self.busy.eq(in_flight != 0)
        return m

    @staticmethod
    def _register(m, source):
        """``source`` through one register stage that moves when its output is free."""
        stage = stream.Signature(source.payload.shape()).create()
        m.d.comb += source.ready.eq(~stage.valid | stage.ready)
        with m.If(source.ready):
            m.d.sync += [stage.valid.eq(source.valid), stage.payload.eq(source.payload)]
        return stage
