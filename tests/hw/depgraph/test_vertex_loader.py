"""DepGraph's vertex loader and writer against a model of the memory image
(``hw/depgraph/layouts.py``): the loader hands out every vertex's record
``<v, state[v], delta[v], const[v], stop, head and leaf: bits 4(v%8), +1, +2 of stop word v//8>``
once, in id order, with the bank whose partition holds v (and, with ``offsets``, v's CSR
offsets lo = offsets[v], hi = offsets[v + 1]), then raises ``done``; the writer
asks every bank, all at once, for the states of its partition in id order, writes them to
the state array under byte masks (nothing past vertex n - 1; a line two partitions share
written by both) and raises ``done``. Several runs in one simulation (one of
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
        edges = [0] + (partition(rng, n, banks) if n else [0] * (banks - 1)) + [n]
        plans.append((n, base, states, list(zip(edges[:-1], edges[1:]))))
    current = {}
    for b in range(banks):
        # A bank answers what it was asked, in order.
        answers = bench.feed(f"states{b}", dut.states[b])
        bench.sink(f"requests{b}", dut.requests[b], convert=int,
                   on_item=lambda v, answers=answers: answers.append(current["states"][v]))
    finished = []

    async def control(ctx):
        for n, base, states, parts in plans:
            current["states"] = states
            ctx.set(dut.state_base, base)
            for b, (first, last) in enumerate(parts):
                ctx.set(dut.first[b], first)
                ctx.set(dut.last[b], last)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            before = [len(bench.received[f"requests{b}"]) for b in range(banks)]
            await ctx.tick()
            while not ctx.get(dut.done):
                await ctx.tick()
            await ctx.tick().repeat(3)
            for b, (first, last) in enumerate(parts):
                bench.check_equal(bench.received[f"requests{b}"][before[b]:],
                                  list(range(first, last)),
                                  f"bank {b}'s requests of the run of {n} vertices")
            words = list(lines_to_words(mem.lines, base, -(-n // 16) * 16))
            old = list(lines_to_words(garbage, base, -(-n // 16) * 16))
            bench.check_equal(words, states + old[n:],
                              f"state array (and the words after it) of the {n}-vertex run")
            finished.append(n)

    bench.add_process(control)
    bench.until(lambda: len(finished) == len(runs))
    bench.run()
