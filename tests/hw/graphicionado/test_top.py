"""The Graphicionado pipeline end to end in Amaranth's simulator, on small graphs, against
SciPy; quick to run, it guards the pipeline's logic. The cocotb tests run the same design as
Verilog against the golden model."""

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sparse
import scipy.sparse.csgraph as csgraph
from amaranth.sim import Simulator

import golden
from golden import Graph
from golden.programs import run_program
from graphgen.programs import PROGRAMS
from hw.lib.config import ConfigError
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.registers import counter_names
from hw.graphicionado.top import GraphicionadoPipeline
from sim.amaranth_memory import LineMemoryModel, lines_to_words, serve_ports, words_to_lines
from sim.graphicionado.image import build_image
from sim.gateware.stream_throttle import StreamThrottle
from tests.support.examples import example, examples_path

INF = 2**32 - 1


def small_graph(seed, n=40, m=160, symmetric=False):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if symmetric:
        pairs = np.unique(np.concatenate([np.stack([src, dst], 1), np.stack([dst, src], 1)]),
                          axis=0)
        src, dst = pairs[:, 0], pairs[:, 1]
    order = np.lexsort((dst, src))
    return n, src[order], dst[order], rng.integers(1, 9, len(src))[order]


def run_pipeline(config, image, *, jitter=3, stall=0.1, seed=1, limit=100_000,
                 reorder=False, runs=1):
    lines = words_to_lines(image.dram.to_lines().reshape(-1))
    channels = config.memory_channels
    # One memory model per channel (each holding the whole image; channel c only ever
    # touches the lines with addr % channels == c).
    memories = [LineMemoryModel(lines, latency=12, jitter=jitter, stall_probability=stall,
                                seed=seed + c, reorder=reorder) for c in range(channels)]
    dut = GraphicionadoPipeline(config, throttle=StreamThrottle)
    counters = counter_names(config)
    result = {}

    async def memory_process(ctx):
        await serve_ports(ctx, list(zip(memories, dut.memory_ports)))

    async def testbench(ctx):
        ctx.set(dut.regs.write, 1)
        for name, value in image.registers.items():
            ctx.set(dut.regs.addr, dut.register_map[name])
            ctx.set(dut.regs.data, value)
            await ctx.tick()
        ctx.set(dut.regs.write, 0)
        for _ in range(runs):      # each run started the cycle after the last one's done
            ctx.set(dut.control.start, 1)
            await ctx.tick()
            ctx.set(dut.control.start, 0)
            for _ in range(limit):
                if ctx.get(dut.control.done):
                    break
                await ctx.tick()
            else:
                stats = {name: ctx.get(getattr(dut.counters, name)) for name in counters}
                raise AssertionError(f"the pipeline did not finish: {stats}")
        result["iterations"] = ctx.get(dut.counters.iterations)
        result["stats"] = {name: ctx.get(getattr(dut.counters, name)) for name in counters}
        assert not ctx.get(dut.control.error)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run()
    base, count = image.dram.region(image.result_region(result["iterations"]))
    merged = {addr: line for c, memory in enumerate(memories)
              for addr, line in memory.lines.items() if addr % channels == c}
    return image.vertex_values(lines_to_words(merged, base, count)), result


def reference(algo, n, src, dst, weight):
    if algo in ("bfs", "sssp"):
        best = {}
        for s, d, w in zip(src.tolist(), dst.tolist(), weight.tolist()):
            best[s, d] = min(best.get((s, d), INF), w if algo == "sssp" else 1)
        keys = list(best)
        matrix = sparse.csr_matrix(([best[k] for k in keys], ([k[0] for k in keys],
                                                              [k[1] for k in keys])), (n, n))
        distance = csgraph.dijkstra(matrix, indices=0)
        return np.where(np.isinf(distance), INF, distance).astype(np.uint32)
    matrix = sparse.csr_matrix((np.ones(len(src)), (src, dst)), (n, n))
    _, labels = csgraph.connected_components(matrix, directed=True, connection="weak")
    smallest = np.full(labels.max() + 1, n)
    np.minimum.at(smallest, labels, np.arange(n))
    return smallest[labels].astype(np.uint32)


# Amaranth's simulator runs the whole pipeline here; the Verilog tests
# (test_graphicionado_rtl.py) run every algorithm with stalls on larger graphs. The timed
# suite takes BFS in the paper's edge layout and SSSP in the compact one with a coarsened
# table (each edge's source told apart in its group by a tag); make soak the rest of the
# cross (tests/budget.py moved the cases with stalls and CC).
FRONTIER = [(algo, coarsening, stalls, edge_format) for algo in ("bfs", "sssp", "cc")
            for coarsening in (1, 4) for stalls in (0, 40) for edge_format in ("coo", "csr")]
TIMED_FRONTIER = {("bfs", 1, 0, "coo"), ("sssp", 4, 0, "csr"), ("cc", 1, 0, "coo"),
                  ("bfs", 4, 40, "coo"), ("sssp", 4, 40, "csr")}


