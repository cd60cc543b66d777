"""The compactor's walk in Amaranth's simulator: for each vertex word, reads of its base slabs
``base .. base + buckets - 1`` (none for an absent vertex, 0 buckets), and after the last
vertex one read of slab 0 with the end marker; several walks back to back, against a loop
over the words; with and without pauses."""

import random

import pytest

from hw.dyngraph.compact_walk import CompactWalk
from tests.support.stream_drivers import PAUSES, Bench

SLAB_BITS = 20


@pytest.mark.parametrize("pause", PAUSES)
def test_base_slab_reads_in_vertex_order(pause):
    rng = random.Random(f"walk/{pause}")
    items, expected = [], []
    for walk in range(4):
        count = [1, 2, 30, 17][walk]
        for u in range(count):
            buckets = rng.choice([0, 0, 1, 1, 2, 5] if walk != 2 else [0, 1, 3])
            if rng.random() < 0.05 and walk != 2:
                buckets = 60
            if u == 0 and walk == 3:
                buckets = (1 << (32 - SLAB_BITS)) - 1      # the widest bucket count
            base = rng.randrange((1 << SLAB_BITS) - buckets - 1)
            last = u == count - 1
            items.append({"data": base | buckets << SLAB_BITS, "index": u, "last": int(last),
                          "ctx": 0})
            expected += [(base + b, u, 0) for b in range(buckets)]
            if last:
                expected.append((0, u, 1))
    dut = CompactWalk(slab_index_bits=SLAB_BITS)
    bench = Bench(dut, "CompactWalk", pause=pause)
    bench.source("vertices", dut.vertices, items)
    bench.sink("reads", dut.reads, len(expected))
    bench.run()
    got = [(r["slab"], r["ctx"]["u"], r["ctx"]["end"]) for r in bench.received["reads"]]
    bench.check_equal(got, expected, "slab reads")
