"""DepGraph as Verilog (Verilator, cocotb) against the golden model: exact final states for
BFS, SSSP and CC, within the stated tolerance for PageRank, for 1, 2 and 4 engines, 1, 2 and 4
walks in flight per engine, the hub index on and off and stack depths 2, 10 and 16, with random
stalls between the blocks (two seeds per algorithm) and a DRAM whose latency jitters, or one
that pushes back, reorders and limits the bandwidth. Each configuration is one Verilator build; the graphs and memories of
a configuration share it."""

import networkx as nx
import numpy as np
import pytest

import golden
from golden.depgraph import run_depgraph
from hw.lib.config import ConfigError
from hw.depgraph.config import DepGraphConfig
from sim.gateware.sim_memory import SimMemoryConfig
from sim.depgraph.run import MEMORY_KINDS, simulate
from tests.support.traffic import check_traffic
from sim.run_settings import RunSettings
from tests.support.graphs import networkx_graph

MEMORY = SimMemoryConfig(latency=40, latency_dist="uniform", jitter=16, outstanding=64,
                         depth_lines=1 << 15)
# Pushback, fewer reads in flight than the arbiter allows, a binding fractional bandwidth,
# responses out of order across clients and a long-tailed latency: runtime settings only.
HOSTILE = SimMemoryConfig(latency=30, latency_dist="tail", jitter=6, tail_percent=10,
                          tail=300, outstanding=5, pushback=30, reorder=True,
                          bytes_per_cycle=12.5, depth_lines=1 << 15)


GRAPHS = {
    "kron8": lambda: golden.from_spec("kron:scale=8,ef=8,seed=2,weights=1:50"),
    "rmat8": lambda: golden.from_spec("rmat:scale=8,ef=6,seed=3,weights=1:50"),
    "grid": lambda: golden.from_spec("grid:rows=10,cols=16,weights=1:9"),
    "karate": lambda: networkx_graph("karate"),
    "kron7": lambda: golden.from_spec("kron:scale=7,ef=8,seed=2"),
}

# (algo, engines, stack depth, walks per engine, hub index, stall percentage, graphs,
# offsets on chip, update window, stack lines): four builds cover 1, 2 and 4 engines, stack
# depths 2, 10 and 16, 1, 2 and 4 walks in flight per engine, the hub index on and off, the
# offsets on chip and read from memory, the update scheduler of 2 and 4 updates and none, the
# stack levels' own kept lines on and off, and every algorithm (make soak draws the other
# combinations at random). The
# BFS and CC builds and SSSP with stalls run in make soak (make test's 20-minute budget);
# make test keeps 2 and 4 engines, 2 walks, the hub index, both places of the offsets, and
# both ways of handing out responses: under stalls (which refuse responses at random) the
# arbiter waits on the clients' ready, without them it does not (the design's default).
CASES = [
    pytest.param("bfs", 1, 16, 4, False, 20, ["grid"], True, 2, True, marks=pytest.mark.soak),
    pytest.param("sssp", 4, 2, 1, True, 20, ["rmat8"], False, 4, False,
                 marks=pytest.mark.soak),
    pytest.param("cc", 2, 10, 1, True, 20, ["kron8"], True, 0, False,
                 marks=pytest.mark.soak),
    ("pagerank", 2, 10, 2, True, 20, ["kron7"], True, 4, True),
    # Without stall injection the arbiter hands responses out without waiting on the
    # clients' ready (they reserve room): every kind of client (range readers alone and
    # merged, the circular queue, the writer, the DDMU and the learner) against both memories.
    ("sssp", 4, 2, 2, True, 0, ["rmat8"], False, 4, False),
]


def best_root(graph):
    return int(np.argmax(graph.out_degree))


@pytest.mark.parametrize("algo, engines, depth, walks, hub, stalls, graphs, onchip, window, "
                         "lines", CASES,
                         ids=[f"{c[0]}-e{c[1]}-d{c[2]}-w{c[3]}-{'hub' if c[4] else 'nohub'}"
                              f"-s{c[5]}{'' if c[7] else '-offmem'}-u{c[8]}"
                              f"{'-lines' if c[9] else ''}"
                              for c in (getattr(c, "values", c) for c in CASES)])
def test_rtl_matches_golden(algo, engines, depth, walks, hub, stalls, graphs, onchip, window,
                            lines, run_seeds):
    # The paper's walk rule (no limit on a batch that leaves vertices for its walk): the walks
    # then travel the core paths the hub index learns from.
    config = DepGraphConfig(algo=algo, engines=engines, stack_depth=depth, walks=walks,
                            hub_index=hub, bank_vertices=256, stall_injection=stalls,
                            offsets_on_chip=onchip, update_window=window, stack_lines=lines,
                            leave_max_edges=0)
    shortcuts = learnt = lookups = observations = 0
    # Two stall patterns per algorithm: one per graph, and the first graph again with a
    # memory that pushes back, reorders, has a long latency tail and a binding bandwidth
    # (make soak draws many more graphs and memories).
    runs = [(name, run_seeds.get(i), MEMORY) for i, name in enumerate(graphs)]
    runs.append((graphs[0], run_seeds.get(len(graphs)), HOSTILE))
    for name, seed, memory in runs:
        graph = GRAPHS[name]()
        root = best_root(graph) if algo in ("bfs", "sssp") else None
        # Graphs this small hold no hub at the paper's lam over a full sample; an unfloored
        # sample (of one vertex) makes many, which exercises the hub index.
        report = simulate(graph, config, memory,
                          RunSettings(algo=algo, root=root, graph_name=name, seed=seed,
                                      hub_sample_min=1))
        assert report.matches, (name, report.first_mismatch, run_seeds.hint(seed))
        check_traffic(report, MEMORY_KINDS)
        c = report.counters
        # Every edge, shortcut and pseudo-edge sent was applied; every folding visit is a
        # vertex update; every shortcut lent for PageRank was paid back.
        assert c["updates_applied"] == c["edges_fetched"] + c["shortcut_uses"] + \
            c["pseudo_edges"]
        assert c["visits"] == c["vertex_updates"]
        assert c["pseudo_edges"] == (c["shortcut_uses"] if algo == "pagerank" else 0)
        if hub:
            assert c["learner_observations"] <= c["observations"]
            shortcuts += c["shortcut_uses"]
            learnt += c["entries_learnt"]
            lookups += c["lookups"]
            observations += c["learner_observations"]
        else:
            assert c["lookups"] == c["observations"] == 0
        if algo in ("bfs", "sssp"):
            # Every reached vertex but the root was folded at least once.
            reference = run_depgraph(algo, graph, root=root, engines=engines,
                                     stack_depth=depth, hub_index=False)
            reached = np.count_nonzero(reference.states != np.iinfo(np.uint32).max)
            assert c["vertex_updates"] >= reached
    if hub:
        # The graphs have core paths: roots are looked up and paths observed. Entries are
        # learnt and used too, except for CC: a fit needs a root observed twice with
        # different labels, which the golden model does not see on these graphs either.
        assert lookups > 0 and observations > 0
        assert algo == "cc" or (learnt > 0 and shortcuts > 0)