@pytest.mark.parametrize("algo, coarsening, stall_injection, edge_format", [
    case if case in TIMED_FRONTIER else pytest.param(*case, marks=pytest.mark.soak)
    for case in FRONTIER])
def test_frontier_algorithms(algo, coarsening, stall_injection, edge_format):
    n, src, dst, weight = small_graph(seed=len(algo) + coarsening, symmetric=algo == "cc")
    config = GraphicionadoConfig(algo=algo, max_vertices=64, edge_prefetch_lines=8,
                                 coarsening=coarsening, stall_injection=stall_injection,
                                 edge_format=edge_format)
    graph = Graph.from_edges(n, src, dst, weight)
    image = build_image(graph, algo=algo, root=0, coarsening=coarsening,
                        edge_words=config.edge_words)
    # With stalls the memory also answers the arbiter's clients out of order.
    values, result = run_pipeline(config, image, reorder=stall_injection > 0)
    assert values.tolist() == reference(algo, n, src, dst, weight).tolist()
    stats = result["stats"]
    assert stats["edges"] == stats["updates"] > 0
    assert stats["cycles"] >= stats["cycles_process"] + stats["cycles_apply"]


@pytest.mark.parametrize("name", ["widest", "labelprop", "ppr", "spmv"])
def test_example_programs(name):
    """The example programs (examples/programs/), which the hand-written pipeline never had,
    built from their expressions, with stalls on every link and a memory answering out of
    order: golden.programs.run_program's values bit for bit and its iterations. widest: a max
    Reduce over the weights from the root; labelprop: undirected, few edges so several
    components; ppr: full edge access whose Apply reads the root register (the root not
    vertex 0); spmv: float32 weights times float32 properties, one iteration."""
    program = example(name)
    n, src, dst, weight = small_graph(seed=3, m=30 if program.undirected else 160,
                                      symmetric=program.undirected)
    graph = Graph.from_edges(n, src, dst, weight)
    root = 7 if program.uses_root else None
    iters = 3 if name == "ppr" else program.iterations
    config = GraphicionadoConfig(algo=examples_path(name), max_vertices=64,
                                 edge_prefetch_lines=8, stall_injection=40)
    image = build_image(graph, algo=config.algo, root=root or 0,
                        max_iterations=0xFFFF_FFFF if iters is None else iters,
                        edge_words=config.edge_words)
    values, result = run_pipeline(config, image, reorder=True)
    expected = run_program(program, graph, root=root, iters=iters)
    words = np.asarray(expected.values)
    words = words.view(np.uint32) if words.dtype == np.float32 else words.astype(np.uint32)
    assert values.tolist() == words.tolist()
    assert len(set(values.tolist())) > 2          # not a trivial answer
    assert result["iterations"] == expected.iterations


# Both in make soak: the RTL's test_two_memory_channels checks the channels in make test.
@pytest.mark.parametrize("algo, channels", [
    pytest.param("sssp", 2, marks=pytest.mark.soak),
    pytest.param("bfs", 4, marks=pytest.mark.soak)])
def test_memory_channels(algo, channels):
    """Lines interleaved over several memory channels answering out of order: every client
    still gets its reads in order; the per-channel counters add up to the totals."""
    n, src, dst, weight = small_graph(seed=11)
    config = GraphicionadoConfig(algo=algo, max_vertices=64, edge_prefetch_lines=8,
                                 stall_injection=40, memory_channels=channels)
    image = build_image(Graph.from_edges(n, src, dst, weight), algo=algo, root=0,
                        edge_words=config.edge_words)
    values, result = run_pipeline(config, image, reorder=True)
    assert values.tolist() == reference(algo, n, src, dst, weight).tolist()
    stats = result["stats"]
    for kind in ("reads", "writes"):
        assert sum(stats[f"memory{c}_{kind}"] for c in range(channels)) == \
            stats[f"memory_{kind}"]
    assert all(stats[f"memory{c}_reads"] > 0 for c in range(channels))


@pytest.mark.parametrize("stall_injection", [0, 40])
def test_pagerank_bit_exact(stall_injection):
    n, src, dst, _ = small_graph(seed=5, n=40, m=200)
    graph = Graph.from_edges(n, src, dst)
    config = GraphicionadoConfig(algo="pagerank", max_vertices=64, edge_prefetch_lines=8,
                                 stall_injection=stall_injection)
    values, result = run_pipeline(config, build_image(graph, algo="pagerank", max_iterations=3,
                                                      edge_words=config.edge_words),
                                  reorder=stall_injection > 0)
    expected = golden.run("pagerank", graph, iters=3).values
    assert values.tolist() == expected.view(np.uint32).tolist()
    assert result["iterations"] == 3


