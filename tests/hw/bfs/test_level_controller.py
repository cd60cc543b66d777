"""The BFS level loop in Amaranth's simulator, the rest of the engine played by a testbench on
an abstract BFS (how many vertices each level discovers, and the blocks' counters): the hub
count from the out-offsets, the root, then per level a scan for the next frontier queue (of
the level's discoveries from the out-offsets, or of the unvisited from the in-offsets when it
goes bottom-up), the expansion, and the direction decided between them (Enterprise's gamma
down once, Beamer's tail rule back), until a level finds nothing or the log is full. Each
level's record (frontier and its degree classes, visited, the counters' increases across
their wrap, where its queue came from) is compared with a model of the same rules, as are
the scans' commands and the queue buffers, with and without pauses."""

import random

import pytest
from amaranth.sim import Simulator

from hw.bfs.layouts import UNVISITED, Direction
from hw.bfs.level_controller import COUNTER_INPUTS, LevelController
from tests.support.stream_drivers import PAUSES, to_py

LANES = 2
N, ROOT, HUBS = 100, 17, 10
OUT_BASE, IN_BASE, LEVELS_BASE = 0x400, 0x800, 0xC00
TD, BU = Direction.TOP_DOWN.value, Direction.BOTTOM_UP.value
START = 2**32 - 60          # the counters wrap during the run


