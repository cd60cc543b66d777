"""The pool sweep in Amaranth's simulator: two sweeps of a random pool (slabs answered by a
model of the slab port), each reading every slab in order and turning the pairs that point at
one of the deleted vertices into tombstones in owned slabs only (free slabs are left alone),
a line write for each line with hits; the pool after the writes is compared with
:meth:`golden.dyngraph.SlabGraph._sweep`'s NumPy rule on the same pool, and the counters with
its count; with and without pauses."""

import random

import numpy as np
import pytest

from golden.dyngraph.slab import AUX_WORD, EMPTY_KEY, FREE_OWNER, NEXT_WORD, SLAB_PAIRS, \
    SLAB_WORDS, TOMBSTONE_KEY
from hw.dyngraph.layouts import SlabPurpose
from hw.dyngraph.pool_sweep import PoolSweep
from tests.support.stream_drivers import PAUSES, Bench

GROUP = 4


def golden_sweep(pool, deleted):
    """:meth:`SlabGraph._sweep`'s rule (its lines on ``pool``, an (n, 32) array)."""
    owned = pool[:, AUX_WORD] != FREE_OWNER
    keys = pool[:, 0:2 * SLAB_PAIRS:2]
    hits = np.isin(keys, np.array(deleted, dtype=np.uint32)) & owned[:, None]
    rows, cells = np.nonzero(hits)
    pool[rows, 2 * cells] = TOMBSTONE_KEY
    return int(rows.size)


def as_payload(words):
    return {"pairs": [{"key": int(words[2 * c]), "value": int(words[2 * c + 1])}
                      for c in range(SLAB_PAIRS)],
            "aux": int(words[AUX_WORD]), "next": int(words[NEXT_WORD])}


@pytest.mark.parametrize("pause", PAUSES)
def test_sweeps_tombstone_the_deleted_vertices_in_edges(pause):
    rng = random.Random(f"sweep/{pause}")
    slabs = 40
    pool = np.zeros((slabs, SLAB_WORDS), dtype=np.uint32)
    for s in range(slabs):
        for c in range(SLAB_PAIRS):
            pool[s, 2 * c] = rng.choice([EMPTY_KEY, TOMBSTONE_KEY, rng.randrange(12),
                                         rng.randrange(1 << 32)])
            pool[s, 2 * c + 1] = rng.randrange(1 << 32)
        pool[s, AUX_WORD] = rng.choice([FREE_OWNER, rng.randrange(1000)])
        pool[s, NEXT_WORD] = rng.randrange(1 << 32)
    sweeps = [[3, 7, 3], [1, 2, 5, 11]]        # a repeated id, a full group
    memory = pool.copy()
    dut = PoolSweep(group=GROUP)
    bench = Bench(dut, "PoolSweep", pause=pause)
    answers = bench.feed("slabs", dut.slabs)

    def answer(read):
        answers.append({"slab": as_payload(memory[read["slab"]]), "index": read["slab"],
                        "ctx": read["ctx"]})

    def write(item):
        if item["vertex"] != int(memory[item["slab"], AUX_WORD]):
            bench.fail(f"write of slab {item['slab']} names vertex {item['vertex']}")
        line = memory[item["slab"]].reshape(2, 16)[item["line"]]
        for word in range(16):
            if (item["mask"] >> 4 * word & 0xF) == 0xF:
                line[word] = item["data"] >> 32 * word & 0xFFFF_FFFF
            elif item["mask"] >> 4 * word & 0xF:
                bench.fail(f"a partial word in write {item}")
        writes.append(item)

    writes, reads, results = [], [], []
    bench.sink("reads", dut.reads, on_item=lambda r: (reads.append(r), answer(r)))
    bench.sink("writes", dut.writes, on_item=write)

    async def drive(ctx):
        ctx.set(dut.pool_slabs, slabs)
        for ids in sweeps:
            for k, vertex in enumerate(ids):
                ctx.set(dut.ids[k], vertex)
            ctx.set(dut.count, len(ids))
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            await ctx.tick()
            while ctx.get(dut.busy):
                await ctx.tick()
            results.append((len(reads), ctx.get(dut.removed), ctx.get(dut.slab_reads)))
            await ctx.tick().repeat(10)

    bench.add_process(drive)
    bench.until(lambda: len(results) == len(sweeps))
    bench.run()
    model, removed = pool.copy(), 0
    for k, ids in enumerate(sweeps):
        removed += golden_sweep(model, ids)
        assert results[k] == ((k + 1) * slabs, removed, (k + 1) * slabs), results[k]
    assert removed > 10
    assert [r["slab"] for r in reads] == list(range(slabs)) * len(sweeps)
    assert all(r["ctx"]["purpose"] == SlabPurpose.SWEEP.value for r in reads)
    np.testing.assert_array_equal(memory, model)
    assert len(writes) <= 2 * np.any(model != pool, axis=1).sum() * len(sweeps)