def test_a_second_run_finds_the_scratchpad_clear():
    """The scratchpad is cleared once, after reset: a run's apply leaves each entry it reads
    at the Reduce identity, so a second run started right after the first's ``done`` (the
    image unchanged: PageRank reads the ranks it started from) gives the same values, bit
    for bit, here in two slices on two destination streams (a leftover sum would add)."""
    n, src, dst, _ = small_graph(seed=7, n=48, m=120)
    graph = Graph.from_edges(n, src, dst)
    config = GraphicionadoConfig(algo="pagerank", max_vertices=32, table_vertices=64,
                                 max_slices=2, edge_prefetch_lines=8, streams_dst=2)
    image = build_image(graph, algo="pagerank", max_iterations=1, streams_dst=2,
                        slice_vertices=32, max_slices=2, edge_words=config.edge_words)
    assert image.slices == 2
    values, result = run_pipeline(config, image, runs=2)
    expected = golden.run("pagerank", graph, iters=1).values
    assert values.tolist() == expected.view(np.uint32).tolist()
    assert result["iterations"] == 1


def test_program_parameters_are_run_time_registers():
    """Personalized PageRank's alpha and 1 - alpha (Apply's parameters) set through the
    registers param_0 and param_1: the values are golden.programs.run_program's with those
    parameters, bit for bit, and differ from the defaults' on the same build."""
    n, src, dst, _ = small_graph(seed=5, n=40, m=200)
    graph = Graph.from_edges(n, src, dst)
    algo, program = examples_path("ppr"), example("ppr")
    config = GraphicionadoConfig(algo=algo, max_vertices=64, edge_prefetch_lines=8)
    params = {"alpha": 0.5, "one_minus_alpha": 0.5}
    image = build_image(graph, algo=algo, root=7, max_iterations=3, params=params,
                        edge_words=config.edge_words)
    assert {name: image.registers[name] for name in ("param_0", "param_1")} == \
        {"param_0": 0x3F000000, "param_1": 0x3F000000}
    values, _ = run_pipeline(config, image)
    expected = run_program(program, graph, root=7, iters=3, **params).values
    default = run_program(program, graph, root=7, iters=3).values
    assert values.tolist() == expected.view(np.uint32).tolist()
    assert values.tolist() != default.view(np.uint32).tolist()


# Each algorithm once, with and without stalls between them; the Verilog test of P4
# (test_graphicionado_rtl.py) runs SSSP with stalls in the timed suite, so this one's SSSP
# waits for make soak.
@pytest.mark.parametrize("algo, stall_injection", [
    ("bfs", 0), pytest.param("sssp", 40, marks=pytest.mark.soak)])
def test_destination_property_read(algo, stall_injection):
    n, src, dst, weight = small_graph(seed=7 + len(algo))
    graph = Graph.from_edges(n, src, dst, weight)
    image = build_image(graph, algo=algo, root=0,
                        edge_words=GraphicionadoConfig(algo=algo).edge_words)
    stats = {}
    for p4 in (False, True):
        config = GraphicionadoConfig(algo=algo, max_vertices=64, edge_prefetch_lines=8,
                                     dst_property_read=p4, stall_injection=stall_injection)
        values, result = run_pipeline(config, image)
        assert values.tolist() == reference(algo, n, src, dst, weight).tolist()
        stats[p4] = result["stats"]
    assert stats[True]["edges"] == stats[True]["updates"] == stats[False]["edges"] > 0
    # P4 reads one line for every edge that reaches Process_Edge; the rest reads the same.
    assert stats[True]["memory_reads"] - stats[False]["memory_reads"] == stats[True]["edges"]
    assert stats[False]["stall_p4"] == 0
    if stall_injection:
        assert stats[True]["stall_p4"] > 0


def test_dst_property_read_option():
    parse = GraphicionadoConfig.from_overrides
    assert parse({"algo": "sssp", "dst_property_read": "1"}).dst_property_read
    assert parse({"dst_property_read": "true"}).dst_property_read
    assert not parse({"dst_property_read": "0"}).dst_property_read
    enabled = GraphicionadoConfig(dst_property_read=True)
    assert enabled.as_dict()["dst_property_read"] is True
    assert enabled.digest() != GraphicionadoConfig().digest()
    with pytest.raises(ConfigError, match="dst_property_read' expects bool, got 'maybe'"):
        parse({"dst_property_read": "maybe"})
    with pytest.raises(ConfigError, match="dst_property_read must be bool"):
        GraphicionadoConfig(dst_property_read=1)
    with pytest.raises(ConfigError, match=r"full-edge-access pipeline \(pagerank\) drops P4"):
        GraphicionadoConfig(algo="pagerank", dst_property_read=True)


def check_against_golden(values, graph, algo, iters, streams):
    """Assert the pipeline's values are the golden model's (exact, or within the derived
    bound for PageRank with several source streams); return the expectation."""
    from sim.graphicionado.check import expected_values
    expected = expected_values(graph, algo, root=0 if algo == "sssp" else None, iters=iters,
                               streams_src=streams[0], streams_dst=streams[1])
    if expected.relative_bound:
        gold = expected.values.astype(np.float64)
        rtl = values.view(np.float32).astype(np.float64)
        assert np.all(np.abs(rtl - gold) <= expected.relative_bound * np.abs(gold))
    else:
        want = expected.values.view(np.uint32) if algo == "pagerank" else expected.values
        assert values.tolist() == want.astype(np.uint32).tolist()
    return expected


