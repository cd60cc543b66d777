"""The compactor's pair serializer in Amaranth's simulator: each slab's live pairs (keys
neither EMPTY nor TOMBSTONE) in cell order, nothing for a slab without any, one ``end`` edge
for the end marker, against a loop over the cells; with and without pauses."""

import random

import pytest

from hw.dyngraph.layouts import EMPTY_KEY, SLAB_PAIRS, TOMBSTONE_KEY
from hw.dyngraph.pair_serialize import PairSerialize
from tests.support.stream_drivers import PAUSES, Bench


def _slab(rng):
    style = rng.random()
    keys = []
    for _ in range(SLAB_PAIRS):
        if style < 0.15:
            keys.append(rng.choice([EMPTY_KEY, TOMBSTONE_KEY]))        # nothing live
        else:
            keys.append(rng.choice([EMPTY_KEY, TOMBSTONE_KEY, rng.randrange(1 << 32),
                                    rng.randrange(64), 0xFFFF_FFFD]))
    return keys, [rng.randrange(1 << 32) for _ in keys]


@pytest.mark.parametrize("pause", PAUSES)
def test_live_pairs_in_cell_order(pause):
    rng = random.Random(f"serialize/{pause}")
    items, expected = [], []
    for k in range(120):
        end = rng.random() < 0.1
        keys, values = _slab(rng)
        u = rng.randrange(1 << 32)
        items.append({"slab": {"pairs": [{"key": a, "value": b} for a, b in zip(keys, values)],
                               "aux": u, "next": rng.randrange(1 << 32)},
                      "index": k, "ctx": {"u": u, "end": int(end)}})
        if end:
            expected.append((u, None, None, 1))
        else:
            expected += [(u, a, b, 0) for a, b in zip(keys, values)
                         if a not in (EMPTY_KEY, TOMBSTONE_KEY)]
    dut = PairSerialize()
    bench = Bench(dut, "PairSerialize", pause=pause)
    bench.source("slabs", dut.slabs, items)
    bench.sink("edges", dut.edges, len(expected))
    bench.run()
    got = [(e["u"], None if e["end"] else e["v"], None if e["end"] else e["w"], e["end"])
           for e in bench.received["edges"]]
    bench.check_equal(got, expected, "edges")
