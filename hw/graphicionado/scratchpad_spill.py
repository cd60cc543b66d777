"""Scratchpad write-back and load for extended graph slicing (Graphicionado §VI.B): between
slices the control schedule writes a region of the scratchpad (VTempProperty of one vertex
partition) back to memory and loads another partition's from memory.

Store: the region streamed out of the scratchpad (:class:`TempPropertyStream`, which leaves
the Reduce identity behind) → Sequential Vertex Write. Load: Sequential Vertex Read → the
scratchpad's write port, a word a cycle. A load may start while a store of the same region
runs (the overlapped write-back and load between two slices of a column): the store reads on
the read port and the load writes on the write port, each word once the store has read it.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.line_writer import SequentialLineWriter
from hw.lib.memory.port import MemoryPortSignature
from .scratchpad import TempPropertyStream, check_word_width
from .sequential_vertex_read import SequentialVertexRead


__all__ = ["ScratchpadSpill"]


class ScratchpadSpill(wiring.Component):
    """Moves ``count`` vertices of VTempProperty, at scratchpad index ``first`` on, between
    the scratchpad and the array at line ``base`` (each vertex's ``flits`` words, in order).

    Parameters
    ----------
    index_width : int
        Scratchpad address width.
    word_width : int
        Bits of a scratchpad word: 32, or a flit's (32 × lanes).
    flits : int
        Words per vertex (a power of two).
    addr_width : int
    prefetch_lines : int
        Lines the load reads ahead.

    Members
    -------
    store, load : ``In(1)``
        Pulses: write the region to memory, or read it from memory; a load during a store
        writes no word the store has not read, and no word it loads is left the identity.
    base : ``In(addr_width)``; first : ``In(32)``; count : ``In(32)``
    identity : ``In(32)``
        Left in every lane of a stored word.
    busy : ``Out(1)``
    read_addr : ``Out(index_width)``; read_data : ``In(word_width)``
    write_addr : ``Out(index_width)``; write_data : ``Out(word_width)``; write_en : ``Out(1)``
        The scratchpad port, used while ``busy``.
    read_mem, write_mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, index_width: int, word_width: int = 32, flits: int = 1,
                 addr_width: int = 26, prefetch_lines: int = 4):
        check_word_width("ScratchpadSpill", "word_width", word_width)
        if word_width // 32 not in (1, 2, 4, 8, 16):
            raise ConfigError(f"ScratchpadSpill: word_width must be 1, 2, 4, 8 or 16 lanes of 32 "
                              f"bits, not {word_width!r}")
        check_int("ScratchpadSpill", "index_width", index_width)
        check_int("ScratchpadSpill", "flits", flits, power_of_two=True)
        check_int("ScratchpadSpill", "addr_width", addr_width, high=32)
        check_int("ScratchpadSpill", "prefetch_lines", prefetch_lines)
        self._index_width = index_width
        self._word_width = word_width
        self._flits = flits
        self._addr_width = addr_width
        self._prefetch_lines = prefetch_lines
        super().__init__({
            "store": In(1), "load": In(1), "base": In(addr_width), "first": In(32),
            "count": In(32), "identity": In(32), "busy": Out(1),
            "read_addr": Out(index_width), "read_data": In(word_width),
            "write_addr": Out(index_width), "write_data": Out(word_width), "write_en": Out(1),
            "read_mem": Out(MemoryPortSignature(addr_width)),
            "write_mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        lanes = self._word_width // 32
        flit_shift = self._flits.bit_length() - 1
        m.submodules.out = out = TempPropertyStream(
            index_width=self._index_width, flits=self._flits, word_width=self._word_width)
        m.submodules.writer = writer = SequentialLineWriter(item_words=lanes,
                                                            addr_width=self._addr_width,
                                                            marked=False)
        m.submodules.reader = reader = SequentialVertexRead(
            item_words=lanes, addr_width=self._addr_width, prefetch_lines=self._prefetch_lines)
        wiring.connect(m, writer.mem, wiring.flipped(self.write_mem))
        wiring.connect(m, reader.mem, wiring.flipped(self.read_mem))

        self._store(m, out, writer, flit_shift)
        self._load(m, out, reader, flit_shift)
        m.d.comb += self.busy.eq(any_busy(out.busy, writer.busy, self._flush_pending,
                                          reader.busy))
        return m

    def _store(self, m, out, writer, flit_shift):
        """Store: the region's words, in order, then a flush of the last partial line; the
        word count taken at ``store``, as every other setting of the store is."""
        words = Signal(32)
        flush_pending = self._flush_pending = Signal()
        flush = flush_pending & ~out.busy & (writer.written == words)
        with m.If(self.store):
            m.d.sync += [flush_pending.eq(1), words.eq(self.count << flit_shift)]
        with m.Elif(flush):
            m.d.sync += flush_pending.eq(0)
        m.d.comb += [
            out.start.eq(self.store), out.first.eq(self.first), out.count.eq(self.count),
            out.identity.eq(self.identity), out.id_base.eq(0),
            out.read_data.eq(self.read_data),
            writer.start.eq(self.store), writer.base.eq(self.base), writer.first.eq(0),
            writer.items.valid.eq(out.o.valid), writer.items.payload.eq(out.o.payload.temp),
            out.o.ready.eq(writer.items.ready),
            writer.flush.eq(flush),
            self.read_addr.eq(out.read_addr),
        ]

    def _load(self, m, out, reader, flit_shift):
        """Load: each word to its place as it comes; beside a store of the same words (the
        overlapped write-back and load of extended slicing) a word only once the store has
        read it, and the store leaves no identity behind where the load will write."""
        width = self._index_width + 1
        store_read = Signal(width)      # words below it the store has read
        store_end = Signal(width)
        load_first, load_end = Signal(width), Signal(width)
        with m.If(self.store):
            m.d.sync += [store_read.eq(self.first << flit_shift),
                         store_end.eq((self.first + self.count) << flit_shift)]
        with m.Elif(out.write_en):      # a word read a cycle ago, its identity due now
            m.d.sync += store_read.eq(store_read + 1)
        with m.If(self.load):
            m.d.sync += [load_first.eq(self.first << flit_shift),
                         load_end.eq((self.first + self.count) << flit_shift)]
        word = reader.o.payload.index
        overwritten = (reader.busy & (out.write_addr >= load_first) &
                       (out.write_addr < load_end))
        identity = out.write_en & ~overwritten
        allowed = (store_read == store_end) | (word < store_read)
        m.d.comb += [
            reader.start.eq(self.load), reader.base.eq(self.base),
            reader.count.eq(self.count << flit_shift),
            reader.first_index.eq(self.first << flit_shift),
            reader.o.ready.eq(allowed & ~identity),
        ]
        with m.If(identity):
            m.d.comb += [self.write_addr.eq(out.write_addr),
                         self.write_data.eq(out.write_data), self.write_en.eq(1)]
        with m.Elif(reader.o.valid & allowed):
            m.d.comb += [self.write_addr.eq(word), self.write_data.eq(reader.o.payload.data),
                         self.write_en.eq(1)]
