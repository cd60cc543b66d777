"""The frontier generator and a lane's bin writer in Amaranth's simulator, against the golden
model's scans (golden.bfs.frontier): which lane takes each hit, in what order, its edge
range and class; the bins in memory after a flush, with their counts."""

import random

import numpy as np
import pytest

from golden.bfs.frontier import blocked_scan, degree_class, interleaved_scan
from hw.bfs.bin_writer import BinWriter
from hw.bfs.frontier_generator import FrontierGenerator
from hw.bfs.layouts import UNVISITED
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench

THRESHOLDS = (4, 16, 64)


def scan_inputs(rng, n):
    status = np.array([rng.choice([UNVISITED, 2, 3]) for _ in range(n)], dtype=np.uint32)
    degrees = [rng.choice([0, 1, 5, 20, 70]) for _ in range(n)]
    offsets = np.concatenate([[0], np.cumsum(degrees)]).astype(np.uint32)
    lines = [{"data": line, "index": k, "last": 0, "ctx": 0}
             for k, line in enumerate(words_to_lines(status).values())]
    pairs = []
    for k in range(-(-n // 16)):
        lo = [int(offsets[min(16 * k + i, n)]) for i in range(16)]
        hi = [int(offsets[min(16 * k + i + 1, n)]) for i in range(16)]
        pairs.append({"line": k, "lo": lo, "hi": hi})
    return status, offsets, lines, pairs


@pytest.mark.parametrize("lanes,blocked,scan_hits,on_demand", [
    (1, 0, 4, True), (4, 0, 4, True), (4, 1, 4, True), (16, 0, 4, True), (2, 1, 4, True),
    (2, 1, 1, False)])
@pytest.mark.parametrize("pause", PAUSES)
def test_each_lane_gets_its_hits_in_order(lanes, blocked, scan_hits, on_demand, pause):
    rng = random.Random(f"{lanes}/{blocked}/{pause}")
    n = 150
    status, offsets, lines, pairs = scan_inputs(rng, n)
    match = UNVISITED if blocked else 2
    shift = 4
    while (lanes << shift) < n:
        shift += 1
    hits = status == match
    queue = (blocked_scan if blocked else interleaved_scan)(hits, lanes)
    lane_of = (queue >> shift) if blocked else queue % lanes
    dut = FrontierGenerator(lanes=lanes, thresholds=THRESHOLDS, scan_hits=scan_hits,
                            on_demand=on_demand)
    bench = Bench(dut, "FrontierGenerator", pause=pause)

    async def setup(ctx):
        ctx.set(dut.match, match)
        ctx.set(dut.blocked, blocked)
        ctx.set(dut.block_shift, shift)
        ctx.set(dut.num_vertices, n)

    bench.add_process(setup)
    bench.source("status", dut.status, lines)
    wanted = sorted({int(v) // 16 for v in np.flatnonzero(hits)}) if on_demand else \
        list(range(len(lines)))
    bench.source("pairs", dut.pairs, [pairs[k] for k in wanted])
    bench.sink("wanted", dut.wanted, len(wanted))
    degree = np.diff(offsets)
    classes = degree_class(degree, THRESHOLDS)
    for lane in range(lanes):
        mine = queue[lane_of == lane]
        bench.sink(f"lane{lane}", dut.lane[lane],
                   groups_of(mine, classes) if scan_hits == 4 else len(mine))
    bench.run()
    assert bench.received["wanted"] == wanted     # only the lines with a hit
    for lane in range(lanes):
        got = {c: [] for c in range(4)}
        for group in bench.received[f"lane{lane}"]:
            assert group["lane"] == lane and group["valid"]
            taken = [e for i, e in enumerate(group["entries"]) if group["valid"] >> i & 1]
            quads = {e["vertex"] // 4 for e in taken}
            assert len(quads) == 1, quads          # one quad of a line
            for e in taken:
                v = e["vertex"]
                assert classes[v] == group["cls"] and v % 4 == group["entries"].index(e)
                assert (e["first"], e["count"]) == (offsets[v], degree[v])
                got[group["cls"]].append(v)
        mine = queue[lane_of == lane]
        for c in range(4):                         # each class's bin in the golden order
            assert got[c] == mine[classes[mine] == c].tolist(), (lane, c)


def groups_of(vertices, classes):
    """The groups a lane hands out for its hits ``vertices``: one per class per quad."""
    return len({(int(v) // 4, int(classes[v])) for v in vertices})


@pytest.mark.parametrize("pause", PAUSES)
def test_bin_writer_lays_out_each_class_bin(pause):
    rng = random.Random(f"bins/{pause}")
    lanes, lane, shift, base, buffer = 4, 2, 3, 100, 1
    entries = []
    for _ in range(45):
        valid = rng.randrange(1, 16)
        entries.append({"entries": [{"vertex": rng.randrange(1 << 20),
                                     "first": rng.randrange(1 << 20),
                                     "count": rng.randrange(300), "spare": 0}
                                    for _ in range(4)],
                        "valid": valid, "cls": rng.randrange(4), "lane": lane})
    dut = BinWriter(addr_width=16, lane=lane, lanes=lanes)
    bench = Bench(dut, "BinWriter", pause=pause)
    from tests.support.stream_drivers import serve_memory
    model = serve_memory(bench, "mem", dut.mem, {}, pause)
    done = {}

    async def driver(ctx):
        ctx.set(dut.buffer, buffer)
        ctx.set(dut.queue_base, base)
        ctx.set(dut.bin_shift, shift)
        while bench.sent.get("entries", 0) < len(entries):
            await ctx.tick()
        ctx.set(dut.flush, 1)
        await ctx.tick()
        ctx.set(dut.flush, 0)
        await ctx.tick()
        while ctx.get(dut.busy):
            await ctx.tick()
        done["counts"] = [ctx.get(dut.counts[c]) for c in range(4)]

    bench.add_process(driver)
    bench.source("entries", dut.entries, entries)
    bench.until(lambda: "counts" in done)
    bench.run()
    for c in range(4):
        mine = [e for g in entries if g["cls"] == c
                for i, e in enumerate(g["entries"]) if g["valid"] >> i & 1]
        assert done["counts"][c] == len(mine)
        start = base + (((buffer * 4 + c) * lanes + lane) << shift)
        words = lines_to_words(model.lines, start, 4 * len(mine)).reshape(-1, 4)
        assert [tuple(int(x) for x in row[:3]) for row in words] == \
            [(e["vertex"], e["first"], e["count"]) for e in mine], c
