# amaranth: UnusedElaboratable=no
"""Several slab ports in Amaranth's simulator: reads routed by the operation's vertex (the
sweep's by the slab), writes by the slab's owner, each port its own memory (a model each).
Checked against a Python routing model: every slab comes back with its ctx and contents, each
port's slabs in the order of its reads; each port's memory takes exactly the writes of its
vertices, in order, and no other port's; released locks each port's in order; the counters
sum the ports'. Reads and writes go to disjoint slabs here (the unit's lock and quiet-memory
rules order a slab's read after its write across the ports' read queues; the single port's
read-after-write order is tested in test_block_slab_port.py). With and without pauses."""

import random

import pytest

from hw.dyngraph.layouts import SlabPurpose
from hw.dyngraph.slab_ports import SlabPorts
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench, serve_memory
from tests.hw.dyngraph.test_slab_port import byte_mask, slab_bits

POOL_BASE = 32
SLABS = 24


def test_port_count_is_checked():
    with pytest.raises(ConfigError):
        SlabPorts(ports=3, addr_width=16, depth=4)


def _op(u, answer=0):
    return {"kind": 0, "u": u, "v": 0, "w": 0, "answer": answer, "bucket": 0, "slab": 0,
            "open": 0, "open_slab": 0, "open_cell": 0}


@pytest.mark.parametrize("ports", [1, 2, 4])
@pytest.mark.parametrize("pause", PAUSES)
def test_reads_and_writes_take_their_vertex_port(pause, ports):
    rng = random.Random(f"slabports/{pause}/{ports}")
    pool = {POOL_BASE + k: rng.randrange(1 << 512) for k in range(2 * SLABS)}
    owner = [rng.randrange(1 << 20) for _ in range(SLABS)]
    read_slabs, write_slabs = range(0, SLABS // 2), range(SLABS // 2, SLABS)
    reads, routes = [], []
    for k in range(160):
        slab = rng.choice(read_slabs)
        sweep = rng.random() < 0.3
        reads.append({"slab": slab, "ctx": {"purpose": SlabPurpose.SWEEP.value if sweep
                                            else SlabPurpose.WALK.value,
                                            "op": _op(0 if sweep else owner[slab], k)}})
        routes.append(slab % ports if sweep else owner[slab] % ports)
    writes = []
    for k in range(120):
        slab = rng.choice(write_slabs)
        release = rng.random() < 0.5
        writes.append({"write": int(rng.random() < 0.8 or not release), "slab": slab,
                       "line": rng.randrange(2), "data": rng.randrange(1 << 512),
                       "mask": rng.choice([(1 << 64) - 1, rng.randrange(1 << 64)]),
                       "release": int(release), "lock": rng.randrange(1 << 24),
                       "vertex": owner[slab]})
    dut = SlabPorts(ports=ports, addr_width=16, depth=4)
    bench = Bench(dut, "SlabPorts", pause=pause)
    memories = [serve_memory(bench, f"mem{k}", dut.mem[k], pool, pause) for k in range(ports)]
    bench.source("reads", dut.reads, reads)
    bench.source("writes", dut.writes, writes)
    bench.sink("slabs", dut.slabs, len(reads))
    bench.sink("released", dut.released, sum(w["release"] for w in writes))
    counters = []

    async def hold_base(ctx):
        ctx.set(dut.pool_base, POOL_BASE)

    async def count(ctx):
        while (len(bench.received["slabs"]) < len(reads) or
               bench.sent["writes"] < len(writes) or ctx.get(dut.busy)):
            await ctx.tick()
        await ctx.tick().repeat(30)
        counters.append((ctx.get(dut.reads_done), ctx.get(dut.writes_done)))

    bench.add_process(hold_base)
    bench.add_process(count)
    bench.until(lambda: bool(counters))
    bench.run()

    got = bench.received["slabs"]
    for s in got:
        read = reads[s["ctx"]["op"]["answer"]]
        want = pool[POOL_BASE + 2 * read["slab"]] | pool[POOL_BASE + 2 * read["slab"] + 1] << 512
        if s["index"] != read["slab"] or s["ctx"] != read["ctx"] or slab_bits(s["slab"]) != want:
            bench.fail(f"read {s['ctx']['op']['answer']} came back wrong: {s['index']}")
    for k in range(ports):
        mine = [n for n, r in enumerate(reads) if routes[n] == k]
        bench.check_equal([s["ctx"]["op"]["answer"] for s in got
                           if routes[s["ctx"]["op"]["answer"]] == k], mine,
                          f"port {k}'s slab order")
        model = dict(pool)
        for write in writes:
            if write["write"] and write["vertex"] % ports == k:
                addr = POOL_BASE + 2 * write["slab"] + write["line"]
                mask = byte_mask(write["mask"])
                model[addr] = model[addr] & ~mask | write["data"] & mask
        bench.check_equal(memories[k].lines, model, f"port {k}'s memory")
        mine_locks = [w["lock"] for w in writes if w["release"] and w["vertex"] % ports == k]
        port_locks = set(mine_locks)
        bench.check_equal([lock for lock in bench.received["released"] if lock in port_locks],
                          mine_locks, f"port {k}'s released locks")
    assert sorted(bench.received["released"]) == sorted(w["lock"] for w in writes if w["release"])
    assert counters[0] == (len(reads), sum(w["write"] for w in writes))
