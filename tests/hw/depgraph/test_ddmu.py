"""The DDMU's hash-table lookup and shortcut propagation against a Python model, in Amaranth's
simulator: random tables with colliding slots and wrapping probe chains, roots with no, one or
several entries of mixed flags (more than the DDMU answers or lends per root), absent roots;
random backpressure on the outputs, memory latency, jitter and request stalls."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from golden.depgraph import FLAG_A, FLAG_I, FLAG_N
from hw.depgraph.ddmu import DDMU, EMPTY_SLOT, EntryFlag
from hw.depgraph.layouts import ORIGIN_DDMU
from sim.amaranth_memory import LineMemoryModel, words_to_lines


HASH_BASE = 5
U32 = 0xFFFF_FFFF
CANDIDATES = 3
LOANS = 4


def f32_bits(value) -> int:
    return int(np.float32(value).view(np.uint32))


def build_index(rng, *, hash_slots, vertices, is_min):
    """Returns (memory lines, index_base,
    {vertex: [(flag, tail, mu, eps, entry, second, length)]}, {vertex: (begin, end)}, the
    slots' ids)."""
    # Home slots collide; three ids share the last one, so that their chain wraps.
    wrapping = [hash_slots - 1 + k * hash_slots for k in range(1, 4)]
    ids = rng.sample([v for v in range(4 * hash_slots) if v not in wrapping], vertices)
    ids += wrapping
    assert len(ids) < hash_slots
    slots = [[EMPTY_SLOT, 0, 0, 0] for _ in range(hash_slots)]
    entries_of, ranges, entry_words = {}, {}, []
    for v in ids:
        entries = []
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 5, 9])):
            flag = rng.choice([0, 1, FLAG_A, FLAG_A, FLAG_A])
            tail = rng.randrange(2**32)
            if is_min:
                mu, eps = rng.randrange(2**32), rng.choice([0, 1, rng.randrange(2**32),
                                                            U32 - rng.randrange(100)])
            else:
                mu = f32_bits(rng.choice([0.0, -1.5, rng.uniform(-4, 4),
                                          rng.uniform(0, 1) * 10.0 ** rng.randint(-30, 30)]))
                eps = f32_bits(rng.choice([0.0, rng.uniform(-1, 1),
                                           rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30)]))
            entries.append((flag, tail, mu, eps))
        begin = len(entry_words) // 8
        numbered = []
        for j, (flag, tail, mu, eps) in enumerate(entries):
            second, length = rng.randrange(2**32), rng.randrange(1, 9)
            entry_words += [v, tail, second, length | flag << 16, mu, eps, 0, 0]
            numbered.append((flag, tail, mu, eps, begin + j, second, length))
        entries = numbered
        s = v % hash_slots
        while slots[s][0] != EMPTY_SLOT:
            s = (s + 1) % hash_slots
        slots[s] = [v, begin, begin + len(entries), 0]
        ranges[v] = (begin, begin + len(entries))
        entries_of[v] = entries
    index_base = HASH_BASE + hash_slots // 4 + 2
    lines = words_to_lines([w for slot in slots for w in slot], HASH_BASE)
    lines.update(words_to_lines(entry_words or [0], index_base))
    return lines, index_base, entries_of, ranges, [slot[0] for slot in slots]


