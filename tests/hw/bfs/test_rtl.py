"""The BFS engine as Verilog (Verilator, cocotb) against the golden model: levels exactly,
parents by Graph500's rules, and every level's record (direction, frontier per degree class,
scanned entries, edges checked, status reads, hub-cache hits, vertices and hubs visited)
equal to the golden model's, on Kronecker, R-MAT, grid and Luo-style scale-free graphs, from
several roots, for 1, 2, 4 and 16 lanes, 1, 2 and 4 expand lanes (classified dispatch and
the vertex-per-lane baseline) on 1, 2 and 4 memory channels, each direction rule, the hub cache on and off, the
hierarchical (per-lane) and the flat (shared) queue, a quad's hits a cycle or one, with
random stalls between the blocks and with a memory that jitters, pushes back and reorders.
Each configuration is one Verilator build; its graphs and memories share it."""

import dataclasses

import numpy as np
import pytest

import golden
from golden.bfs import run_bfs
from hw.bfs.config import BfsConfig
from hw.lib.config import ConfigError
from sim.gateware.sim_memory import SimMemoryConfig
from sim.bfs.run import MEMORY_KINDS, simulate
from tests.support.traffic import check_traffic
from sim.run_settings import RunSettings

MEMORY = SimMemoryConfig(latency=40, latency_dist="uniform", jitter=16, outstanding=64,
                         depth_lines=1 << 15)
HOSTILE = SimMemoryConfig(latency=30, latency_dist="tail", jitter=6, tail_percent=10,
                          tail=300, outstanding=5, pushback=30, reorder=True,
                          bytes_per_cycle=12.5, depth_lines=1 << 15)

GRAPHS = {
    "kron8u": "kron:scale=8,ef=8,seed=2,undirected=1",
    "kron7": "kron:scale=7,ef=8,seed=5",
    "rmat8u": "rmat:scale=8,ef=6,seed=3,undirected=1",
    "grid": "grid:rows=9,cols=14",
    "scalefree": "scalefree:n=400,hub_degree=80,seed=4",
}

SOAK = pytest.mark.soak
# (name, configuration, graphs): four builds cover 1, 2, 4 and 16 lanes, the three direction
# rules, the hub cache on (small, so hubs collide) and off, both queue kinds, and stalls on
# every link; the first runs in make test, the others in make soak (the test budget).
CASES = [
    pytest.param("auto-l4-x4-ch2-hier-cache-stalls",
                 dict(lanes=4, expand_lanes=4, memory_channels=2, middle_degree=4,
                      large_degree=12, extreme_degree=40, tau=12, hub_cache_entries=32,
                      bu_slots=8, stall_injection=15),
                 ["kron8u", "rmat8u", "grid", "scalefree"]),
    pytest.param("topdown-l16-nocache-stalls",
                 dict(lanes=16, direction="topdown", hub_cache=False, bu_slots=4,
                      stall_injection=20), ["kron8u", "grid"], marks=SOAK),
    pytest.param("bottomup-l1-cache-stalls",
                 dict(lanes=1, direction="bottomup", tau=8, hub_cache_entries=16, bu_slots=4,
                      stall_injection=20), ["kron7", "scalefree"], marks=SOAK),
    pytest.param("auto-l2-flat-cache8-one-hit",
                 dict(lanes=2, queues="flat", scan_hits=1, tau=6, hub_cache_entries=8,
                      bu_slots=16),
                 ["kron8u", "kron7"], marks=SOAK),
    pytest.param("topdown-l2-x2-vertex-ch4-stalls",
                 dict(lanes=2, expand_lanes=2, dispatch="vertex", memory_channels=4,
                      direction="topdown", middle_degree=4, large_degree=12,
                      extreme_degree=40, stall_injection=10),
                 ["kron8u", "scalefree"], marks=SOAK),
]


def roots_of(graph, count=2):
    """The largest out-degree vertex and the first vertex of out-degree one."""
    degree = graph.out_degree
    roots = [int(np.argmax(degree))]
    ones = np.flatnonzero(degree == 1)
    if ones.size:
        roots.append(int(ones[0]))
    return roots[:count]


@pytest.mark.parametrize("name, settings, graphs", CASES, ids=[c.values[0] for c in CASES])
def test_rtl_matches_golden(name, settings, graphs, run_seeds):
    config = BfsConfig(max_vertices=512, **settings)
    directions = set()
    hits = 0
    runs = [(g, root, run_seeds.get(i), MEMORY) for i, g in enumerate(graphs)
            for root in roots_of(golden.load_graph(GRAPHS[g]))]
    runs.append((graphs[0], 0, run_seeds.get(len(runs)), HOSTILE))
    for graph_name, root, seed, memory in runs:
        memory = dataclasses.replace(memory, channels=config.memory_channels)
        graph = golden.load_graph(GRAPHS[graph_name])
        report = simulate(graph, config, memory,
                          RunSettings(root=root, seed=seed, graph_name=graph_name))
        where = (graph_name, root, run_seeds.hint(seed))
        assert report.levels_match, (*where, report.first_mismatch)
        assert report.parents_valid, (*where, report.parents_error)
        assert report.log_match, (*where, report.log_mismatch)
        assert report.parents[root] == root
        check_traffic(report, MEMORY_KINDS)
        directions.update(report.figures["directions"])
        hits += report.counters["cache_hits"]
    if config.direction == "auto":
        assert directions == {"topdown", "bottomup"}        # the switch happened both ways
    else:
        assert directions == {config.direction}
    assert (hits > 0) == (config.hub_cache and config.direction != "topdown")


