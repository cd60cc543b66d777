"""The Graphicionado pipeline as Verilog (Verilator, cocotb) against the golden model:
exact for BFS, SSSP and CC; PageRank bit for bit where the order of the sums is fixed (one
source stream) and within the derived bound of :mod:`sim.graphicionado.check` where it
is not; on generated and real graphs, with a DRAM whose latency jitters and random stalls
injected on every link. Each algorithm runs on its own number of source and destination
streams (:data:`STREAMS`); one stream each is the configuration ``test_coarsened_edge_id_table``
and most Amaranth tests run."""

import dataclasses

import numpy as np
import pytest

import golden
from golden.programs import run_program
from hw.lib.config import ConfigError
from hw.graphicionado.config import GraphicionadoConfig
from sim.graphicionado.top import SimMemoryConfig
from sim.graphicionado.image import build_image
from sim.graphicionado.run import MEMORY_KINDS, _watchdog, simulate
from sim.traffic import sum_lines
from sim.run_settings import RunSettings
from tests.support.examples import spec_of
from tests.support.graphs import networkx_graph
from tests.support.traffic import check_traffic

MEMORY = SimMemoryConfig(latency=60, latency_dist="uniform", jitter=24, outstanding=96,
                         depth_lines=1 << 15)
# A memory that pushes back (random refusals, fewer reads in flight than the arbiter's 128, a
# bandwidth that binds at 8.5 bytes a cycle) and answers out of order across clients, with a
# long-tailed latency. Only runtime settings differ from MEMORY: the builds are shared.
HOSTILE = SimMemoryConfig(latency=40, latency_dist="tail", jitter=8, tail_percent=10,
                          tail=400, outstanding=6, pushback=30, reorder=True,
                          bytes_per_cycle=8.5, depth_lines=1 << 15)


# n source x m destination streams per algorithm: each build is some 20 s of Verilator, so
# the shapes are spread over the algorithms (n = m, n > m, n < m); make soak draws others,
# 8 x 8 over four memory channels among them.
STREAMS = {"bfs": (2, 2), "sssp": (2, 1), "cc": (1, 2), "pagerank": (4, 1)}


def streams_of(algo):
    n, m = STREAMS[algo]
    return {"streams_src": n, "streams_dst": m}


def matrix_config(algo):
    """The build of each algorithm that the matrix, the hostile-memory and the slicing
    tests share (memory settings and slice counts are run-time). SSSP and PageRank keep the
    paper's edge layout (coo), BFS and CC the default compact one (``test_compact_edges``
    runs the compact layout with SSSP and PageRank)."""
    edge_format = "coo" if algo in ("sssp", "pagerank") else "csr"
    return GraphicionadoConfig(algo=algo, max_vertices=1024, edge_prefetch_lines=16,
                               stall_injection=25, max_slices=8, edge_format=edge_format,
                               **streams_of(algo))


GRAPHS = {
    "kron9": lambda: golden.from_spec("kron:scale=9,ef=8,seed=2,weights=1:50"),
    "rmat9": lambda: golden.from_spec("rmat:scale=9,ef=8,seed=3,weights=1:50"),
    "grid": lambda: golden.from_spec("grid:rows=12,cols=20,weights=1:9"),
    "kron7": lambda: golden.from_spec("kron:scale=7,ef=8,seed=2,weights=1:50"),
    "kron7-sparse": lambda: golden.from_spec("kron:scale=7,ef=1,seed=2"),
    "rmat7-sparse": lambda: golden.from_spec("rmat:scale=7,ef=1,seed=3"),
    "karate": lambda: networkx_graph("karate"),
    "lesmis": lambda: networkx_graph("lesmis"),
    "florentine": lambda: networkx_graph("florentine"),
    "ratings": lambda: golden.from_spec("bipartite:users=100,items=60,ratings=2,seed=5"),
}


def best_root(graph):
    return int(np.argmax(graph.out_degree))


# Three graphs per algorithm (a generated, a regular and a real one); make soak draws many
# more. Kronecker 9 runs in make soak (make test's 20-minute budget: 39-58 s a case): make
# test runs every algorithm on it through test_graph_slicing, on the same builds.
MATRIX_GRAPHS = ["kron9", "grid", "karate"]
MATRIX_PARAMS = [pytest.param(name, marks=pytest.mark.soak) if name == "kron9" else name
                 for name in MATRIX_GRAPHS]


