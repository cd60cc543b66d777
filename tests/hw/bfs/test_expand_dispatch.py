"""Degree-classified dispatch (Enterprise §4.2) in Amaranth's simulator: every edge of every
frontier vertex reaches exactly one lane, once; each piece has its class's size (Small whole,
Middle and Large a line, Extreme one piece a lane); the baseline sends every vertex whole;
a vertex without edges goes on as one empty piece (bottom-up, it survives). Lanes pause at random, so pieces go to whichever lane
has room."""

import random

import pytest

from hw.bfs.expand_dispatch import ExpandDispatch
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench

DEGREES = {0: [0, 1, 5, 31], 1: [32, 40, 255], 2: [256, 300], 3: [1000, 2049]}


def frontier(rng, count):
    entries = []
    for v in range(count):
        cls = rng.choice([0, 0, 0, 1, 1, 2, 3])
        entries.append({"entry": {"vertex": v, "first": rng.randrange(0, 5000),
                                  "count": rng.choice(DEGREES[cls]), "spare": 0},
                        "cls": cls, "lane": v % 4})
    return entries


def expected_pieces(entry, lanes, classified):
    first, count, cls = entry["entry"]["first"], entry["entry"]["count"], entry["cls"]
    if not classified or cls == 0:
        return [(first, count)]
    if cls == 3:
        size = -(-count // (lanes * 16)) * 16
    pieces = []
    while count:
        piece = min(count, size if cls == 3 else 16 - first % 16)
        pieces.append((first, piece))
        first, count = first + piece, count - piece
    return pieces


@pytest.mark.parametrize("lanes, classified", [(4, True), (2, True), (4, False), (1, True)])
@pytest.mark.parametrize("pause", PAUSES)
def test_every_edge_to_one_lane_in_pieces_of_its_class(lanes, classified, pause):
    rng = random.Random(f"dispatch/{lanes}/{classified}/{pause}")
    entries = frontier(rng, 60)
    want = {v: expected_pieces(e, lanes, classified) for v, e in enumerate(entries)}
    dut = ExpandDispatch(lanes=lanes, classified=classified)
    bench = Bench(dut, f"ExpandDispatch(lanes={lanes}, classified={classified})",
                  pause=pause)
    bench.source("entries", dut.entries, entries)
    for lane in range(lanes):
        bench.sink(f"work{lane}", dut.work[lane])
    total = sum(len(p) for p in want.values())
    bench.until(lambda: sum(len(bench.received[f"work{k}"]) for k in range(lanes)) >= total)
    bench.run()

    got = {v: [] for v in want}
    for lane in range(lanes):
        for item in bench.received[f"work{lane}"]:
            entry = item["entry"]
            assert item["cls"] == entries[entry["vertex"]]["cls"]
            got[entry["vertex"]].append((entry["first"], entry["count"]))
    # A lane takes its pieces in order, and pieces of a vertex go out in order: sorted by
    # first, they are the expected cut.
    assert {v: sorted(p) for v, p in got.items()} == want
    if lanes > 1 and classified:
        # The extreme vertices spread over lanes.
        used = {lane for lane in range(lanes) for item in bench.received[f"work{lane}"]
                if item["cls"] == 3}
        assert used == set(range(lanes))


def test_refuses_lanes_not_a_power_of_two():
    with pytest.raises(ConfigError, match="power of two"):
        ExpandDispatch(lanes=3)
