"""DepGraph's vertex loader and writer against a model of the memory image
(``hw/depgraph/layouts.py``): the loader hands out every vertex's record
``<v, state[v], delta[v], const[v], stop, head and leaf: bits 4(v%8), +1, +2 of stop word v//8>``
once, in id order, with the bank whose partition holds v (and, with ``offsets``, v's CSR
offsets lo = offsets[v], hi = offsets[v + 1]), then raises ``done``; the writer
asks for every vertex's state in id order from its bank, names that bank on
``response_bank`` while the answer comes, writes the states to the state array under a byte
mask (nothing past vertex n - 1) and raises ``done``. Several runs in one simulation (one of
0 vertices, one of a vertex per partition), memory and streams paused at random.
Partitions are never empty, as the pre-processing makes them."""

import bisect
import random

import pytest

from hw.depgraph.vertex_loader import VertexLoader, VertexWriter
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

ADDR = 16


def memory(bench, name, port, lines, pause):
    return serve_memory(bench, name, port, lines, pause, latency=6, jitter=5)


def partition(rng, n, banks):
    """Bounds as ``golden.depgraph.hubs.partition_bounds`` makes them: every partition holds
    at least one vertex (so n >= banks; any bounds do for n = 0)."""
    if n == 0:
        return sorted(rng.randrange(100) for _ in range(banks - 1))
    assert n >= banks
    return sorted(rng.sample(range(1, n), banks - 1))


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("banks,offsets", [(1, False), (3, False), (3, True)])
def test_vertex_loader(banks, offsets, pause):
    rng = random.Random(f"loader/{banks}")
    runs = []
    lines = {}
    for r, n in enumerate([rng.randrange(40, 90), 0, banks, rng.randrange(15, 35)]):
        base = 400 * r
        arrays = {name: [rng.randrange(1 << 32) for _ in range(n)]
                  for name in ("state", "delta", "const")}
        stop = [rng.randrange(1 << 32) for _ in range(-(-n // 8))]
        offs = sorted(rng.randrange(1 << 20) for _ in range(n + 1))
        bases = {"state": base + 1, "delta": base + 101, "const": base + 201,
                 "stop": base + 301}
        if offsets:
            bases["offsets"] = base + 351
            lines.update(words_to_lines(offs, bases["offsets"]))
        for name, words in [*arrays.items(), ("stop", stop)]:
            lines.update(words_to_lines(words, bases[name]))
        bounds = partition(rng, n, banks)
        want = [{"item": {"vertex": v, "state": arrays["state"][v],
                          "delta": arrays["delta"][v], "const": arrays["const"][v],
                          "stop": stop[v // 8] >> (4 * (v % 8)) & 1,
                          "head": stop[v // 8] >> (4 * (v % 8) + 1) & 1,
                          "leaf": stop[v // 8] >> (4 * (v % 8) + 2) & 1,
                          "lo": offs[v] if offsets else 0,
                          "hi": offs[v + 1] if offsets else 0},
                 "bank": bisect.bisect_right(bounds, v)} for v in range(n)]
        runs.append((n, bases, bounds, want))

    dut = VertexLoader(addr_width=ADDR, banks=banks, offsets=offsets)
    bench = Bench(dut, f"VertexLoader(banks={banks}, offsets={offsets})", pause=pause)
    for name in ("state", "delta", "const", "stop") + (("offsets",) if offsets else ()):
        memory(bench, name, getattr(dut, f"{name}_mem"), lines, pause)
    bench.sink("records", dut.records, sum(len(w) for *_, w in runs))
    finished = []

    async def control(ctx):
        for n, bases, bounds, want in runs:
            ctx.set(dut.num_vertices, n)
            for name, base in bases.items():
                ctx.set(getattr(dut, f"{name}_base"), base)
            for b, bound in enumerate(bounds):
                ctx.set(dut.bounds[b], bound)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            before = len(bench.received["records"])
            while not ctx.get(dut.done):
                await ctx.tick()
            await ctx.tick().repeat(3)
            got = bench.received["records"][before:]
            bench.check_equal(got, want, f"records of the run of {n} vertices")
            finished.append(n)

    bench.add_process(control)
    bench.until(lambda: len(finished) == len(runs))
    bench.run()


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("banks", [1, 3])
def test_vertex_writer(banks, pause):
    rng = random.Random(f"writer/{banks}")
    runs = [(n, 500 * r + 3, rng) for r, n in
            enumerate([rng.randrange(40, 90), 0, banks, 16, rng.randrange(17, 40)])]
    garbage = {a: rng.randrange(1 << 512) for a in range(0, 3000)}
    dut = VertexWriter(addr_width=ADDR, banks=banks)
    bench = Bench(dut, f"VertexWriter(banks={banks})", pause=pause)
    mem = memory(bench, "mem", dut.mem, garbage, pause)
    plans = []
    for n, base, _ in runs:
        states = [rng.randrange(1 << 32) for _ in range(n)]
        plans.append((n, base, states, partition(rng, n, banks)))
    all_states = [s for _, _, states, _ in plans for s in states]
    bench.sink("requests", dut.requests, len(all_states))
    bench.source("states", dut.states, all_states)
    finished = []
    current = {}

    async def response_bank(ctx):
        answered = 0
        async for _, _, valid, ready, bank in ctx.tick().sample(
                dut.states.valid, dut.states.ready, dut.response_bank):
            if valid and ready:
                want = current["banks"][answered - current["first"]]
                if bank != want:
                    bench.fail(f"response_bank {bank} for vertex "
                               f"{answered - current['first']}, owned by bank {want}")
                answered += 1

    async def control(ctx):
        first = 0
        for n, base, states, bounds in plans:
            current.update(first=first, banks=[bisect.bisect_right(bounds, v)
                                               for v in range(n)])
            ctx.set(dut.num_vertices, n)
            ctx.set(dut.state_base, base)
            for b, bound in enumerate(bounds):
                ctx.set(dut.bounds[b], bound)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            before = len(bench.received["requests"])
            while not ctx.get(dut.done):
                await ctx.tick()
            await ctx.tick().repeat(3)
            bench.check_equal(bench.received["requests"][before:],
                              [{"item": v, "bank": current["banks"][v]} for v in range(n)],
                              f"requests of the run of {n} vertices")
            words = list(lines_to_words(mem.lines, base, -(-n // 16) * 16))
            old = list(lines_to_words(garbage, base, -(-n // 16) * 16))
            bench.check_equal(words, states + old[n:],
                              f"state array (and the words after it) of the {n}-vertex run")
            first += n
            finished.append(n)

    bench.add_process(response_bank)
    bench.add_process(control)
    bench.until(lambda: len(finished) == len(runs))
    bench.run()