@pytest.mark.parametrize("graph_name", MATRIX_PARAMS)
@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc", "pagerank"])
def test_rtl_matches_golden(algo, graph_name, run_seeds):
    graph = GRAPHS[graph_name]()
    # Three stall patterns per algorithm, one per graph in turn.
    seed = run_seeds.get(MATRIX_GRAPHS.index(graph_name) % 3)
    config = matrix_config(algo)
    root = best_root(graph) if algo in ("bfs", "sssp") else None
    iters = 3 if algo == "pagerank" else None
    report = simulate(graph, config, MEMORY,
                      RunSettings(algo=algo, root=root, iters=iters, seed=seed))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    # The report's check: every vertex compared, none differing, the iterations of both.
    assert report.figures["check"] == {
        "vertices_compared": graph.num_vertices, "vertices_differing": 0,
        "iterations": report.iterations, "golden_iterations": report.golden_iterations}
    reference = golden.run(algo, graph, root=root, iters=iters)
    assert report.counters["edges"] == reference.counters["edges_processed"]
    assert report.counters["edges"] == report.counters["updates"]
    check_stream_counters(report, graph if algo != "cc" else graph.symmetrized(), config)
    check_traffic(report, MEMORY_KINDS)
    check_sram_counts(report, config)
    if algo == "pagerank":
        check_pagerank_traffic(report, graph, config, iters)


def check_sram_counts(report, config):
    """The run's counted SRAM accesses (issue 54, item 6): every destination stream's
    VTempProperty reads one bank on each cycle of the run (the bank of the address its
    read port is offered) and no memory's port is counted more often than once a cycle; the
    Reduce writes VTempProperty at least once a vertex whose value it changed."""
    pads = [memory for memory in report.sram if ".pad.temp" in memory["name"]]
    streams = {f"dst{d}" for d in range(config.streams_dst)}
    assert {memory["name"].split(".")[1] for memory in pads} == streams
    assert all(sum(memory["reads"] for memory in pads if memory["name"].split(".")[1] == d)
               == report.cycles for d in streams)
    assert all(memory["reads"] <= memory["read_ports"] * report.cycles and
               memory["writes"] <= memory["write_ports"] * report.cycles
               for memory in report.sram)
    assert sum(memory["writes"] for memory in pads) >= report.counters["vertex_updates"]
    assert report.figures["sram"] == report.sram


def test_rtl_with_hubs_spread_over_the_streams():
    """``vertex_order="spread"``: the host renumbers the graph so that the destination
    streams own about as many edges each, runs it on the same build, and gives the levels
    back in the graph's own order: the golden model's from the root, vertex for vertex."""
    graph = GRAPHS["karate"]()
    config = matrix_config("bfs")
    root = best_root(graph)
    report = simulate(graph, config, MEMORY,
                      RunSettings(algo="bfs", root=root, vertex_order="spread"))
    assert report.matches, report.first_mismatch
    assert report.values.tolist() == golden.run("bfs", graph, root=root).values.tolist()
    order = report.figures["vertex_order"]
    assert order["order"] == "spread" and order["streams"] == config.streams_dst
    loads = report.figures["streams"]["edges_dst"]
    assert max(loads) / sum(loads) <= order["busiest_share_ids"]