def test_counters_add_up_and_unreached_stay_unreached(run_seeds):
    """A directed graph where most vertices are unreachable: their level and parent stay
    unreached, and the engine's totals are the sum of its level log, and so are the figures
    of each level."""
    graph = golden.load_graph(GRAPHS["kron7"])
    config = BfsConfig(max_vertices=512, **CASES[0].values[1])     # the first case's build
    root = int(np.flatnonzero(graph.out_degree == 1)[0])
    report = simulate(graph, config,
                      dataclasses.replace(MEMORY, channels=config.memory_channels),
                      RunSettings(root=root, seed=run_seeds.get()))
    assert report.matches
    reference = run_bfs(graph, root, **config.golden_options())
    unreached = reference.levels == 2**32 - 1
    assert unreached.any() and (report.parents[unreached] == -1).all()
    log = report.levels_log
    c = report.counters
    assert c["levels"] == len(log) == len(reference.records)
    assert c["edges_checked"] == sum(r["edges_checked"] for r in log)
    assert c["cache_hits"] == sum(r["hub_cache_hits"] for r in log)
    assert c["discoveries"] >= 1 + sum(r["visited"] for r in log)
    # The counters the testbench read at each level's end: a level's edges checked are its
    # log record's, and the levels' cycles and the finish add up to the run's.
    per_level = report.figures["per_iteration"]
    assert [row["edges"] for row in per_level["rows"]] == [r["edges_checked"] for r in log]
    assert sum(row["cycles"] for row in per_level["rows"]) + \
        per_level["finish"]["cycles"] == c["cycles"]


@SOAK        # the first case's build, but 25 s to 250 s on a loaded machine: make test is full
def test_a_symmetric_files_teps_equal_the_generated_graphs(tmp_path, run_seeds):
    """Issue 51, item 5: an undirected graph read from a file with each edge in both
    directions (as GAPBS's converter writes it, no header) is detected symmetric: the very
    graph the generator makes, so the engine's run of it is the generated graph's, and its
    Graph500 count takes each undirected edge once (the same TEPS at any clock)."""
    grid = golden.load_graph(GRAPHS["grid"])
    path = tmp_path / "grid.el"
    golden.write_graph(grid.flagged(False), path)
    loaded = golden.load_graph(str(path))
    assert loaded == grid and loaded.symmetric
    config = BfsConfig(max_vertices=512, **CASES[0].values[1])     # the first case's build
    report = simulate(loaded, config,
                      dataclasses.replace(MEMORY, channels=config.memory_channels),
                      RunSettings(root=0, seed=run_seeds.get()))
    assert report.matches
    figures = report.figures
    assert figures["component_edges"] == grid.num_edges // 2
    assert figures["edges_per_cycle"] == grid.num_edges // 2 / figures["cycles"]


def test_bad_input_is_refused():
    graph = golden.load_graph(GRAPHS["grid"])
    with pytest.raises(ConfigError, match="hub bitmap covers 16"):
        simulate(graph, BfsConfig(max_vertices=16), run=RunSettings(root=0))
    with pytest.raises(ConfigError, match="root 500 is not a vertex"):
        simulate(graph, BfsConfig(max_vertices=512), run=RunSettings(root=500))
    with pytest.raises(ConfigError, match="lanes must be a power of two"):
        BfsConfig(lanes=3)
    with pytest.raises(ConfigError, match="memory_channels=2 but the simulated memory has "
                                          "channels=1"):
        simulate(graph, BfsConfig(max_vertices=512, memory_channels=2), MEMORY)
    with pytest.raises(ConfigError, match="dispatch must be one of classes, vertex"):
        BfsConfig(dispatch="warp")
    with pytest.raises(ConfigError, match="scan_hits must be 1 or 4, not 2"):
        BfsConfig(scan_hits=2)
    with pytest.raises(ConfigError, match="scan_window must be 2..256, not 1"):
        BfsConfig(scan_window=1)


def test_the_checks_fire(monkeypatch, run_seeds):
    """The level-log comparison is not vacuous: against a golden model run without the hub
    cache, the RTL's first bottom-up level differs; levels and parents still pass."""
    graph = golden.load_graph(GRAPHS["kron8u"])
    config = BfsConfig(max_vertices=512, **CASES[0].values[1])     # the first case's build
    options = config.golden_options()
    monkeypatch.setattr(BfsConfig, "golden_options",
                        lambda self: {**options, "hub_cache": False})
    report = simulate(graph, config,
                      dataclasses.replace(MEMORY, channels=config.memory_channels),
                      RunSettings(root=roots_of(graph)[0], seed=run_seeds.get()))
    assert report.levels_match and report.parents_valid
    assert not report.log_match and not report.matches
    assert report.log_mismatch["field"] in ("status_reads", "hub_cache_hits")
