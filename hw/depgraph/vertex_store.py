"""One bank of DepGraph's on-chip vertex store: the records of one engine's partition.

DepGraph (Zhang et al., HPCA 2021) §III-A/B; the rules are those of ``golden.depgraph.engine``
(module docstring). A record is the vertex's state s, its delta Δ, its constant c (PageRank's
alpha / outdeg; absent for the min-type algorithms, where it reads as 0) and four flags:
*active* (Δ may hold work), *queued* (the id sits in the engine's circular queue), *stop*
(the vertex is in the stop bitmap H'', the walk does not descend into it) and *head* (the
vertex heads hub-index entries: the HDTL looks it up in the DDMU when it roots a walk).

Work test ("worth"): min type (BFS, SSSP, CC; uint32 Accum = min, identity 0xFFFFFFFF)
Δ < s as unsigned integers; sum type (PageRank; Accum = FP32 add, identity +0.0)
|Δ| >= tolerance. With a positive tolerance the sum-type test is an integer compare of the
bit patterns: for non-NaN binary32 values, |a| >= |b| exactly when ``a & 0x7FFFFFFF >=
b & 0x7FFFFFFF`` as unsigned integers (the magnitude bits order like the magnitudes,
subnormals and infinity included). A NaN delta is never worth (its magnitude bits are above
0x7F800000), as ``abs(nan) >= tol`` is false in NumPy.

Operations (vertex ids on the ports are global; the bank subtracts ``base`` and keeps the low
log2(words) bits, so an id outside [base, base + words) aliases another record):

* load: write the record (s, Δ, c, stop, head; with ``offsets``, the vertex's CSR offsets
  lo, hi); active = queued = worth, and a worth record's id is pushed (the initial
  activation, in the order loaded).
* visit (fold): active ← 0, and queued ← 0 when ``root``; if worth: min: s ← Δ;
  sum: s ← s + Δ; then Δ ← identity. The answer: worth, x = Δ as read (the value the vertex
  propagates when worth), c, head and (with ``offsets``) lo, hi. A visit that is not worth
  changes nothing else.
* update: min: Δ ← min(Δ, value); sum: Δ ← Δ + value (FP32, :class:`hw.lib.arith.fp32.FP32Adder`,
  bit-exact with NumPy float32). If the record is now worth and was not active it becomes
  active and, unless ``leave`` and the origin's engine = ``engine`` and not stop (the origin's
  walk will find it), its id is pushed, which sets queued (nothing is pushed if it was queued
  already). Every update gives one ``ack`` pulse with its origin.
* probe: walkable = active and not stop, read beside the pipeline (:mod:`.probe_port`): it
  sees the flags as written by the ops that have passed stage W, in flight or not.
* dump: the state word (read-back after the run).

Microarchitecture. Visits, updates and dumps enter a two-entry queue of registers
in front of a main register; loads a four-entry queue in distributed RAM whose head serves as
their main register. Every ``ready`` is a register (or a queue level). Each cycle a
round-robin arbiter picks one op among the main registers whose op may go: its output queue
has a free credit and (except for loads, which read nothing) its record is not being written
by an op in flight. The picked op goes down one pipeline shared by all ops, one stage per
cycle, never stalled:

=====  =========================================================================
P      the inputs' main registers: the pick (credits, registered hazards, arbiter)
A      address register: drives the memories' read address; a load's worth test
B      the block RAMs answer; their data is registered with no logic on the way
N      the read data registered again, so the first register may sit by the block RAMs
C      min type: compute; sum type: select the adder's operands, a visit's worth test
D0-D4  sum type only: D0 holds the adder's operands; D1-D4 inside the FP32 adder
F      sum type only: compute with the adder's result (5 cycles after D0)
W      write the memories, the output queues, ``ack`` and the counters
=====  =========================================================================

The compute stage (C for min, F for sum) works from registers only: for min type three
32-bit compares in parallel (Δ < s, v < s, v < Δ: min(Δ, v) < s is Δ < s or v < s) and the
flag logic; for sum type one 31-bit compare of the adder's result with the tolerance (a
visit's test of the Δ it read is done in C and carried).

Read-modify-write hazards are avoided by stalling, not forwarding: an op is not picked while
an op that writes (visit, update) of the same record is in stages A to the compute stage, nor
while any load is there (loads come before a run; this keeps their index out of the
compares); one in W writes at the edge before the picked op's read. The compares are made a
cycle ahead, between registers: for each main register a bit per stage says whether that
stage holds a writer of its record; when the main register keeps its op the bits move one
stage on (plus a compare with the op picked, entering A), and when it takes the head of its
queue the head's index is compared with every stage. So the pick sees registered hazard
bits, and no compare lies between the arbiter and the wide registers it enables. Ops of
distinct records go one per cycle; ops of one record one per 5 cycles (min) or 11 (sum).
While loads stream in, the other inputs wait.

With ``offsets`` the CSR offsets live in a block RAM of their own (64 bits a record), beside
the pipeline: loads write it and visits read it in stage A, in pick order, which needs no
hazard check; a visit's range waits in a small queue until the visit reaches W.

Outputs do not deadlock under backpressure: each of ``visited``, ``dumped`` and ``push`` has
a queue of ``output_depth`` entries and a credit counter (ops in flight plus
entries queued); an op is picked only when its queue has a credit. Loads and updates each take
a ``push`` credit (whether they push is known only at W, where an unused credit is given
back), so a long stall of ``push`` holds up loads and updates, but not visits, probes and
dumps. The probe port has its own queue and credits.

The order of ops across the inputs is the arbiter's (each input's own ops keep their order);
a producer that needs an order between two inputs must wait for the first op's answer (or,
for loads, for ``busy`` low).
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.arith.fp32 import FP32Adder
from hw.lib.config import check_int
from hw.lib.fanout import register_copies
from hw.lib.stream.fifo import StreamFIFO
from .program import gas_of
from .layouts import (LoadRecord, ORIGIN_BITS, ProbeResult, VertexUpdate, VisitRequest,
                      VisitResult)
from .bank_outputs import OUTPUTS, BankOutputs
from .op_picker import OpPicker, or_reduce
from .probe_port import ProbePort
from .record_update import OpKind, RecordFlag, RecordUpdate, RecordWrite


__all__ = ["VertexStoreBank", "MIN_IDENTITY", "SUM_IDENTITY"]

MIN_IDENTITY = 0xFFFF_FFFF
SUM_IDENTITY = 0x0000_0000           # +0.0

_INF = 0x7F80_0000


class VertexStoreBank(wiring.Component):
    """One engine's bank of the vertex store (see the module docstring).

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`): min type (min or max Accum, an
        integer compare) or sum type (FP32).
    words : int
        Records (a power of two, at least 2).
    engine : int
        This bank's engine, compared with the engine of an update's ``origin`` (the walk slot
        ``engine << walk_bits | walk``).
    walk_bits : int
        Bits of a walk's number within its engine.
    output_depth : int
        Entries of each output queue (at least 2; 16 sustains one visit, probe or dump per
        cycle for the sum type's pipeline, whose credits stay out 13 cycles).
    offsets : bool
        Keep each vertex's CSR offsets (lo, hi) from its load and answer them with its
        visits, so the HDTL needs no memory read for them (``offsets_on_chip``).

    Attributes
    ----------
    latency : int
        Cycles from the cycle an op is picked (from its input's main register) to the cycle
        its answer is offered: 6 (min) or 12 (sum); ``ack`` pulses one cycle earlier. An op
        offered to an idle bank is picked 2 cycles after (loads: 1), so a visit's round trip
        is 8 (min) or 14 (sum) cycles.
    picked : Signal(4)
        Verification only (not a port): one-hot of the kind of op picked this cycle (load,
        visit, update, dump; probes do not go down the pipeline). The bank behaves as if it
        performed its ops one after another in this order, each at its stage W, ``latency``
        - 1 cycles after the pick.
    probe_read, probe_index : Signal(1), Signal(index_width)
        Verification only: a probe reads the flags of record ``probe_index`` at this cycle's
        clock edge, after the write of the op in stage W then (the probe port).

    Members
    -------
    base : ``In(32)``
        The partition's first vertex id (constant during a run).
    tolerance : ``In(32)``
        Sum type: the worth threshold as a positive binary32 (constant during a run).
    load : ``In(stream.Signature(LoadRecord))``
    visit : ``In(stream.Signature(VisitRequest))``
    visited : ``Out(stream.Signature(VisitResult))``
        In the order of the visits: worth, x (Δ as read), c (0 for min type), head and, with
        ``offsets``, the CSR offsets lo and hi (else 0).
    update : ``In(stream.Signature(VertexUpdate))``
    ack : ``Out(1)``; ack_origin : ``Out(ORIGIN_BITS)``; ack_left : ``Out(1)``
        One-cycle pulse per update processed, with its origin, and whether it activated a
        vertex left for the origin's walk; no backpressure.
    probe : ``In(stream.Signature(32))``; probed : ``Out(stream.Signature(ProbeResult))``
    dump : ``In(stream.Signature(32))``; dumped : ``Out(stream.Signature(32))``
    push : ``Out(stream.Signature(32))``
        Global ids for this engine's circular queue.
    busy : ``Out(1)``
        An op is buffered or in flight, or an answer is not yet taken.
    vertex_updates, updates, activations, pushes, stack_overflows, hazard_waits : ``Out(32)``
        Worth folds; updates processed; active bits set (by loads and updates); ids pushed
        (by loads and updates); walkable vertices an update of this engine activated at the
        stack's depth (not left for the walk: queued instead); cycles nothing was picked
        while a visit or update waited on a hazard (an earlier op on its record in flight).
    """

    def __init__(self, *, algo: str, words: int, engine: int, output_depth: int = 16,
                 walk_bits: int = 0, offsets: bool = False):
        check_int("VertexStoreBank", "words", words, low=2, power_of_two=True)
        check_int("VertexStoreBank", "walk_bits", walk_bits, low=0, high=ORIGIN_BITS - 1)
        check_int("VertexStoreBank", "engine", engine, low=0,
                  high=(1 << (ORIGIN_BITS - walk_bits)) - 1)
        check_int("VertexStoreBank", "output_depth", output_depth, low=2)
        self._algo = algo
        self._is_min = gas_of(algo).selective
        self._words = words
        self._engine = engine
        self._walk_bits = walk_bits
        self._output_depth = output_depth
        self._offsets = offsets
        self.index_width = (words - 1).bit_length()
        self.latency = 6 if self._is_min else 12
        self.picked = Signal(len(OpKind), name="picked")
        self.probe_read = Signal(name="probe_read")
        self.probe_index = Signal(self.index_width, name="probe_index")
        super().__init__({
            "base": In(32),
            "tolerance": In(32),
            "load": In(stream.Signature(LoadRecord)),
            "visit": In(stream.Signature(VisitRequest)),
            "visited": Out(stream.Signature(VisitResult)),
            "update": In(stream.Signature(VertexUpdate)),
            "ack": Out(1),
            "ack_origin": Out(ORIGIN_BITS),
            "ack_left": Out(1),
            "probe": In(stream.Signature(32)),
            "probed": Out(stream.Signature(ProbeResult)),
            "dump": In(stream.Signature(32)),
            "dumped": Out(stream.Signature(32)),
            "push": Out(stream.Signature(32)),
            "busy": Out(1),
            "vertex_updates": Out(32),
            "updates": Out(32),
            "activations": Out(32),
            "pushes": Out(32),
            "stack_overflows": Out(32),
            "hazard_waits": Out(32),
        })

    @property
    def hazard_stages(self) -> int:
        """Stages from A to the compute stage: an op waits while a write of its record is
        in one of them."""
        return 4 if self._is_min else 10

    @property
    def record_spacing(self) -> int:
        """Cycles between the picks of two ops of one record, at the closest."""
        return self.hazard_stages + 1

    @property
    def is_min(self) -> bool:
        return self._is_min

    @property
    def identity(self) -> int:
        return MIN_IDENTITY if self._is_min else SUM_IDENTITY

    # ------------------------------------------------------------------------------ helpers

    def _fifo_input(self, m, port, name, vertex):
        """Input of the loads: a small queue in distributed RAM (its index worked out on the
        way in), so that taking a load moves a read pointer, not a wide register. Returns
        the head: (valid, payload, index, take: to drive, pops it) and ``held``."""
        layout = data.StructLayout({"payload": port.payload.shape(),
                                    "index": self.index_width})
        queue = StreamFIFO(layout, 4)
        m.submodules[f"{name}_queue"] = queue
        take = Signal(name=f"{name}_take")
        m.d.comb += [
            queue.i.valid.eq(port.valid),
            queue.i.payload.payload.eq(port.payload),
            queue.i.payload.index.eq(vertex(port.payload) - self.base),
            port.ready.eq(queue.i.ready),
            queue.o.ready.eq(take),
        ]
        return SimpleNamespace(valid=queue.o.valid, payload=queue.o.payload.payload,
                               index=queue.o.payload.index, take=take,
                               held=queue.level != 0)

    def _queued_input(self, m, port, name, vertex, keep_payload):
        """Input of the ops checked for hazards: a two-entry queue (q0 its head, q1) in front
        of the main register, which is loaded from q0 only, so that the main register's next
        op is always one held in a register (its hazards are worked out a cycle ahead from
        registers). ``ready`` is q1 being empty. Returns the main register (valid, payload,
        index, take: to drive, empties it) and the head (q0_valid, q0_index), ``move``, high
        when the head goes to the main register, and ``held``, any op inside (q1 is full only
        when q0 is)."""
        shape = port.payload.shape() if keep_payload else 0
        payload = port.payload if keep_payload else Const(0, 0)
        valid = {r: Signal(name=f"{name}_{r}_valid") for r in ("main", "q0", "q1")}
        payloads = {r: Signal(shape, name=f"{name}_{r}", reset_less=True)
                for r in ("main", "q0", "q1")}
        index = {r: Signal(self.index_width, name=f"{name}_{r}_index", reset_less=True)
                 for r in ("main", "q0", "q1")}
        take, move, incoming = Signal(name=f"{name}_take"), Signal(name=f"{name}_move"), Signal()
        in_index = Signal(self.index_width, name=f"{name}_in_index")
        m.d.comb += [
            in_index.eq(vertex(port.payload) - self.base),
            port.ready.eq(~valid["q1"]),
            incoming.eq(port.valid & ~valid["q1"]),
            move.eq(valid["q0"] & (~valid["main"] | take)),
        ]

        def load(dst, src_valid, src_data, src_index):
            m.d.sync += [valid[dst].eq(src_valid), payloads[dst].eq(src_data),
                         index[dst].eq(src_index)]

        with m.If(move):
            load("main", 1, payloads["q0"], index["q0"])
            with m.If(valid["q1"]):                  # (then nothing comes in)
                load("q0", 1, payloads["q1"], index["q1"])
                m.d.sync += valid["q1"].eq(0)
            with m.Else():
                load("q0", incoming, payload, in_index)
        with m.Else():
            with m.If(take):
                m.d.sync += valid["main"].eq(0)
            with m.If(~valid["q0"]):
                load("q0", incoming, payload, in_index)
            with m.Elif(incoming):
                load("q1", 1, payload, in_index)
        return SimpleNamespace(valid=valid["main"], payload=payloads["main"], index=index["main"],
                               take=take, q0_valid=valid["q0"], q0_index=index["q0"],
                               move=move, held=valid["main"] | valid["q0"])

    @staticmethod
    def _stage(m, name, fields, valid):
        """Register ``valid`` and the ``fields`` (a dict) into the next stage."""
        next_valid = Signal(name=f"{name}_valid")
        m.d.sync += next_valid.eq(valid)
        registers = {}
        for key, value in fields.items():
            register = Signal.like(value, name=f"{name}_{key}", reset_less=True)
            m.d.sync += register.eq(value)
            registers[key] = register
        return next_valid, registers

    def _worth_sum(self, m, value, name):
        """|value| >= tolerance for a non-NaN binary32 and a positive tolerance."""
        magnitude = value[0:31]
        worth = Signal(name=name)
        m.d.comb += worth.eq((magnitude >= self.tolerance[0:31]) & (magnitude <= _INF))
        return worth

    def _elaborate_accum(self, m, c_valid, c, track):
        """From the record as read (stage C) to the compute stage: Accum's and the fold's
        values and the worth tests (min type: in C; sum type: through the FP32 adder, stages
        D0-D4, to F). Returns the compute stage's valid and fields and the values worked
        out; ``track(valid, fields)`` records each stage added."""
        is_min = self._is_min
        rd_state, rd_delta, rd_flags = c["rd_state"], c["rd_delta"], c["rd_flags"]
        rd_const = c["rd_const"] if not is_min else Const(0, 32)
        kind = c["kind"]

        if is_min:
            # Compute stage = C.
            lt_ds = Signal()
            lt_vs = Signal()
            lt_vd = Signal()
            m.d.comb += [lt_ds.eq(rd_delta < rd_state), lt_vs.eq(c["value"] < rd_state),
                         lt_vd.eq(c["value"] < rd_delta)]
            f_valid, f = c_valid, {
                "kind": kind, "index": c["index"], "origin": c["origin"],
                "leave": c["leave"], "root": c["root"], "flags": rd_flags,
                "load_worth": c["load_worth"], "load_stop": c["load_stop"],
                "load_head": c["load_head"], "load_leaf": c["load_leaf"],
                "s": Mux(kind[OpKind.LOAD], c["load_state"], rd_state),
                "d": Mux(kind[OpKind.LOAD], c["load_delta"], rd_delta),
                "c": Mux(kind[OpKind.LOAD], c["load_const"], rd_const),
            }
            visit_worth = lt_ds
            update_worth = lt_ds | lt_vs
            new_delta = Mux(lt_vd, c["value"], rd_delta)
            new_state = rd_delta
        else:
            # The adder's operands are registered (D0): visit s + Δ, update v + Δ
            # (commutative, bit for bit).
            carried = {
                "kind": kind, "index": c["index"], "origin": c["origin"],
                "leave": c["leave"], "root": c["root"], "flags": rd_flags,
                "load_worth": c["load_worth"], "load_stop": c["load_stop"],
                "load_head": c["load_head"], "load_leaf": c["load_leaf"],
                "visit_worth": self._worth_sum(m, rd_delta, "c_visit_worth"),
                "s": Mux(kind[OpKind.LOAD], c["load_state"], rd_state),
                "d": Mux(kind[OpKind.LOAD], c["load_delta"], rd_delta),
                "c": Mux(kind[OpKind.LOAD], c["load_const"], rd_const),
                "operand": Mux(kind[OpKind.VISIT], rd_state, c["value"]),
            }
            m.submodules.adder = adder = FP32Adder(tag_width=0)
            assert adder.latency == 5
            valid = c_valid
            for name in ("d0", "d1", "d2", "d3", "d4", "f"):
                valid, carried = self._stage(m, name, carried, valid)
                track(valid, carried)
                if name == "d0":
                    m.d.comb += [
                        adder.i.valid.eq(valid & (carried["kind"][OpKind.VISIT] |
                                                  carried["kind"][OpKind.UPDATE])),
                        adder.i.payload.a.eq(carried.pop("operand")),
                        adder.i.payload.b.eq(carried["d"]),
                        adder.o.ready.eq(1),
                    ]
            # Compute stage = F.
            f_valid, f = valid, carried
            sum_result = adder.o.payload.result
            visit_worth = f["visit_worth"]
            update_worth = self._worth_sum(m, sum_result, "f_update_worth")
            new_delta = sum_result
            new_state = sum_result
            kind = f["kind"]

        return f_valid, f, SimpleNamespace(visit_worth=visit_worth, update_worth=update_worth,
                                           new_delta=new_delta, new_state=new_state)

    def _elaborate_write(self, m, w_valid, w, writes, outputs):
        """Stage W: the record's memories written, the answer queued, ``ack`` and the
        counters."""
        wk = w["kind"]
        for port, index in zip(writes.values(), w["index_copies"]):
            m.d.comb += port.addr.eq(index)
        m.d.comb += [
            writes["state"].data.eq(w["state"]),
            writes["state"].en.eq(w_valid & w["state_en"]),
            writes["delta"].data.eq(w["delta"]),
            writes["delta"].en.eq(w_valid & w["delta_en"]),
            writes["flags"].data.eq(w["flags"]),
            writes["flags"].en.eq(w_valid & w["flags_en"]),
        ]
        if not self._is_min:
            m.d.comb += [writes["const"].data.eq(w["c"]),
                         writes["const"].en.eq(w_valid & wk[OpKind.LOAD])]

        m.d.comb += [
            outputs.visited_in.valid.eq(w_valid & wk[OpKind.VISIT]),
            outputs.visited_in.payload.worth.eq(w["worth"]),
            outputs.visited_in.payload.x.eq(w["d"]),
            outputs.visited_in.payload.const.eq(w["c"]),
            outputs.visited_in.payload.head.eq(w["flags"][RecordFlag.HEAD]),
            outputs.visited_in.payload.leaf.eq(w["flags"][RecordFlag.LEAF]),
            outputs.dumped_in.valid.eq(w_valid & wk[OpKind.DUMP]),
            outputs.dumped_in.payload.eq(w["s"]),
            outputs.push_in.valid.eq(w_valid & w["pushes"]),
            outputs.push_in.payload.eq(w["push_id"]),
            self.ack.eq(w_valid & wk[OpKind.UPDATE]),
            self.ack_origin.eq(w["origin"]),
            self.ack_left.eq(w_valid & w["left"]),
        ]
        with m.If(w_valid):
            m.d.sync += [
                self.vertex_updates.eq(self.vertex_updates + (wk[OpKind.VISIT] & w["worth"])),
                self.updates.eq(self.updates + wk[OpKind.UPDATE]),
                self.activations.eq(self.activations + w["activates"]),
                self.pushes.eq(self.pushes + w["pushes"]),
                self.stack_overflows.eq(self.stack_overflows + w["overflows"]),
            ]

    def _elaborate_edge_ranges(self, m, a_valid, a_kind, a_indexes, b_valid, b_kind, load,
                               w_valid, w_kind, outputs):
        """The vertices' CSR offsets, kept beside the pipeline: a load writes its record's
        and a visit reads its vertex's in stage A (so in the order the ops are picked); the
        visit's range waits in a queue for the visit to reach stage W, where it joins the
        answer. The range's two words are two memories, each addressed by its own copy of
        stage A's index (``a_indexes``): together they are the bank's largest."""
        loaded = Signal(64)
        m.d.sync += loaded.eq(Cat(load.lo, load.hi))        # registered with stage A
        range_read = Signal(64)
        for half, a_index in enumerate(a_indexes):
            ranges = memory.Memory(shape=32, depth=self._words, init=[])
            m.submodules[f"edge_range_{('lo', 'hi')[half]}"] = ranges
            write, read = ranges.write_port(), ranges.read_port()
            m.d.comb += [write.addr.eq(a_index), write.data.eq(loaded[32 * half:32 * half + 32]),
                         write.en.eq(a_valid & a_kind[OpKind.LOAD]), read.addr.eq(a_index),
                         range_read[32 * half:32 * half + 32].eq(read.data)]
        # It holds the ranges of the visits in stages N to W (one op a stage: latency - 3 of
        # them), and takes the next one's, from B, in the same cycle as W's is taken: the
        # queue accepts an entry only when not full, so one more.
        m.submodules.edge_range_queue = queue = StreamFIFO(64, self.latency - 2)
        m.d.comb += [queue.i.valid.eq(b_valid & b_kind[OpKind.VISIT]),
                     queue.i.payload.eq(range_read),
                     queue.o.ready.eq(w_valid & w_kind[OpKind.VISIT]),
                     outputs.visited_in.payload.lo.eq(queue.o.payload[:32]),
                     outputs.visited_in.payload.hi.eq(queue.o.payload[32:])]

    # ---------------------------------------------------------------------------- elaborate

    def _elaborate_memories(self, m, pick_index):
        """The bank's block RAMs (state, delta, flags, and const for sum type) with a read and
        a write port each, and the probes' own read port of the flags. The read ports are
        always enabled (an enable would fan out to every block RAM) and each memory, the edge
        ranges' two included, has its own copy of stage A's index (``pick_index``
        registered): one net to all of a bank's block RAMs spans the chip. Returns the read
        and write ports, the probe port and the copies of the index."""
        m.submodules.state = state_mem = memory.Memory(shape=32, depth=self._words, init=[])
        m.submodules.delta = delta_mem = memory.Memory(shape=32, depth=self._words, init=[])
        m.submodules.flags = flags_mem = memory.Memory(shape=len(RecordFlag), depth=self._words,
                                                       init=[])
        mems = {"state": state_mem, "delta": delta_mem, "flags": flags_mem}
        if not self._is_min:
            m.submodules.const = const_mem = memory.Memory(shape=32, depth=self._words,
                                                           init=[])
            mems["const"] = const_mem
        self._memories = mems          # verification: the simulator peeks at them
        reads = {name: mem.read_port() for name, mem in mems.items()}
        writes = {name: mem.write_port() for name, mem in mems.items()}

        # The probes' own read port of the flags, seeing a write of the same cycle.
        m.submodules.probes = probes = ProbePort(index_width=self.index_width,
                                                 depth=self._output_depth)
        probe_read = flags_mem.read_port(transparent_for=(writes["flags"],))
        wiring.connect(m, wiring.flipped(self.probe), probes.probe)
        wiring.connect(m, probes.probed, wiring.flipped(self.probed))
        m.d.comb += [probes.base.eq(self.base), probe_read.addr.eq(probes.addr),
                     probes.flags.eq(probe_read.data), self.probe_read.eq(probes.read),
                     self.probe_index.eq(probes.addr)]
        read_indexes = register_copies(m, pick_index, len(reads) + 2, name="a_index",
                                       reset_less=True)
        for port, index in zip(reads.values(), read_indexes):
            m.d.comb += port.addr.eq(index)
        return reads, writes, probes, read_indexes

    def _elaborate_inputs(self, m):
        """The input queues of the loads, visits, updates and dumps, in kind order. (Probes
        are answered beside the pipeline, by the probe port.)"""
        inputs = [self._fifo_input(m, self.load, "load", lambda p: p.vertex)]
        for kind, port, vertex in (
                (OpKind.VISIT, self.visit, lambda p: p.vertex),
                (OpKind.UPDATE, self.update, lambda p: p.vertex)):
            inputs.append(self._queued_input(m, port, kind.name.lower(), vertex,
                                             keep_payload=kind in (OpKind.VISIT, OpKind.UPDATE)))
        inputs.append(self._queued_input(m, self.dump, OpKind.DUMP.name.lower(), lambda p: p,
                                         keep_payload=False))
        return inputs

    def _elaborate_picker(self, m, inputs, outputs):
        """The op picker over the input queues, each kind given room in the answer queue
        it needs, and the count of the cycles it waited on a hazard. Returns it."""
        room = {name: outputs.room[k] for k, name in enumerate(OUTPUTS)}
        needs = {OpKind.LOAD: "push", OpKind.VISIT: "visited", OpKind.UPDATE: "push",
                 OpKind.DUMP: "dumped"}
        m.submodules.picker = picker = OpPicker(index_width=self.index_width,
                                                stages=self.hazard_stages)
        for kind, source in enumerate(inputs):
            m.d.comb += [picker.valid[kind].eq(source.valid),
                         picker.index[kind].eq(source.index),
                         picker.room[kind].eq(room[needs[kind]]),
                         source.take.eq(picker.grant[kind])]
            if kind != OpKind.LOAD:
                m.d.comb += [picker.head_index[kind].eq(source.q0_index),
                             picker.move[kind].eq(source.move)]
        m.d.comb += self.picked.eq(picker.grant)
        with m.If(picker.hazard_wait):
            m.d.sync += self.hazard_waits.eq(self.hazard_waits + 1)
        return picker

    def _elaborate_record_update(self, m, f_valid, f, accum):
        """The compute stage: the record's new fields and answers (:class:`RecordUpdate`) from
        the op and Accum's results, registered into stage W. Returns W's valid and fields."""
        m.submodules.record = record = RecordUpdate(engine=self._engine,
                                                    walk_bits=self._walk_bits,
                                                    identity=self.identity)
        op = record.op
        m.d.comb += [
            op.kind.eq(f["kind"]), op.flags.eq(f["flags"]), op.origin.eq(f["origin"]),
            op.leave.eq(f["leave"]), op.root.eq(f["root"]),
            op.load_worth.eq(f["load_worth"]), op.load_stop.eq(f["load_stop"]),
            op.load_head.eq(f["load_head"]), op.load_leaf.eq(f["load_leaf"]),
            op.visit_worth.eq(accum.visit_worth), op.update_worth.eq(accum.update_worth),
            op.load_state.eq(f["s"]), op.load_delta.eq(f["d"]),
            op.new_state.eq(accum.new_state), op.new_delta.eq(accum.new_delta),
        ]
        push_id = Signal(32)
        m.d.comb += push_id.eq(self.base + f["index"])
        w_valid, w = self._stage(m, "w", {
            "kind": f["kind"], "index": f["index"], "origin": f["origin"],
            "write": record.write, "push_id": push_id,
            "d": f["d"], "c": f["c"], "s": f["s"],
        }, f_valid)
        w.update({name: w["write"][name] for name in RecordWrite.members})
        w["index_copies"] = register_copies(m, f["index"], len(self._memories), name="w_index",
                                            reset_less=True)
        return w_valid, w

    def elaborate(self, platform):
        m = Module()
        is_min = self._is_min

        inputs = self._elaborate_inputs(m)
        mains = [i.payload for i in inputs]

        # Answer queues with their credits (ops in flight or queued for the output).
        m.submodules.outputs = outputs = BankOutputs(depth=self._output_depth)
        for name in OUTPUTS:
            wiring.connect(m, getattr(outputs, name), wiring.flipped(getattr(self, name)))

        # The pipeline's stages from A to the compute stage (filled in below): the ops there
        # that write are the hazards of the pick.
        hazard_stages = []          # (valid & writes, index) per stage, A first
        load_stages = []            # valid & load per stage, A first
        stage_valids = []
        hazard_count = self.hazard_stages
        picker = self._elaborate_picker(m, inputs, outputs)
        grant = picker.grant

        # ----------------------------------------------------------------------- stage A
        load_main, visit_main, update_main, _ = mains        # in OpKind order
        a_valid, a = self._stage(m, "a", {
            "kind": grant,
            "index": picker.pick_index,
            "value": update_main.value, "origin": update_main.origin,
            "leave": update_main.leave,
            "root": visit_main.root,
            "load_state": load_main.state, "load_delta": load_main.delta,
            "load_const": load_main.const, "load_stop": load_main.stop,
            "load_head": load_main.head, "load_leaf": load_main.leaf,
        }, grant.any())

        reads, writes, probes, read_indexes = self._elaborate_memories(m, picker.pick_index)

        load_worth = Signal()
        if is_min:
            m.d.comb += load_worth.eq(a["load_delta"] < a["load_state"])
        else:
            m.d.comb += load_worth.eq(self._worth_sum(m, a["load_delta"], "a_load_worth_sum"))

        def track(valid, fields):
            """A stage from A to the compute stage: its op's hazards for the pick."""
            kind, index = fields["kind"], fields["index"]
            hazard_stages.append((valid & (kind[OpKind.VISIT] | kind[OpKind.UPDATE]), index))
            load_stages.append(valid & kind[OpKind.LOAD])
            stage_valids.append(valid)

        track(a_valid, a)

        # ----------------------------------------------------------------------- stage B
        b_fields = dict(a)
        b_fields["load_worth"] = load_worth
        b_valid, b = self._stage(m, "b", b_fields, a_valid)
        track(b_valid, b)

        # ---------------------------------------------------------------------- stages N, C
        # The read data goes through two registers with nothing else on the way: the first
        # can sit beside its block RAMs (whose output is slow, and which a large bank spreads
        # over the chip), the second beside the logic.
        n_fields = dict(b)
        for name, port in reads.items():
            n_fields[f"rd_{name}"] = port.data
        n_valid, n = self._stage(m, "n", n_fields, b_valid)
        track(n_valid, n)
        c_valid, c = self._stage(m, "c", n, n_valid)
        track(c_valid, c)
        f_valid, f, accum = self._elaborate_accum(m, c_valid, c, track)

        assert len(hazard_stages) == len(load_stages) == hazard_count
        for stage, ((writer, index), loads) in enumerate(zip(hazard_stages, load_stages)):
            m.d.comb += [picker.stage_writes[stage].eq(writer),
                         picker.stage_index[stage].eq(index),
                         picker.stage_loads[stage].eq(loads)]

        w_valid, w = self._elaborate_record_update(m, f_valid, f, accum)

        # ----------------------------------------------------------------------- stage W
        self._elaborate_write(m, w_valid, w, writes, outputs)
        wk = w["kind"]
        if self._offsets:
            self._elaborate_edge_ranges(m, a_valid, a["kind"], read_indexes[-2:], b_valid,
                                        b["kind"], load_main, w_valid, wk, outputs)

        # ------------------------------------------------------------------------ credits
        m.d.comb += [
            outputs.gain.eq(Cat(grant[OpKind.VISIT], grant[OpKind.DUMP],
                                grant[OpKind.LOAD] | grant[OpKind.UPDATE])),
            outputs.unused_push.eq(w_valid & (wk[OpKind.LOAD] | wk[OpKind.UPDATE]) & ~w["pushes"]),
        ]

        stage_valids.append(w_valid)
        m.d.comb += self.busy.eq(
            or_reduce([i.held for i in inputs]) | or_reduce(stage_valids) | outputs.busy |
            probes.busy)
        return m