def check_pagerank_traffic(report, graph, config, iters):
    """Full edge access reads, each iteration, the lines of VProperty and VConst that hold
    vertices (each source stream its partition's), its edge group's lines (a line two groups
    share read by both), and writes VProperty's lines once: exactly, against the image's
    layout (VConst's vertices take a power-of-two number of words each)."""
    image = build_image(graph, algo="pagerank", max_iterations=iters,
                        streams_src=config.streams_src, streams_dst=config.streams_dst,
                        max_slices=config.max_slices, edge_words=config.edge_words)
    parts = config.partitions
    const_words = image.dram.regions["vconst"].num_lines // (parts * image.registers["part_lines"])
    per_part = np.bincount(np.arange(graph.num_vertices) % parts, minlength=parts)
    vprop_lines = int(np.sum(-(-per_part // 16)))
    const_lines = int(np.sum(-(-(per_part * const_words) // 16)))
    bounds = [image.registers[f"edge_part_{k}"] for k in range(parts + 1)]
    per_line = 16 // config.edge_words
    edge_lines = sum(-(-end // per_line) - start // per_line
                     for start, end in zip(bounds, bounds[1:]) if end > start)
    lines = {"src_prop_read": (vprop_lines, 0), "src_const_read": (const_lines, 0),
             "edge_read": (edge_lines, 0), "vprop_write": (0, vprop_lines)}
    moved = sum_lines((name.split(".")[1], counts)
                      for name, counts in report.traffic.per_client().items())
    assert moved == {name: (reads * iters, writes * iters)
                     for name, (reads, writes) in lines.items()}


# Every built-in scalar program and every example (examples/programs/) on one stream each
# way and on 4 x 4 streams, with stalls on every link and the hostile memory (answers out of
# order), on two kinds of graph each. A (program, streams) pair is one Verilator build,
# shared by its graphs: make test builds one, spmv on one stream (float32, bit for bit; a
# 4 x 4 build is 3-4 minutes of make test's budget, and the built-ins have the matrix
# above); make soak the others.
PROGRAM_GRAPHS = {"bfs": ("kron7", "grid"), "sssp": ("kron7", "karate"),
                  "cc": ("kron7-sparse", "rmat7-sparse"), "pagerank": ("kron7", "lesmis"),
                  "widest": ("kron7", "grid"), "spmv": ("kron7", "lesmis"),
                  "ppr": ("kron7", "karate"), "labelprop": ("kron7-sparse", "rmat7-sparse"),
                  "bounded_hops": ("kron7", "grid")}
PROGRAMS_IN_MAKE_TEST = {("spmv", 1)}
PROGRAM_CASES = [
    pytest.param(name, streams, graph_name, id=f"{name}-{streams}x{streams}-{graph_name}",
                 marks=() if (name, streams) in PROGRAMS_IN_MAKE_TEST else pytest.mark.soak)
    for name, graphs in PROGRAM_GRAPHS.items() for streams in (1, 4) for graph_name in graphs]


@pytest.mark.parametrize("name, streams, graph_name", PROGRAM_CASES)
def test_rtl_programs(name, streams, graph_name, run_seeds):
    """The programs as Verilog through the host's whole path (image, run, check) against
    golden.programs.run_program: among the examples widest paths (a max Reduce over the
    weights, from the root), spmv (float32 weights times float32 properties, one iteration),
    personalized PageRank (the root register), label propagation (undirected) and hops over
    light edges (a parameter's register). Integers and one stream's float32 sums bit for
    bit; 4 x 4 streams' float32 sums within check.py's bound (the streams' edges reach a
    destination in an order set by timing)."""
    graph = GRAPHS[graph_name]()
    algo = spec_of(name)
    config = GraphicionadoConfig(algo=algo, max_vertices=1024, edge_prefetch_lines=16,
                                 stall_injection=25, streams_src=streams, streams_dst=streams)
    program = config.program
    root = best_root(graph) if program.uses_root else None
    iters = 3 if program.mode == "all" and program.iterations != 1 else None
    seed = run_seeds.get(PROGRAM_GRAPHS[name].index(graph_name))
    report = simulate(graph, config, HOSTILE,
                      RunSettings(algo=algo, root=root, iters=iters, seed=seed))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    reference = run_program(program, graph, root=root, iters=iters)
    assert report.iterations == reference.iterations > 0
    assert report.counters["edges"] == reference.counters["edges_processed"]
    check_stream_counters(report, graph.symmetrized() if program.undirected else graph, config)
    if streams > 1 and config.algorithm.floating_point:
        assert report.comparison.startswith("within")
    else:
        assert report.comparison == "exact"
        assert report.values.view(np.uint32).tolist() == \
            np.asarray(reference.values).view(np.uint32).tolist()


def check_stream_counters(report, graph, config):
    """Every edge left one source stream and reached the destination stream owning its
    destination (PageRank: every edge, every iteration)."""
    figures = report.figures["streams"]
    assert len(figures["edges_src"]) == config.streams_src
    assert sum(figures["edges_src"]) == sum(figures["edges_dst"]) == report.counters["edges"]
    if config.algo == "pagerank":
        m = config.streams_dst
        owned = [np.count_nonzero(graph.dst % m == d) * report.iterations for d in range(m)]
        assert figures["edges_dst"] == owned
    assert report.figures["crossbar"]["stalls"] >= 0


@pytest.mark.parametrize("algo", ["bfs", "pagerank"])
def test_rtl_under_hostile_memory(algo):
    graph = GRAPHS["kron9"]()
    config = matrix_config(algo)
    root = best_root(graph) if algo == "bfs" else None
    iters = 2 if algo == "pagerank" else None
    settings = RunSettings(algo=algo, root=root, iters=iters)
    report = simulate(graph, config, HOSTILE, settings)
    assert report.matches, report.first_mismatch
    calm = simulate(graph, config, MEMORY, settings)
    assert calm.matches, calm.first_mismatch
    assert calm.build_cached, "a memory setting changed the build"
    assert report.counters["cycles"] > calm.counters["cycles"]


# One build for the coarsened EdgeIDTable and the two memory channels (and test_cli's
# two-channel run): the two are independent, and each build is most of a minute.
TWO_CHANNEL_BFS = dict(algo="bfs", max_vertices=1024, edge_prefetch_lines=16,
                       stall_injection=25, memory_channels=2, coarsening=8)
TWO_CHANNEL_MEMORY = dataclasses.replace(MEMORY, channels=2)


@pytest.mark.soak      # make test's budget: coarsening is linted in make test
def test_coarsened_edge_id_table():
    graph = GRAPHS["rmat9"]()
    config = GraphicionadoConfig(**TWO_CHANNEL_BFS)
    report = simulate(graph, config, TWO_CHANNEL_MEMORY,
                      RunSettings(algo="bfs", root=best_root(graph)))
    assert report.matches, report.first_mismatch


@pytest.mark.soak      # make test's budget: P4 runs in the Amaranth simulator and is linted in make test
def test_destination_property_read(run_seeds):
    # P4 on: one random VProperty[dst] read per edge through the arbiter, stalls everywhere;
    # one source stream, two destination streams.
    graph = GRAPHS["kron9"]()
    config = GraphicionadoConfig.from_overrides({
        "algo": "sssp", "max_vertices": "1024", "edge_prefetch_lines": "16",
        "stall_injection": "25", "dst_property_read": "1", "streams_dst": "2"})
    root = best_root(graph)
    seed = run_seeds.get(7)
    report = simulate(graph, config, MEMORY, RunSettings(algo="sssp", root=root, seed=seed))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    reference = golden.run("sssp", graph, root=root)
    assert report.counters["edges"] == reference.counters["edges_processed"]
    assert report.counters["edges"] == report.counters["updates"]
    assert report.counters["memory_reads"] > report.counters["edges"]
    assert report.counters["stall_p4"] > 0


@pytest.mark.parametrize("change, message", [
    (dict(max_vertices=256), "need 2 slices of 256 but the design runs at most "
                             "max_slices=1"),
    (dict(max_vertices=256, max_slices=2), "EdgeIDTable covers table_vertices=256"),
])
def test_graph_too_large_is_refused_before_simulation(change, message):
    graph = GRAPHS["kron9"]()
    with pytest.raises(ConfigError, match=message):
        simulate(graph, GraphicionadoConfig(algo="bfs", **change), MEMORY)


# Graph slicing (§VI.A) on Kronecker 9 (512 vertices), on the matrix's builds (the slice
# count is a run-time register): algorithm, slices, memory.
SLICED = [
    ("bfs", 2, HOSTILE),        # 2 x 2 streams: one slice per destination stream
    ("sssp", 4, MEMORY),
    ("cc", 3, MEMORY),          # slices of 192: the last one shorter
    ("pagerank", 4, HOSTILE),   # VProperty double-buffered
]


@pytest.mark.parametrize("algo, slices, memory", SLICED,
                         ids=[f"{algo}-{slices}" for algo, slices, _ in SLICED])
def test_graph_slicing(algo, slices, memory, run_seeds):
    graph = GRAPHS["kron9"]()
    config = matrix_config(algo)
    root = best_root(graph) if algo in ("bfs", "sssp") else None
    iters = 3 if algo == "pagerank" else None
    seed = run_seeds.get(11)
    report = simulate(graph, config, memory,
                      RunSettings(algo=algo, root=root, iters=iters, seed=seed, slices=slices))
    assert report.slices == slices and report.slice_vertices * slices >= 512
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    # The report's check: every vertex compared, none differing, the iterations of both.
    assert report.figures["check"] == {
        "vertices_compared": graph.num_vertices, "vertices_differing": 0,
        "iterations": report.iterations, "golden_iterations": report.golden_iterations}
    reference = golden.run(algo, graph, root=root, iters=iters)
    assert report.counters["edges"] == report.counters["updates"] == \
        reference.counters["edges_processed"]
    check_stream_counters(report, graph if algo != "cc" else graph.symmetrized(), config)


# The compact edge layout (edge_format csr: an edge is its dstid, and its weight when the
# program reads one): each case against the golden model under stalls and the hostile
# memory, with the traffic counted against the image: a weighted frontier program over graph
# slices with a coarsened EdgeIDTable (each edge's source told apart in its group by a tag),
# PageRank's full edge access, the parallel edge readers (with a coarsened table), CF's
# flits, the symmetric optimisation and extended slicing. All in make soak (make test's
# budget, tests/budget.py); make test runs the compact layout in Amaranth's simulator
# (test_top.py's frontier programs, test_edge_read.py).
CSR_CASES = [
    pytest.param("sssp", dict(streams_src=2, max_vertices=64, max_slices=2,
                              table_vertices=128, coarsening=4), 2, "kron7",
                 id="sssp-2x1-sliced-coarsened"),
    pytest.param("pagerank", dict(streams_src=4), None, "kron7", id="pagerank-4x1",
                 marks=pytest.mark.soak),
    pytest.param("bfs", dict(edge_readers=2, streams_src=2, streams_dst=2, coarsening=2),
                 None, "grid",
                 id="bfs-2x2-readers", marks=pytest.mark.soak),
    pytest.param("pagerank", dict(edge_readers=2, streams_src=4, streams_dst=4), None,
                 "lesmis", id="pagerank-4x4-readers", marks=pytest.mark.soak),
    pytest.param("cc", dict(streams_dst=2), None, "kron7-sparse", id="cc-1x2",
                 marks=pytest.mark.soak),
    pytest.param("cf", dict(property_bytes=32, symmetric=True, streams_dst=2), None,
                 "ratings", id="cf-symmetric-1x2", marks=pytest.mark.soak),
    pytest.param("cf", dict(property_bytes=32, symmetric=True, max_vertices=64,
                            max_slices=15), None, "ratings", id="cf-extended",
                 marks=pytest.mark.soak),
]


@pytest.mark.parametrize("algo, shape, slices, graph_name", CSR_CASES)
def test_compact_edges(algo, shape, slices, graph_name, run_seeds):
    graph = GRAPHS[graph_name]()
    config = GraphicionadoConfig(algo=algo, edge_format="csr", edge_prefetch_lines=16,
                                 stall_injection=25, **{"max_vertices": 1024, **shape})
    root = best_root(graph) if algo in ("bfs", "sssp") else None
    iters = 2 if algo == "pagerank" else None
    seed = run_seeds.get(len(graph_name))
    report = simulate(graph, config, HOSTILE,
                      RunSettings(algo=algo, root=root, iters=iters, seed=seed, slices=slices))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    assert config.edge_words == (2 if algo in ("sssp", "cf") else 1)
    check_traffic(report, MEMORY_KINDS)
    if algo == "pagerank" and config.edge_readers == 1:
        # (Parallel readers take the sources as they come free, so a line two of them
        # share is read by each: no exact count.)
        check_pagerank_traffic(report, graph, config, iters)


def test_bad_sssp_weights_are_refused():
    with pytest.raises(golden.GraphError, match="negative"):
        golden.Graph.from_edges(3, [0, 1], [1, 2], np.array([1.0, -2.0], dtype=np.float32))
    fractional = golden.Graph.from_edges(3, [0, 1], [1, 2],
                                         np.array([1.0, 2.5], dtype=np.float32))
    with pytest.raises(golden.GraphError):
        simulate(fractional, GraphicionadoConfig(algo="sssp", max_vertices=16), MEMORY)


# One source stream, two destination streams, no injected stalls (they would hide the
# bandwidth bound): one build for the two tests below.
ONE_SOURCE_PAGERANK = dict(algo="pagerank", max_vertices=1024, streams_dst=2,
                           edge_format="coo")


@pytest.mark.soak      # make test's budget: a performance bound
def test_memory_bandwidth_bounds_the_edge_rate():
    graph = GRAPHS["kron9"]()
    memory = SimMemoryConfig(latency=50, depth_lines=1 << 15, bytes_per_cycle=8)
    report = simulate(graph, GraphicionadoConfig(**ONE_SOURCE_PAGERANK), memory,
                      RunSettings(algo="pagerank", iters=1))
    assert report.matches, report.first_mismatch
    assert report.comparison == "exact (partition order)"
    # A 16-byte edge at 8 bytes per cycle: at most half an edge per cycle.
    assert 0.3 < report.figures["edges_per_process_cycle"] <= 0.5


@pytest.mark.soak
def test_one_source_stream_pagerank_is_bit_exact_in_partition_order():
    # One source stream walking two partitions: the golden model renumbered in that order
    # gives the same float32 sums, bit for bit. In make soak (a build of its own; make test's
    # 20 minutes): in make test, test_graphicionado_amaranth.py checks one stream's PageRank
    # bit for bit in Amaranth's simulator (test_pagerank_bit_exact; test_graph_slicing over
    # seven slices).
    graph = GRAPHS["rmat9"]()
    config = GraphicionadoConfig(**ONE_SOURCE_PAGERANK)
    report = simulate(graph, config, HOSTILE, RunSettings(algo="pagerank", iters=2))
    assert report.comparison == "exact (partition order)"
    assert report.matches, report.first_mismatch
    check_stream_counters(report, graph, config)


@pytest.mark.soak
def test_two_memory_channels(run_seeds):
    """In make soak (the test budget): make test runs two channels through the same
    interconnect in the dynamic graph unit and the BFS engine."""
    # Two channels, lines interleaved: each client's reads come back from both channels, out
    # of order across clients and jittered, and the interconnect restores each client's order.
    graph = GRAPHS["kron9"]()
    config = GraphicionadoConfig(**TWO_CHANNEL_BFS)
    memory = SimMemoryConfig(latency=40, latency_dist="uniform", jitter=30, outstanding=24,
                             reorder=True, pushback=10, bytes_per_cycle=12,
                             depth_lines=1 << 15, channels=2)
    seed = run_seeds.get(5)
    report = simulate(graph, config, memory,
                      RunSettings(algo="bfs", root=best_root(graph), seed=seed))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    c = report.counters
    assert c["edges"] == golden.run("bfs", graph, root=best_root(graph)) \
        .counters["edges_processed"]
    assert c["memory0_reads"] + c["memory1_reads"] == c["memory_reads"]
    assert c["memory0_writes"] + c["memory1_writes"] == c["memory_writes"]
    channels = report.figures["memory"]["channels"]
    assert len(channels) == 2 and all(ch["reads"] > 0 for ch in channels)
    assert all(0 < ch["utilisation"] <= 1 and 0 < ch["refused_share"] < 1
               for ch in channels)


def test_memory_channels_must_match():
    graph = GRAPHS["karate"]()
    with pytest.raises(ConfigError, match="memory_channels=2 but the simulated memory has "
                                          "channels=1"):
        simulate(graph, GraphicionadoConfig(algo="bfs", max_vertices=64, memory_channels=2),
                 MEMORY)


def test_hang_limit_covers_the_clear_phase():
    """The clear phase writes a destination slice a word a cycle with no link moving: a
    262,144-vertex slice once tripped the default 100,000-cycle watchdog (Kronecker 18, one
    stream). The run's limit is never below 1.5 slices; 0 keeps the watchdog off."""
    big = GraphicionadoConfig(algo="pagerank", max_vertices=1 << 18)
    assert _watchdog(big) >= 3 * (1 << 17)
    assert _watchdog(GraphicionadoConfig(algo="pagerank", max_vertices=1 << 18,
                                         streams_dst=8)) == 100_000
    assert _watchdog(GraphicionadoConfig(algo="bfs", max_vertices=1024)) == 100_000
    assert _watchdog(GraphicionadoConfig(algo="bfs", watchdog=0)) == 0


@pytest.mark.soak
def test_collaborative_filtering_on_the_verilog(run_seeds):
    """CF with the paper's 128-byte features on the emitted Verilog (Verilator), with stalls
    between blocks and the hostile memory (refusals, a binding bandwidth, answers out of
    order, a long tail): bit for bit the golden model's features after three iterations.
    In make soak (the test budget): make test checks CF bit for bit in Amaranth's simulator
    (tests/hw/graphicionado/test_top.py)."""
    graph = golden.from_spec("bipartite:users=24,items=10,ratings=3,seed=5")
    config = GraphicionadoConfig(algo="cf", max_vertices=64, edge_prefetch_lines=8,
                                 stall_injection=25)
    seed = run_seeds.get(3)
    report = simulate(graph, config, HOSTILE,
                      RunSettings(algo="cf", iters=3, seed=seed, cf={"gamma": 0.01}))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    assert report.comparison == "exact" and report.values.shape == (34, 32)
    assert report.counters["edges"] == report.counters["updates"] == 3 * graph.num_edges
    assert report.counters["vertex_updates"] == 3 * graph.num_vertices


@pytest.mark.soak
def test_symmetric_extended_slicing_four_streams_on_the_verilog(run_seeds):
    """CF with the symmetric-graph optimisation (§IV.D) and extended slicing (§VI.B) over
    4 x 4 streams on the emitted Verilog: 64-byte features (packets of two flits through
    both crossbars), three partitions of 64 vertices (six slices), the hostile memory and
    stalls; within the derived bound of the directed golden model. About six minutes of
    Verilator build: make soak."""
    graph = golden.from_spec("bipartite:users=100,items=60,ratings=2,seed=5")
    config = GraphicionadoConfig(algo="cf", property_bytes=64, max_vertices=128, max_slices=6,
                                 streams_src=4, streams_dst=4, edge_prefetch_lines=8,
                                 symmetric=True, stall_injection=25)
    seed = run_seeds.get(3)
    report = simulate(graph, config, HOSTILE,
                      RunSettings(algo="cf", iters=2, seed=seed, cf={"gamma": 0.01}))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    assert report.ext_partitions == 3 and report.slices == 6
    assert report.comparison.startswith("within")
    assert report.counters["edges"] == graph.num_edges      # two iterations of half
    # v's update of every edge read, u's in pairs of a source's consecutive edges.
    assert graph.num_edges < report.counters["updates"] < 2 * graph.num_edges


@pytest.mark.soak
@pytest.mark.parametrize("streams", [1, 4])
def test_symmetric_pagerank_on_the_verilog(streams, run_seeds):
    """PageRank with the symmetric-graph optimisation (§IV.D) on the emitted Verilog: each
    undirected edge of a Kronecker graph read once, u's update from v's VProperty and VConst
    kept on chip by v's destination stream, under stalls and the hostile memory. One stream
    each: bit for bit the golden symmetric executor (u updates paired in three levels); 4 x 4 (u's
    updates across the update network): within the derived bound. Make soak: a Verilator
    build each."""
    from sim.graphicionado.run import stored_graph
    graph = golden.from_spec("kron:scale=8,ef=8,seed=4,undirected=1")
    config = GraphicionadoConfig(algo="pagerank", max_vertices=256, streams_src=streams,
                                 streams_dst=streams, symmetric=True, edge_prefetch_lines=16,
                                 stall_injection=25)
    seed = run_seeds.get(streams)
    report = simulate(graph, config, HOSTILE, RunSettings(algo="pagerank", iters=2, seed=seed))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    assert report.comparison == ("exact (symmetric)" if streams == 1 else
                                 report.comparison) and (streams == 1) != \
        report.comparison.startswith("within")
    stored = stored_graph(graph, config).num_edges
    assert report.counters["edges"] == 2 * stored
    assert 2 * stored < report.counters["updates"] < 4 * stored
