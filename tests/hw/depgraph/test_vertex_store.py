"""DepGraph's vertex-store bank (``hw/depgraph/vertex_store.py``) in Amaranth's simulator.

Random streams of loads, visits, updates (random origins and leave bits, runs of updates of
one vertex back to back), probes and dumps go in with random pauses; every output has random
backpressure. A Python model of the rules (``golden.depgraph.engine``: uint32 min, or float32
sum through NumPy) performs the ops in the order the bank picks them (its ``picked``
verification signal: ops of one input keep their order, the interleaving of the inputs is the
arbiter's), each at its stage W, and answers each probe from the flags as they are in the
cycle the probe port reads them (``probe_read``: after that cycle's write); the visited,
probed, dumped and push streams, the ack origins, the counters and
the final memory contents must equal the model's exactly. ``busy`` must stay high while an op
is buffered or in flight or an expected answer has not been taken.
"""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.depgraph.layouts import ORIGIN_DDMU
from hw.depgraph.vertex_store import VertexStoreBank


MAX = 0xFFFF_FFFF
INPUTS = ("load", "visit", "update", "probe", "dump")
LOAD, VISIT, UPDATE, PROBE, DUMP = range(len(INPUTS))
# The bank's op kinds (bits of ``picked``): the inputs but the probes, answered beside its
# pipeline.
PICKED = (LOAD, VISIT, UPDATE, DUMP)
OUTPUTS = ("visited", "probed", "dumped", "push")


def f32_bits(x):
    return int(np.array(x, dtype=np.float32).view(np.uint32))


def bits_f32(b):
    return np.array(b, dtype=np.uint32).view(np.float32)[()]


class Model:
    """The bank's rules, one op at a time."""

    def __init__(self, *, is_min, words, base, engine, tolerance, offsets=False):
        self.is_min, self.base, self.engine = is_min, base, engine
        self.offsets = offsets
        self.edge_range = [(0, 0)] * words
        self.tolerance = bits_f32(tolerance)
        self.state = [0] * words
        self.delta = [0] * words
        self.const = [0] * words
        self.active = [False] * words
        self.queued = [False] * words
        self.stop = [False] * words
        self.head = [False] * words
        self.leaf = [False] * words
        self.out = {name: [] for name in OUTPUTS}
        self.acks = []
        self.counters = dict(vertex_updates=0, updates=0, activations=0, pushes=0)

    def worth(self, i):
        if self.is_min:
            return self.delta[i] < self.state[i]
        return bool(abs(bits_f32(self.delta[i])) >= self.tolerance)

    def add(self, a, b):
        with np.errstate(all="ignore"):
            return f32_bits(bits_f32(a) + bits_f32(b))

    def push(self, i):
        if not self.queued[i]:
            self.queued[i] = True
            self.out["push"].append(self.base + i)
            self.counters["pushes"] += 1

    def load(self, op):
        i = op["vertex"] - self.base
        self.state[i], self.delta[i] = op["state"], op["delta"]
        self.const[i] = 0 if self.is_min else op["const"]
        self.stop[i] = bool(op["stop"])
        self.head[i] = bool(op["head"])
        self.leaf[i] = bool(op.get("leaf", 0))
        self.edge_range[i] = (op.get("lo", 0), op.get("hi", 0))
        self.active[i] = self.queued[i] = False
        if self.worth(i):
            self.active[i] = True
            self.counters["activations"] += 1
            self.push(i)

    def visit(self, op):
        i = op["vertex"] - self.base
        self.active[i] = False
        if op["root"]:
            self.queued[i] = False
        worth = self.worth(i)
        x = self.delta[i]
        answer = (int(worth), x, self.const[i], int(self.head[i]), int(self.leaf[i]))
        self.out["visited"].append(answer + self.edge_range[i] if self.offsets else answer)
        if worth:
            self.state[i] = x if self.is_min else self.add(self.state[i], x)
            self.delta[i] = MAX if self.is_min else 0
            self.counters["vertex_updates"] += 1

    def update(self, op):
        i = op["vertex"] - self.base
        if self.is_min:
            self.delta[i] = min(self.delta[i], op["value"])
        else:
            self.delta[i] = self.add(self.delta[i], op["value"])
        self.counters["updates"] += 1
        self.acks.append(op["origin"])
        if self.worth(i) and not self.active[i]:
            self.active[i] = True
            self.counters["activations"] += 1
            if not (op["leave"] and op["origin"] == self.engine and not self.stop[i]):
                self.push(i)

    def probe(self, v):
        i = v - self.base
        self.out["probed"].append(int(self.active[i] and not self.stop[i]))

    def dump(self, v):
        self.out["dumped"].append(self.state[v - self.base])

    def apply(self, kind, op):
        (self.load, self.visit, self.update, self.probe, self.dump)[kind](op)


