"""The compactor: after a batch, the slab-hash graph written out as the edge list an analytics
pipeline reads (issue 19, item 3), so BFS and PageRank run on the updated graph without the
host rebuilding it. Graphicionado's layout (Ham et al. §3.1): edge records sorted by source
(the paper's four words, or the compact one- or two-word edges of its ``edge_format`` csr),
the EdgeIDTable, and PageRank's VConst (1/out-degree, out-degree).

The walk (:class:`CompactWalk`) reads each present vertex's base slabs through one slab port,
in order; chains are followed on a second port (:class:`ChainMerge`); live pairs become edges
(:class:`PairSerialize`), counted into the table and degrees (:class:`CompactIndex`); the
degrees' reciprocals come from :class:`hw.lib.arith.fp32_reciprocal.Reciprocal`; three
:class:`hw.lib.memory.line_writer.SequentialLineWriter` share one write client.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import check_int
from hw.lib.arith.fp32_reciprocal import Reciprocal
from hw.lib.memory.line_writer import SequentialLineWriter, line_item_layout
from hw.lib.memory.port import MemoryPortSignature, line_request_layout
from hw.lib.memory.range_streamer import RangeStreamer, range_out_layout
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from .chain_merge import ChainMerge
from .compact_index import RECORD_WORDS, CompactIndex, DegreeSide
from .compact_walk import CompactWalk
from .layouts import CompactCtx, CompactEdge
from .pair_serialize import PairSerialize
from .slab_port import SlabPort, slab_out_layout


__all__ = ["SlabCompactor", "CLIENTS"]

# Its memory clients, in the order of ``mem``; the last only writes.
CLIENTS = ("compact_vertices", "compact_slabs", "compact_chains", "compact_writes")


class SlabCompactor(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    slab_index_bits : int
    depth : int
        Base-slab reads in flight (the walk runs ahead of the serializer by this much).
    read_window : int
        Lines of the vertex table read ahead.
    edge_words : int
        Words of an edge record (:class:`CompactIndex`): 4 (coo), 2 or 1 (csr).

    Members
    -------
    start : ``In(1)``
        Restart and walk vertices ``0 .. num_vertices - 1`` (at least one).
    num_vertices : ``In(32)``
    vertices_base, pool_base, edges_base, table_base, vconst_base : ``In(addr_width)``
    done : ``Out(1)``
        Every line of the three lists has left for the memory.
    busy : ``Out(1)``
    edges : ``Out(32)``; slab_reads : ``Out(32)``; chain_reads : ``Out(32)``
    mem : ``Out(MemoryPortSignature(addr_width)).array(4)``
        :data:`CLIENTS`.
    """

    def __init__(self, *, addr_width: int, slab_index_bits: int, depth: int = 32,
                 read_window: int = 16, edge_words: int = RECORD_WORDS):
        check_int("SlabCompactor", "addr_width", addr_width, high=32)
        check_int("SlabCompactor", "slab_index_bits", slab_index_bits, high=31)
        check_int("SlabCompactor", "depth", depth)
        check_int("SlabCompactor", "read_window", read_window)
        self._aw = addr_width
        self._bits = slab_index_bits
        self._depth = depth
        self._window = read_window
        self._edge_words = edge_words
        aw = addr_width
        super().__init__({
            "start": In(1), "num_vertices": In(32),
            "vertices_base": In(aw), "pool_base": In(aw), "edges_base": In(aw),
            "table_base": In(aw), "vconst_base": In(aw),
            "done": Out(1), "busy": Out(1),
            "edges": Out(32), "slab_reads": Out(32), "chain_reads": Out(32),
            "mem": Out(MemoryPortSignature(aw)).array(len(CLIENTS)),
        })

    def elaborate(self, platform):
        m = Module()
        aw = self._aw
        blocks = {
            "vertex_reader": RangeStreamer(addr_width=aw, item_words=1, window=self._window),
            "walk": CompactWalk(slab_index_bits=self._bits),
            "base_port": SlabPort(addr_width=aw, ctx_shape=CompactCtx, depth=self._depth,
                                 read_only=True),
            "chain_port": SlabPort(addr_width=aw, ctx_shape=CompactCtx, depth=2, read_only=True),
            # A slice between the vertex table's reader and the walk (the word's bucket
            # count into the walk's compare), one between the chains and the serializer
            # (the ports' queues into the live pairs' search).
            "vertex_slice": StreamRegisterSlice(range_out_layout(1, 1)),
            "chains": ChainMerge(),
            "slab_slice": StreamRegisterSlice(slab_out_layout(CompactCtx), skid=False),
            "serialize": PairSerialize(),
            "edge_fifo": StreamFIFO(CompactEdge, 4),
            # The index's compare of each edge's vertex (its ready) is not in one path with
            # the queue's read, nor the serializer's with the index's.
            "edge_slice": StreamRegisterSlice(CompactEdge),
            "index": CompactIndex(self._edge_words),
            # The result (bits, degree, side) is the VConst item (1/deg, deg) bit for bit.
            "reciprocal": Reciprocal(DegreeSide, out_layout=line_item_layout(2)),
            "record_writer": SequentialLineWriter(addr_width=aw, item_words=self._edge_words),
            "table_writer": SequentialLineWriter(addr_width=aw, item_words=1),
            "vconst_writer": SequentialLineWriter(addr_width=aw, item_words=2),
            "writes": StreamArbiter(line_request_layout(aw), 3, registered_grant=True),
            # The memory's ready is not in one path with the writers' choices.
            "write_slice": StreamRegisterSlice(line_request_layout(aw)),
        }
        for name, block in blocks.items():
            m.submodules[name] = block
        b = blocks
        connect = wiring.connect
        reader = b["vertex_reader"]
        connect(m, reader.items, b["vertex_slice"].i)
        connect(m, b["vertex_slice"].o, b["walk"].vertices)
        connect(m, b["walk"].reads, b["base_port"].reads)
        connect(m, b["base_port"].slabs, b["chains"].base)
        connect(m, b["chains"].chain_reads, b["chain_port"].reads)
        connect(m, b["chain_port"].slabs, b["chains"].chained)
        connect(m, b["chains"].slabs, b["slab_slice"].i)
        connect(m, b["slab_slice"].o, b["serialize"].slabs)
        connect(m, b["serialize"].edges, b["edge_fifo"].i)
        connect(m, b["edge_fifo"].o, b["edge_slice"].i)
        connect(m, b["edge_slice"].o, b["index"].edges)
        connect(m, b["index"].records, b["record_writer"].items)
        connect(m, b["index"].entries, b["table_writer"].items)
        connect(m, b["index"].degrees, b["reciprocal"].i)
        connect(m, b["reciprocal"].o, b["vconst_writer"].items)
        for k, name in enumerate(("record_writer", "table_writer", "vconst_writer")):
            connect(m, b[name].mem.req, b["writes"].i[k])
        for client, mem in zip((reader.mem, b["base_port"].mem, b["chain_port"].mem),
                               self.mem[:3]):
            connect(m, client, wiring.flipped(mem))
        connect(m, b["writes"].o, b["write_slice"].i)
        connect(m, b["write_slice"].o, wiring.flipped(self.mem[3].req))
        m.d.comb += self.mem[3].resp.ready.eq(1)

        # The vertex table's read, asked once a start.
        command = reader.cmd
        with m.If(command.valid & command.ready):
            m.d.sync += command.valid.eq(0)
        m.d.comb += [command.payload.base.eq(self.vertices_base), command.payload.first.eq(0),
                     command.payload.count.eq(self.num_vertices)]
        writers = [b[name] for name in ("record_writer", "table_writer", "vconst_writer")]
        with m.If(self.start):
            m.d.sync += command.valid.eq(1)
        m.d.comb += [
            b["index"].restart.eq(self.start), b["index"].num_vertices.eq(self.num_vertices),
            b["base_port"].pool_base.eq(self.pool_base),
            b["chain_port"].pool_base.eq(self.pool_base),
            writers[0].base.eq(self.edges_base), writers[1].base.eq(self.table_base),
            writers[2].base.eq(self.vconst_base),
            *(writer.start.eq(self.start) for writer in writers),
            self.done.eq(writers[0].done & writers[1].done & writers[2].done &
                         ~b["write_slice"].o.valid),
            self.edges.eq(b["index"].edge_count),
            self.chain_reads.eq(b["chain_port"].reads_done),
            self.slab_reads.eq(b["base_port"].reads_done + b["chain_port"].reads_done),
        ]
        busy = [command.valid, reader.busy, b["vertex_slice"].o.valid, b["walk"].busy,
                b["base_port"].busy, b["chain_port"].busy, b["chains"].following,
                b["slab_slice"].o.valid, b["serialize"].busy,
                b["edge_fifo"].o.valid, b["edge_slice"].o.valid, b["index"].busy,
                b["reciprocal"].busy, *(w.busy for w in writers),
                b["write_slice"].o.valid]
        m.d.comb += self.busy.eq(any_busy(busy))
        return m
