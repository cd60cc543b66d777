"""The sequential line writer: items packed into lines from the base on, a partial last line
written with byte enables for its items only, an empty last item ending the list; under
pauses. Unmarked items ended by a flush, appended after items already in the array, against
a line memory model."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.lib.memory.line_writer import SequentialLineWriter
from sim.amaranth_memory import LineMemoryModel, lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench

BASE = 100


def _expected(items, item_words):
    """(address, words by index, mask) of each line write, from the list's items."""
    per_line = 16 // item_words
    words = [w for item in items for w in item]
    writes = []
    for line in range(-(-len(items) // per_line)):
        chunk = words[line * 16:(line + 1) * 16]
        mask = (1 << (4 * len(chunk))) - 1
        writes.append((BASE + line, chunk, mask))
    return writes


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("item_words, count, empty_end", [(4, 9, True), (1, 32, False),
                                                          (2, 5, False), (4, 0, True)])
def test_items_are_packed_into_lines(pause, item_words, count, empty_end):
    rng = random.Random(f"writer/{pause}/{item_words}/{count}")
    items = [[rng.randrange(1 << 32) for _ in range(item_words)] for _ in range(count)]
    feed = [{"data": sum(w << (32 * k) for k, w in enumerate(item)), "empty": 0,
             "last": int(not empty_end and k == count - 1)} for k, item in enumerate(items)]
    if empty_end:
        feed.append({"data": 0, "empty": 1, "last": 1})
    expected = _expected(items, item_words)
    dut = SequentialLineWriter(addr_width=26, item_words=item_words)
    bench = Bench(dut, "SequentialLineWriter", pause=pause)

    queue = bench.feed("items", dut.items)

    async def setup(ctx):
        ctx.set(dut.base, BASE)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        queue.extend(feed)
    bench.add_process(setup)
    bench.sink("req", dut.mem.req, len(expected))
    done = []
    bench.at_end(lambda ctx: done.append(ctx.get(dut.done)))
    bench.run()
    assert done == [1]
    got = []
    for req in bench.received["req"]:
        words = [(req["wdata"] >> (32 * k)) & 0xFFFF_FFFF for k in range(16)]
        filled = bin(req["wmask"]).count("1") // 4
        got.append((req["addr"], words[:filled], req["wmask"]))
        assert req["write"] == 1
    bench.check_equal(got, expected, "line writes")


async def _append_and_flush(ctx, dut, base, first, items, pause):
    """Starts the writer at ``base`` after ``first`` items, offers ``items`` (each cycle with
    probability 0.6 when ``pause`` is a random generator), flushes and waits while busy."""
    ctx.set(dut.base, base)
    ctx.set(dut.first, first)
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)
    sent = 0
    while sent < len(items):
        valid = pause is None or pause.random() < 0.6
        ctx.set(dut.items.valid, valid)
        ctx.set(dut.items.payload, items[sent])
        fired = valid and ctx.get(dut.items.ready)
        await ctx.tick()
        sent += fired
    ctx.set(dut.items.valid, 0)
    assert not ctx.get(dut.done)
    ctx.set(dut.flush, 1)
    await ctx.tick()
    ctx.set(dut.flush, 0)
    while ctx.get(dut.busy):
        await ctx.tick()


@pytest.mark.parametrize("item_words", [1, 2])
@pytest.mark.parametrize("count", [1, 16, 37])
@pytest.mark.parametrize("backpressure", [False, True])
@pytest.mark.parametrize("first", [0, 5])
def test_unmarked_items_appended_then_flushed(item_words, count, backpressure, first):
    """Items land from position ``first`` on (a later graph slice appending to a list): the
    items before it and after the last stay as they were, though they share lines."""
    rng = np.random.default_rng(count + item_words)
    words = rng.integers(0, 2**32, size=count * item_words, dtype=np.uint32)
    base = 3
    sentinel = words_to_lines(np.full(128, 0xDEADBEEF, dtype=np.uint32), base)
    memory = LineMemoryModel(sentinel, latency=3,
                             stall_probability=0.5 if backpressure else 0.0)
    dut = SequentialLineWriter(item_words=item_words, addr_width=16, marked=False)

    async def memory_process(ctx):
        await memory.serve(ctx, dut.mem)

    items = [int.from_bytes(words[k * item_words:(k + 1) * item_words].tobytes(), "little")
             for k in range(count)]

    async def testbench(ctx):
        await _append_and_flush(ctx, dut, base, first, items,
                                random.Random(5) if backpressure else None)
        assert ctx.get(dut.written) == count
        assert ctx.get(dut.done)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run()
    got = lines_to_words(memory.lines, base, 128)
    start, end = first * item_words, (first + count) * item_words
    assert got[start:end].tolist() == words.tolist()
    assert (got[:start] == 0xDEADBEEF).all(), "wrote before the first item"
    assert (got[end:] == 0xDEADBEEF).all(), "wrote past the last item"


def test_items_flow_while_a_full_line_waits():
    """A full line waiting for the memory stops only the item that would complete the next
    line: the others are taken a cycle each."""
    dut = SequentialLineWriter(item_words=1, addr_width=16, marked=False)
    taken = []

    async def testbench(ctx):
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        ctx.set(dut.items.valid, 1)
        for cycle in range(40):
            taken.append(ctx.get(dut.items.ready))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    # The memory never takes a write: the first line waits in the buffer, 15 items of the
    # second are taken, its 16th waits.
    assert taken == [1] * 31 + [0] * 9


@pytest.mark.parametrize("backpressure", [False, True])
@pytest.mark.parametrize("first", [0, 5])
def test_only_lines_with_a_changed_item_are_written(backpressure, first):
    """With ``changes`` the array is rewritten in place: a line none of whose items changed
    is left as it is (not written, counted in ``lines_skipped``), the others are written
    whole; the array ends the same as if every line had been written."""
    count, base = 75, 3
    rng = np.random.default_rng(first + 2 * backpressure)
    old = rng.integers(0, 2**32, size=128, dtype=np.uint32)
    changed = np.zeros(count, dtype=bool)
    for line in (1, 2, 3):       # the items of line 0 and of the last, partial one stay
        changed[rng.choice(np.arange(line * 16 - first, (line + 1) * 16 - first), 2)] = True
    new = old[first:first + count].copy()
    new[changed] ^= 0x5555
    memory = LineMemoryModel(words_to_lines(old, base), latency=3,
                             stall_probability=0.5 if backpressure else 0.0)
    dut = SequentialLineWriter(item_words=1, addr_width=16, marked=False, changes=True)
    writes = []

    async def memory_process(ctx):
        await memory.serve(ctx, dut.mem)

    async def count_writes(ctx):
        async for _, _, valid, ready in ctx.tick().sample(dut.mem.req.valid,
                                                          dut.mem.req.ready):
            writes.append(valid and ready)

    async def testbench(ctx):
        await _append_and_flush(ctx, dut, base, first,
                                [{"data": int(v), "changed": int(c)}
                                 for v, c in zip(new, changed)],
                                random.Random(7) if backpressure else None)
        assert ctx.get(dut.done) and ctx.get(dut.written) == count
        lines = -(-(first + count) // 16)
        touched = len({(first + k) // 16 for k in np.flatnonzero(changed)})
        assert touched == 3
        assert ctx.get(dut.lines_skipped) == lines - touched

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_process(count_writes)
    sim.add_testbench(testbench)
    sim.run()
    assert sum(writes) == 3
    expected = old.copy()
    expected[first:first + count] = new
    assert lines_to_words(memory.lines, base, 128).tolist() == expected.tolist()
