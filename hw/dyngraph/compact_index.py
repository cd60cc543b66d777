"""The compactor's index: the compacted edges as Graphicionado's edge records (its coo or
csr layout, ``edge_words`` 4, 2 or 1), with the
EdgeIDTable (each vertex's first edge id, Ham et al. §3.1) and each vertex's out-degree
counted on the way (PageRank's VConst, made from it by :class:`hw.lib.arith.fp32_reciprocal.Reciprocal`).
"""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.arith.fp32_reciprocal import reciprocal_in_layout
from hw.lib.config import ConfigError
from hw.lib.memory.line_writer import line_item_layout
from .config import COMPACT_EDGE_WORDS
from .layouts import CompactEdge


__all__ = ["CompactIndex", "DegreeSide", "RECORD_WORDS", "record_fields"]

RECORD_WORDS = 4                     # src, dst, weight, 0: the paper's (coo) record


def record_fields(edge_words: int) -> tuple[str, ...]:
    """What a compacted edge of ``edge_words`` words holds, in word order (``zero``: the
    reserved word)."""
    return {4: ("src", "dst", "weight", "zero"), 2: ("dst", "weight"), 1: ("dst",)}[edge_words]


DegreeSide = data.StructLayout({"empty": 1, "last": 1})


class CompactIndex(wiring.Component):
    """Edges in (ascending sources, then the end marker); out: the edge records, the table's
    ``num_vertices + 1`` entries and ``num_vertices`` degrees. Before the first edge of vertex
    ``u``, the entries of every vertex up to ``u`` are made, one a cycle; the end marker makes
    the rest, then ends the records' list. Entry ``k`` > 0 comes with vertex ``k - 1``'s
    degree (entry 0 with an empty degree item, so the two lists stay in step).

    Parameters
    ----------
    edge_words : int
        Words of a record (:func:`record_fields`): 4, 2 or 1.

    Members
    -------
    num_vertices : ``In(32)``
    restart : ``In(1)``
    edges : ``In(stream.Signature(CompactEdge))``
    records : ``Out(stream.Signature(line_item_layout(edge_words)))``
    entries : ``Out(stream.Signature(line_item_layout(1)))``
    degrees : ``Out(stream.Signature(reciprocal_in_layout(DegreeSide)))``
    edge_count : ``Out(32)``
        Edges passed since ``restart``.
    busy : ``Out(1)``
    """

    def __init__(self, edge_words: int = RECORD_WORDS):
        if edge_words not in COMPACT_EDGE_WORDS:
            raise ConfigError(f"CompactIndex: edge_words must be 4, 2 or 1, not "
                              f"{edge_words!r}")
        self._edge_words = edge_words
        super().__init__({
            "num_vertices": In(32),
            "restart": In(1),
            "edges": In(stream.Signature(CompactEdge)),
            "records": Out(stream.Signature(line_item_layout(edge_words))),
            "entries": Out(stream.Signature(line_item_layout(1))),
            "degrees": Out(stream.Signature(reciprocal_in_layout(DegreeSide))),
            "edge_count": Out(32),
            "busy": Out(1),
        })

    def _record(self, edge):
        words = {"src": edge.u, "dst": edge.v, "weight": edge.w, "zero": Const(0, 32)}
        return Cat(*(words[name] for name in record_fields(self._edge_words)))

    def elaborate(self, platform):
        m = Module()
        count = self.edge_count
        next_vertex = Signal(33)     # the next table entry to make (0 .. num_vertices)
        previous = Signal(32)        # entry next_vertex - 1
        finished = Signal()
        edge = self.edges.payload
        records, entries, degrees = self.records, self.entries, self.degrees

        # Outputs are registers: each takes a new item when it is empty or leaving.
        free = {name: ~out.valid | out.ready for name, out in
                [("records", records), ("entries", entries), ("degrees", degrees)]}
        for out in (records, entries, degrees):
            with m.If(out.valid & out.ready):
                m.d.sync += out.valid.eq(0)

        n = self.num_vertices
        # ``next_vertex == n`` and ``next_vertex > n``, kept beside ``next_vertex`` as it
        # counts up from 0 (registers, not compares in the path to the steps).
        at_n, beyond_n = Signal(), Signal()
        table_step = self.edges.valid & ~finished & (edge.end | (next_vertex <= edge.u))
        entry_step = table_step & ~beyond_n & free["entries"] & free["degrees"]
        end_step = table_step & beyond_n & free["records"]
        edge_step = self.edges.valid & ~finished & ~table_step & free["records"]
        m.d.comb += [self.edges.ready.eq(edge_step | end_step),
                     self.busy.eq(records.valid | entries.valid | degrees.valid)]
        with m.If(entry_step):
            m.d.sync += [
                entries.valid.eq(1), entries.payload.data.eq(count),
                entries.payload.empty.eq(0), entries.payload.last.eq(at_n),
                degrees.valid.eq(1), degrees.payload.value.eq(count - previous),
                degrees.payload.side.empty.eq(next_vertex == 0),
                degrees.payload.side.last.eq(at_n),
                next_vertex.eq(next_vertex + 1), previous.eq(count),
                at_n.eq(next_vertex + 1 == n), beyond_n.eq(at_n),
            ]
        with m.If(edge_step):
            m.d.sync += [records.valid.eq(1),
                         records.payload.data.eq(self._record(edge)),
                         records.payload.empty.eq(0), records.payload.last.eq(0),
                         count.eq(count + 1)]
        with m.If(end_step):
            m.d.sync += [records.valid.eq(1), records.payload.empty.eq(1),
                         records.payload.last.eq(1), finished.eq(1)]
        with m.If(self.restart):
            m.d.sync += [count.eq(0), next_vertex.eq(0), previous.eq(0), finished.eq(0),
                         at_n.eq(n == 0), beyond_n.eq(0)]
        return m