# PageRank on each shape; SSSP (with P4's parallel readers) and CC, which take minutes here,
# on one shape each (the RTL tests run them on others). The timed suite takes PageRank on the
# 2 x 2 shape with parallel readers; make soak the others.
PARALLEL = [pytest.param("pagerank", (1, 4, 1), marks=pytest.mark.soak),
            pytest.param("pagerank", (4, 1, 1), marks=pytest.mark.soak),
            ("pagerank", (2, 2, 3)), pytest.param("sssp", (2, 2, 3), marks=pytest.mark.soak),
            pytest.param("cc", (4, 1, 1), marks=pytest.mark.soak)]


@pytest.mark.parametrize("algo, streams", PARALLEL)
def test_parallel_streams(algo, streams):
    """n source and m destination streams (and r parallel edge readers) through the
    crossbar, with stalls on every link and a memory answering out of order: the same values
    (PageRank: bit for bit in the partition order for one source stream, within the derived
    bound for several)."""
    # 120 random edges (CC: both ways): every stream and partition gets edges.
    n, src, dst, weight = small_graph(seed=11 + len(algo), m=120, symmetric=algo == "cc")
    graph = Graph.from_edges(n, src, dst, weight if algo == "sssp" else None)
    config = GraphicionadoConfig(algo=algo, max_vertices=64, edge_prefetch_lines=8,
                                 streams_src=streams[0], streams_dst=streams[1],
                                 edge_readers=streams[2], dst_property_read=algo == "sssp",
                                 dst_prop_readers=streams[2] if algo == "sssp" else 1,
                                 stall_injection=40)
    iters = 3 if algo == "pagerank" else None
    image = build_image(graph, algo=algo, root=0, max_iterations=iters or 0xFFFF_FFFF,
                        streams_src=streams[0], streams_dst=streams[1],
                        edge_readers=streams[2], edge_words=config.edge_words)
    values, result = run_pipeline(config, image, reorder=True)
    expected = check_against_golden(values, graph, algo, iters, streams)
    stats = result["stats"]
    assert stats["edges"] == stats["updates"] == expected.edges_processed
    assert sum(stats[f"edges_src{s}"] for s in range(streams[0])) == stats["edges"]
    assert sum(stats[f"edges_dst{d}"] for d in range(streams[1])) == stats["edges"]
    # Each destination stream took exactly the edges whose destination it owns.
    for d in range(streams[1]):
        owned = np.count_nonzero(graph.dst % streams[1] == d)
        assert stats[f"edges_dst{d}"] == owned * result["iterations"] or algo != "pagerank"


# (algorithm, (n, m, edge readers), destinations per slice): BFS, and PageRank with one and
# with several source streams; the RTL tests run every algorithm (SSSP and CC take minutes
# in this simulator), so the timed suite keeps PageRank bit for bit in slices here and make
# soak the others.
SLICED = [pytest.param("bfs", (1, 1, 1), 32, marks=pytest.mark.soak),
          ("pagerank", (1, 1, 1), 16),
          pytest.param("pagerank", (2, 2, 2), 32, marks=pytest.mark.soak)]