def split(count):
    """The bin writers' counts of a queue of ``count`` entries, bin (class c, lane l) at
    ``c * LANES + l``."""
    classes = [count // 2, count // 4, count // 8]
    classes.insert(0, count - sum(classes))
    return [part for c in classes for part in (c - c // 2, c // 2)]


def class_sums(count):
    bins = split(count)
    return [sum(bins[c * LANES:(c + 1) * LANES]) for c in range(4)]


def figures(level):
    """The counters' increases while ``level`` expands: edges, reads, hub cache hits."""
    return 10 * level + 3, 7 * level + 1, 2 * level


def model(direction, gamma, disc, hubs_found, tail_limit, max_levels):
    """The records of a run and whether it ends in error; ``disc[L]`` vertices are discovered
    by level L, ``hubs_found[L]`` hubs by it top-down."""
    records, reached, previous, switched_back = [], 1, 1, False
    level, way = 1, BU if direction == "bottomup" else TD
    frontier, scanned = (N - 1 if way == BU else 1), N
    while frontier:
        if level >= max_levels:
            return records, True
        edges, reads, hits = figures(level)
        found = disc[level]
        reached += found
        record = {"level": level, "direction": way, "frontier": frontier,
                  **dict(zip(("small", "middle", "large", "extreme"), class_sums(frontier))),
                  "scanned": scanned, "edges_checked": edges, "hub_cache_hits": hits,
                  "status_reads": edges if way == TD else reads, "visited": found,
                  "hubs_visited": hubs_found.get(level, 0) if way == TD else 0,
                  "reads_issued": reads}
        records.append(record)
        if way == TD:
            down = direction == "auto" and not switched_back and \
                100 * record["hubs_visited"] > gamma * HUBS
            way, frontier, scanned = (BU, N - reached, N) if down else (TD, found, N)
        else:
            if found == 0:
                break
            back = direction == "auto" and found < tail_limit and found < previous
            switched_back |= back
            way, frontier, scanned = (TD, found, N) if back else (BU, N - reached, 0)
        previous = found
        level += 1
    return records, False


def run_controller(direction, gamma, disc, hubs_found, tail_limit, max_levels, pause):
    dut = LevelController(addr_width=16, lanes=LANES, direction=direction,
                          gamma_percent=gamma)
    rng = random.Random(f"level-controller/{direction}/{pause}")
    got = {"records": [], "scans": [], "errors": []}
    streams = (dut.status_cmd, dut.offsets_cmd, dut.root_discovery, dut.log)
    pulses = (dut.bins_clear, dut.scan_clear, dut.bins_flush, dut.read_start, dut.lines_start)
    state = (dut.to_scan, dut.blocked, dut.match, dut.level, dut.direction, dut.read_buffer,
             dut.offsets_cmd.payload, dut.status_cmd.payload, dut.root_discovery.payload,
             dut.log.payload)

    async def engine(ctx):
        # What the blocks show; a step's results appear when it ends (``busy`` cycles after
        # it starts), and ``quiet`` may rise for a single cycle before that, between busy
        # ones.
        env = {"counters": {name: START - 7 * k for k, name in enumerate(COUNTER_INPUTS)},
               "counts": [0] * (4 * LANES), "hits": 0, "hubs": 0, "reached": 1, "busy": 0,
               "glitch": False, "quiet": True, "results": []}
        sent, filled, cycle = set(), None, 0    # the scan's commands taken; buffer filled

        def step(results, low=1, high=8):
            env["busy"] = max(env["busy"], rng.randint(low, high))
            env["results"].append(results)

        def drive():
            if env["busy"]:
                env["busy"] -= 1
            if not env["busy"]:
                for results in env["results"]:
                    results()
                env["results"] = []
            for name, value in env["counters"].items():
                ctx.set(getattr(dut, name), value & 0xFFFF_FFFF)
            for port, value in zip(dut.counts, env["counts"]):
                ctx.set(port, value)
            ctx.set(dut.scan_hits, env["hits"])
            ctx.set(dut.hubs_total, env["hubs"])
            # A single quiet cycle between busy ones.
            env["glitch"] = not env["quiet"] and env["busy"] > 0 and rng.random() < 0.2
            env["quiet"] = env["busy"] == 0 or env["glitch"]
            ctx.set(dut.quiet, env["quiet"])
            for stream in streams:
                ctx.set(stream.ready, pause is None or rng.random() < 0.7)

        def scan(hits):
            env["hits"], env["counts"] = hits, split(hits)

        def expand(way, expanding, found, survivors):
            edges, reads, cache_hits = figures(expanding)
            counters = env["counters"]
            counters["written"] += found
            counters["cache_hits"] += cache_hits
            counters["reads_issued"] += reads
            if way == TD:
                counters["td_edges"] += edges
                counters["hubs_found"] += hubs_found.get(expanding, 0)
            else:
                counters["bu_edges"] += edges
                counters["bu_reads"] += reads
                env["counts"] = split(survivors)

        drive()
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        async for _, _, *values in ctx.tick().sample(
                *[s for stream in streams for s in (stream.valid, stream.ready)],
                *pulses, *state, dut.done):
            cycle += 1
            assert cycle < 20_000, "no done after 20000 cycles"
            taken = [values[2 * k] and values[2 * k + 1] for k in range(len(streams))]
            status, offsets, root, log = taken
            bins_clear, scan_clear, bins_flush, read_start, lines_start = values[8:13]
            to_scan, blocked, match, level, way, read_buffer, offsets_cmd, status_cmd, \
                root_payload, record = values[13:23]
            assert lines_start == offsets
            if bins_clear:
                env["counts"] = [0] * (4 * LANES)
            if scan_clear:
                env["hits"], sent = 0, set()
            if offsets and not to_scan:
                assert offsets_cmd.base == OUT_BASE and offsets_cmd.count == (N + 16) >> 4
                step(lambda: env.update(hubs=HUBS))
            if root:
                assert (root_payload.vertex, root_payload.parent) == (ROOT, ROOT)
                step(lambda: env["counters"].update(written=env["counters"]["written"] + 1))
            assert not (offsets and to_scan), "a scan's offsets are read on demand"
            if status:
                assert status_cmd.base == LEVELS_BASE and status_cmd.count == (N + 15) >> 4
                sent.add("status")
                base = offsets_cmd.base          # where the scan's pair fetch reads
            if "status" in sent:
                # The scan: the unvisited, or the vertices discovered by level ``match``.
                sent = {"done"}
                reached = env["reached"]
                hits = N - reached if blocked else 1 if match == 0 else disc[match]
                if blocked:
                    assert match == UNVISITED
                got["scans"].append((int(blocked), base))
                filled = ctx.get(dut.buffer)
                step(lambda hits=hits: scan(hits))
            if read_start:
                expanding = level + 1
                assert read_buffer == filled, "the queue reader reads another buffer"
                found = disc[expanding]
                survivors = N - env["reached"] - found
                if way == BU:
                    # The survivors go to the other buffer.
                    filled = ctx.get(dut.buffer)
                    assert filled != read_buffer
                env["reached"] += found
                step(lambda a=(way, expanding, found, survivors): expand(*a), 2, 12)
            if bins_flush:
                # The bins are flushed once the scan or expansion filling them has ended.
                assert not env["results"] and env["busy"] == 0, "bins flushed too early"
                step(lambda: None, 0, 3)
            if log:
                got["records"].append(to_py(record))
            if values[-1]:
                got["errors"].append(ctx.get(dut.error))
                got["levels_done"] = ctx.get(dut.levels_done)
                got["busy"] = ctx.get(dut.busy)
                return
            drive()

    async def inputs(ctx):
        for name, value in (("num_vertices", N), ("root", ROOT), ("tail_limit", tail_limit),
                            ("max_levels", max_levels), ("levels_base", LEVELS_BASE),
                            ("out_offsets_base", OUT_BASE), ("in_offsets_base", IN_BASE)):
            ctx.set(getattr(dut, name), value)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(inputs)
    sim.add_testbench(engine)
    sim.run()
    return got


CHECKED = ("level", "direction", "frontier", "small", "middle", "large", "extreme", "scanned",
           "edges_checked", "status_reads", "hub_cache_hits", "visited", "hubs_visited",
           "reads_issued")

# Discoveries per level: 4, 30, 40, 15, 5, then none (95 of 100 vertices reached).
DISC = {1: 4, 2: 30, 3: 40, 4: 15, 5: 5, 6: 0}
HUBS_FOUND = {1: 1, 2: 5, 5: 9}       # 10%, 50% (> gamma 30: down), 90% (switched back)


def check(got, direction, gamma, tail_limit, max_levels, disc=DISC):
    want, error = model(direction, gamma, disc, HUBS_FOUND, tail_limit, max_levels)
    records = [{name: r[name] for name in CHECKED} for r in got["records"]]
    assert records == want
    assert all(r["expand_cycles"] > 0 for r in got["records"])
    assert all(r["generate_cycles"] > 0 for r, w in zip(got["records"], want) if w["scanned"])
    assert got["errors"] == [int(error)]
    assert got["levels_done"] == len(want) and not got["busy"]
    # A scan for each level's queue made from a scan: from the in-offsets for the unvisited.
    scans = [(int(r["direction"] == BU), IN_BASE if r["direction"] == BU else OUT_BASE)
             for r in want if r["scanned"]]
    assert got["scans"][:len(scans)] == scans and len(got["scans"]) - len(scans) in (0, 1)
    return want


@pytest.mark.parametrize("pause", PAUSES)
def test_auto_goes_down_on_hubs_and_back_for_the_tail(pause):
    got = run_controller("auto", 30, DISC, HUBS_FOUND, 20, 64, pause)
    want = check(got, "auto", 30, 20, 64)
    assert [r["direction"] for r in want] == [TD, TD, BU, BU, TD, TD]
    assert [r["scanned"] for r in want] == [N, N, N, 0, N, N]


def test_gamma_100_stays_top_down():
    got = run_controller("auto", 100, DISC, HUBS_FOUND, 20, 64, None)
    want = check(got, "auto", 100, 20, 64)
    assert {r["direction"] for r in want} == {TD}


def test_bottom_up_stops_on_a_level_that_finds_nothing():
    disc = {1: 4, 2: 30, 3: 0}
    got = run_controller("bottomup", 30, disc, HUBS_FOUND, 20, 64, 1)
    want = check(got, "bottomup", 30, 20, 64, disc)
    assert [r["direction"] for r in want] == [BU, BU, BU]


def test_levels_past_the_log_are_an_error():
    got = run_controller("topdown", 30, DISC, HUBS_FOUND, 20, 3, 2)
    want = check(got, "topdown", 30, 20, 3)
    assert len(want) == 2
