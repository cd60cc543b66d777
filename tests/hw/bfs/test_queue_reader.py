"""The BFS frontier-queue reader in Amaranth's simulator: random bin counts for each (class,
lane), both buffers; the entries come back bin by bin (class-major, then lane), each bin's
from its own region of ``1 << bin_shift`` lines in order, labelled with its class and lane,
against a Python walk over the bins; several starts back to back; with and without pauses."""

import random

import pytest

from hw.bfs.bin_writer import CLASSES
from hw.bfs.layouts import ENTRIES_PER_LINE, ENTRY_WORDS
from hw.bfs.queue_reader import QueueReader
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

QUEUE_BASE = 100
BIN_SHIFT = 3                      # 8 lines, 32 entries a bin


def entry_at(lines, line, slot):
    word = lines.get(line, 0) >> 128 * slot
    return {name: word >> 32 * k & 0xFFFF_FFFF
            for k, name in enumerate(("vertex", "first", "count", "spare"))}


@pytest.mark.parametrize("lanes", [1, 2])
@pytest.mark.parametrize("pause", PAUSES)
def test_bins_in_class_then_lane_order(pause, lanes):
    rng = random.Random(f"queue/{pause}/{lanes}")
    bins = CLASSES * lanes
    capacity = ENTRIES_PER_LINE << BIN_SHIFT
    lines = {QUEUE_BASE + k: rng.randrange(1 << 512) for k in range(2 * bins << BIN_SHIFT)}
    starts, expected = [], []
    for run in range(4):
        counts = [rng.choice([0, 1, 3, 4, 5, capacity, rng.randrange(capacity + 1)])
                  for _ in range(bins)]
        buffer = run % 2
        starts.append((buffer, counts))
        for b, count in enumerate(counts):
            region = QUEUE_BASE + ((buffer * bins + b) << BIN_SHIFT)
            expected += [{"entry": entry_at(lines, region + k // ENTRIES_PER_LINE,
                                            k % ENTRIES_PER_LINE),
                          "cls": b // lanes, "lane": b % lanes} for k in range(count)]
    assert ENTRY_WORDS == 4
    dut = QueueReader(addr_width=16, lanes=lanes, window=4)
    bench = Bench(dut, "QueueReader", pause=pause)
    serve_memory(bench, "mem", dut.mem, lines, pause)
    bench.sink("entries", dut.entries, len(expected))
    done = []

    async def drive(ctx):
        ctx.set(dut.queue_base, QUEUE_BASE)
        ctx.set(dut.bin_shift, BIN_SHIFT)
        for buffer, counts in starts:
            for b, count in enumerate(counts):
                ctx.set(dut.counts[b], count)
            ctx.set(dut.buffer, buffer)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            for b in range(bins):                  # the counts are held from the start on
                ctx.set(dut.counts[b], 0xDEAD)
            ctx.set(dut.buffer, 1 - buffer)
            await ctx.tick()
            while ctx.get(dut.busy):
                await ctx.tick()
        done.append(1)

    bench.add_process(drive)
    bench.until(lambda: bool(done))
    bench.run()
    bench.check_equal(bench.received["entries"], expected, "entries")