def test_pagerank_against_networkx_fixpoint():
    """The RTL's PageRank is the unnormalised fixpoint r = 0.15 + 0.85 Σ r_u / outdeg(u)."""
    graph = GRAPHS["karate"]()
    # The configuration of the pagerank case above, so the two share a build.
    config = DepGraphConfig(algo="pagerank", engines=2, stack_depth=10, walks=2,
                            hub_index=True, bank_vertices=256, stall_injection=20,
                            stack_lines=True)
    report = simulate(graph, config, MEMORY)
    g = nx.DiGraph()
    g.add_nodes_from(range(graph.num_vertices))
    g.add_edges_from(zip(graph.src.tolist(), graph.dst.tolist()))
    exact = nx.pagerank(g, alpha=0.85, tol=1e-12)
    # networkx normalises to sum 1; the unnormalised form sums to n on this graph (no sinks).
    expected = np.array([exact[v] for v in range(graph.num_vertices)]) * graph.num_vertices
    assert np.allclose(report.values.astype(np.float64), expected, rtol=2e-3, atol=2e-3)


def test_bad_input_is_refused():
    graph = GRAPHS["kron8"]()
    with pytest.raises(ConfigError, match="bank"):
        simulate(graph, DepGraphConfig(algo="bfs", engines=1, bank_vertices=64), MEMORY)
    with pytest.raises(ConfigError, match="configured for"):
        simulate(graph, DepGraphConfig(algo="bfs", bank_vertices=256), MEMORY,
                 RunSettings(algo="sssp"))
    with pytest.raises(ConfigError, match="track_entries"):
        DepGraphConfig(hub_index=True, track_entries=0)


# Every built-in DepGraph runs and every example program it has a GAS form for (spmv has none:
# float32 weights), with 1 and 2 engines, stalls between the blocks and the hostile memory:
# one Verilator build each, in make soak (make test runs the built-ins in the cases above and
# widest's engines in Amaranth's simulator, test_engine.py).
PROGRAMS = ["bfs", "sssp", "cc", "pagerank", "widest", "labelprop", "ppr", "bounded_hops"]


@pytest.mark.soak
@pytest.mark.parametrize("engines", [1, 2])
@pytest.mark.parametrize("name", PROGRAMS)
def test_rtl_programs(name, engines, run_seeds):
    from golden.programs import run_program
    from tests.support.examples import program_of, spec_of
    spec, program = spec_of(name), program_of(name)
    config = DepGraphConfig(algo=spec, engines=engines, stack_depth=10, walks=2,
                            bank_vertices=256, stall_injection=20)
    runs = [("kron8", MEMORY), ("grid", MEMORY), ("kron8", HOSTILE)]
    for index, (graph_name, memory) in enumerate(runs):
        graph = GRAPHS[graph_name]()
        if program.undirected:
            graph = graph.symmetrized()
        root = best_root(graph) if program.uses_root else None
        seed = run_seeds.get(index)
        report = simulate(graph, config, memory,
                          RunSettings(algo=spec, root=root, graph_name=graph_name, seed=seed))
        assert report.matches, (graph_name, report.first_mismatch, run_seeds.hint(seed))
        if program.reduce != "fadd":
            # The fixpoint of a selective program is the program's own result, exactly.
            expected = run_program(program, graph, root=root).values
            assert report.values.tolist() == np.asarray(expected).tolist(), graph_name


@pytest.mark.soak
@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
def test_the_defaults_match_golden(algo, run_seeds):
    """The design's defaults (16 walks an engine, stack lines, four kept lines), two engines,
    under stalls, on both memories."""
    config = DepGraphConfig(algo=algo, engines=2, bank_vertices=256, stall_injection=20)
    graph = GRAPHS["rmat8"]()
    root = best_root(graph) if algo == "sssp" else None
    for k, memory in enumerate((MEMORY, HOSTILE)):
        report = simulate(graph, config, memory,
                          RunSettings(algo=algo, root=root, seed=run_seeds.get(k)))
        assert report.matches, (memory, report.first_mismatch, run_seeds.hint(run_seeds.get(k)))
        c = report.counters
        assert c["updates_applied"] == c["edges_fetched"]
        assert c["scan_read_edges"] <= c["scanned_edges"]
