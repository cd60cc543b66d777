"""Process_Edge (Graphicionado §3.2 stage P5): the per-algorithm custom module that turns an
edge and its source's property into an update of the destination."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from .config import ALGORITHMS
from .layouts import DestinedEdge, SourcedEdge, Update


__all__ = ["ProcessEdge"]


class ProcessEdge(wiring.Component):
    """Operands chosen per algorithm, computed by a stream unit ({a, b, tag} → {result, tag}).

    ========  =================  ===========================
    algo      a, b               unit
    ========  =================  ===========================
    bfs       prop, 1            saturating add
    sssp      prop, weight       saturating add
    cc        prop, 0            saturating add (a copy)
    pagerank  prop, const        FP32 multiply (const = 1/outdeg)
    ========  =================  ===========================

    Parameters
    ----------
    algo : str
    unit : Component
        The arithmetic unit, its ``tag`` 32 bits wide (it carries the destination id).
    dst_prop : bool
        Take edges with the destination's property too (:data:`DestinedEdge`, from stage P4).
        None of the algorithms above uses it.
    dst_shift : int
        The update names ``dst >> dst_shift``: the destination's index in the scratchpad
        slice of its destination stream, when the destinations are split over
        ``1 << dst_shift`` streams by their low bits (§V.A).

    Members
    -------
    dst_base : ``In(32)``
        Subtracted from ``dst >> dst_shift``: the first scratchpad index of the current graph
        slice (§VI.A; 0 unsliced).
    i : ``In(stream.Signature(DestinedEdge if dst_prop else SourcedEdge))``
    o : ``Out(stream.Signature(Update))``
    """

    def __init__(self, *, algo: str, unit, dst_prop: bool = False, dst_shift: int = 0):
        if algo not in ALGORITHMS:
            raise ConfigError(f"ProcessEdge: algo must be one of {', '.join(ALGORITHMS)}, not "
                              f"{algo!r}")
        self._algo = algo
        self._unit = unit
        self._dst_shift = dst_shift
        super().__init__({
            "dst_base": In(32),
            "i": In(stream.Signature(DestinedEdge if dst_prop else SourcedEdge)),
            "o": Out(stream.Signature(Update)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = self._unit
        edge = self.i.payload.edge
        b = {"bfs": 1, "sssp": edge.weight, "cc": 0, "pagerank": self.i.payload.const}[self._algo]
        m.d.comb += [
            unit.i.valid.eq(self.i.valid),
            unit.i.payload.a.eq(self.i.payload.prop),
            unit.i.payload.b.eq(b),
            unit.i.payload.tag.eq((edge.dst >> self._dst_shift) - self.dst_base),
            self.i.ready.eq(unit.i.ready),
            self.o.valid.eq(unit.o.valid),
            self.o.payload.dst.eq(unit.o.payload.tag),
            self.o.payload.value.eq(unit.o.payload.result),
            unit.o.ready.eq(self.o.ready),
        ]
        return m
