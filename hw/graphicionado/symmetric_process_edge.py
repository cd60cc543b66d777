"""Process_Edge of a scalar program with the symmetric-graph optimisation's duplicated
update path (Graphicionado §IV.D, P5 twice): one read of undirected edge (u, v) makes the
update of v from u's operands and the update of u from v's, in the same cycles."""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs import Program
from hw.lib.config import ConfigError
from hw.lib.program import Datapath, drive_params, operands_of, params_member, params_of
from .layouts import SymmetricEdge, update_pair
from .source_update_pairing import OwnerUpdatePairing, SourceUpdatePairing


__all__ = ["SymmetricProcessEdge", "PAIRING_LEVELS"]

PAIRING_LEVELS = 3


class SymmetricProcessEdge(wiring.Component):
    """The program's ``process_edge`` twice, in step: v's update from ``weight``,
    ``src_prop`` = p[u], ``src_const`` = c[u] (and ``dst_prop`` = p[v]); u's from the same
    with the ends swapped. A self-loop updates once (u's update made and marked not valid).
    u's updates of one source's consecutive edges are then added in pairs, and the pairs in
    pairs again (:data:`PAIRING_LEVELS` :class:`SourceUpdatePairing`, those after the first
    across gaps): an edge comes a cycle after the one before, and each update of one vertex
    waits for the Reduce of the one before (seven cycles), so a source's run reaches Atomic
    Update in sums of 2 ** PAIRING_LEVELS. The order is
    ``golden.graphicionado.execute_symmetric``'s with ``paired_runs`` = PAIRING_LEVELS. Over
    several destination streams (``owner_bits``) the crossbar interleaves the sources' edges,
    so each level holds a packet per owner (:class:`OwnerUpdatePairing`).

    Parameters
    ----------
    program : graphgen.programs.Program
        A scalar program (Float32 property, ``fadd`` Reduce).
    dst_shift : int
        An update names ``vertex >> dst_shift`` (its destination stream's scratchpad index).
    owner_bits : int
        Over ``1 << owner_bits`` destination streams (``dst_shift``): each update names the
        stream that owns its vertex, for the update network.

    Members
    -------
    dst_base, src_base : ``In(32)``
        Subtracted from v's and u's index (0 unsliced).
    i : ``In(stream.Signature(SymmetricEdge))``
    o : ``Out(stream.Signature(update_pair(1, 1, owner_bits)))``
    flush : ``In(1)``
        No more edges this processing phase: release a held u update.
    busy : ``Out(1)``
        An edge taken in has not reached the pairing, or a u update is held.
    params : ``In(StructLayout)``, programs whose Process_Edge reads parameters
    """

    def __init__(self, *, program: Program, dst_shift: int = 0, owner_bits: int = 0):
        if not isinstance(program, Program):
            raise ConfigError(f"SymmetricProcessEdge: program must be a graphgen.programs "
                              f"Program, not {program!r}")
        if owner_bits and owner_bits != dst_shift:
            raise ConfigError(f"SymmetricProcessEdge: owner_bits ({owner_bits}) equals "
                              f"dst_shift ({dst_shift})")
        self._operands = operands_of(program.process_edge)
        self._dst_shift, self._owner_bits = dst_shift, owner_bits
        self._tag = data.StructLayout({"vertex": 32, "owner": max(1, owner_bits), "skip": 1})
        self._maps = [Datapath(program.process_edge, self._operands,
                               tag_width=self._tag.size, lzc_stage=True) for _ in range(2)]
        super().__init__({
            "dst_base": In(32), "src_base": In(32),
            "i": In(stream.Signature(SymmetricEdge)),
            "o": Out(stream.Signature(update_pair(1, 1, owner_bits))),
            "flush": In(1), "busy": Out(1),
            **params_member(params_of(program.process_edge)),
        })

    @property
    def latency(self) -> int:
        return self._maps[0].latency

    def elaborate(self, platform):
        m = Module()
        v_map, u_map = self._maps
        m.submodules.process_v, m.submodules.process_u = v_map, u_map
        edge_in = self.i.payload
        edge = edge_in.edge
        v_words = {"weight": edge.weight, "src_prop": edge_in.prop,
                   "src_const": edge_in.const, "dst_prop": edge_in.dst_prop}
        u_words = {"weight": edge.weight, "src_prop": edge_in.dst_prop,
                   "src_const": edge_in.dst_const, "dst_prop": edge_in.prop}
        ends = ((v_map, v_words, edge.dst, self.dst_base, 0),
                (u_map, u_words, edge.src, self.src_base, edge.src == edge.dst))
        # The two pipelines take and give together (equal readies: each is free when its
        # output is empty or taken, and the outputs are taken together), so they stay in step.
        for datapath, words, vertex, base, skip in ends:
            if datapath.params:
                drive_params(m, self.params, datapath)
            tag = data.View(self._tag, datapath.i.payload.tag)
            m.d.comb += [datapath.i.payload[role].eq(words[role]) for role in self._operands]
            m.d.comb += [datapath.i.valid.eq(self.i.valid),
                         tag.vertex.eq((vertex >> self._dst_shift) - base), tag.skip.eq(skip)]
            if self._owner_bits:
                m.d.comb += tag.owner.eq(vertex[:self._owner_bits])
        m.d.comb += self.i.ready.eq(v_map.i.ready)

        if self._owner_bits:
            levels = [OwnerUpdatePairing(lanes=1, owner_bits=self._owner_bits)
                      for _ in range(PAIRING_LEVELS)]
        else:
            levels = [SourceUpdatePairing(lanes=1, flits=1, across_gaps=level > 0)
                      for level in range(PAIRING_LEVELS)]
        for level, unit in enumerate(levels):
            m.submodules[f"pairing{level}"] = unit
        pairing = levels[0]
        for end, datapath in (("v", v_map), ("u", u_map)):
            tag = data.View(self._tag, datapath.o.payload.tag)
            out = pairing.i.payload[end]
            m.d.comb += [out.dst.eq(tag.vertex), out.flit.eq(0),
                         out.value.eq(datapath.o.payload.result),
                         datapath.o.ready.eq(pairing.i.ready)]
            if self._owner_bits:
                m.d.comb += out.owner.eq(tag.owner)
        u_tag = data.View(self._tag, u_map.o.payload.tag)
        m.d.comb += [pairing.i.valid.eq(v_map.o.valid), pairing.i.payload.v_valid.eq(1),
                     pairing.i.payload.u_valid.eq(~u_tag.skip)]
        for before, after in zip(levels, levels[1:]):
            wiring.connect(m, before.o, after.i)
        wiring.connect(m, levels[-1].o, wiring.flipped(self.o))

        # An edge is out once it reaches the pairing; a held u update keeps the stage busy,
        # and ``flush`` reaches each level once nothing is before it.
        edges_in, edges_out = Signal(32), Signal(32)
        m.d.sync += [edges_in.eq(edges_in + (self.i.valid & self.i.ready)),
                     edges_out.eq(edges_out + (pairing.i.valid & pairing.i.ready))]
        empty = edges_in == edges_out
        before_empty = self.flush & empty & ~self.i.valid
        for unit in levels:
            m.d.comb += unit.flush.eq(before_empty)
            before_empty &= ~unit.busy
        m.d.comb += self.busy.eq(~empty | Cat(unit.busy for unit in levels).any())
        return m
