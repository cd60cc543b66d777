"""DepGraph's dependency-driven memory unit, its run-time side (Zhang et al., HPCA 2021, §III-B,
"shortcut propagation"): at a walk root's visit it looks the root up in the hub index's hash
table and, for each of the root's entries with flag A, sends the shortcut value
z = mu·x + eps to the entry's tail. The root's other entries (flags N and I, not learnt yet)
go back to the walking engine, whose HDTL observes them when its walk travels their core
path; the learning itself is :class:`hw.depgraph.hub_index_learner.HubIndexLearner`'s.

Memory (32-bit words, 64-byte lines; bases are line addresses):

* hash table at ``hash_base``: ``hash_slots`` (a power of two) slots of four words
  ``<id, begin, end, 0>``, four a line, empty id 0xFFFFFFFF; vertex v sits at slot
  v mod hash_slots or, by linear probing, in the next slots (wrapping); the table is never
  full;
* entries at ``index_base``: eight words ``<head, tail, L, length | flag << 16, mu, eps, 0,
  0>``, two a line (flag 0 = N, 1 = I, 2 = A); entries [begin, end) are the vertex's.

z: min type (bfs, sssp, cc) eps is a uint32 and z = min(x + eps, 0xFFFFFFFF), mu unused;
sum type (pagerank) mu, eps and x are FP32 and z = (mu · x) + eps rounded twice, after the
product and after the sum (``np.float32(mu) * np.float32(x) + np.float32(eps)``, not a fused
multiply-add). Sum type also hands the pseudo-edge <tail, z> back to the engine (see
:mod:`golden.depgraph.engine`). The value is :class:`hw.depgraph.shortcut_value.
ShortcutValue`'s.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from .program import gas_of
from .layouts import VertexUpdate
from hw.lib.memory.range_reader import RangeReader
from .shortcut_value import SLOT_BITS as _SLOT_BITS, PseudoEdge, ShortcutValue


__all__ = ["DDMU", "LookupRequest", "LookupAnswer", "PseudoEdge", "EntryFlag",
           "EMPTY_SLOT", "ENTRY_WORDS", "SLOT_WORDS"]


# ``engine`` names the walk that looked up: its walk slot (engine × walks + walk), to which the
# answers and pseudo-edges go back.
LookupRequest = data.StructLayout({"root": 32, "x": 32, "engine": _SLOT_BITS})
# To the looking-up walk: one of the root's entries it may learn (``done`` = 0), then
# ``done`` = 1 once every shortcut of the root has been handed out, with ``entry`` then the
# number of pseudo-edges lent for the root (sum type): the engine pays back that many, however
# long they take to reach its buffer.
LookupAnswer = data.StructLayout({"engine": _SLOT_BITS, "done": 1, "entry": 32, "second": 32,
                                  "length": 16, "tail": 32})



class EntryFlag(enum.Enum, shape=16):
    """A hub-index entry's state, the halfword above its length in memory: N (nothing learnt
    yet), I (one observation kept), A (mu and eps learnt: the shortcut applies)."""
    N = 0
    I = 1   # noqa: E741 (the paper's name)
    A = 2

EMPTY_SLOT = 0xFFFF_FFFF
ENTRY_WORDS = 8
SLOT_WORDS = 4

_Slot = data.StructLayout({"id": 32, "begin": 32, "end": 32, "pad": 32})
_Entry = data.StructLayout({"head": 32, "tail": 32, "second": 32, "length": 16, "flag": EntryFlag,
                            "mu": 32, "eps": 32, "pad": 64})


class DDMU(wiring.Component):
    """Hash-table lookup of a walk root and shortcut propagation over its A entries, one
    lookup at a time.

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`): min or sum Accum.
    addr_width : int
    candidates : int
        At most this many of a root's N and I entries are answered per lookup.
    loans : int or None
        Sum type: at most this many A entries are used per lookup (each needs a place in the
        engine's pseudo-edge buffer until its walk ends); None: no limit.

    Members
    -------
    hash_base, index_base : ``In(addr_width)``
        Line addresses of the hash table and of the entry array.
    hash_slots : ``In(32)``
        Slots of the hash table, a power of two.
    lookup : ``In(stream.Signature(LookupRequest))``
        The root, the value x it propagates and the engine that visits it; taken while idle.
    updates : ``Out(stream.Signature(VertexUpdate))``
        ``<tail, z, ORIGIN_DDMU, leave 0>`` per A entry.
    pseudo : ``Out(stream.Signature(PseudoEdge))``
        Sum type: ``<tail, z, engine>`` per A entry. Never valid for min type.
    answers : ``Out(stream.Signature(LookupAnswer))``
        The root's N and I entries, then ``done``, once all its updates and pseudo-edges
        have been handed out.
    mem : ``Out(MemoryPortSignature(addr_width))``
    busy : ``Out(1)``
    lookups, shortcut_uses, probes : ``Out(32)``
        Lookups taken, A entries used, hash slots compared.
    """

    def __init__(self, *, algo: str, addr_width: int, candidates: int = 8,
                 loans: int | None = None):
        check_int("DDMU", "addr_width", addr_width, high=32)
        form = gas_of(algo)
        if candidates < 1:
            raise ConfigError(f"DDMU: candidates must be at least 1, not {candidates!r}")
        if loans is not None and loans < 1:
            raise ConfigError(f"DDMU: loans must be at least 1 (or None), not {loans!r}")
        self._algo = algo
        self._is_min = form.selective
        self._addr_width = addr_width
        self._candidates = candidates
        self._loans = loans
        super().__init__({
            "hash_base": In(addr_width),
            "index_base": In(addr_width),
            "hash_slots": In(32),
            "lookup": In(stream.Signature(LookupRequest)),
            "updates": Out(stream.Signature(VertexUpdate)),
            "pseudo": Out(stream.Signature(PseudoEdge)),
            "answers": Out(stream.Signature(LookupAnswer)),
            "mem": Out(MemoryPortSignature(self._addr_width)),
            "busy": Out(1),
            "lookups": Out(32),
            "shortcut_uses": Out(32),
            "probes": Out(32),
        })

    def _share_port(self, m, reader, probing, slot):
        """The memory port: the hash table's line of ``slot`` while ``probing``, the range
        reader's requests and responses otherwise."""
        with m.If(probing):
            m.d.comb += [
                self.mem.req.payload.addr.eq(self.hash_base + (slot >> 2)),
                self.mem.req.payload.write.eq(0),
            ]
        with m.Else():
            m.d.comb += [
                self.mem.req.valid.eq(reader.mem.req.valid),
                self.mem.req.payload.eq(reader.mem.req.payload),
                reader.mem.req.ready.eq(self.mem.req.ready),
                reader.mem.resp.valid.eq(self.mem.resp.valid),
                reader.mem.resp.payload.eq(self.mem.resp.payload),
                self.mem.resp.ready.eq(reader.mem.resp.ready),
            ]

    def _elaborate_entries(self, m, reader, x, engine):
        """The entries the range reader brings, sorted: A entries become shortcut values
        (:class:`ShortcutValue`), N and I entries answers to the walk. Returns the answer
        FIFO, the shortcut unit, and the counts of entries lent and answered (reset by the
        caller at each lookup)."""
        # Entries: A go to z (up to ``loans`` for sum type), N and I to the engine (up to
        # ``candidates``), the others are passed over.
        m.submodules.answer_fifo = answer_fifo = StreamFIFO(LookupAnswer, 4)
        entry = _Entry(reader.items.payload.data)
        lent = Signal(32)
        answered = Signal(range(self._candidates + 1))
        use = Signal()
        learnable = Signal()
        m.d.comb += [
            use.eq((entry.flag == EntryFlag.A) &
                   (1 if self._loans is None else lent < self._loans)),
            learnable.eq((entry.flag != EntryFlag.A) & (answered < self._candidates)),
            answer_fifo.i.payload.engine.eq(engine),
        ]
        with m.If(learnable):
            m.d.comb += [
                answer_fifo.i.valid.eq(reader.items.valid),
                answer_fifo.i.payload.entry.eq(reader.items.payload.index),
                answer_fifo.i.payload.second.eq(entry.second),
                answer_fifo.i.payload.length.eq(entry.length),
                answer_fifo.i.payload.tail.eq(entry.tail),
            ]
            with m.If(reader.items.valid & answer_fifo.i.ready):
                m.d.sync += answered.eq(answered + 1)
        # Each A entry used becomes the shortcut value z, an update to its tail (and for
        # sum type a pseudo-edge back to the walk).
        m.submodules.shortcut = shortcut = ShortcutValue(algo=self._algo)
        m.d.comb += [
            shortcut.i.valid.eq(reader.items.valid & use),
            shortcut.i.payload.tail.eq(entry.tail),
            shortcut.i.payload.mu.eq(entry.mu),
            shortcut.i.payload.eps.eq(entry.eps),
            shortcut.i.payload.x.eq(x),
            shortcut.i.payload.engine.eq(engine),
        ]
        taken = shortcut.i.valid & shortcut.i.ready
        use_ready = shortcut.i.ready
        wiring.connect(m, shortcut.pseudo, wiring.flipped(self.pseudo))
        m.d.comb += reader.items.ready.eq(Mux(use, use_ready,
                                              Mux(learnable, answer_fifo.i.ready, 1)))
        wiring.connect(m, shortcut.updates, wiring.flipped(self.updates))
        wiring.connect(m, answer_fifo.o, wiring.flipped(self.answers))
        with m.If(taken):
            m.d.sync += [self.shortcut_uses.eq(self.shortcut_uses + 1), lent.eq(lent + 1)]
        return answer_fifo, shortcut, lent, answered

    def elaborate(self, platform):
        m = Module()
        m.submodules.reader = reader = RangeReader(addr_width=self._addr_width, item_words=8)

        root = Signal(32)
        x = Signal(32)
        engine = Signal(_SLOT_BITS)
        slot = Signal(32)
        line = Signal(data.ArrayLayout(_Slot, 4))
        begin = Signal(32)
        end = Signal(32)

        # The probe and the reader take turns on the one port: the reader is idle (no line on
        # its way) whenever a probe runs.
        probing = Signal()
        self._share_port(m, reader, probing, slot)
        answer_fifo, shortcut, lent, answered = self._elaborate_entries(m, reader, x, engine)

        mask = Signal(32)
        m.d.comb += mask.eq(self.hash_slots - 1)
        current = line[slot[:2]]
        next_slot = (slot + 1)[:32] & mask
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.lookup.ready.eq(1)
                with m.If(self.lookup.valid):
                    request = self.lookup.payload
                    m.d.sync += [
                        root.eq(request.root), x.eq(request.x), engine.eq(request.engine),
                        slot.eq(request.root & mask),
                        self.lookups.eq(self.lookups + 1),
                        lent.eq(0), answered.eq(0),
                    ]
                    m.next = "REQUEST"
            with m.State("REQUEST"):
                m.d.comb += [probing.eq(1), self.mem.req.valid.eq(1)]
                with m.If(self.mem.req.ready):
                    m.next = "WAIT"
            with m.State("WAIT"):
                m.d.comb += [probing.eq(1), self.mem.resp.ready.eq(1)]
                with m.If(self.mem.resp.valid):
                    m.d.sync += line.eq(self.mem.resp.payload.rdata)
                    m.next = "COMPARE"
            with m.State("COMPARE"):
                m.d.sync += self.probes.eq(self.probes + 1)
                with m.If(current.id == root):
                    m.d.sync += [begin.eq(current.begin), end.eq(current.end)]
                    m.next = "READ"
                with m.Elif(current.id == EMPTY_SLOT):
                    m.next = "DRAIN"
                with m.Else():
                    m.d.sync += slot.eq(next_slot)
                    # The next slot may be in the line already held.
                    with m.If((next_slot >> 2) != (slot >> 2)):
                        m.next = "REQUEST"
            with m.State("READ"):
                m.d.comb += [
                    reader.cmd.valid.eq(end > begin),
                    reader.cmd.payload.base.eq(self.index_base),
                    reader.cmd.payload.first.eq(begin),
                    reader.cmd.payload.count.eq(end - begin),
                ]
                # The reader is idle here: the previous lookup drained it.
                m.next = "DRAIN"
            with m.State("DRAIN"):
                with m.If(~reader.busy & ~shortcut.busy):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += [answer_fifo.i.valid.eq(1), answer_fifo.i.payload.done.eq(1),
                             answer_fifo.i.payload.entry.eq(0 if self._is_min else lent)]
                with m.If(answer_fifo.i.ready):
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(any_busy(~self.lookup.ready, answer_fifo.level))
        return m
