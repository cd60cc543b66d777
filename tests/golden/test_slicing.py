"""Graph slicing (§VI.A), extended slicing and the symmetric-graph optimisation (§IV.D,
§VI.B) in the golden model: against the unsliced executor, networkx, and the rules of the
paper's control."""

import networkx as nx
import numpy as np
import pytest

import golden
from golden import PROGRAMS, cf_program, execute
from golden.graphicionado import (SliceStep, execute_sliced, execute_symmetric,
                                  extended_schedule, slice_bounds, sliced_edges, slices_needed,
                                  stored_edges)
from sim.graphicionado.check import pagerank_bound


GRAPHS = {
    "kron8": lambda: golden.from_spec("kron:scale=8,ef=8,seed=3"),
    "rmat7": lambda: golden.from_spec("rmat:scale=7,ef=4,seed=5"),
    "grid": lambda: golden.from_spec("grid:rows=9,cols=7,seed=2"),
}


def _setup(algo, graph):
    graph = graph.symmetrized() if algo == "cc" else graph
    program = PROGRAMS[algo]
    setup = program.init(graph, 0) if algo in ("bfs", "sssp") else program.init(graph)
    return program, graph, setup


@pytest.mark.parametrize("slice_vertices", [1, 7, 64, 1000])
@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc", "pagerank"])
def test_sliced_run_equals_the_unsliced_run(algo, name, slice_vertices):
    program, graph, setup = _setup(algo, GRAPHS[name]())
    iters = 6 if algo == "pagerank" else None
    whole = execute(program, graph, setup, iters)
    sliced = execute_sliced(program, graph, setup, slice_vertices, iters)
    # Bit for bit, PageRank included: each destination still sums in source order.
    assert sliced.values.tobytes() == whole.values.tobytes()
    assert sliced.iterations == whole.iterations
    assert sliced.counters["edges_processed"] == whole.counters["edges_processed"]
    slices = slices_needed(graph.num_vertices, slice_vertices)
    assert sliced.counters["slices"] == slices
    assert sliced.counters["vertex_visits"] == slices * sum(
        whole.counters["active_per_iteration"])


def test_sliced_bfs_matches_networkx():
    graph = GRAPHS["kron8"]()
    program, _, setup = _setup("bfs", graph)
    result = execute_sliced(program, graph, setup, slice_vertices=37)
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(graph.num_vertices))
    nxg.add_edges_from(zip(graph.src.tolist(), graph.dst.tolist()))
    levels = nx.single_source_shortest_path_length(nxg, 0)
    expected = np.full(graph.num_vertices, golden.UNREACHED, dtype=np.uint32)
    for vertex, level in levels.items():
        expected[vertex] = level
    assert np.array_equal(result.values, expected)


