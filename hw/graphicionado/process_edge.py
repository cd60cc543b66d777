"""Process_Edge (Graphicionado §3.2 stage P5): the program's ``process_edge`` expression,
compiled to a pipelined datapath, turns an edge and its source's property into an update of
the destination (scalar properties; ``Float32Vector`` ones in flits:
:mod:`.flit_process_edge`)."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs import Program
from hw.lib.config import ConfigError
from hw.lib.program import Datapath, drive_params, operands_of, params_member, params_of
from .layouts import DestinedEdge, SourcedEdge, Update


__all__ = ["ProcessEdge"]


class ProcessEdge(wiring.Component):
    """The edge's words as the program's operands: ``weight`` (the edge's weight word),
    ``src_prop``, ``src_const`` (VConst[src], full edge access) and ``dst_prop`` (from stage
    P4); the destination's scratchpad index rides as the datapath's tag.

    Parameters
    ----------
    program : graphgen.programs.Program
        A scalar program (32-bit property).
    dst_prop : bool
        Take edges with the destination's property too (:data:`DestinedEdge`, from stage P4);
        needed when the program reads ``dst_prop``.
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
    params : ``In(StructLayout)``, programs whose Process_Edge reads parameters
        Their run-time values (:mod:`hw.lib.program.params`; each its default when undriven).

    Attributes
    ----------
    latency : int
        The datapath's, cycles from an edge to its update.
    """

    def __init__(self, *, program: Program, dst_prop: bool = False, dst_shift: int = 0):
        if not isinstance(program, Program):
            raise ConfigError(f"ProcessEdge: program must be a graphgen.programs Program, "
                              f"not {program!r}")
        self._operands = operands_of(program.process_edge)
        if "dst_prop" in self._operands and not dst_prop:
            raise ConfigError(f"ProcessEdge: {program.name} reads dst_prop, which needs "
                              f"edges with the destination's property (dst_prop=True)")
        self._datapath = Datapath(program.process_edge, self._operands, tag_width=32,
                                  lzc_stage=True)
        self._dst_shift = dst_shift
        super().__init__({
            "dst_base": In(32),
            "i": In(stream.Signature(DestinedEdge if dst_prop else SourcedEdge)),
            "o": Out(stream.Signature(Update)),
            **params_member(params_of(program.process_edge)),
        })

    @property
    def latency(self) -> int:
        return self._datapath.latency

    def elaborate(self, platform):
        m = Module()
        m.submodules.datapath = datapath = self._datapath
        if datapath.params:
            drive_params(m, self.params, datapath)
        payload = self.i.payload
        edge = payload.edge
        words = {"weight": edge.weight, "src_prop": payload.prop, "src_const": payload.const}
        if "dst_prop" in self._operands:
            words["dst_prop"] = payload.dst_prop
        m.d.comb += [datapath.i.payload[role].eq(words[role]) for role in self._operands]
        m.d.comb += [
            datapath.i.valid.eq(self.i.valid),
            datapath.i.payload.tag.eq((edge.dst >> self._dst_shift) - self.dst_base),
            self.i.ready.eq(datapath.i.ready),
            self.o.valid.eq(datapath.o.valid),
            self.o.payload.dst.eq(datapath.o.payload.tag),
            self.o.payload.value.eq(datapath.o.payload.result),
            datapath.o.ready.eq(self.o.ready),
        ]
        return m

