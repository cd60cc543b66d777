"""The source side of full edge access (Graphicionado §IV.B) for large properties (§IV.E):
:class:`hw.graphicionado.source_merge.SourceMerge`'s pairing of each edge with its source,
with the source's property a packet of flits.

P1 reads VProperty as flits (``flits`` per vertex, in vertex order) beside VConst (the
vertex's edge count); the merge gathers a vertex's flits into a register, then, for each of
its edges, sends the edge as a packet: flit f carries words ``f * lanes .. (f + 1) * lanes -
1`` of the source's property. An edge leaves in ``flits`` cycles, the flits one a cycle.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.arith.fp32_vector import check_lanes
from hw.lib.stream.fifo import StreamFIFO
from .layouts import SourcedEdge, edge_flit, flit_index_width
from .sequential_vertex_read import item_layout


__all__ = ["PacketSourceMerge"]


class PacketSourceMerge(wiring.Component):
    """Property flits, VConst items and the edge stream in; edge packets out.

    Parameters
    ----------
    lanes, flits : int
        Powers of two: words of a flit, flits of a property.
    depth : int
        Vertices queued ahead of the merge.
    const_words, degree_word : int
        As :class:`SourceMerge`: VConst's width and the word holding this merge's edge count.

    srcid_stored : bool
        The edges carry their srcid from memory (the paper's layout), checked against the
        vertex the counts point at; without it (the compact layout) the edge takes that
        vertex's id.
    Members
    -------
    prop : ``In(stream.Signature(item_layout(lanes)))``
        VProperty flits, ``flits`` per vertex.
    const : ``In(stream.Signature(item_layout(const_words)))``
        ``index``: the vertex id; word ``degree_word``: its edge count.
    edges : ``In(stream.Signature(SourcedEdge))``
        The edge list in edge-id order (Edge Read with ``match_any``).
    o : ``Out(stream.Signature(edge_flit(lanes, flits, dst_prop=False)))``
    mismatch : ``Out(1)``
        Sticky: an edge's srcid was not the vertex the edge counts pointed at.
    busy : ``Out(1)``
    """

    def __init__(self, *, lanes: int, flits: int, depth: int = 4, const_words: int = 2,
                 degree_word: int = 1,
                 srcid_stored: bool = True):
        check_int("PacketSourceMerge", "depth", depth)
        for name, value in (("lanes", lanes), ("flits", flits)):
            check_lanes("PacketSourceMerge", value, name=name, power_of_two=True)
        if not 1 <= degree_word < const_words:
            raise ConfigError(f"PacketSourceMerge: degree_word must be between 1 and "
                              f"{const_words - 1}, not {degree_word!r}")
        self._lanes = lanes
        self._flits = flits
        self._depth = depth
        self._const_words = const_words
        self._degree_word = degree_word
        self._srcid_stored = srcid_stored
        super().__init__({
            "prop": In(stream.Signature(item_layout(lanes))),
            "const": In(stream.Signature(item_layout(const_words))),
            "edges": In(stream.Signature(SourcedEdge)),
            "o": Out(stream.Signature(edge_flit(lanes, flits, dst_prop=False))),
            "mismatch": Out(1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        lanes, flits = self._lanes, self._flits
        flit_width = 32 * lanes
        vertex_layout = data.StructLayout({"id": 32, "degree": 32, "prop": flit_width * flits})
        m.submodules.vertices = vertices = StreamFIFO(vertex_layout, max(3, self._depth),
                                                      buffered=True)
        m.submodules.prop_in = prop_in = StreamFIFO(item_layout(lanes), 3, buffered=True)
        m.submodules.const_in = const_in = StreamFIFO(item_layout(self._const_words), 3,
                                                      buffered=True)
        wiring.connect(m, wiring.flipped(self.prop), prop_in.i)
        wiring.connect(m, wiring.flipped(self.const), const_in.i)
        prop, const = prop_in.o, const_in.o

        # Gather: a vertex's flits in registers; its last flit goes with its VConst item,
        # and the vertex is queued if it has edges here.
        gathered = [Signal(flit_width, name=f"gathered{f}") for f in range(flits - 1)]
        count = Signal(flit_index_width(flits))
        at_last = (count == flits - 1) if flits > 1 else 1
        degree = const.payload.data.word_select(self._degree_word, 32)
        keep = degree != 0
        finish = prop.valid & at_last & const.valid & (vertices.i.ready | ~keep)
        m.d.comb += [
            prop.ready.eq((prop.valid & ~at_last) | finish),
            const.ready.eq(finish),
            vertices.i.valid.eq(prop.valid & at_last & const.valid & keep),
            vertices.i.payload.id.eq(const.payload.index),
            vertices.i.payload.degree.eq(degree),
            vertices.i.payload.prop.eq(Cat(*gathered, prop.payload.data)),
        ]
        with m.If(prop.valid & prop.ready):
            m.d.sync += count.eq(0 if flits == 1 else count + 1)
            for f, register in enumerate(gathered):
                with m.If(count == f):
                    m.d.sync += register.eq(prop.payload.data)

        # Merge: the current vertex owns the next ``degree`` edges; each goes out as a
        # packet, the edge taken with the packet's last flit.
        current = Signal(vertex_layout)
        current_valid = Signal()
        left = Signal(32)
        flit = Signal(flit_index_width(flits))
        last_flit = (flit == flits - 1) if flits > 1 else 1
        pair = current_valid & self.edges.valid
        fire = pair & self.o.ready
        edge_done = fire & last_flit
        last_edge = left == 1
        load = vertices.o.valid & (~current_valid | (edge_done & last_edge))
        m.d.comb += [
            self.o.valid.eq(pair),
            self.o.payload.edge.eq(self.edges.payload.edge),
            self.o.payload.flit.eq(flit),
            self.o.payload.src_prop.eq(current.prop.word_select(flit, flit_width)
                                       if flits > 1 else current.prop),
            self.edges.ready.eq(edge_done),
            vertices.o.ready.eq(load),
        ]
        with m.If(fire):
            m.d.sync += flit.eq(0 if flits == 1 else flit + 1)
        with m.If(load):
            m.d.sync += [current.eq(vertices.o.payload), current_valid.eq(1),
                         left.eq(vertices.o.payload.degree)]
        with m.Elif(edge_done & last_edge):
            m.d.sync += current_valid.eq(0)
        with m.Elif(edge_done):
            m.d.sync += left.eq(left - 1)
        m.d.comb += self.busy.eq(any_busy(prop_in.level, const_in.level, count,
                                          vertices.level, current_valid))
        if self._srcid_stored:
            with m.If(fire & (self.edges.payload.edge.src != current.id)):
                m.d.sync += self.mismatch.eq(1)
        else:
            m.d.comb += self.o.payload.edge.src.eq(current.id)
        return m