def test_each_edge_in_exactly_one_slice_with_its_table():
    graph = GRAPHS["rmat7"]()
    slices = sliced_edges(graph, 20)
    bounds = slice_bounds(graph.num_vertices, 20)
    assert len(slices) == len(bounds) - 1 == -(-graph.num_vertices // 20)
    seen = np.concatenate([ids for ids, _ in slices])
    assert np.array_equal(np.sort(seen), np.arange(graph.num_edges))
    for (ids, table), low, high in zip(slices, bounds[:-1], bounds[1:]):
        assert np.all((graph.dst[ids] >= low) & (graph.dst[ids] < high))
        assert np.all(np.diff(ids) > 0)                      # edge-id order kept
        for u in range(graph.num_vertices):
            assert np.all(graph.src[ids[table[u]:table[u + 1]]] == u)
        assert table[-1] == ids.size


def test_slicing_refuses_empty_slices():
    with pytest.raises(golden.GraphError, match="slice_vertices must be at least 1"):
        slices_needed(10, 0)


# ------------------------------------------------------------------ the extended schedule

def test_two_partitions_give_the_papers_figure_11():
    assert [(s.src, s.dst) for s in extended_schedule(2)] == [(0, 0), (1, 0), (1, 1)]


def test_four_partitions_schedule():
    """The four-partition control written out (the paper's figure 12 is not in our text;
    this is the schedule its rules give, column by column)."""
    S = SliceStep
    assert extended_schedule(4) == [
        S(0, 0, clear=(0,)),
        S(1, 0, clear=(1,), store=(1,)),
        S(2, 0, clear=(2,), store=(2,)),
        S(3, 0, clear=(3,), store=(3,), apply=(0,)),
        S(1, 1, load=(1,)),
        S(2, 1, load=(2,), store=(2,)),
        S(3, 1, load=(3,), store=(3,), apply=(1,)),
        S(2, 2, load=(2,)),
        S(3, 2, load=(3,), store=(3,), apply=(2,)),
        S(3, 3, load=(3,), apply=(3,)),
    ]


@pytest.mark.parametrize("partitions", range(1, 9))
def test_schedule_follows_the_papers_rules(partitions):
    steps = extended_schedule(partitions)
    pairs = [(s.src, s.dst) for s in steps]
    assert len(pairs) == partitions * (partitions + 1) // 2
    assert sorted(pairs) == sorted((i, j) for j in range(partitions)
                                   for i in range(j, partitions))
    resident, in_memory, applied = set(), set(), set()
    for index, step in enumerate(steps):
        for p in step.clear:
            assert p not in resident and p not in in_memory and p not in applied
            resident.add(p)
        for p in step.load:
            assert p in in_memory and p not in resident
            in_memory.remove(p)
            resident.add(p)
        # Both ends of the slice are in the scratchpad, and never more than two partitions.
        assert {step.src, step.dst} <= resident and len(resident) <= 2
        assert not {step.src, step.dst} & applied
        for p in step.store:
            resident.remove(p)
            in_memory.add(p)
        for p in step.apply:
            # Applied after the last slice that touches it, once.
            assert all(p not in (later.src, later.dst) for later in steps[index + 1:])
            resident.remove(p)
            applied.add(p)
    assert applied == set(range(partitions)) and not resident and not in_memory


# ------------------------------------------------------------ the symmetric optimisation

def _symmetric(name):
    return GRAPHS[name]().without_duplicates().symmetrized()


@pytest.mark.parametrize("partitions", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["kron8", "grid"])
def test_symmetric_pagerank_reads_each_edge_once(name, partitions):
    graph = _symmetric(name)
    program = PROGRAMS["pagerank"]
    setup = program.init(graph)
    whole = execute(program, graph, setup, 5)
    once = execute_symmetric(program, graph, setup, partitions, 5)
    bound = pagerank_bound(graph, 5)
    assert np.max(np.abs(once.values / whole.values - 1)) <= bound
    stored = stored_edges(graph).size
    assert once.counters["edges_per_iteration"] == [stored] * 5
    loops = int(np.count_nonzero(graph.src == graph.dst))
    assert 2 * stored - loops == graph.num_edges


def test_symmetric_cf_updates_both_ends():
    graph = golden.from_spec("bipartite:users=12,items=9,ratings=4,seed=4")
    program = cf_program(K=4)
    setup = program.init(graph)
    whole = execute(program, graph, setup, 3)
    for partitions in (1, 3):
        once = execute_symmetric(program, graph, setup, partitions, 3)
        np.testing.assert_allclose(once.values, whole.values, rtol=1e-5, atol=1e-6)


def _paired_by_hand(program, graph, setup, iterations):
    """The paired-runs rule edge by edge in plain Python (one partition), as the hardware
    applies it: v's update, then the u update the edge releases; the held one at the end."""
    from golden.graphicionado.extended_slicing import stored_edges as kept_edges
    vprop = np.array(setup.vprop, dtype=program.dtype)
    kept = kept_edges(graph)
    for _ in range(iterations):
        temp = np.empty_like(vprop)
        temp[:] = program.identity
        held = None
        for e in kept:
            u, v = int(graph.src[e]), int(graph.dst[e])
            w = None if setup.weight is None else setup.weight[e:e + 1]
            c = setup.vconst
            to_v = program.process_edge(w, vprop[u:u + 1], None if c is None else c[u:u + 1],
                                        vprop[v:v + 1] if program.uses_dst_property else None)
            to_u = program.process_edge(w, vprop[v:v + 1], None if c is None else c[v:v + 1],
                                        vprop[u:u + 1] if program.uses_dst_property else None)
            temp[v] = program.reduce(temp[v], to_v[0])
            if u == v:
                out, held = held, None
            elif held is not None and held[0] == u:
                out, held = (u, program.reduce(held[1], to_u[0])), None
            else:
                out, held = held, (u, to_u[0])
            if out is not None:
                temp[out[0]] = program.reduce(temp[out[0]], out[1])
        if held is not None:
            temp[held[0]] = program.reduce(temp[held[0]], held[1])
        vprop = np.asarray(program.apply(vprop, temp, setup.vconst), dtype=program.dtype)
    return vprop


@pytest.mark.parametrize("spec", ["bipartite:users=12,items=9,ratings=4,seed=4",
                                  "kron:scale=6,ef=4,seed=3,weights=1:5,undirected=1"])
def test_paired_source_runs_follow_the_rule_bit_for_bit(spec):
    """``paired_runs``: a source's consecutive u updates reduced in pairs first, a
    self-loop breaking a run; the vectorised model equals the rule applied edge by edge, and
    lies near the directed run. On the rating graph it differs from the unpaired order (only
    runs of 4 edges or more can: from an identity of 0, ((x1 + x2) + x3) is the same
    either way)."""
    graph = golden.from_spec(spec)
    program = cf_program(K=4)
    setup = program.init(graph)
    paired = execute_symmetric(program, graph, setup, 1, 2, paired_runs=True)
    by_hand = _paired_by_hand(program, graph, setup, 2)
    assert paired.values.view(np.uint32).tolist() == by_hand.view(np.uint32).tolist()
    if spec.startswith("bipartite"):
        plain = execute_symmetric(program, graph, setup, 1, 2)
        assert paired.values.view(np.uint32).tolist() != \
            plain.values.view(np.uint32).tolist()
    whole = execute(program, graph, setup, 2)
    np.testing.assert_allclose(paired.values, whole.values, rtol=1e-4, atol=1e-5)


def test_extended_slicing_traffic_counts_the_schedule():
    graph = _symmetric("grid")
    program = PROGRAMS["pagerank"]
    result = execute_symmetric(program, graph, program.init(graph), 4, 2)
    size = -(-graph.num_vertices // 4)
    sizes = [min(size, graph.num_vertices - p * size) for p in range(4)]
    per_iteration_loads = sum(sizes[p] for s in extended_schedule(4) for p in s.load)
    assert result.counters["vtemp_loads"] == 2 * per_iteration_loads
    assert result.counters["vtemp_stores"] == 2 * per_iteration_loads


def test_symmetric_optimisation_refuses_frontier_algorithms_and_directed_graphs():
    graph = _symmetric("grid")
    with pytest.raises(golden.GraphError, match="full-edge algorithms"):
        execute_symmetric(PROGRAMS["bfs"], graph, PROGRAMS["bfs"].init(graph, 0))
    with pytest.raises(golden.GraphError, match="needs a symmetric graph"):
        stored_edges(GRAPHS["kron8"]())
