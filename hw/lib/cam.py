"""The atomic-update CAM of Graphicionado (Ham et al., MICRO 2016, §3.2 "Atomic Update", stage P6).

The destination update P7–P9 (read VTempProperty, Reduce, write VTempProperty) is a
read-modify-write; two updates of the same vertex must never overlap in it. The paper keeps
the destination ids in flight in "a small 4-way set-associative CAM-like structure of 16
entries of 4 bytes" and stalls an update whose id is already there.
"""

import dataclasses

from amaranth.hdl import Cat, Const, Module, Signal, unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two


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

    An id offered on ``insert`` in the cycle the same id is offered on ``remove`` is taken at
    once and keeps its way, so a back-to-back update of one vertex loses no cycle to the CAM
    itself. A way freed by the removal of another id is free from the next cycle. The lookup
    and the choice of way use only the registered state and the two ids, which keeps the
    ``insert.ready`` path short.

    Parameters
    ----------
    config : :class:`CAMConfig`
    insert_checked : bool
        Whether an id offered on ``insert`` is compared with the ids held (the default). A
        user that offers only ids it knows are not held, and not being removed, sets it to
        ``False``: the tag comparison then stays off the path that allocates a way, and
        ``conflict`` is always low. (Atomic Update knows it from a bit it keeps a cycle
        ahead.)
    second_probe : bool
        A second probe port (the dynamic graph's lock looks up the next operation and the
        head of its waiting queue in one cycle).
    free_registers : bool
        Keep whether each set has a free way in a register of its own, worked out from the
        next cycle's valid bits, so ``set_has_free`` (and ``insert.ready``) needs only the
        set's selection, not the OR over its ways' valid bits. The same values, a register
        per set more. (Atomic Update's issue decision, through its queue's ready.)

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
    probe2_id : ``In(id_width)``; probe2_hit : ``Out(1)``
        A second probe, with ``second_probe``.
    occupancy : ``Out(range(entries + 1))``
        Number of ids held.
    conflict : ``Out(1)``
        ``insert`` is stalled because its id is held.
    set_full : ``Out(1)``
        ``insert`` is stalled because every way of its set was held at the start of the cycle.
    set_has_free : ``Out(1)``
        The set of the id on ``insert`` had a free way at the start of the cycle (whether or
        not ``insert.valid``): a user that knows its id is not held can decide to insert from
        this alone, without the tag comparison.
    remove_miss : ``Out(1)``
        An id offered on ``remove`` is not held: the surrounding pipeline broke the protocol.
    """

    def __init__(self, config: CAMConfig, *, insert_checked: bool = True,
                 second_probe: bool = False, free_registers: bool = False):
        if not isinstance(config, CAMConfig):
            raise ConfigError(f"AtomicUpdateCAM needs a CAMConfig, not {type(config).__name__}")
        self._config = config
        self._insert_checked = bool(insert_checked)
        self._second_probe = bool(second_probe)
        self._free_registers = bool(free_registers)
        extra = {"probe2_id": In(config.id_width), "probe2_hit": Out(1)} if second_probe else {}
        super().__init__({
            **extra,
            "insert": In(stream.Signature(unsigned(config.id_width))),
            "remove": In(stream.Signature(unsigned(config.id_width))),
            "probe_id": In(config.id_width),
            "probe_hit": Out(1),
            "occupancy": Out(range(config.entries + 1)),
            "conflict": Out(1),
            "set_full": Out(1),
            "set_has_free": Out(1),
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
        if self._second_probe:
            probe2_set, probe2_tag = split(self.probe2_id)
            probe2_bits = []

        m.d.comb += self.remove.ready.eq(1)
        # With ``free_registers``: whether each set has a free way (all do at reset).
        free = [Signal(name=f"free_s{s}", init=1) for s in range(cfg.sets)] \
            if self._free_registers else None
        removed_bits, hit_bits, free_bits, probe_bits = [], [], [], []
        # Which way an insert would take: the lowest free one of its set, from the registered
        # state only, so the choice is off the ready path.
        candidate = [[Signal(name=f"candidate_s{s}_w{w}") for w in range(cfg.ways)]
                     for s in range(cfg.sets)]
        removed = [[Signal(name=f"removed_s{s}_w{w}") for w in range(cfg.ways)]
                   for s in range(cfg.sets)]
        for s in range(cfg.sets):
            for w in range(cfg.ways):
                m.d.comb += removed[s][w].eq(self.remove.valid & valid[s][w] & remove_set[s] &
                                             (tags[s][w] == remove_tag))
                earlier_free = Cat(~valid[s][v] for v in range(w)).any() if w else 0
                m.d.comb += candidate[s][w].eq(insert_set[s] & ~valid[s][w] & ~earlier_free)
                removed_bits.append(removed[s][w])
                hit_bits.append(insert_set[s] & valid[s][w] & (tags[s][w] == insert_tag))
                probe_bits.append(probe_set[s] & valid[s][w] & (tags[s][w] == probe_tag))
                if self._second_probe:
                    probe2_bits.append(probe2_set[s] & valid[s][w] &
                                       (tags[s][w] == probe2_tag))
            set_free = free[s] if free else Cat(~valid[s][w] for w in range(cfg.ways)).any()
            free_bits.append(set_free & insert_set[s])

        hit = Cat(hit_bits).any() if self._insert_checked else Const(0, 1)
        has_free = Cat(free_bits).any()
        removed_one = Cat(removed_bits).any()
        # The id being written back may re-enter at once: it keeps its way.
        rejoin = Signal()
        m.d.comb += rejoin.eq(hit & self.remove.valid & (self.remove.payload == self.insert.payload))
        m.d.comb += [
            self.insert.ready.eq(rejoin | (~hit & has_free)),
            self.conflict.eq(self.insert.valid & hit & ~rejoin),
            self.set_full.eq(self.insert.valid & ~hit & ~has_free),
            self.set_has_free.eq(has_free),
            self.probe_hit.eq(Cat(probe_bits).any()),
            *([self.probe2_hit.eq(Cat(probe2_bits).any())] if self._second_probe else []),
            self.remove_miss.eq(self.remove.valid & ~removed_one),
        ]

        allocating = Signal()
        m.d.comb += allocating.eq(self.insert.valid & ~hit & has_free)
        for s in range(cfg.sets):
            valid_next = []
            for w in range(cfg.ways):
                # A free way's tag is don't-care, so the candidate's tag is written whenever an
                # id is offered; only its valid bit waits for the id to be taken.
                with m.If(self.insert.valid & candidate[s][w]):
                    m.d.sync += tags[s][w].eq(insert_tag)
                keep = removed[s][w] & rejoin & self.insert.valid
                valid_next.append((valid[s][w] & ~removed[s][w]) | keep |
                                  (allocating & candidate[s][w]))
                m.d.sync += valid[s][w].eq(valid_next[-1])
            if free:
                m.d.sync += free[s].eq(~Cat(valid_next).all())

        joined = allocating
        left = removed_one & ~(rejoin & self.insert.valid)
        with m.If(joined & ~left):
            m.d.sync += self.occupancy.eq(self.occupancy + 1)
        with m.Elif(~joined & left):
            m.d.sync += self.occupancy.eq(self.occupancy - 1)

        return m
