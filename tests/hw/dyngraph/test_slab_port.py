# amaranth: UnusedElaboratable=no
"""The slab port in Amaranth's simulator: random slab reads and line writes (some only
releasing a lock) through one memory client. The model replays the reads and writes in the
order the port took them (a monitor records each transfer): every slab read returns both
lines as they stood after every write taken before it, in read order with its ``ctx`` and
index; every ``release`` comes out on ``released`` in order; the memory ends with the model's
pool; the counters count. A read-only port (the compactor's) reads the same way. With and
without pauses."""

import random

import pytest

from hw.dyngraph.slab_port import SlabPort
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

POOL_BASE = 64
SLABS = 12
LINE_MASK = (1 << 512) - 1


def slab_bits(slab):
    """A Slab payload (as :func:`to_py` gives it) as its 1024 bits."""
    bits = 0
    for i, pair in enumerate(slab["pairs"]):
        bits |= pair["key"] << 64 * i | pair["value"] << 64 * i + 32
    return bits | slab["aux"] << 960 | slab["next"] << 992


def byte_mask(mask):
    return sum(0xFF << 8 * b for b in range(64) if mask >> b & 1)


def test_depth_is_checked():
    with pytest.raises(ConfigError):
        SlabPort(addr_width=16, ctx_shape=8, depth=0)


@pytest.mark.parametrize("read_only", [False, True])
@pytest.mark.parametrize("pause", PAUSES)
def test_reads_see_every_write_taken_before(pause, read_only):
    rng = random.Random(f"slabport/{pause}")
    pool = {POOL_BASE + k: rng.randrange(1 << 512) for k in range(2 * SLABS)}
    reads = [{"slab": rng.randrange(SLABS), "ctx": k % 256} for k in range(150)]
    writes = []
    for k in range(0 if read_only else 150):
        release = rng.random() < 0.5
        write = rng.random() < 0.8 or not release
        writes.append({"write": int(write), "slab": rng.randrange(SLABS),
                       "line": rng.randrange(2), "data": rng.randrange(1 << 512),
                       "mask": rng.choice([(1 << 64) - 1, rng.randrange(1 << 64),
                                           0xFF << 8 * rng.randrange(8)]),
                       "release": int(release), "lock": rng.randrange(1 << 24),
                       "vertex": rng.randrange(1 << 32)})
    dut = SlabPort(addr_width=16, ctx_shape=8, depth=4, read_only=read_only)
    bench = Bench(dut, "SlabPort", pause=pause)
    memory = serve_memory(bench, "mem", dut.mem, pool, pause)
    bench.source("reads", dut.reads, reads)
    if not read_only:
        bench.source("writes", dut.writes, writes)
        bench.sink("released", dut.released, sum(w["release"] for w in writes))
    bench.sink("slabs", dut.slabs, len(reads))
    order, counters = [], []

    async def hold_base(ctx):
        ctx.set(dut.pool_base, POOL_BASE)

    async def monitor(ctx):
        signals = [dut.reads.valid, dut.reads.ready]
        if not read_only:
            signals += [dut.writes.valid, dut.writes.ready]
        async for _, _, *values in ctx.tick().sample(*signals):
            if values[0] and values[1]:
                order.append("r")
            if not read_only and values[2] and values[3]:
                order.append("w")

    async def count(ctx):
        while (len(bench.received["slabs"]) < len(reads) or
               bench.sent.get("writes", 0) < len(writes)):
            await ctx.tick()
        while ctx.get(dut.busy):
            await ctx.tick()
        counters.append((ctx.get(dut.reads_done),
                         None if read_only else ctx.get(dut.writes_done)))

    bench.add_process(hold_base)
    bench.add_process(monitor)
    bench.add_process(count)
    bench.until(lambda: bench.sent.get("writes", 0) == len(writes) and bool(counters))
    bench.run()
    assert order.count("r") == len(reads) and order.count("w") == len(writes)
    model, expected = dict(pool), []
    reads_left, writes_left = iter(reads), iter(writes)
    for event in order:
        if event == "r":
            read = next(reads_left)
            line0 = model[POOL_BASE + 2 * read["slab"]]
            line1 = model[POOL_BASE + 2 * read["slab"] + 1]
            expected.append((read["slab"], read["ctx"], line0 | line1 << 512))
        else:
            write = next(writes_left)
            if write["write"]:
                addr = POOL_BASE + 2 * write["slab"] + write["line"]
                mask = byte_mask(write["mask"])
                model[addr] = model[addr] & ~mask | write["data"] & mask
    got = [(s["index"], s["ctx"], slab_bits(s["slab"])) for s in bench.received["slabs"]]
    bench.check_equal(got, expected, "slabs")
    if not read_only:
        bench.check_equal(bench.received["released"],
                          [w["lock"] for w in writes if w["release"]], "released locks")
    bench.check_equal(memory.lines, model, "pool in memory")
    assert counters[0] == (len(reads), None if read_only else sum(w["write"] for w in writes))
