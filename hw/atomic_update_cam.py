"""The atomic-update CAM of Graphicionado (Ham et al., MICRO 2016, §3.2 "Atomic Update", stage P6).

The destination update P7–P9 (read VTempProperty, Reduce, write VTempProperty) is a
read-modify-write; two updates of the same vertex must never overlap in it. The paper keeps
the destination ids in flight in "a small 4-way set-associative CAM-like structure of 16
entries of 4 bytes" and stalls an update whose id is already there.
"""

import dataclasses

from amaranth.hdl import Module, Signal, Cat, unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .config import ConfigError, DesignConfig, is_power_of_two


__all__ = ["CAMConfig", "AtomicUpdateCAM"]


@dataclasses.dataclass(frozen=True)
class CAMConfig(DesignConfig):
    """Parameters of :class:`AtomicUpdateCAM`.

    Parameters
    ----------
    entries : int
        Number of ids the CAM can hold (the paper: 16).
    ways : int
        Associativity (the paper: 4). ``entries // ways`` sets, indexed by the low bits of the id.
    id_width : int
        Width of a vertex id in bits (the paper: 32).
    """
    entries: int = 16
    ways: int = 4
    id_width: int = 32

    def validate(self):
        if not 1 <= self.entries <= 1024:
            raise ConfigError(f"entries must be between 1 and 1024, not {self.entries}")
        if not 1 <= self.ways <= self.entries or self.entries % self.ways:
            raise ConfigError(f"ways must divide entries ({self.entries}), not {self.ways}")
        if not is_power_of_two(self.sets):
            raise ConfigError(f"entries / ways must be a power of two, not {self.sets}")
        if not self.set_bits < self.id_width <= 64:
            raise ConfigError(f"id_width must be between {self.set_bits + 1} and 64, "
                              f"not {self.id_width}")

    @property
    def sets(self) -> int:
        return self.entries // self.ways

    @property
    def set_bits(self) -> int:
        return (self.sets - 1).bit_length()


class AtomicUpdateCAM(wiring.Component):
    """Tracks the destination ids in flight through the read-modify-write of VTempProperty.

    An id offered on ``insert`` is taken (``insert.ready``) when no way of its set holds it
    and the set has a free way; it then stays held until the same id arrives on ``remove``
    at write-back. An id already held (a conflict) or a full set stalls ``insert``; the
    stall reason is shown on ``conflict`` and ``set_full`` for the status counters.

    A removal takes effect in the cycle it is offered: an insert of the id being removed,
    or into the way being freed, is accepted in the same cycle, so a back-to-back update of
    one vertex loses no cycle to the CAM itself.

    Parameters
    ----------
    config : :class:`CAMConfig`

    Members
    -------
    insert : ``In(stream.Signature(id_width))``
        Ids issued into the read-modify-write.
    remove : ``In(stream.Signature(id_width))``
        Ids leaving it at write-back. Always ready.
    probe_id : ``In(id_width)``
        An id to look up.
    probe_hit : ``Out(1)``
        Whether ``probe_id`` is held (combinational, state at the start of the cycle).
    occupancy : ``Out(range(entries + 1))``
        Number of ids held.
    conflict : ``Out(1)``
        ``insert`` is stalled because its id is held.
    set_full : ``Out(1)``
        ``insert`` is stalled because every way of its set is held by other ids.
    remove_miss : ``Out(1)``
        An id offered on ``remove`` is not held: the surrounding pipeline broke the protocol.
    """

    def __init__(self, config: CAMConfig):
        assert isinstance(config, CAMConfig)
        self._config = config
        super().__init__({
            "insert": In(stream.Signature(unsigned(config.id_width))),
            "remove": In(stream.Signature(unsigned(config.id_width))),
            "probe_id": In(config.id_width),
            "probe_hit": Out(1),
            "occupancy": Out(range(config.entries + 1)),
            "conflict": Out(1),
            "set_full": Out(1),
            "remove_miss": Out(1),
        })

    @property
    def config(self) -> CAMConfig:
        return self._config

    def elaborate(self, platform):
        cfg = self._config
        m = Module()

        tag_width = cfg.id_width - cfg.set_bits
        valid = [[Signal(name=f"valid_s{s}_w{w}") for w in range(cfg.ways)]
                 for s in range(cfg.sets)]
        tags = [[Signal(tag_width, name=f"tag_s{s}_w{w}") for w in range(cfg.ways)]
                for s in range(cfg.sets)]

        def split(vertex_id):
            # The set index is decoded one-hot: a set is selected by one bit, not a compare.
            one_hot = Signal(cfg.sets)
            m.d.comb += one_hot.eq(1 << vertex_id[:cfg.set_bits])
            return one_hot, vertex_id[cfg.set_bits:]

        remove_set, remove_tag = split(self.remove.payload)
        insert_set, insert_tag = split(self.insert.payload)
        probe_set, probe_tag = split(self.probe_id)

        m.d.comb += self.remove.ready.eq(1)
        removed_any = []
        conflict_bits, free_bits, probe_bits = [], [], []
        # ``held`` is the state after this cycle's removal; inserts are checked against it.
        held = [[Signal(name=f"held_s{s}_w{w}") for w in range(cfg.ways)]
                for s in range(cfg.sets)]
        for s in range(cfg.sets):
            for w in range(cfg.ways):
                removed = Signal(name=f"removed_s{s}_w{w}")
                m.d.comb += [
                    removed.eq(self.remove.valid & valid[s][w] & remove_set[s] &
                               (tags[s][w] == remove_tag)),
                    held[s][w].eq(valid[s][w] & ~removed),
                ]
                removed_any.append(removed)
                in_insert_set = insert_set[s]
                conflict_bits.append(in_insert_set & held[s][w] & (tags[s][w] == insert_tag))
                probe_bits.append(probe_set[s] & valid[s][w] & (tags[s][w] == probe_tag))
            free_bits.append(Cat(~held[s][w] for w in range(cfg.ways)).any() &
                             insert_set[s])

        conflict = Cat(conflict_bits).any()
        has_free = Cat(free_bits).any()
        removed_one = Cat(removed_any).any()
        m.d.comb += [
            self.insert.ready.eq(~conflict & has_free),
            self.conflict.eq(self.insert.valid & conflict),
            self.set_full.eq(self.insert.valid & ~conflict & ~has_free),
            self.probe_hit.eq(Cat(probe_bits).any()),
            self.remove_miss.eq(self.remove.valid & ~removed_one),
        ]

        inserting = Signal()
        m.d.comb += inserting.eq(self.insert.valid & self.insert.ready)
        for s in range(cfg.sets):
            # The lowest free way of the set takes the id.
            for w in range(cfg.ways):
                pick = Signal(name=f"pick_s{s}_w{w}")
                earlier_free = Cat(~held[s][v] for v in range(w)).any() if w else 0
                m.d.comb += pick.eq(inserting & insert_set[s] & ~held[s][w] & ~earlier_free)
                with m.If(pick):
                    m.d.sync += [valid[s][w].eq(1), tags[s][w].eq(insert_tag)]
                with m.Else():
                    m.d.sync += valid[s][w].eq(held[s][w])

        with m.If(inserting & ~removed_one):
            m.d.sync += self.occupancy.eq(self.occupancy + 1)
        with m.Elif(~inserting & removed_one):
            m.d.sync += self.occupancy.eq(self.occupancy - 1)

        return m
