"""VTempProperty in two halves for the duplicated update path of the symmetric-graph
optimisation (Graphicionado §IV.D, P7 and P9 twice, §4.A's scratchpad): each update path
reads and writes its own half in the same cycles as the other."""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from .scratchpad import TEMP_READ_LATENCY, Scratchpad, check_word_width


__all__ = ["ScratchpadHalves"]


class ScratchpadHalves(wiring.Component):
    """VTempProperty of ``vertices`` vertices of ``flits`` words each, as two
    :class:`Scratchpad` halves: vertex index ``i`` in half ``i & 1`` at ``i >> 1``, its
    flit ``f`` at word ``(i >> 1) * flits + f`` there.

    While ``shared`` is low, half ``p`` serves update path ``p`` through ``path_*[p]``
    (half-local word addresses). While it is high, the ``temp_*`` port, addressed by the
    whole scratchpad's word (``i * flits + f``, as :class:`Scratchpad`'s), reaches either
    half, for the apply phase, clearing and the spill; its read data come from the half that
    the address of :data:`TEMP_READ_LATENCY` cycles before named. Timing as
    :class:`Scratchpad`'s, on every port.

    Parameters
    ----------
    vertices : int
        Vertices (scratchpad indexes), at least 2.
    flits : int
        Words per vertex, a power of two.
    word_width : int
    bank_words : int
        As :class:`Scratchpad`'s, for each half.

    Members
    -------
    shared : ``In(1)``
    temp_read_addr, temp_write_addr : ``In(index_width)``
    temp_read_data : ``Out(word_width)``; temp_write_data : ``In(word_width)``
    temp_write_en : ``In(1)``
    path_read_addr, path_write_addr : ``In(half_width).array(2)``
    path_read_data : ``Out(word_width).array(2)``; path_write_data : ``In(word_width).array(2)``
    path_write_en : ``In(1).array(2)``

    Attributes
    ----------
    index_width, half_width : int
        Bits of a word address of the whole and of a half.
    temp_entries : int
        Words in all.
    """

    def __init__(self, *, vertices: int, flits: int, word_width: int = 32,
                 bank_words: int = 16384):
        check_int("ScratchpadHalves", "vertices", vertices, low=2)
        check_int("ScratchpadHalves", "flits", flits, low=1)
        check_word_width("ScratchpadHalves", "word_width", word_width)
        self._flit_shift = (flits - 1).bit_length()
        half_vertices = -(-vertices // 2)
        self._halves = [Scratchpad(vertices=max(2, half_vertices) * flits, table_entries=0,
                                   word_width=word_width, bank_words=bank_words)
                        for _ in range(2)]
        self.half_width = self._halves[0].index_width
        self.index_width = self.half_width + 1
        self.temp_entries = 2 * half_vertices * flits
        super().__init__({
            "shared": In(1),
            "temp_read_addr": In(self.index_width), "temp_read_data": Out(word_width),
            "temp_write_addr": In(self.index_width), "temp_write_data": In(word_width),
            "temp_write_en": In(1),
            "path_read_addr": In(self.half_width).array(2),
            "path_read_data": Out(word_width).array(2),
            "path_write_addr": In(self.half_width).array(2),
            "path_write_data": In(word_width).array(2),
            "path_write_en": In(1).array(2),
        })

    def _split(self, address):
        """A whole-scratchpad word address as (its half, its address there)."""
        shift = self._flit_shift
        return address[shift], Cat(address[:shift], address[shift + 1:])

    def elaborate(self, platform):
        m = Module()
        m.submodules.half0, m.submodules.half1 = self._halves
        read_half, read_local = self._split(self.temp_read_addr)
        write_half, write_local = self._split(self.temp_write_addr)
        for p, half in enumerate(self._halves):
            m.d.comb += self.path_read_data[p].eq(half.temp_read_data)
            with m.If(self.shared):
                m.d.comb += [
                    half.temp_read_addr.eq(read_local),
                    half.temp_write_addr.eq(write_local),
                    half.temp_write_data.eq(self.temp_write_data),
                    half.temp_write_en.eq(self.temp_write_en & (write_half == p)),
                ]
            with m.Else():
                m.d.comb += [
                    half.temp_read_addr.eq(self.path_read_addr[p]),
                    half.temp_write_addr.eq(self.path_write_addr[p]),
                    half.temp_write_data.eq(self.path_write_data[p]),
                    half.temp_write_en.eq(self.path_write_en[p]),
                ]
        # The half a read's data come from, as late as its data.
        chosen = read_half
        for stage in range(TEMP_READ_LATENCY):
            delayed = Signal(name=f"read_half_{stage}")
            m.d.sync += delayed.eq(chosen)
            chosen = delayed
        m.d.comb += self.temp_read_data.eq(Mux(chosen, self._halves[1].temp_read_data,
                                               self._halves[0].temp_read_data))
        return m
