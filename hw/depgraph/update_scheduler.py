"""The order in which a vertex-store bank takes its updates (DepGraph, Zhang et al., HPCA 2021,
§III-B: the cores' updates of the vertices a core owns; the paper's cores apply them through
their caches, this bank through a read-modify-write pipeline).

The bank (:class:`hw.depgraph.vertex_store.VertexStoreBank`) takes one op a cycle, but an op
on a record waits while an earlier write of that record is in its pipeline: 5 cycles apart
for the min-type algorithms, 11 for PageRank's FP32 Accum. On a power-law graph several walks
update the same hot vertices at once, and an update that waits holds every update behind it.
This block holds a small window of updates and sends the oldest whose record was not sent in
the last ``spacing - 1`` cycles (two sends of a record are at least ``spacing`` cycles
apart), so that updates of other records fill the gaps.

Updates of one record keep their order (one is never sent past an older one of the same
record: the entries of a record wait alike, and the oldest that may go is sent); updates of
different records may pass each other, which neither Accum nor the engines' counts of
applied updates (the banks' acks, whatever their order) depend on. When every update in the
window was sent recently, nothing is sent: the bank would only have waited with it (and been
unable to take the updates behind it). The entries' records are compared with each other and
with the one coming in, between registers, so the pick only gates those compares; the update
coming in is also compared once with the records sent in the last ``spacing - 1`` cycles.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from .layouts import VertexUpdate


__all__ = ["UpdateScheduler"]


class UpdateScheduler(wiring.Component):
    """A window of ``window`` updates in front of a bank, sent out of order (module
    docstring).

    Parameters
    ----------
    window : int
        Updates held (at least 2).
    spacing : int
        Cycles between two sends of one record (the bank's: 5 for min type, 11 for sum
        type); at least 1.
    index_width : int
        Low bits of the vertex id that tell the bank's records apart (the bank keeps
        ``2 ** index_width`` consecutive ids).

    Members
    -------
    i : ``In(stream.Signature(VertexUpdate))``
    o : ``Out(stream.Signature(VertexUpdate))``
        A register: ``o.payload`` changes only when ``o.valid`` is low or ``o.ready`` high.
    busy : ``Out(1)``
        An update is held.
    passed : ``Out(32)``
        Updates sent while an older one waited in the window.
    """

    def __init__(self, *, window: int, spacing: int, index_width: int):
        if not isinstance(window, int) or window < 2:
            raise ConfigError(f"UpdateScheduler: window must be at least 2, not {window!r}")
        if not isinstance(spacing, int) or spacing < 1:
            raise ConfigError(f"UpdateScheduler: spacing must be at least 1, not {spacing!r}")
        if not isinstance(index_width, int) or not 1 <= index_width <= 32:
            raise ConfigError(f"UpdateScheduler: index_width must be from 1 to 32, "
                              f"not {index_width!r}")
        self._window = window
        self._spacing = spacing
        self._index_width = index_width
        super().__init__({
            "i": In(stream.Signature(VertexUpdate)),
            "o": Out(stream.Signature(VertexUpdate)),
            "busy": Out(1),
            "passed": Out(32),
        })

    def _resent(self, m, entries, pick, key, moves):
        """Whether each entry's record (and the incoming one's) is the one sent now. Whether
        two entries hold one record is kept as registers (``same``, worked out as the window
        moves: a moved pair keeps its bit, an entry coming in is compared with the entries
        it lands beside), so the pick only gates registers: a compare of two entries' records
        between the pick and the waits was the one-engine build's deepest path. ``moves`` is
        ``(taken_below, landing)``: which entries move down one, and the one-hot slot the
        incoming update takes (none if it does not come in)."""
        n = self._window
        taken_below, landing = moves
        same = {(j, k): Signal(name=f"same{j}_{k}") for j in range(n) for k in range(j + 1, n)}

        def same_bit(j, k):
            if j == k:
                return 1
            if max(j, k) >= n:
                return 0        # beyond the window: an entry that will not be valid
            return same[min(j, k), max(j, k)]

        # The incoming update's record against each entry: one compare each, from the input.
        incoming_same = Cat(key(self.i.payload) == key(entry) for entry in entries)
        for (j, k), bit in same.items():
            kept = Mux(taken_below[j],
                       Mux(taken_below[k], same_bit(j + 1, k + 1), same_bit(j + 1, k)),
                       Mux(taken_below[k], same_bit(j, k + 1), same_bit(j, k)))
            # The incoming lands at k (above j): compared with what moves into j.
            lands_k = Mux(taken_below[j], incoming_same[j + 1] if j + 1 < n else 0,
                          incoming_same[j])
            m.d.sync += bit.eq(Mux(landing[k], lands_k, Mux(landing[j], 0, kept)))

        resent = Signal(n)                      # entry j's record is sent now
        for j in range(n):
            m.d.comb += resent[j].eq(
                Cat(pick[k] & same_bit(j, k) for k in range(n) if k != j).any())
        incoming_resent = Signal()
        m.d.comb += incoming_resent.eq((pick & incoming_same).any())
        return resent, incoming_resent

    def elaborate(self, platform):
        m = Module()
        n, spacing, width = self._window, self._spacing, self._index_width
        wait_width = range(spacing)
        remembered = spacing - 1        # sends older than this no longer hold anything up

        # The window, oldest first; its valid bits are a thermometer (entries 0 .. k - 1).
        entries = [Signal(VertexUpdate, name=f"entry{j}") for j in range(n)]
        valid = Signal(n)
        wait = [Signal(wait_width, name=f"wait{j}") for j in range(n)]
        # The records sent in the last ``spacing - 1`` cycles, newest first (``history[h]``
        # was sent h + 1 cycles ago), for the update coming in.
        history = [Signal(width, name=f"sent{h}") for h in range(remembered)]
        history_valid = Signal(remembered)

        def key(update):
            return update.vertex[:width]

        # An entry may go when its record was not sent in the last ``spacing - 1`` cycles. The
        # entries of one record always wait alike (each wait comes from the record's latest
        # send), so taking the oldest that may go keeps one record's updates in order.
        eligible = Cat(valid[j] & (wait[j] == 0) for j in range(n))
        pick = Signal(n)                        # one-hot: the oldest eligible entry
        out_free = ~self.o.valid | self.o.ready
        m.d.comb += pick.eq(Mux(out_free, eligible & ~(eligible - 1), 0))
        sent = pick.any()
        sent_key = Signal(width)
        sent_update = Signal(VertexUpdate)
        for j in range(n):
            with m.If(pick[j]):
                m.d.comb += [sent_update.eq(entries[j]), sent_key.eq(key(entries[j]))]

        with m.If(out_free):
            m.d.sync += [self.o.valid.eq(sent), self.o.payload.eq(sent_update)]
        if remembered:
            m.d.sync += history_valid.eq(Cat(sent, history_valid[:-1]))
            m.d.sync += history[0].eq(sent_key)
            m.d.sync += [history[h].eq(history[h - 1]) for h in range(1, remembered)]
        # Counted a cycle later, from a register: the pick (which waits on the bank's
        # ``ready``) reaches one flip-flop, not the clock enable of a 32-bit counter.
        passed_now = Signal()
        m.d.sync += passed_now.eq(sent & ~pick[0])
        with m.If(passed_now):
            m.d.sync += self.passed.eq(self.passed + 1)

        # The window's next state: the sent entry removed (the younger ones move down one),
        # then the update coming in appended.
        taken_below = Signal(n)                 # entry j moves down: the pick is at j or below
        for j in range(n):
            m.d.comb += taken_below[j].eq(pick[:j + 1].any())

        # ``ready`` is a register: the window has room for one more.
        m.d.comb += self.i.ready.eq(~valid[n - 1])
        incoming = self.i.valid & self.i.ready
        moved_valid = Signal(n)
        for j in range(n):
            m.d.comb += moved_valid[j].eq(Mux(taken_below[j], valid[j + 1] if j + 1 < n else 0,
                                              valid[j]))
        landing = Signal(n)                     # one-hot: the slot the incoming update takes
        for j in range(n):
            slot_free = ~moved_valid[j] & (moved_valid[j - 1] if j else 1)
            m.d.comb += landing[j].eq(incoming & slot_free)

        resent, incoming_resent = self._resent(m, entries, pick, key, (taken_below, landing))

        def waited(hit, wait_now):
            """The wait of an entry next cycle (it may go when it is 0): restarted if its
            record is sent now (``hit``), so that the next send of it is ``spacing`` cycles
            later."""
            return Mux(hit, remembered, Mux(wait_now == 0, 0, wait_now - 1))

        moved = [Signal(VertexUpdate, name=f"moved{j}") for j in range(n)]
        moved_wait = [Signal(wait_width, name=f"moved_wait{j}") for j in range(n)]
        moved_resent = Signal(n)
        for j in range(n):
            above = j + 1 < n
            with m.If(taken_below[j]):
                if above:
                    m.d.comb += [moved[j].eq(entries[j + 1]), moved_wait[j].eq(wait[j + 1]),
                                 moved_resent[j].eq(resent[j + 1])]
            with m.Else():
                m.d.comb += [moved[j].eq(entries[j]),
                             moved_wait[j].eq(wait[j]), moved_resent[j].eq(resent[j])]

        # The one coming in waits for the youngest send of its record in the history: one
        # sent h + 1 cycles ago may be sent again in spacing - 1 - h cycles.
        in_wait = Signal(wait_width)
        for h in reversed(range(remembered)):
            with m.If(history_valid[h] & (history[h] == key(self.i.payload))):
                m.d.comb += in_wait.eq(remembered - h)
        for j in range(n):
            with m.If(landing[j]):
                m.d.sync += [entries[j].eq(self.i.payload), valid[j].eq(1),
                             wait[j].eq(waited(incoming_resent, in_wait))]
            with m.Else():
                m.d.sync += [entries[j].eq(moved[j]), valid[j].eq(moved_valid[j]),
                             wait[j].eq(waited(moved_resent[j], moved_wait[j]))]
        m.d.comb += self.busy.eq(valid.any() | self.o.valid)
        return m