@pytest.mark.parametrize("algo, streams, slice_vertices", SLICED)
def test_graph_slicing(algo, streams, slice_vertices):
    """Graph slicing (§VI.A): a graph of 100 vertices in slices of 16 or 32 destinations
    (7 or 4 slices; BFS in 4, as the RTL tests run it too), with stalls on every link and a
    memory answering out of order: the golden model's values (PageRank with one source
    stream bit for bit, each destination's contributions arriving in the unsliced order;
    with several, within the derived bound, as unsliced), every edge of an active vertex
    processed once per iteration."""
    n, src, dst, weight = small_graph(seed=21 + len(algo), n=100, m=400, symmetric=algo == "cc")
    graph = Graph.from_edges(n, src, dst, weight if algo == "sssp" else None)
    config = GraphicionadoConfig(algo=algo, max_vertices=64, table_vertices=128,
                                 coarsening=2, max_slices=8, edge_prefetch_lines=8,
                                 streams_src=streams[0], streams_dst=streams[1],
                                 edge_readers=streams[2], stall_injection=40)
    iters = 2 if algo == "pagerank" else None     # the second reads the first's ranks
    image = build_image(graph, algo=algo, root=0, max_iterations=iters or 0xFFFF_FFFF,
                        coarsening=2, streams_src=streams[0], streams_dst=streams[1],
                        edge_readers=streams[2], slice_vertices=slice_vertices, max_slices=8,
                        edge_words=config.edge_words)
    assert image.slices == -(-n // slice_vertices) > 1
    values, result = run_pipeline(config, image, reorder=True)
    expected = check_against_golden(values, graph, algo, iters, streams)
    stats = result["stats"]
    assert result["iterations"] == expected.iterations
    assert stats["edges"] == stats["updates"] == expected.edges_processed


def test_register_map():
    """The registers at consecutive addresses in :func:`registers` order; full edge access
    keeps max_slices x L x edge_readers + 1 edge ranges among them, and a configuration
    needing more than the register file's 256 is refused with one line."""
    from hw.graphicionado.registers import BASE_REGISTERS, registers
    config = GraphicionadoConfig(algo="pagerank", max_slices=59, streams_src=4)
    pipeline = GraphicionadoPipeline(config)
    pipeline._MustUse__silence = True     # its ports only, never elaborated
    regs = pipeline.register_map
    assert list(regs) == list(registers(config)) and len(regs) == 14 + 59 * 4 + 1
    assert [regs[name] for name in BASE_REGISTERS] == list(range(len(BASE_REGISTERS)))
    with pytest.raises(ConfigError, match="271 registers, more than the register file's 256"):
        GraphicionadoConfig(algo="pagerank", max_slices=64, streams_src=4)


def test_slicing_refuses_what_cannot_run():
    from sim.graphicionado.run import check_graph, plan_slices
    n, src, dst, weight = small_graph(seed=1, n=100, m=300)
    graph = Graph.from_edges(n, src, dst, weight)
    config = GraphicionadoConfig(algo="bfs", max_vertices=64, table_vertices=128, max_slices=8)
    assert plan_slices(100, config) == 64
    assert plan_slices(100, config, slices=4) == 32
    assert plan_slices(40, config) == 48
    with pytest.raises(ConfigError, match="need 2 slices of 64 but the design runs at most "
                                          "max_slices=1"):
        plan_slices(100, GraphicionadoConfig(max_vertices=64, table_vertices=128))
    with pytest.raises(ConfigError, match="1 slice of 100 vertices need 112 destinations"):
        plan_slices(100, config, slices=1)
    with pytest.raises(ConfigError, match=r"100 vertices do not make 8 slices: a slice is a "
                                          r"multiple of 16 vertices .* slices of 16 make 7"):
        plan_slices(100, config, slices=8)
    # One slice of a graph the scratchpad holds, though a slice's size rounds up past it.
    assert plan_slices(100, dataclasses.replace(config, max_vertices=100), slices=1) == 112
    with pytest.raises(ConfigError, match="graph slicing needs slices of a multiple of 64"):
        plan_slices(100, GraphicionadoConfig(max_vertices=48, table_vertices=128,
                                             streams_dst=4, max_slices=8))
    with pytest.raises(ConfigError, match="EdgeIDTable covers table_vertices=64"):
        check_graph(graph, "bfs", GraphicionadoConfig(max_vertices=64, max_slices=8))
    assert check_graph(graph, "bfs", config) == 64


# Collaborative filtering (§IV.E): (K features, (n, m, edge readers)). K = 4 is a 16-byte
# property, one flit of four lanes, over two partitions and two edge readers; the paper's
# K = 32 (four flits) runs on the Verilog in test_graphicionado_rtl.py, 4 x 4 and in slices
# below.
CF_CASES = [(4, (1, 2, 2))]


@pytest.mark.parametrize("K, streams", CF_CASES)
def test_collaborative_filtering(K, streams):
    """CF on a small bipartite rating graph with stalls on every link and a memory answering
    out of order: bit for bit the golden model's features (one source stream: each
    destination's updates arrive in the golden model's order, or in partition order)."""
    graph = golden.bipartite(8, 5, 2, seed=2)
    cf = dict(K=K, gamma=0.01, lam=0.05, seed=3, init_scale=0.5)
    config = GraphicionadoConfig(algo="cf", property_bytes=4 * K,
                                 max_vertices=16 * max(streams[:2]),
                                 edge_prefetch_lines=8, streams_src=streams[0],
                                 streams_dst=streams[1], edge_readers=streams[2],
                                 stall_injection=40)
    image = build_image(graph, algo="cf", cf=cf, max_iterations=2, streams_src=streams[0],
                        streams_dst=streams[1], edge_readers=streams[2],
                        edge_words=config.edge_words)
    values, result = run_pipeline(config, image, reorder=True)
    from sim.graphicionado.check import expected_values
    expected = expected_values(graph, "cf", root=None, iters=2, streams_src=streams[0],
                               streams_dst=streams[1], cf=cf)
    assert expected.comparison.startswith("exact")
    assert values.shape == (graph.num_vertices, K)
    assert values.tolist() == expected.values.view(np.uint32).tolist()
    stats = result["stats"]
    assert result["iterations"] == 2
    assert stats["edges"] == stats["updates"] == expected.edges_processed
    assert sum(stats[f"edges_src{s}"] for s in range(streams[0])) == stats["edges"]


@pytest.mark.soak
def test_collaborative_filtering_four_streams():
    """CF with 64-byte features (two flits: the packets of the paper's 128-byte ones, at half
    the simulation time) over 4 x 4 streams, stalls and a reordering memory: four source
    streams' updates meet at each destination in an order set by timing,
    so the features must lie within the derived per-feature bound (``cf_bound``), which must
    itself be tight (far below the features' size)."""
    from sim.graphicionado.check import expected_values
    graph = golden.bipartite(8, 5, 2, seed=4)
    cf = dict(K=16, gamma=0.01, lam=0.05, seed=3, init_scale=0.5)
    config = GraphicionadoConfig(algo="cf", property_bytes=64, max_vertices=64,
                                 edge_prefetch_lines=8, streams_src=4, streams_dst=4,
                                 stall_injection=40)
    image = build_image(graph, algo="cf", cf=cf, max_iterations=2, streams_src=4,
                        streams_dst=4, edge_words=config.edge_words)
    values, result = run_pipeline(config, image, reorder=True)
    expected = expected_values(graph, "cf", root=None, iters=2, streams_src=4, streams_dst=4,
                               cf=cf)
    bound = expected.absolute_bound
    # Tight, feature by feature: far below each feature's own size.
    assert bound is not None and np.all(bound < 1e-4 * np.abs(expected.values))
    rtl = values.view(np.float32).astype(np.float64)
    assert np.all(np.abs(rtl - expected.values) <= bound)
    # The order did differ (these stalls and memory are seeded): the bound was needed.
    assert np.any(values != expected.values.view(np.uint32))
    stats = result["stats"]
    assert stats["edges"] == stats["updates"] == expected.edges_processed
    assert [stats[f"edges_dst{d}"] for d in range(4)] == \
        [2 * int(np.count_nonzero(graph.dst % 4 == d)) for d in range(4)]


@pytest.mark.soak          # (the RTL tests slice CF on the Verilog; make test's budget)
def test_collaborative_filtering_in_slices():
    """CF in two graph slices (§VI.A with large properties): each slice's scratchpad holds
    its destinations' flits, VProperty alternates between two arrays so that the second
    slice reads the features the iteration started with; bit for bit the golden model's."""
    from sim.graphicionado.check import expected_values
    graph = golden.bipartite(10, 8, 2, seed=6)
    cf = dict(K=16, gamma=0.01, lam=0.05, seed=3, init_scale=0.5)
    config = GraphicionadoConfig(algo="cf", property_bytes=64, max_vertices=16, max_slices=2,
                                 edge_prefetch_lines=8, stall_injection=40)
    image = build_image(graph, algo="cf", cf=cf, max_iterations=2, slice_vertices=16,
                        max_slices=2, edge_words=config.edge_words)
    assert image.slices == 2 and image.double_vprop
    values, result = run_pipeline(config, image, reorder=True)
    expected = expected_values(graph, "cf", root=None, iters=2, streams_src=1, streams_dst=1,
                               cf=cf)
    assert result["iterations"] == 2
    assert values.tolist() == expected.values.view(np.uint32).tolist()


# In make soak: test_extended_slicing checks the symmetric optimisation bit for bit too.
@pytest.mark.parametrize("streams", [pytest.param((1, 1), marks=pytest.mark.soak)])
def test_collaborative_filtering_symmetric(streams):
    """The symmetric-graph optimisation (§IV.D): each undirected rating edge stored once and
    read once, updating both ends. One stream each: bit for bit the golden model's
    symmetric executor; with several (u's updates crossing the update network) within the
    derived bound of the directed golden model (2 x 2 in extended slices below; 4 x 4 on
    the Verilog in make soak, test_graphicionado_rtl.py). Half the edges read, twice the
    updates reduced, with stalls on every link and a reordering memory."""
    from sim.graphicionado.check import expected_values
    from sim.graphicionado.run import stored_graph
    graph = golden.bipartite(8, 5, 2, seed=2)
    n, m = streams
    K = 8 if n == 1 else 4
    cf = dict(K=K, gamma=0.01, lam=0.05, seed=3, init_scale=0.5)
    config = GraphicionadoConfig(algo="cf", property_bytes=4 * K, max_vertices=16 * max(n, m),
                                 edge_prefetch_lines=8, streams_src=n, streams_dst=m,
                                 symmetric=True, stall_injection=40)
    stored = stored_graph(graph, config)
    assert 2 * stored.num_edges == graph.num_edges      # no self-loops in a bipartite graph
    image = build_image(stored, algo="cf", cf=cf, max_iterations=2, streams_src=n,
                        streams_dst=m, edge_words=config.edge_words)
    values, result = run_pipeline(config, image, reorder=True)
    expected = expected_values(graph, "cf", root=None, iters=2, streams_src=n, streams_dst=m,
                               cf=cf, symmetric=True, paired_runs=True)
    assert result["iterations"] == 2
    stats = result["stats"]
    if (n, m) == (1, 1):
        assert expected.comparison.startswith("exact")
        assert values.tolist() == expected.values.view(np.uint32).tolist()
        assert stats["updates"] == expected.updates
    else:
        rtl = values.view(np.float32).astype(np.float64)
        assert np.all(np.abs(rtl - expected.values) <= expected.absolute_bound)
    assert stats["edges"] == expected.edges_processed == 2 * stored.num_edges
    # Each edge's v update, and u's in pairs of a source's consecutive edges.
    assert stats["edges"] < stats["updates"] < 2 * stats["edges"]


# The 2 x 2 case (within the bound) in make soak, for make test's time.
@pytest.mark.parametrize("streams", [(1, 1), pytest.param((2, 2), marks=pytest.mark.soak)])
def test_pagerank_symmetric(streams):
    """The symmetric-graph optimisation for PageRank (§IV.D): each undirected edge stored
    once and read once, u's update made from v's VProperty and VConst, which v's destination
    stream keeps on chip (loaded before each processing phase), with stalls on every link
    and a reordering memory. One stream each: bit for bit the golden model's symmetric
    executor with paired source updates; 2 x 2: within the derived bound."""
    from sim.graphicionado.check import expected_values
    from sim.graphicionado.run import stored_graph
    n_src, n_dst = streams
    n, src, dst, _ = small_graph(seed=9, n=40, m=150, symmetric=True)
    src, dst = np.append(src, [3, 7]), np.append(dst, [3, 7])        # two self-loops
    graph = Graph.from_edges(n, src, dst).symmetrized()
    config = GraphicionadoConfig(algo="pagerank", max_vertices=64, edge_prefetch_lines=8,
                                 streams_src=n_src, streams_dst=n_dst, symmetric=True,
                                 stall_injection=40)
    stored = stored_graph(graph, config)
    image = build_image(stored, algo="pagerank", max_iterations=3, streams_src=n_src,
                        streams_dst=n_dst, edge_words=config.edge_words, undirected=graph)
    values, result = run_pipeline(config, image, reorder=True)
    expected = expected_values(graph, "pagerank", root=None, iters=3, streams_src=n_src,
                               streams_dst=n_dst, symmetric=True, paired_runs=True)
    assert result["iterations"] == 3
    stats = result["stats"]
    if streams == (1, 1):
        assert expected.comparison == "exact (symmetric)"
        assert values.tolist() == expected.values.view(np.uint32).tolist()
        assert stats["updates"] == expected.updates
    else:
        rtl = values.view(np.float32).astype(np.float64)
        assert np.all(np.abs(rtl - expected.values) <=
                      expected.relative_bound * np.abs(expected.values))
    assert stats["edges"] == expected.edges_processed == 3 * stored.num_edges
    assert stats["edges"] < stats["updates"] < 2 * stats["edges"]


# The 2 x 2 case (within the bound, not bit for bit) in make soak, for make test's time. The
# one-stream case is make test's check of extended slicing and of the symmetric-graph
# optimisation (the Verilog runs of both are in make soak).
@pytest.mark.parametrize("streams", [(1, 1), pytest.param((2, 2), marks=pytest.mark.soak)])
def test_extended_slicing(streams):
    """Extended graph slicing for a symmetric graph (§VI.B): four partitions of 16 (of 32
    with two streams: a partition is a multiple of 16 L vertices), ten slices run by the
    hardware schedule, the second region of each scratchpad written back and loaded between
    slices (in the second column the load beside the write-back, ``spill_overlap``), with
    stalls and a reordering memory. One stream each: bit for bit the golden
    model's extended slicing; 2 x 2: within the derived bound of the directed golden model,
    as is the one-stream run (against plain slicing's result, which equals the unsliced
    one)."""
    from sim.graphicionado.check import cf_bound, expected_values
    from sim.graphicionado.run import stored_graph
    n, m = streams
    size = 16 * max(n, m)
    graph = golden.bipartite(30 * m, 20 * m, 1, seed=7)     # 50 m vertices: 4 partitions
    K = 8 if n == 1 else 4
    cf = dict(K=K, gamma=0.01, lam=0.05, seed=3, init_scale=0.5)
    config = GraphicionadoConfig(algo="cf", property_bytes=4 * K, max_vertices=2 * size,
                                 max_slices=10, edge_prefetch_lines=8, streams_src=n,
                                 streams_dst=m, symmetric=True, stall_injection=40)
    stored = stored_graph(graph, config)
    image = build_image(stored, algo="cf", cf=cf, max_iterations=2, slice_vertices=size,
                        max_slices=10, extended=True, streams_src=n, streams_dst=m,
                        edge_words=config.edge_words)
    assert image.slices == 10 and image.registers["ext_partitions"] == 4
    values, result = run_pipeline(config, image, reorder=True)
    expected = expected_values(graph, "cf", root=None, iters=2, streams_src=n, streams_dst=m,
                               cf=cf, symmetric=True, partition_vertices=size,
                               paired_runs=True)
    assert result["iterations"] == 2
    stats = result["stats"]
    if (n, m) == (1, 1):
        assert values.tolist() == expected.values.view(np.uint32).tolist()
        assert stats["updates"] == expected.updates
    program = golden.cf_program(**cf)
    setup = program.init(graph)
    plain = golden.execute(program, graph, setup, 2).values
    bound = cf_bound(graph, program, setup, 2, cf["gamma"], cf["lam"])
    assert np.all(np.abs(values.view(np.float32).astype(np.float64) - plain) <= bound)
    assert stats["edges"] == 2 * stored.num_edges
    assert stats["edges"] <= stats["updates"] <= 2 * stats["edges"]
    # Region B goes to memory after each of the six slices below the diagonal: a
    # partition's K-word temporaries, size * K / 16 lines, each time (VProperty's writes,
    # the rest, are fewer: 34 m vertices of K words an iteration).
    assert stats["memory_writes"] >= 2 * 6 * size * K // 16


def test_extended_slicing_holds_edges_until_the_region_is_ready():
    """A slice's processing starts beside its region's load or clear
    (``process_overlap``, §VI.B): its first edges are read while the region loads and wait
    at P3 (``stall_region``). Here the load is slow (a line at a time, 64 vertices of 32
    features) against a short pipeline (no stalls), so an edge let through would reach the
    Atomic Update while the load still writes the region: the result stays bit for bit the
    golden model's only if the edges wait."""
    from sim.graphicionado.check import expected_values
    from sim.graphicionado.run import stored_graph
    size, K = 64, 32
    graph = golden.bipartite(80, 48, 2, seed=5)     # 128 vertices: 2 partitions
    cf = dict(K=K, gamma=0.01, lam=0.05, seed=3, init_scale=0.5)
    config = GraphicionadoConfig(algo="cf", property_bytes=4 * K, max_vertices=2 * size,
                                 max_slices=3, edge_prefetch_lines=8, symmetric=True,
                                 spill_prefetch_lines=1)
    stored = stored_graph(graph, config)
    image = build_image(stored, algo="cf", cf=cf, max_iterations=1, slice_vertices=size,
                        max_slices=3, extended=True, edge_words=config.edge_words)
    assert image.slices == 3 and image.registers["ext_partitions"] == 2
    values, result = run_pipeline(config, image, jitter=0, stall=0)
    expected = expected_values(graph, "cf", root=None, iters=1, streams_src=1,
                               streams_dst=1, cf=cf, symmetric=True,
                               partition_vertices=size, paired_runs=True)
    assert values.tolist() == expected.values.view(np.uint32).tolist()
    assert result["stats"]["stall_region"] > 500


def test_symmetric_scalar_programs_refuse_what_is_not_built():
    """The symmetric optimisation of a scalar program keeps its destinations' VProperty and
    VConst on chip: built for full-edge Float32 programs reduced by fadd, with both update
    paths and no slicing."""
    config = GraphicionadoConfig(algo="pagerank", symmetric=True)
    assert config.scratchpad_properties and config.paths == 2
    assert not GraphicionadoConfig(algo="cf", property_bytes=32, symmetric=True) \
        .scratchpad_properties
    for change, message in ((dict(algo="sssp"), "full-edge"),
                            (dict(update_paths=1), "update_paths=2"),
                            (dict(max_slices=3), "max_slices=1")):
        with pytest.raises(ConfigError, match=message):
            GraphicionadoConfig(**{"algo": "pagerank", "symmetric": True, **change})


def test_update_paths_refuses_what_cannot_be_built():
    """``update_paths`` (§IV.D's duplicated P5–P9): 1 or 2; two paths over the update
    network take a port per path and stream, so 8 destination streams at most; without
    ``symmetric`` there is one path."""
    cf = dict(algo="cf", property_bytes=32, symmetric=True)
    for bad in (0, 3):
        with pytest.raises(ConfigError, match=f"update_paths must be 1 or 2, not {bad!r}"):
            GraphicionadoConfig(**cf, update_paths=bad)
    with pytest.raises(ConfigError, match="update_paths must be int, not True"):
        GraphicionadoConfig(**cf, update_paths=True)
    with pytest.raises(ConfigError, match="update_paths 2 over 16 destination streams"):
        GraphicionadoConfig(**cf, streams_dst=16)
    assert GraphicionadoConfig(**cf, streams_dst=16, update_paths=1).paths == 1
    assert GraphicionadoConfig(**cf, streams_dst=8).paths == 2
    assert GraphicionadoConfig(algo="pagerank").paths == 1
    from hw.graphicionado.flit_process_edge import FlitProcessEdge
    from graphgen.programs import cf_program
    with pytest.raises(ConfigError, match="paths must be 1, or 2 with symmetric, not 2"):
        FlitProcessEdge(program=cf_program(8), paths=2)
