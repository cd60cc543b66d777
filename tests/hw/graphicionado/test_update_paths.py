# amaranth: UnusedElaboratable=no
"""The duplicated update path's hand-out (§IV.D): :class:`UpdatePathSplit` gives each path
the packets of the scratchpad half it owns in edge order, an edge's v packet before its u
packet; :class:`UpdatePairUnzip` makes the pairs two streams for the update network. Random
pairs with packets absent (self-loops, held u packets, flushed ones), with and without
pauses."""

import random

import pytest

from hw.graphicionado.update_paths import UpdatePairUnzip, UpdatePathSplit
from tests.support.stream_drivers import PAUSES, Bench

LANES, FLITS = 2, 4


def random_pairs(seed, edges):
    """Pair flits: per edge, v's packet (or none, a flushed u packet alone) and u's (or
    none), each to a random scratchpad index."""
    rng = random.Random(seed)
    items = []
    for e in range(edges):
        v_valid = int(rng.random() > 0.1)
        u_valid = int(rng.random() > 0.3) if v_valid else 1
        v, u = rng.randrange(64), rng.randrange(64)
        for f in range(FLITS):
            items.append({
                "v": {"dst": v, "flit": f, "value": [e, f + 100]},
                "u": {"dst": u, "flit": f, "value": [e, f + 200]},
                "v_valid": v_valid, "u_valid": u_valid})
    return items


@pytest.mark.parametrize("pause", PAUSES)
def test_path_split_keeps_each_paths_edge_order(pause):
    items = random_pairs(3, 60)
    want = [[], []]
    for item in items:
        for end in ("v", "u"):
            if item[f"{end}_valid"]:
                want[item[end]["dst"] & 1].append(item[end])
    # Per path: the flits of each edge's v packet, then of its u packet.
    for path in range(2):
        by_edge = {}
        for flit in want[path]:
            by_edge.setdefault(flit["value"][0], []).append(flit)
        want[path] = [flit for edge in sorted(by_edge) for flit in
                      sorted(by_edge[edge], key=lambda x: (x["value"][1] >= 200,
                                                           x["value"][1]))]
    dut = UpdatePathSplit(lanes=LANES, flits=FLITS, depth=2)
    bench = Bench(dut, "UpdatePathSplit", pause=pause)
    bench.source("i", dut.i, items)
    for path in range(2):
        bench.sink(f"o{path}", dut.o[path], len(want[path]))
    bench.run()
    for path in range(2):
        bench.check_equal(bench.received[f"o{path}"], want[path], f"path {path}")


@pytest.mark.parametrize("pause", PAUSES[:2])
def test_pair_unzip_gives_v_and_u_packets_apart(pause):
    items = random_pairs(4, 40)
    for item in items:
        for end in ("v", "u"):
            item[end]["owner"] = item[end]["dst"] & 3
    want = {end: [item[end] for item in items if item[f"{end}_valid"]] for end in "vu"}
    dut = UpdatePairUnzip(lanes=LANES, flits=FLITS, owner_bits=2)
    bench = Bench(dut, "UpdatePairUnzip", pause=pause)
    bench.source("i", dut.i, items)
    for k, end in enumerate("vu"):
        bench.sink(end, dut.o[k], len(want[end]))
    bench.run()
    for end in "vu":
        bench.check_equal(bench.received[end], want[end], f"{end}'s packets")
