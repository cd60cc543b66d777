"""The HDTL's walk scanner against a Python scan: for random entries of a random edge array,
the answer is the first edge of the entry's current line (from its next offset to the line's
end or the entry's end) whose destination is in the partition and walkable, its next offset
that edge's successor or the scanned line's end; the line's destinations in the partition,
and only those, are probed, in edge order; a line that lies within the first lines of the
last batch of the scan's stack level (recorded through ``batch_*``, one or several lines
kept; one level, or a level of their own for each of four) is read from there, every other
one through ``read``, exactly once; the counters give the edges scanned and, of those, the
edges read through ``read``. Edges of one word (the destination alone, sixteen a
line: the answer's weight is 1) and of two (dst, weight; eight a line)."""

import random

import pytest

from hw.depgraph.layouts import edges_per_line
from hw.depgraph.walk_scanner import WalkScanner
from tests.support.stream_drivers import PAUSES, Bench

FIRST, LAST = 40, 90          # the partition
VERTICES = 128


def python_scan(edges, walkable, nxt, end, per_line):
    """(result, probed vertices): the whole line's destinations in the partition are probed
    (the line arrives at once), the first walkable one is the answer."""
    line_end = min(end, (nxt // per_line + 1) * per_line)
    probed = [edges[e][0] for e in range(nxt, line_end) if FIRST <= edges[e][0] < LAST]
    for e in range(nxt, line_end):
        dst, weight = edges[e]
        if FIRST <= dst < LAST and walkable[dst]:
            return {"found": 1, "edge": e, "vertex": dst, "weight": weight,
                    "next": e + 1}, probed
    return {"found": 0, "next": line_end}, probed


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("edge_words", [1, 2])
@pytest.mark.parametrize("kept_lines,levels", [(1, 1), (3, 1), (1, 4)])
def test_walk_scanner(kept_lines, levels, edge_words, pause):
    rng = random.Random(f"scanner/{pause}/{kept_lines}/{levels}/{edge_words}")
    num_edges = 200
    edges = [(rng.randrange(VERTICES), rng.randrange(1, 1 << 20) if edge_words == 2 else 1)
             for _ in range(num_edges)]
    walkable = [rng.random() < 0.15 for _ in range(VERTICES)]
    per_line = edges_per_line(edge_words)
    kept = kept_lines * per_line
    dut = WalkScanner(addr_width=16, kept_lines=kept_lines, levels=levels,
                      edge_words=edge_words)
    bench = Bench(dut, "WalkScanner", pause=pause)

    items = bench.feed("items", dut.items)
    reads = []

    def read(command):
        reads.append(command)
        first, count = command["first"], command["count"]
        for k in range(count):
            dst, weight = edges[first + k]
            data = dst | weight << 32 if edge_words == 2 else dst
            items.append({"data": data, "index": first + k,
                          "last": int(k == count - 1)})

    bench.sink("read", dut.read, on_item=read)
    answers = bench.feed("probed", dut.probed)
    bench.sink("probe", dut.probe, convert=int,
               on_item=lambda v: answers.append({"walkable": int(walkable[v])}))
    bench.sink("result", dut.result)
    results = bench.received["result"]

    # Scans: some of an entry just batched (its first line kept), some of an entry batched
    # earlier at its level (kept there when the levels have lines of their own), some of any
    # entry.
    plan = []
    entries = {}                                # level: (vertex, lo, hi) batched there
    for _ in range(60):
        level = rng.randrange(levels)
        batched = rng.random() < 0.5
        if not batched and level in entries and rng.random() < 0.5:
            vertex, lo, hi = entries[level]
        else:
            vertex = rng.randrange(VERTICES)
            lo = rng.randrange(num_edges - 1)
            hi = rng.randrange(lo + 1, min(num_edges, lo + 30) + 1)
        if batched:
            entries[level] = (vertex, lo, hi)
        nxt = lo if rng.random() < 0.7 else rng.randrange(lo, hi)
        plan.append((batched, level, vertex, lo, hi, nxt))
    want_results, want_probes, want_reads = [], [], 0
    resumed_from_kept = 0
    want_scanned = want_scan_reads = 0
    counters = {}
    lines = {}                                  # level: (vertex, first, end) of its kept lines

    async def control(ctx):
        nonlocal want_reads, resumed_from_kept, want_scanned, want_scan_reads
        last_level = None                       # of the last batch
        ctx.set(dut.first, FIRST)
        ctx.set(dut.last, LAST)
        ctx.set(dut.edges_base, 0x100)
        for batched, level, vertex, lo, hi, nxt in plan:
            if batched:
                ctx.set(dut.batch_vertex, vertex)
                ctx.set(dut.batch_first, lo)
                ctx.set(dut.batch_level, level)
                ctx.set(dut.batch_start, 1)
                await ctx.tick()
                ctx.set(dut.batch_start, 0)
                for e in range(lo, hi):
                    edge = {"dst": edges[e][0], "weight": edges[e][1]}
                    if edge_words == 1:
                        del edge["weight"]
                    ctx.set(dut.batch_data, edge)
                    ctx.set(dut.batch_edge, 1)
                    ctx.set(dut.batch_done, int(e == hi - 1))
                    await ctx.tick()
                ctx.set(dut.batch_edge, 0)
                ctx.set(dut.batch_done, 0)
                lines[level] = (vertex, lo, lo + min(hi - lo, kept))
                last_level = level
                await ctx.tick()                # the HDTL's drain lies between
            result, probed = python_scan(edges, walkable, nxt, hi, per_line)
            want_results.append(result)
            want_probes.extend(probed)
            line_end = min(hi, (nxt // per_line + 1) * per_line)
            line = lines.get(level)
            from_kept = line is not None and line[0] == vertex and line[1] <= nxt and \
                line_end <= line[2]
            want_reads += not from_kept
            want_scanned += line_end - nxt
            want_scan_reads += 0 if from_kept else line_end - nxt
            resumed_from_kept += from_kept and level != last_level
            ctx.set(dut.request.payload, {"vertex": vertex, "next": nxt, "end": hi,
                                          "level": level})
            ctx.set(dut.request.valid, 1)
            while True:
                _, _, ready = await ctx.tick().sample(dut.request.ready)
                if ready:
                    break
            ctx.set(dut.request.valid, 0)
            while len(results) < len(want_results):
                await ctx.tick()
        await ctx.tick()
        counters.update(scanned=ctx.get(dut.scanned_edges),
                        read=ctx.get(dut.scan_read_edges))

    bench.add_process(control)
    bench.until(lambda: len(results) == len(plan))
    bench.run()
    got = [r if r["found"] else {"found": 0, "next": r["next"]} for r in results]
    bench.check_equal(got, want_results, "scan results")
    bench.check_equal(bench.received["probe"], want_probes, "probed vertices")
    bench.check_equal(len(reads), want_reads, "line reads")
    bench.check_equal(counters, {"scanned": want_scanned, "read": want_scan_reads},
                      "scanned edges, and those read")
    assert all(r["base"] == 0x100 for r in reads)
    assert any(r["found"] for r in results) and not all(r["found"] for r in results)
    assert want_reads < len(plan)               # the kept line served some scans
    if levels > 1:          # and some of an entry batched before another level's batch
        assert resumed_from_kept > 0
