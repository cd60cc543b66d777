"""The built-in programs through the NumPy back end (golden.programs) against golden.algorithms
(exactly: values bit for bit, iterations and counters) and, for the new programs, against
plain-Python loops written from their definitions."""

import heapq

import numpy as np
import pytest

import golden
from golden.programs import run_program
from graphgen.programs import PROGRAMS, cf_program

GRAPHS = ["kron:scale=7,ef=8,seed=1", "grid:rows=8,cols=9,weights=1:9",
          "rmat:scale=6,ef=6,seed=3,weights=1:20"]
RATINGS = ["bipartite:users=40,items=30,ratings=5,seed=2",
           "bipartite:users=25,items=50,ratings=7,seed=5"]


def busiest(graph) -> int:
    """A root with out-edges, so frontier programs run more than one iteration."""
    return int(np.argmax(graph.out_degree))


def assert_same(expected, actual):
    assert actual.values.dtype == expected.values.dtype
    assert actual.values.shape == expected.values.shape
    bits = np.uint32 if actual.values.dtype == np.float32 else actual.values.dtype
    assert np.array_equal(actual.values.view(bits), expected.values.view(bits))
    assert actual.iterations == expected.iterations
    assert actual.counters == expected.counters


@pytest.mark.parametrize("spec", GRAPHS)
@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc", "pagerank"])
def test_builtin_matches_golden_algorithms(algo, spec):
    graph = golden.from_spec(spec)
    root = busiest(graph) if algo in ("bfs", "sssp") else None
    expected = golden.run(algo, graph, root=root)
    actual = run_program(PROGRAMS[algo], graph, root=root)
    assert_same(expected, actual)
    if algo != "pagerank":
        assert actual.iterations > 1


@pytest.mark.parametrize("spec", RATINGS)
@pytest.mark.parametrize("K, params", [(8, {}), (5, {"gamma": 0.001, "lam": 0.1, "seed": 4}),
                                       (32, {"init_scale": 0.25})])
def test_cf_matches_golden_bit_for_bit(spec, K, params):
    graph = golden.from_spec(spec)
    expected = golden.run("cf", graph, K=K, iters=4, **params)
    actual = run_program(cf_program(K), graph, iters=4, **params)
    assert_same(expected, actual)


def test_pagerank_iterations_cap_matches():
    graph = golden.from_spec(GRAPHS[0])
    assert_same(golden.run("pagerank", graph, iters=3),
                run_program(PROGRAMS["pagerank"], graph, iters=3))


# ---------------------------------------------------------------------------- new programs

def widest_reference(graph, root: int) -> list[int]:
    """Modified Dijkstra: settle the widest unsettled vertex, widen its neighbours."""
    weight = graph.require_nonnegative_integer_weights()
    width = [0] * graph.num_vertices
    width[root] = 2**32 - 1
    heap, done = [(-width[root], root)], set()
    while heap:
        _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for e in range(graph.offsets[u], graph.offsets[u + 1]):
            v, through = int(graph.dst[e]), min(width[u], int(weight[e]))
            if through > width[v]:
                width[v] = through
                heapq.heappush(heap, (-through, v))
    return width


@pytest.mark.parametrize("spec", GRAPHS[1:] + ["kron:scale=6,ef=4,seed=2,weights=1:100"])
def test_widest_path_against_dijkstra(spec):
    graph = golden.from_spec(spec)
    root = busiest(graph)
    result = run_program(PROGRAMS["widest"], graph, root=root)
    assert result.values.tolist() == widest_reference(graph, root)
    assert len(set(result.values.tolist())) > 2


def largest_label_reference(graph) -> list[int]:
    """Union-find over the edges in both directions; each vertex gets its set's largest id."""
    parent = list(range(graph.num_vertices))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in zip(graph.src.tolist(), graph.dst.tolist()):
        a, b = find(u), find(v)
        if a != b:
            parent[min(a, b)] = max(a, b)      # the root is always the set's largest id
    return [find(v) for v in range(graph.num_vertices)]


@pytest.mark.parametrize("spec", GRAPHS[:2])
def test_label_propagation_against_union_find(spec):
    graph = golden.from_spec(spec)
    result = run_program(PROGRAMS["labelprop"], graph)
    assert result.values.tolist() == largest_label_reference(graph)


def ppr_reference(graph, root: int, iterations: int) -> np.ndarray:
    """The documented float32 operations one edge at a time, in edge-id order."""
    alpha, teleport = np.float32(0.85), np.float32(0.15)
    degree = graph.out_degree
    inv = [np.float32(1) / np.float32(d) if d else np.float32(0) for d in degree]
    rank = [np.float32(1.0 if v == root else 0.0) for v in range(graph.num_vertices)]
    for _ in range(iterations):
        temp = [np.float32(0.0)] * graph.num_vertices
        for u, v in zip(graph.src.tolist(), graph.dst.tolist()):
            temp[v] = np.float32(temp[v] + np.float32(rank[u] * inv[u]))
        rank = [np.float32(alpha * temp[v]) + (teleport if v == root else np.float32(0.0))
                for v in range(graph.num_vertices)]
    return np.array(rank, dtype=np.float32)


@pytest.mark.parametrize("spec", ["kron:scale=5,ef=4,seed=1", "grid:rows=5,cols=6"])
def test_personalized_pagerank_against_a_loop(spec):
    graph = golden.from_spec(spec)
    root = busiest(graph)
    result = run_program(PROGRAMS["ppr"], graph, root=root, iters=6)
    expected = ppr_reference(graph, root, 6)
    assert np.array_equal(result.values.view(np.uint32), expected.view(np.uint32))
    assert np.count_nonzero(result.values) > 1
