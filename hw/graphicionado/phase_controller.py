"""The phase sequencer of the Graphicionado pipeline (Ham et al. §III: the processing and
apply phases alternate until no vertex is active), with graph slicing (§VI.A) and the
extended-slicing schedule for symmetric graphs (§VI.B)."""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from .config import GraphicionadoConfig
from .extended_schedule import ExtendedSchedule, max_partitions


__all__ = ["PhaseController"]


class PhaseController(wiring.Component):
    """The phase sequencer of :class:`GraphicionadoPipeline` (§III: processing and apply
    alternate until no vertex is active), with the ActiveVertex counts of every partition.

    With graph slicing (§VI.A) an iteration runs processing and apply once per slice
    (``slice`` counts them), frontier algorithms loading the slice's EdgeIDTable first; the
    iteration's new ActiveVertex counts are taken after the last slice's apply. A symmetric
    scalar program (§IV.D) loads its destinations' VProperty and VConst (``load``) before
    each processing phase.

    With extended slicing for symmetric graphs (§VI.B) an :class:`ExtendedSchedule` gives the
    slices (i, j) (``part_src``, ``part_dst``; ``slice`` is the step) and what each needs:
    before it, the arriving partition is cleared (``clear``) or loaded (``spill_load``),
    with ``process_overlap`` beside the slice's processing, whose edges the destination
    streams hold at P3 until the region is ready;
    after it, region B is written back (``spill_store``) below the diagonal and partition j
    applied after its column's last slice. ``spilled`` and ``network_idle`` (the update
    network of the symmetric optimisation, §IV.D) join the idle checks.

    VTempProperty is cleared once, after reset (``clear_all``: the whole scratchpad, while
    the host loads the graph; ``busy`` meanwhile, and a ``start`` in that time waits for it):
    apply leaves every entry it reads at the Reduce identity (A2), so a run ends with the
    scratchpad as clear as it began and the next needs no clearing phase. Only extended
    slicing clears (or loads) a region before each of its slices.

    Start pulses and idle checks are registers: both reach across the whole design. A phase's
    idle checks wait a few cycles for its start pulse to reach every stage; waiting a cycle
    more is safe because a drained phase stays drained.
    """

    def __init__(self, cfg: GraphicionadoConfig):
        if not isinstance(cfg, GraphicionadoConfig):
            raise ConfigError(f"PhaseController needs a GraphicionadoConfig, not "
                              f"{type(cfg).__name__}")
        self._cfg = cfg
        parts = cfg.partitions
        members = {
            "start": In(1), "num_vertices": In(32), "max_iterations": In(32),
            "num_slices": In(32),
            "initial_counts": In(32).array(parts), "new_counts": In(32).array(parts),
            "loaded": In(1), "cleared": In(1), "drained": In(1), "applied": In(1),
            "memory_idle": In(1), "network_idle": In(1, init=1), "spilled": In(1, init=1),
            "load": Out(1), "clear": Out(1), "clear_all": Out(1),
            "start_process": Out(1), "start_apply": Out(1),
            "busy": Out(1), "done": Out(1), "iterations": Out(32), "parity": Out(1),
            "slice": Out(range(max(2, cfg.max_slices))),
            "counts": Out(32).array(parts), "active_total": Out(32),
            "in_load": Out(1), "in_process": Out(1), "in_apply": Out(1),
        }
        if cfg.extended_slicing:
            top = max_partitions(cfg.max_slices)
            members.update({
                "ext_partitions": In(range(top + 1)),
                "part_src": Out(range(top)), "part_dst": Out(range(top)),
                "diagonal": Out(1), "spill_store": Out(1), "spill_load": Out(1),
            })
        super().__init__(members)

    def _start_run(self, m):
        """IDLE, on ``start``: counts from the initial frontier; then (BEGIN) the EdgeIDTable
        loaded (unsliced frontier algorithms) or the scratchpad cleared."""
        full = self._cfg.algorithm.full_edge_access
        m.d.sync += [self.done.eq(0), self.iterations.eq(0), self.parity.eq(0)]
        if self._cfg.extended_slicing:
            m.d.comb += self._sched.restart.eq(1)
        else:
            m.d.sync += self.slice.eq(0)
        m.d.sync += [count.eq(0 if full else initial)
                     for count, initial in zip(self.counts, self.initial_counts)]
        m.next = "BEGIN"

    def _first_load(self, m):
        """BEGIN, the cycle after ``start``: an unsliced frontier algorithm loads its
        EdgeIDTable once (a sliced run loads each slice's before its processing), from
        ``sliced``, a register of the slice count, not the count's compare. ``settle``
        restarts here, not on ``start`` (whose decode with the state was on the way to it).
        Extended slicing clears the scratchpad first, as it did before the reset-time
        clear; the other runs find it clear."""
        m.d.sync += self._settle.eq(0)
        with m.If(self._load_once):
            m.d.sync += self.load.eq(1)
            m.next = "LOAD"
        with m.Else():
            if self._cfg.extended_slicing:
                m.d.sync += self.clear.eq(1)
                m.next = "CLEAR"
            else:
                m.next = "NEXT"

    def _power_on(self, m, ok, waited, ready, pending):
        """The states after reset: the whole scratchpad cleared (``clear_all``), ``busy``
        meanwhile; a ``start`` then is kept (``pending``) and taken in IDLE."""
        with m.State("POWER_ON"):
            m.d.sync += [self.clear_all.eq(1), self._settle.eq(0), pending.eq(self.start)]
            m.next = "POWER_ON_CLEAR"
        with m.State("POWER_ON_CLEAR"):
            m.d.sync += pending.eq(pending | self.start)
            m.d.comb += waited.eq(ready["cleared"])
            with m.If(ok):
                m.next = "IDLE"

    def _begin_slice(self, m):
        m.d.sync += self._settle.eq(0)
        if self._cfg.extended_slicing:
            # Extended slicing: the arriving partition is cleared or loaded first. Behind an
            # overlapped write-back the region is clear already: the write-back leaves the
            # identity in the words of partition i, and partition i + 1 is no larger.
            with m.If(self._sched.clear):
                with m.If(~self._swapped):
                    m.d.sync += self.clear.eq(1)
            with m.Else():
                m.d.sync += self.spill_load.eq(1)
            m.d.sync += self._swapped.eq(0)
            if self._cfg.process_overlap:
                m.d.sync += self.start_process.eq(1)
                m.next = "PROCESS"
            else:
                m.next = "PREPARE"
            return
        with m.If(self._load_each):
            m.d.sync += self.load.eq(1)
            m.next = "LOAD_SLICE"
        with m.Else():
            m.d.sync += self.start_process.eq(1)
            m.next = "PROCESS"

    def _end_process(self, m):
        """After a slice's processing: write region B back, apply, or go on."""
        m.d.sync += self._settle.eq(0)
        if not self._cfg.extended_slicing:
            m.d.sync += self.start_apply.eq(1)
            m.next = "APPLY"
            return
        with m.If(self._sched.store):
            m.d.sync += self.spill_store.eq(1)
            m.next = "STORE"
            if self._cfg.spill_overlap:
                with m.If(~self._sched.apply):
                    m.next = "SWAP"
        with m.Else():
            self._after_store(m)

    def _after_store(self, m):
        m.d.sync += self._settle.eq(0)
        with m.If(self._sched.apply):
            m.d.sync += self.start_apply.eq(1)
            m.next = "APPLY"
        with m.Else():
            m.d.comb += self._sched.advance.eq(1)
            m.next = "SLICE"

    def _end_apply(self, m, last_slice):
        """After a slice's apply: the next slice, or the iteration's end (the new counts)."""
        ext = self._cfg.extended_slicing
        with m.If(self._sched.last if ext else last_slice):
            m.d.sync += [self.iterations.eq(self.iterations + 1),
                         self.parity.eq(~self.parity)]
            if ext:
                m.d.comb += self._sched.restart.eq(1)
            else:
                m.d.sync += self.slice.eq(0)
            if not self._cfg.algorithm.full_edge_access:
                m.d.sync += [count.eq(new) for count, new in zip(self.counts,
                                                                 self.new_counts)]
            m.next = "NEXT"
        with m.Else():
            if ext:
                m.d.comb += self._sched.advance.eq(1)
            else:
                m.d.sync += self.slice.eq(self.slice + 1)
            m.next = "SLICE"

    def _stop_conditions(self, m, full):
        """Whether every partition's count is zero (``finished``; never for full-edge
        algorithms) and whether the iterations reached their limit (``exhausted``), from
        registers: each partition's count zero (the counts, at most the graph's vertices, sum
        to 0 only so) and each byte of the iteration compare, so neither the counts' sum nor
        a 32-bit compare is on the way to ``stop`` (once the smallest configuration's longest
        path of its own)."""
        empty = Signal(len(self.counts), name="counts_empty")
        equal = Signal(4, name="iterations_equal")
        m.d.sync += [empty.eq(Cat(count == 0 for count in self.counts)),
                     equal.eq(Cat(self.iterations[8 * b:8 * b + 8] ==
                                  self.max_iterations[8 * b:8 * b + 8] for b in range(4)))]
        return (Const(0) if full else empty.all()), equal.all()

    def elaborate(self, platform):
        cfg = self._cfg
        full = cfg.algorithm.full_edge_access
        ext = cfg.extended_slicing
        m = Module()
        settle = self._settle = Signal(3, name="settle")
        settled = settle == 7
        waited = Signal()   # the idle check of the current state (0 outside the waits)
        ok = Signal()
        stop = Signal()
        sliced = Signal()
        last_slice = Signal()
        ready = {name: Signal(name=f"{name}_r") for name in ("loaded", "cleared", "drained",
                                                                "applied", "spilled")}
        pending = Signal()  # a start during the reset-time clear
        m.d.sync += [settle.eq(settle + ~settled), self.load.eq(0), self.clear.eq(0),
                     self.clear_all.eq(0), self.start_process.eq(0), self.start_apply.eq(0)]
        self._sched = self._schedule(m) if ext else None
        self._swapped = Signal()    # the slice began behind an overlapped write-back
        m.d.sync += [ready[name].eq(getattr(self, name) & self.memory_idle) for name in ready]
        # A slice count past the design's max_slices ends at its last slice.
        m.d.sync += [sliced.eq(self.num_slices > 1),
                     last_slice.eq((self.slice + 1 >= self.num_slices) |
                                   (self.slice == cfg.max_slices - 1))]
        m.d.comb += self.active_total.eq(sum(self.counts))
        finished, exhausted = self._stop_conditions(m, full)
        # Frontier algorithms load the EdgeIDTable once, or per slice when sliced; a
        # symmetric scalar program its destinations' VProperty and VConst before each
        # processing phase.
        self._load_once = Const(0) if full else ~sliced
        self._load_each = Const(cfg.scratchpad_properties) if full else sliced

        with m.FSM(name="control") as fsm:
            self._power_on(m, ok, waited, ready, pending)
            with m.State("IDLE"):
                with m.If(self.start | pending):
                    m.d.sync += pending.eq(0)
                    self._start_run(m)
            with m.State("BEGIN"):
                self._first_load(m)
            with m.State("LOAD"):
                m.d.comb += [self.in_load.eq(1), waited.eq(ready["loaded"])]
                with m.If(ok):
                    if ext:
                        m.d.sync += [self.clear.eq(1), settle.eq(0)]
                        m.next = "CLEAR"
                    else:
                        m.next = "NEXT"
            with m.State("CLEAR"):
                m.d.comb += [self.in_load.eq(1), waited.eq(ready["cleared"])]
                with m.If(ok):
                    m.next = "NEXT"
            with m.State("NEXT"):
                # The counts and the iteration number change on the way in: their compares
                # (registers, ``finished`` and ``exhausted``) hold them a cycle later.
                m.next = "TALLY"
            with m.State("TALLY"):
                m.d.sync += stop.eq(finished | exhausted)
                m.next = "DECIDE"
            with m.State("DECIDE"):
                with m.If(stop):
                    m.d.sync += self.done.eq(1)
                    m.next = "IDLE"
                with m.Else():
                    self._begin_slice(m)
            with m.State("SLICE"):
                # The next slice, a cycle after its number changed.
                self._begin_slice(m)
            if ext:
                self._spill_states(m, waited, ok, ready)
            with m.State("LOAD_SLICE"):
                m.d.comb += [self.in_load.eq(1), waited.eq(ready["loaded"])]
                with m.If(ok):
                    m.d.sync += [self.start_process.eq(1), settle.eq(0)]
                    m.next = "PROCESS"
            with m.State("PROCESS"):
                # Beside its region's load or clear (``process_overlap``), processing ends
                # once both are done.
                region_ready = ready["cleared"] & ready["spilled"] if ext else 1
                m.d.comb += [self.in_process.eq(1), waited.eq(ready["drained"] & region_ready)]
                with m.If(ok):
                    self._end_process(m)
            with m.State("APPLY"):
                m.d.comb += [self.in_apply.eq(1), waited.eq(ready["applied"])]
                with m.If(ok):
                    self._end_apply(m, last_slice)
        # ``ok``, a register, ends a wait: the idle check of the state held, settled, in the
        # cycle before. It is never high in a state's first cycle (the cycle before, either
        # the state before ended on ``ok`` or it was not a waiting one), so the check seen is
        # always the current state's: one cycle more per wait, for a transition decided by a
        # flip-flop and not by the settle count's compare and the idle checks on the way to
        # every register the transition loads (settle itself the longest).
        m.d.sync += ok.eq(settled & waited & ~ok)
        m.d.comb += self.busy.eq(~self.done & ~fsm.ongoing("IDLE"))
        return m

    def _spill_states(self, m, waited, ok, ready):
        """Extended slicing's states around region B: PREPARE waits for its clear or load,
        STORE for its write-back; SWAP starts the next slice's load behind the write-back
        (``spill_overlap``)."""
        with m.State("PREPARE"):
            m.d.comb += [self.in_load.eq(1), waited.eq(ready["cleared"] & ready["spilled"])]
            with m.If(ok):
                m.d.sync += [self.start_process.eq(1), self._settle.eq(0)]
                m.next = "PROCESS"
        with m.State("SWAP"):
            # The write-back took the slice's region settings a cycle ago: the next slice's
            # load may now follow it.
            m.d.comb += [self.in_load.eq(1), self._sched.advance.eq(1)]
            m.d.sync += self._swapped.eq(1)
            m.next = "SLICE"
        with m.State("STORE"):
            m.d.comb += [self.in_load.eq(1), waited.eq(ready["spilled"])]
            with m.If(ok):
                self._after_store(m)

    def _schedule(self, m):
        """Extended slicing (§VI.B): the slice order and its actions, the slice number from
        it."""
        m.submodules.schedule = schedule = ExtendedSchedule(max_partitions(self._cfg.max_slices))
        m.d.sync += [self.spill_store.eq(0), self.spill_load.eq(0)]
        m.d.comb += [
            schedule.count.eq(self.ext_partitions),
            self.slice.eq(schedule.step), self.part_src.eq(schedule.src),
            self.part_dst.eq(schedule.dst), self.diagonal.eq(schedule.diagonal),
        ]
        return schedule