# ------------------------------------------------------------------------------ stimulus

def min_value(rng):
    r = rng.random()
    if r < 0.1:
        return MAX
    if r < 0.15:
        return 0
    return rng.randrange(0, 200)


def sum_value(rng):
    r = rng.random()
    if r < 0.1:
        return 0
    if r < 0.15:
        return 0x8000_0000                         # -0.0
    if r < 0.3:
        return f32_bits(rng.uniform(-0.02, 0.02))  # around the tolerance
    if r < 0.35:
        return f32_bits(rng.uniform(-1e-39, 1e-39))   # subnormal
    return f32_bits(rng.gauss(0.0, 1.0) * 10 ** rng.uniform(-3, 2))


def make_ops(rng, *, is_min, words, base, engine, count):
    value = (lambda: min_value(rng)) if is_min else (lambda: sum_value(rng))
    ids = list(range(base, base + words))

    def record(v):
        return {"vertex": v, "state": value(), "delta": value(),
                "const": f32_bits(rng.uniform(0, 1)), "stop": int(rng.random() < 0.2),
                "head": int(rng.random() < 0.3), "leaf": int(rng.random() < 0.5),
                "lo": rng.randrange(1 << 32), "hi": rng.randrange(1 << 32)}

    loads = [record(v) for v in rng.sample(ids, words)]
    loads += [record(rng.choice(ids)) for _ in range(count // 40)]
    visits = [{"vertex": rng.choice(ids), "root": int(rng.random() < 0.5)}
              for _ in range(count // 4)]
    updates = []
    while len(updates) < count // 2:
        v = rng.choice(ids)
        for _ in range(rng.choice([1, 1, 1, 2, 3, 5])):     # runs of one vertex
            origin = rng.choice([engine, engine, engine, (engine + 1) % 8, ORIGIN_DDMU])
            updates.append({"vertex": v, "value": value(), "origin": origin,
                            "leave": int(rng.random() < 0.5)})
    probes = [rng.choice(ids) for _ in range(count // 8)]
    dumps = [rng.choice(ids) for _ in range(count // 16)]
    return [loads, visits, updates, probes, dumps]


# ------------------------------------------------------------------------------ harness

def run_bank(algo, ops, *, words, base, engine, tolerance=0, seed=0, stall=0.3, pause=0.3,
             bursts=0.0, order=None, push_blocked_until=0, max_cycles=100_000,
             offsets=False):
    """Run the streams ``ops`` (one list per input) through a bank and check it against the
    model. ``order`` (a list of input numbers): offer one op at a time in this order, each
    once the bank is idle. ``push`` is not ready before cycle ``push_blocked_until``.
    ``offsets``: the bank keeps the loads' edge ranges and answers them with the visits."""
    order = None if order is None else list(order)
    dut = VertexStoreBank(algo=algo, words=words, engine=engine, offsets=offsets)
    model = Model(is_min=dut.is_min, words=words, base=base, engine=engine,
                  tolerance=tolerance, offsets=offsets)
    rng = random.Random(seed)
    inputs = [getattr(dut, name) for name in INPUTS]
    outputs = {name: getattr(dut, name) for name in OUTPUTS}
    got = {name: [] for name in OUTPUTS}
    acks = []
    pending = [list(stream) for stream in ops]
    accepted = [[] for _ in INPUTS]          # taken by the bank, not yet picked
    picks = []
    in_pipe = []                             # (stage W's cycle, kind, op) of ops picked
    cycles = []
    blocked = {name: 0 for name in OUTPUTS}

    def unpack(name, item):
        if name == "visited":
            answer = (int(item.worth), int(item.x), int(item.const), int(item.head),
                      int(item.leaf))
            return answer + (int(item.lo), int(item.hi)) if offsets else answer
        if name == "probed":
            return int(item.walkable)
        return int(item)

    async def testbench(ctx):
        ctx.set(dut.base, base)
        ctx.set(dut.tolerance, tolerance)
        last_pick = -100
        idle_after_end = 0
        for cycle in range(max_cycles):
            offered = []
            turn = None
            if order is not None:
                turn = order[0] if order and not ctx.get(dut.busy) else -1
            for kind, port in enumerate(inputs):
                go = bool(pending[kind]) and rng.random() >= pause and turn in (None, kind)
                ctx.set(port.valid, go)
                if go:
                    ctx.set(port.payload, pending[kind][0])
                offered.append(go)
            ready = {}
            for name, port in outputs.items():
                # Random backpressure, and now and then a long stretch of it.
                if blocked[name]:
                    blocked[name] -= 1
                elif rng.random() < bursts:
                    blocked[name] = rng.randrange(10, 80)
                ready[name] = not blocked[name] and rng.random() >= stall
                if name == "push" and cycle < push_blocked_until:
                    ready[name] = False
                ctx.set(port.ready, ready[name])

            # The model performs each op picked at its stage W, latency - 1 cycles later; a
            # probe reads the flags after the write of the op then in W.
            picked = ctx.get(dut.picked)
            assert picked & (picked - 1) == 0, "two ops picked in one cycle"
            if picked:
                kind = PICKED[picked.bit_length() - 1]
                assert accepted[kind], f"{INPUTS[kind]} picked before it was taken"
                in_pipe.append((cycle + dut.latency - 1, kind, accepted[kind].pop(0)))
                picks.append(kind)
                last_pick = cycle
            while in_pipe and in_pipe[0][0] <= cycle:
                _, kind, op = in_pipe.pop(0)
                model.apply(kind, op)
            if ctx.get(dut.probe_read):
                assert accepted[PROBE], "a probe read before one was taken"
                vertex = accepted[PROBE].pop(0)
                assert ctx.get(dut.probe_index) == vertex - base, "probe of another record"
                model.apply(PROBE, vertex)
                picks.append(PROBE)

            if ctx.get(dut.ack):
                acks.append(ctx.get(dut.ack_origin))
            for name, port in outputs.items():
                if ready[name] and ctx.get(port.valid):
                    got[name].append(unpack(name, ctx.get(port.payload)))
            # (An op taken this cycle is inside from the next one.)
            owed = (any(accepted) or in_pipe or cycle - last_pick < dut.latency or
                    len(acks) < len(model.acks) or
                    any(len(got[name]) < len(model.out[name]) for name in OUTPUTS))
            for kind, port in enumerate(inputs):
                if offered[kind] and ctx.get(port.ready):
                    accepted[kind].append(pending[kind].pop(0))
                    if order is not None:
                        order.pop(0)
            busy = ctx.get(dut.busy)
            if owed:
                assert busy, f"busy low with work inside at cycle {cycle}"
            if not any(pending) and not owed and not busy:
                idle_after_end += 1
                if idle_after_end > 20:
                    break
            else:
                idle_after_end = 0
            await ctx.tick()
        else:
            raise AssertionError("the bank did not finish")
        cycles.append(cycle)

        for name in ("vertex_updates", "updates", "activations", "pushes"):
            assert ctx.get(getattr(dut, name)) == model.counters[name], name
        mems = dut._memories
        for i in range(words):
            assert ctx.get(mems["state"].data[i]) == model.state[i], f"state {i}"
            assert ctx.get(mems["delta"].data[i]) == model.delta[i], f"delta {i}"
            if not dut.is_min:
                assert ctx.get(mems["const"].data[i]) == model.const[i], f"const {i}"
            flags = ctx.get(mems["flags"].data[i])
            assert flags == (model.active[i] | model.queued[i] << 1 | model.stop[i] << 2 |
                             model.head[i] << 3 | model.leaf[i] << 4), \
                f"flags {i}"

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    for name in OUTPUTS:
        assert got[name] == model.out[name], name
    assert acks == model.acks
    assert sorted(picks) == sorted(k for k, stream in enumerate(ops) for _ in stream)
    return model, cycles[0], picks


# ------------------------------------------------------------------------------ tests

@pytest.mark.parametrize("seed", [1, 2])
def test_min_random(seed):
    rng = random.Random(seed)
    words, base, engine = 16, 0x300 + 16 * seed, 2
    ops = make_ops(rng, is_min=True, words=words, base=base, engine=engine, count=2400)
    model, _, _ = run_bank("bfs", ops, words=words, base=base, engine=engine, seed=seed,
                           bursts=0.01 * seed, offsets=seed == 2)
    # The stimulus exercises what it should.
    assert model.counters["pushes"] > 20 and model.counters["vertex_updates"] > 20


@pytest.mark.parametrize("seed", [3, 4])
def test_sum_random(seed):
    rng = random.Random(seed)
    words, base, engine = 16, 0x1000 + 16 * seed, 5
    tolerance = f32_bits(0.01)
    ops = make_ops(rng, is_min=False, words=words, base=base, engine=engine, count=2000)
    model, _, _ = run_bank("pagerank", ops, words=words, base=base, engine=engine,
                           tolerance=tolerance, seed=seed, bursts=0.01 * (seed - 2),
                           offsets=seed == 4)
    assert model.counters["pushes"] > 20 and model.counters["vertex_updates"] > 20


def test_min_hot_vertex_no_backpressure():
    # Almost every update hits one of two vertices: the hazard stall at full input rate.
    rng = random.Random(7)
    words, base, engine = 32, 0, 0
    ops = make_ops(rng, is_min=True, words=words, base=base, engine=engine, count=400)
    ops[UPDATE] = [{"vertex": rng.choice([3, 3, 3, 17]), "value": rng.randrange(300),
                    "origin": rng.choice([0, 1]), "leave": rng.randrange(2)}
                   for _ in range(300)]
    run_bank("sssp", ops, words=words, base=base, engine=engine, seed=7, stall=0.0,
             pause=0.0)


def test_sum_hot_vertex_with_backpressure():
    rng = random.Random(8)
    words, base, engine = 16, 48, 3
    ops = make_ops(rng, is_min=False, words=words, base=base, engine=engine, count=300)
    ops[UPDATE] = [{"vertex": base + rng.choice([1, 1, 9]), "value": sum_value(rng),
                    "origin": rng.choice([3, 3, 0]), "leave": rng.randrange(2)}
                   for _ in range(200)]
    run_bank("pagerank", ops, words=words, base=base, engine=engine,
             tolerance=f32_bits(0.05), seed=8, stall=0.6, pause=0.2)


@pytest.mark.parametrize("algo,per_vertex", [("cc", 5), ("pagerank", 11)])
def test_throughput(algo, per_vertex):
    # Distinct vertices: one op per cycle. One vertex: one per ``per_vertex`` cycles.
    words, base, engine = 64, 0, 1
    is_min = algo != "pagerank"
    updates = [{"vertex": v, "value": 5 if is_min else f32_bits(1.0), "origin": 0, "leave": 0}
               for v in range(64)]
    ops = [[], [], updates, [], []]
    _, cycles, _ = run_bank(algo, ops, words=words, base=base, engine=engine,
                            tolerance=f32_bits(0.5), stall=0.0, pause=0.0)
    latency = 6 if is_min else 12
    assert cycles <= 64 + latency + 25        # 20 idle cycles at the end, a few to start
    ops = [[], [], updates[:1] * 20, [], []]
    _, cycles, _ = run_bank(algo, ops, words=words, base=base, engine=engine,
                            tolerance=f32_bits(0.5), stall=0.0, pause=0.0)
    assert cycles <= 20 * per_vertex + latency + 25
    assert cycles >= 19 * per_vertex + 20


def sequential(steps):
    """(input, op) steps as the per-input lists and the order of run_bank."""
    ops = [[] for _ in INPUTS]
    for kind, op in steps:
        ops[kind].append(op)
    return ops, [kind for kind, _ in steps]


def test_min_rules_directed():
    # The rules written out by hand, one op at a time (the model is checked too).
    words, base, engine = 8, 100, 1

    def rec(i, state, delta, stop=0):
        return (LOAD, {"vertex": base + i, "state": state, "delta": delta, "const": 0,
                       "stop": stop, "head": 0})

    def upd(i, value, origin=engine, leave=1):
        return (UPDATE, {"vertex": base + i, "value": value, "origin": origin,
                         "leave": leave})

    ops, order = sequential([
        rec(0, MAX, 0), rec(1, MAX, MAX), rec(2, MAX, MAX, stop=1), rec(3, 5, MAX),
        rec(4, 9, 3),
        upd(1, 3),                      # own walk will find it: active, not pushed
        upd(2, 3),                      # stop vertex: pushed
        upd(3, 7),                      # 7 >= 5: not worth
        upd(3, 4, origin=0),            # another engine's: pushed
        upd(3, 2, origin=0),            # already active: nothing
        upd(1, 2, origin=ORIGIN_DDMU),  # already active: not pushed
        (PROBE, base + 1), (PROBE, base + 2), (PROBE, base + 3), (PROBE, base + 5),
        (VISIT, {"vertex": base + 0, "root": 1}),     # worth: x = 0
        (VISIT, {"vertex": base + 0, "root": 0}),     # stale
        upd(0, 0, origin=0),            # 0 < 0 is false
        (VISIT, {"vertex": base + 3, "root": 0}),     # x = 2, queued stays
        upd(3, 1, origin=0),            # worth, inactive, but still queued: not pushed
        (VISIT, {"vertex": base + 3, "root": 1}),     # x = 1, clears queued
        upd(3, 0, origin=0, leave=0),   # pushed again
        (DUMP, base + 0), (DUMP, base + 3), (DUMP, base + 4),
        (PROBE, base + 0), (PROBE, base + 3),
    ])
    model, _, _ = run_bank("bfs", ops, words=words, base=base, engine=engine, order=order)
    assert model.out["push"] == [100, 104, 102, 103, 103]
    assert model.out["probed"] == [1, 0, 1, 0, 0, 1]
    assert model.out["visited"] == [(1, 0, 0, 0, 0), (0, MAX, 0, 0, 0), (1, 2, 0, 0, 0),
                                    (1, 1, 0, 0, 0)]
    assert model.out["dumped"] == [0, 1, 9]
    assert model.acks == [1, 1, 1, 0, 0, ORIGIN_DDMU, 0, 0, 0]
    assert model.counters == dict(vertex_updates=3, updates=9, activations=7, pushes=5)


def test_sum_rules_directed():
    words, base, engine = 4, 0, 0
    tol = f32_bits(0.5)
    one, half, quarter = f32_bits(1.0), f32_bits(0.5), f32_bits(0.25)
    ops, order = sequential([
        (LOAD, {"vertex": 0, "state": 0, "delta": f32_bits(-0.5), "const": quarter,
                "stop": 0, "head": 0}),           # |-0.5| >= 0.5: pushed
        (LOAD, {"vertex": 1, "state": one, "delta": quarter, "const": half, "stop": 0,
                "head": 1, "leaf": 1}),
        (UPDATE, {"vertex": 1, "value": quarter, "origin": 1, "leave": 0}),   # 0.5: pushed
        (UPDATE, {"vertex": 1, "value": f32_bits(-1.0), "origin": 1, "leave": 0}),
        (VISIT, {"vertex": 1, "root": 1}),        # Δ = -0.5: worth, s = 0.5
        (VISIT, {"vertex": 0, "root": 1}),        # s = -0.5
        (UPDATE, {"vertex": 0, "value": f32_bits(0.4), "origin": 0, "leave": 1}),
        (UPDATE, {"vertex": 0, "value": f32_bits(0.1), "origin": 0, "leave": 1}),  # left
        (PROBE, 0), (DUMP, 0), (DUMP, 1),
        (VISIT, {"vertex": 2, "root": 0}),        # never loaded: zeros, stale
    ])
    model, _, _ = run_bank("pagerank", ops, words=words, base=base, engine=engine,
                           tolerance=tol, order=order)
    assert model.out["push"] == [0, 1]
    assert model.out["visited"] == [(1, f32_bits(-0.5), half, 1, 1),
                                    (1, f32_bits(-0.5), quarter, 0, 0), (0, 0, 0, 0, 0)]
    assert model.out["probed"] == [1]
    assert model.out["dumped"] == [f32_bits(-0.5), half]


@pytest.mark.parametrize("algo", ["cc", "pagerank"])
def test_busy_while_push_is_held(algo):
    # Everything is done but the pushes wait: busy must stay high until they are taken.
    words, base, engine = 8, 8, 0
    value = 0 if algo == "cc" else f32_bits(1.0)
    loads = [{"vertex": base + i, "state": MAX if algo == "cc" else 0, "delta": value,
              "const": 0, "stop": 0, "head": 0} for i in range(words)]
    model, cycles, _ = run_bank(algo, [loads, [], [], [], []], words=words, base=base,
                                engine=engine, tolerance=f32_bits(0.5), stall=0.0,
                                pause=0.0, push_blocked_until=60)
    assert model.out["push"] == list(range(base, base + words))
    assert cycles >= 60 + words


@pytest.mark.parametrize("algo", ["cc", "pagerank"])
def test_edge_ranges_back_to_back(algo):
    """Visits one a cycle with no backpressure, with the offsets kept (``offsets``): the queue
    that carries each visit's range to stage W holds every visit in flight (one entry fewer
    loses ranges: tried), and reloads of records between the visits change the ranges that
    later visits answer."""
    rng = random.Random(1)
    words = 64

    def record(v, lo, hi):
        return {"vertex": v, "state": rng.randrange(1 << 32), "delta": rng.randrange(1 << 32),
                "const": 0, "stop": 0, "head": 0, "lo": lo, "hi": hi}

    loads = [record(v, rng.randrange(1 << 32), rng.randrange(1 << 32)) for v in range(words)]
    loads += [record(v, 1000 + v, 2000 + v) for v in range(0, words, 7)]
    visits = [{"vertex": v % words, "root": v & 1} for v in range(400)]
    model, cycles, _ = run_bank(algo, [loads, visits, [], [], []], words=words, base=0,
                                engine=1, tolerance=f32_bits(0.5), stall=0.0, pause=0.0,
                                offsets=True)
    assert len(model.out["visited"]) == 400 and cycles < 600      # about one op a cycle
