"""The in-edge line each bottom-up search is reading (Enterprise §2.1, §4.3): one line of
sixteen in-neighbours per search slot, held on chip while the search's status reads are in
flight, so a search carries only its slot number through the hub cache and the memory.

A search carrying its whole line instead would make every queue it passes 512 bits wider:
with 128 status reads in flight that is 64 kbit of queue for lines that never change.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, WORDS_PER_LINE
from .hub_cache import cache_lookup_layout


__all__ = ["SearchLines", "line_write_layout"]

WORD_BITS = (WORDS_PER_LINE - 1).bit_length()


def line_write_layout(slots: int) -> data.StructLayout:
    return data.StructLayout({"slot": range(slots), "line": LINE_BITS})


class SearchLines(wiring.Component):
    """A line store with one line per slot, and a stream that reads one word of it.

    Parameters
    ----------
    slots : int
        Lines held (the bottom-up check's searches at once).
    ctx_width : int
        Bits carried from a lookup to its answer (the search's state).

    Members
    -------
    write : ``In(line_write_layout(slots))`` and ``write_en : In(1)``
        Stores ``line`` as slot ``slot``'s line. A lookup of that slot in the same cycle
        already sees it.
    lookup : ``In(stream.Signature(data.StructLayout({"slot", "word", "ctx"})))``
        Word ``word`` (0 to 15) of slot ``slot``'s line.
    neighbour : ``Out(stream.Signature(cache_lookup_layout(ctx_width)))``
        The word, a cycle later, with the lookup's ``ctx``: a hub-cache lookup. One lookup
        a cycle.
    busy : ``Out(1)``
    """

    def __init__(self, *, slots: int, ctx_width: int):
        check_int("SearchLines", "ctx_width", ctx_width, low=0)
        if slots < 1:
            raise ConfigError(f"SearchLines: slots must be at least 1, not {slots!r}")
        self._slots = slots
        self._ctx_width = ctx_width
        super().__init__({
            "write": In(line_write_layout(slots)),
            "write_en": In(1),
            "lookup": In(stream.Signature(data.StructLayout({
                "slot": range(slots), "word": WORD_BITS, "ctx": ctx_width}))),
            "neighbour": Out(stream.Signature(cache_lookup_layout(ctx_width))),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.store = store = Memory(shape=LINE_BITS, depth=self._slots, init=[])
        write = store.write_port()
        read = store.read_port(transparent_for=(write,))
        m.d.comb += [write.addr.eq(self.write.slot), write.data.eq(self.write.line),
                     write.en.eq(self.write_en)]

        # One output register; the memory's read data holds while the register waits, since
        # the read port is enabled only when a lookup is taken.
        word = Signal(WORD_BITS)
        taken = self.lookup.valid & self.lookup.ready
        m.d.comb += [
            self.lookup.ready.eq(~self.neighbour.valid | self.neighbour.ready),
            read.addr.eq(self.lookup.payload.slot),
            read.en.eq(taken),
            self.neighbour.payload.vertex.eq(read.data.word_select(word, 32)),
            self.busy.eq(self.neighbour.valid),
        ]
        with m.If(taken):
            m.d.sync += [word.eq(self.lookup.payload.word),
                         self.neighbour.payload.ctx.eq(self.lookup.payload.ctx)]
        with m.If(self.neighbour.ready | taken):
            m.d.sync += self.neighbour.valid.eq(taken)
        return m
