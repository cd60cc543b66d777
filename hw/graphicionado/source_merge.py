"""The source side of full-edge-access processing (Graphicionado §4.B): every vertex is
active, so P1 reads VProperty and VConst sequentially and P3 streams the whole edge list;
this block pairs each edge with its source's property and constant.

VConst holds two words per vertex here: the FP32 constant Process_Edge needs (1/outdeg for
PageRank) and the out-degree, which tells the merge how many edges belong to the vertex.
Vertices without edges are dropped on the way in, so they cost no cycle of the merge. The two
vertex streams enter through registered queues: dropping depends on the degree, and without
them the readers' line buffers would sit on the path to their own read pointers.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.stream.fifo import StreamFIFO
from .layouts import SourcedEdge
from .sequential_vertex_read import item_layout


__all__ = ["SourceVertex", "SourceMerge"]

SourceVertex = data.StructLayout({"id": 32, "prop": 32, "const": 32, "degree": 32})


class SourceMerge(wiring.Component):
    """Sequential VProperty and VConst items and the sequential edge stream in; edges with
    their source's operands out, one per cycle.

    Parameters
    ----------
    depth : int
        Vertices queued ahead of the merge.
    const_words : int
        Words of a VConst item (2; more with parallel edge readers).
    degree_word : int
        The VConst word holding the number of edges this merge's edge stream has for the
        vertex: the out-degree (word 1), or with parallel edge readers (§V.B) the edges of
        this merge's reader.

    srcid_stored : bool
        The edges carry their srcid from memory (the paper's layout), checked against the
        vertex the counts point at; without it (the compact layout) the edge takes that
        vertex's id.
    Members
    -------
    prop : ``In(stream.Signature(item_layout(1)))``
    const : ``In(stream.Signature(item_layout(const_words)))``
        Word 0: the constant; word ``degree_word``: the edge count.
    edges : ``In(stream.Signature(SourcedEdge))``
        The edge list in edge-id order (from Edge Read with ``match_any``).
    o : ``Out(stream.Signature(SourcedEdge))``
    mismatch : ``Out(1)``
        Sticky: an edge's srcid was not the vertex the degrees pointed at (a bad image).
    busy : ``Out(1)``
        A vertex is queued or being merged.
    """

    def __init__(self, *, depth: int = 4, const_words: int = 2, degree_word: int = 1,
                 srcid_stored: bool = True):
        check_int("SourceMerge", "depth", depth)
        if not 1 <= degree_word < const_words:
            raise ConfigError(f"SourceMerge: degree_word must be between 1 and {const_words - 1},"
                              f" not {degree_word!r}")
        self._depth = depth
        self._const_words = const_words
        self._degree_word = degree_word
        self._srcid_stored = srcid_stored
        super().__init__({
            "prop": In(stream.Signature(item_layout(1))),
            "const": In(stream.Signature(item_layout(const_words))),
            "edges": In(stream.Signature(SourcedEdge)),
            "o": Out(stream.Signature(SourcedEdge)),
            "mismatch": Out(1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.vertices = vertices = StreamFIFO(SourceVertex, max(3, self._depth),
                                                      buffered=True)
        # Three entries: a buffered queue of two cannot take and give in the same cycle.
        m.submodules.prop_in = prop_in = StreamFIFO(item_layout(1), 3, buffered=True)
        m.submodules.const_in = const_in = StreamFIFO(item_layout(self._const_words), 3,
                                                      buffered=True)
        wiring.connect(m, wiring.flipped(self.prop), prop_in.i)
        wiring.connect(m, wiring.flipped(self.const), const_in.i)
        prop, const = prop_in.o, const_in.o

        # Zip the two sequential streams into a register, with whether the vertex has edges;
        # only those go on. The 32-bit degree test then feeds only that register, not the
        # queues' read enables (across the chip from here, it was the slowest path).
        degree = const.payload.data.word_select(self._degree_word, 32)
        both = prop.valid & const.valid
        zipped = Signal(SourceVertex)
        zipped_valid = Signal()
        zipped_keep = Signal()
        zipped_done = ~zipped_keep | vertices.i.ready
        take = both & (~zipped_valid | zipped_done)
        m.d.comb += [
            prop.ready.eq(take),
            const.ready.eq(take),
            vertices.i.valid.eq(zipped_valid & zipped_keep),
            vertices.i.payload.eq(zipped),
        ]
        with m.If(take):
            m.d.sync += [zipped.id.eq(prop.payload.index), zipped.prop.eq(prop.payload.data),
                         zipped.const.eq(const.payload.data[0:32]), zipped.degree.eq(degree),
                         zipped_valid.eq(1), zipped_keep.eq(degree != 0)]
        with m.Elif(zipped_done):
            m.d.sync += zipped_valid.eq(0)

        # Merge: the current vertex, held in registers with the count of its edges still to
        # come, owns the next ``degree`` edges. Whether this is its last edge is a register
        # too, so an edge's hand-over does not wait on an arithmetic compare.
        current = Signal(SourceVertex)
        current_valid = Signal()
        left = Signal(32)
        last = Signal()
        pair = current_valid & self.edges.valid
        fire = pair & self.o.ready
        load = vertices.o.valid & (~current_valid | (fire & last))
        m.d.comb += [
            self.o.valid.eq(pair),
            self.o.payload.edge.eq(self.edges.payload.edge),
            self.o.payload.prop.eq(current.prop),
            self.o.payload.const.eq(current.const),
            self.edges.ready.eq(pair & self.o.ready),
            vertices.o.ready.eq(load),
        ]
        with m.If(load):
            m.d.sync += [current.eq(vertices.o.payload), current_valid.eq(1),
                         left.eq(vertices.o.payload.degree),
                         last.eq(vertices.o.payload.degree == 1)]
        with m.Elif(fire & last):
            m.d.sync += current_valid.eq(0)
        with m.Elif(fire):
            m.d.sync += [left.eq(left - 1), last.eq(left == 2)]
        # Levels, not the queues' valid: a registered queue's output is not yet valid in the
        # cycle after it took an item.
        m.d.comb += self.busy.eq(any_busy(prop_in.level, const_in.level, zipped_valid,
                                          vertices.level, current_valid))
        if self._srcid_stored:
            with m.If(fire & (self.edges.payload.edge.src != current.id)):
                m.d.sync += self.mismatch.eq(1)
        else:
            m.d.comb += self.o.payload.edge.src.eq(current.id)
        return m
