"""The hub cache (Enterprise §4.3, figure 11): ``HC[hash(id)] = id`` of the hubs the previous
level visited, looked up before each bottom-up status read; a hit makes the neighbour the
parent without a memory access.

Two tables: level L writes the hubs it finds into table ``L % 2`` while its bottom-up
checks read table ``(L - 1) % 2``, so a level never sees its own discoveries (a vertex found
at level L is no parent at level L) and its lookups do not depend on when the discoveries
arrive. Each slot holds an id and the level that wrote it; a lookup hits only an entry of
level L - 1, so the tables need no clearing between levels. Where two hubs of a level share a
slot (``id % entries``) the larger id stays, whatever order they come in.

Between runs the tables must be emptied (a hub of the last run, tagged with a level of this
one, would be a wrong parent). They come empty from the bitstream, and a clear (a slot a
cycle) runs after a run, while the engine is idle; a flag that no reset touches records
whether an insert has happened since the last clear, so a run that follows a reset in the
middle of another clears first, and any other run finds the tables empty.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two, check_int


__all__ = ["HubCache", "NO_LEVEL", "cache_lookup_layout", "cache_answer_layout"]

NO_LEVEL = 0xFFFF           # the tag of an empty slot: never a level

Entry = data.StructLayout({"id": 32, "tag": 16})


def cache_lookup_layout(ctx_width: int) -> data.StructLayout:
    return data.StructLayout({"vertex": 32, "ctx": max(ctx_width, 1)})


def cache_answer_layout(ctx_width: int) -> data.StructLayout:
    return data.StructLayout({"vertex": 32, "ctx": max(ctx_width, 1), "hit": 1})


class HubCache(wiring.Component):
    """Parameters
    ----------
    entries : int
        Slots per table, a power of two; 0 builds no tables and every lookup misses.
    ctx_width : int
        Bits carried from a lookup to its answer.

    Members
    -------
    level : ``In(16)``
        The level being processed (held steady while lookups and inserts flow).
    clear : ``In(1)``
        A pulse: if anything was inserted since the last clear, every slot of both tables
        becomes empty (``entries`` cycles, ``busy``).
    busy : ``Out(1)``
        Clearing, or a lookup or an insert inside.
    lookup : ``In(stream.Signature(cache_lookup_layout(ctx_width)))``
    answer : ``Out(stream.Signature(cache_answer_layout(ctx_width)))``
        Each lookup, in order, a cycle later at the earliest.
    insert : ``In(stream.Signature(32))``
        A hub found at ``level``.
    """

    def __init__(self, *, entries: int, ctx_width: int = 1):
        check_int("HubCache", "ctx_width", ctx_width, low=0)
        if entries and not is_power_of_two(entries):
            raise ConfigError(f"HubCache: entries must be a power of two, not {entries!r}")
        self._entries = entries
        self._ctx_width = ctx_width
        super().__init__({
            "level": In(16),
            "clear": In(1),
            "busy": Out(1),
            "lookup": In(stream.Signature(cache_lookup_layout(ctx_width))),
            "answer": Out(stream.Signature(cache_answer_layout(ctx_width))),
            "insert": In(stream.Signature(32)),
        })

    def _clearing(self, m, slot_bits):
        """The clear, if anything was inserted since the last: a slot a cycle. Returns
        whether it runs and the slot it empties."""
        clearing = Signal()
        clear_slot = Signal(slot_bits + 1)
        dirty = Signal(reset_less=True)         # inserted since the last clear
        with m.If(self.insert.valid & self.insert.ready):
            m.d.sync += dirty.eq(1)
        with m.If(self.clear & dirty):
            m.d.sync += [clearing.eq(1), clear_slot.eq(0)]
        with m.Elif(clearing):
            m.d.sync += clear_slot.eq(clear_slot + 1)
            with m.If(clear_slot == self._entries - 1):
                m.d.sync += [clearing.eq(0), dirty.eq(0)]
        return clearing, clear_slot

    def elaborate(self, platform):
        m = Module()
        if not self._entries:
            m.d.comb += [
                self.answer.valid.eq(self.lookup.valid),
                self.answer.payload.vertex.eq(self.lookup.payload.vertex),
                self.answer.payload.ctx.eq(self.lookup.payload.ctx),
                self.lookup.ready.eq(self.answer.ready),
                self.insert.ready.eq(1),
            ]
            return m
        slot_bits = (self._entries - 1).bit_length()
        write_side = self.level[0]          # table written this level; the other is read
        clearing, clear_slot = self._clearing(m, slot_bits)

        tables = []
        for p in range(2):
            m.submodules[f"table{p}"] = table = Memory(
                shape=Entry, depth=self._entries,
                init=[{"id": 0, "tag": NO_LEVEL}] * self._entries)
            write = table.write_port()
            read = table.read_port()
            tables.append((write, read))

        # Lookups: one read a cycle of the table the level before wrote.
        held = Signal()
        held_lookup = Signal(cache_lookup_layout(self._ctx_width))
        advance = ~held | self.answer.ready
        m.d.comb += self.lookup.ready.eq(advance & ~clearing)
        with m.If(advance):
            m.d.sync += [held.eq(self.lookup.valid & self.lookup.ready),
                         held_lookup.eq(self.lookup.payload)]
        # Inserts: read the slot, then keep the larger id of this level.
        pending = Signal()
        pending_id = Signal(32)
        m.d.comb += self.insert.ready.eq(~clearing)
        m.d.sync += [pending.eq(self.insert.valid & self.insert.ready),
                     pending_id.eq(self.insert.payload)]

        # An insert whose slot is kept is written a cycle after its decision, from registers
        # (the decision's compare would otherwise run on into the table's write port). The
        # table's read ports are not transparent: an insert whose slot one of the two inserts
        # just before it is writing finds that write forwarded from a register instead
        # (``forwarded`` the one just before, ``forwarded2`` the one before that).
        writing = Signal()
        writing_id = Signal(32)
        keep = Signal()
        m.d.sync += [writing.eq(keep), writing_id.eq(pending_id)]
        accepted = self.insert.valid & self.insert.ready
        slot = self.insert.payload[:slot_bits]
        forwarded, forwarded2 = Signal(), Signal()
        forwarded_id, forwarded2_id = Signal(32), Signal(32)
        m.d.sync += [
            forwarded.eq(keep & accepted & (slot == pending_id[:slot_bits])),
            forwarded2.eq(writing & accepted & (slot == writing_id[:slot_bits])),
            forwarded2_id.eq(writing_id),
        ]
        with m.If(keep):
            m.d.sync += forwarded_id.eq(pending_id)
        # The level before, from a register (``level`` stands still while lookups flow): the
        # subtraction would otherwise come before the hit's compare.
        previous = Signal(16)
        m.d.sync += previous.eq(self.level - 1)
        for p, (write, read) in enumerate(tables):
            entry = Entry(read.data)
            writes_here = write_side == p
            with m.If(writes_here):
                m.d.comb += [read.addr.eq(self.insert.payload[:slot_bits]), read.en.eq(1)]
                found = Signal(Entry, name=f"found{p}")
                m.d.comb += found.eq(entry)
                with m.If(forwarded):
                    m.d.comb += [found.id.eq(forwarded_id), found.tag.eq(self.level)]
                with m.Elif(forwarded2):
                    m.d.comb += [found.id.eq(forwarded2_id), found.tag.eq(self.level)]
                # Both ids are of the slot: their bits above it decide.
                m.d.comb += keep.eq(pending & ((found.tag != self.level) |
                                               (found.id[slot_bits:] < pending_id[slot_bits:])))
                with m.If(writing):
                    m.d.comb += [write.addr.eq(writing_id[:slot_bits]), write.en.eq(1),
                                 write.data.id.eq(writing_id), write.data.tag.eq(self.level)]
            with m.Else():
                m.d.comb += [read.addr.eq(self.lookup.payload.vertex[:slot_bits]),
                             read.en.eq(advance)]
                m.d.comb += [
                    self.answer.payload.hit.eq((entry.tag == previous) &
                                               (entry.id == held_lookup.vertex)),
                ]
            with m.If(clearing):
                m.d.comb += [write.addr.eq(clear_slot[:slot_bits]), write.en.eq(1),
                             write.data.id.eq(0), write.data.tag.eq(NO_LEVEL)]
        m.d.comb += self.busy.eq(clearing | held | pending | writing)
        m.d.comb += [
            self.answer.valid.eq(held),
            self.answer.payload.vertex.eq(held_lookup.vertex),
            self.answer.payload.ctx.eq(held_lookup.ctx),
        ]
        return m