def probes_of(table, root) -> tuple[int, int]:
    """Slots compared and hash-table lines read (a line is read again only when the chain
    leaves it)."""
    s, probes, lines = root % len(table), 1, 1
    while table[s] not in (root, EMPTY_SLOT):
        following = (s + 1) % len(table)
        s, probes, lines = following, probes + 1, lines + (following // 4 != s // 4)
    return probes, lines


def entry_lines(begin, end) -> int:
    return (end - 1) // 2 - begin // 2 + 1 if end > begin else 0


def shortcut(is_min, x, mu, eps) -> int:
    if is_min:
        return min(x + eps, U32)
    with np.errstate(all="ignore"):
        product = np.uint32(mu).view(np.float32) * np.uint32(x).view(np.float32)
        z = product + np.uint32(eps).view(np.float32)
    bits = int(np.float32(z).view(np.uint32))
    return 0x7FC0_0000 if np.isnan(z) else bits


def run_ddmu(algo, *, hash_slots, vertices, lookups, seed):
    rng = random.Random(seed)
    is_min = algo != "pagerank"
    lines, index_base, entries_of, ranges, table = build_index(rng, hash_slots=hash_slots,
                                                vertices=vertices, is_min=is_min)
    present = list(entries_of)
    requests = []
    for _ in range(lookups):
        root = rng.choice(present) if rng.random() < 0.8 else rng.randrange(2**32 - 1)
        if is_min:
            x = rng.choice([0, 7, rng.randrange(2**32), U32])
        else:
            x = f32_bits(rng.choice([0.0, rng.uniform(-2, 2),
                                     rng.uniform(0, 1) * 10.0 ** rng.randint(-20, 20)]))
        requests.append((root, x, rng.randrange(8)))

    dut = DDMU(algo=algo, addr_width=16, candidates=CANDIDATES,
               loans=None if is_min else LOANS)
    memory_model = LineMemoryModel(lines, latency=6, jitter=6, stall_probability=0.3,
                                   seed=seed)
    events = []        # ("update" | "pseudo" | "answer" | "done", payload), in hand-out order
    counters = {}

    async def memory_process(ctx):
        await memory_model.serve(ctx, dut.mem)

    async def driver(ctx):
        ctx.set(dut.hash_base, HASH_BASE)
        ctx.set(dut.index_base, index_base)
        ctx.set(dut.hash_slots, hash_slots)
        for root, x, engine in requests:
            while rng.random() < 0.3:
                await ctx.tick()
            ctx.set(dut.lookup.valid, 1)
            ctx.set(dut.lookup.payload, {"root": root, "x": x, "engine": engine})
            while not ctx.get(dut.lookup.ready):
                await ctx.tick()
            await ctx.tick()
            ctx.set(dut.lookup.valid, 0)
        while sum(kind == "done" for kind, _ in events) < len(requests):
            await ctx.tick()
        for _ in range(20):
            assert not ctx.get(dut.busy)
            await ctx.tick()
        for name in ("lookups", "shortcut_uses", "probes"):
            counters[name] = ctx.get(getattr(dut, name))

    async def monitor(ctx):
        for _ in range(300 * lookups + 1000):      # a hang fails instead of running on
            readies = {name: rng.random() < 0.6 for name in ("updates", "pseudo", "answers")}
            sampled = []
            for name, ready in readies.items():
                port = getattr(dut, name)
                ctx.set(port.ready, ready)
                if ready and ctx.get(port.valid):
                    sampled.append((name, ctx.get(port.payload)))
            await ctx.tick()
            for name, payload in sampled:
                if name == "updates":
                    assert payload.origin == ORIGIN_DDMU and payload.leave == 0
                    events.append(("update", (int(payload.vertex), int(payload.value))))
                elif name == "pseudo":
                    events.append(("pseudo", (int(payload.tail), int(payload.z),
                                              int(payload.engine))))
                elif payload.done:
                    events.append(("done", int(payload.engine)))
                else:
                    events.append(("answer", (int(payload.engine), int(payload.entry),
                                               int(payload.second), int(payload.length),
                                               int(payload.tail))))
        raise AssertionError("the DDMU hangs")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(monitor, background=True)
    sim.add_testbench(driver)
    sim.run()

    expected_uses = 0
    position = 0
    for root, x, engine in requests:
        entries = entries_of.get(root, [])
        expected = [(e[1], shortcut(is_min, x, e[2], e[3])) for e in entries if e[0] == FLAG_A]
        if not is_min:
            expected = expected[:LOANS]
        learnable = [(engine, e[4], e[5], e[6], e[1]) for e in entries if e[0] != FLAG_A]
        expected_uses += len(expected)
        got = {"update": [], "pseudo": [], "answer": []}
        while events[position][0] != "done":
            kind, payload = events[position]
            got[kind].append(payload)
            position += 1
        assert events[position] == ("done", engine)
        position += 1
        assert got["update"] == expected, (root, x)
        assert got["pseudo"] == ([] if is_min else [(t, z, engine) for t, z in expected])
        assert got["answer"] == learnable[:CANDIDATES]
    assert position == len(events)
    probes = [probes_of(table, root) for root, _, _ in requests]
    assert counters == {"lookups": len(requests), "shortcut_uses": expected_uses,
                        "probes": sum(p for p, _ in probes)}
    assert memory_model.reads == sum(lines for _, lines in probes) + sum(
        entry_lines(*ranges.get(root, (0, 0))) for root, _, _ in requests)


@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
@pytest.mark.parametrize("hash_slots, vertices", [(512, 300), (4, 0), (16, 12)])
def test_ddmu_lookup_and_shortcuts(algo, hash_slots, vertices):
    lookups = 150 if hash_slots > 16 else 40
    run_ddmu(algo, hash_slots=hash_slots, vertices=vertices, lookups=lookups,
             seed=hash_slots + vertices + (algo == "pagerank"))


def test_entry_flags_are_the_golden_models():
    assert [flag.value for flag in EntryFlag] == [FLAG_N, FLAG_I, FLAG_A]
    assert [flag.name for flag in EntryFlag] == ["N", "I", "A"]
