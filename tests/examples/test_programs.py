"""The example programs of ``examples/programs/`` through the golden model
(``golden.programs.run_program``) against references written independently of the program
API: a max-bottleneck Dijkstra loop (widest), SciPy in float64 and a float32 loop in edge-id
order (spmv), a float64 power iteration and linear solve with SciPy (ppr), networkx's
connected components (labelprop); each on two kinds of graph at least."""

import heapq

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sparse
import scipy.sparse.linalg as linalg

import golden
from golden.programs import run_program
from graphgen.programs import load_program
from tests.support import REPO_ROOT
from tests.support.examples import EXAMPLE_FILES, example
from tests.support.graphs import networkx_graph

UNIT_ROUNDOFF = 2.0 ** -24


def busiest(graph) -> int:
    """A root with out-edges, so the run reaches more than the root."""
    return int(np.argmax(graph.out_degree))


def graph_of(spec: str) -> golden.Graph:
    """A generator spec, ``nx:<name>`` for a real graph of tests.support.graphs, or
    ``matrix`` for a random sparse matrix with fractional entries (a weight in (0, 1) per
    edge)."""
    if spec == "matrix":
        entries = sparse.random(90, 90, density=0.08, random_state=4, format="csr")
        rows, cols = entries.nonzero()
        return golden.Graph.from_edges(90, rows, cols, entries[rows, cols].A1.astype(np.float32))
    return networkx_graph(spec[3:]) if spec.startswith("nx:") else golden.from_spec(spec)


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_examples_load_from_the_repository_root(name, monkeypatch):
    """As the docstrings say to run them: ``examples/programs/<file>.py:<Class>`` from the
    repository root, each its own name and a one-line description."""
    monkeypatch.chdir(REPO_ROOT)
    program = load_program(f"examples/programs/{EXAMPLE_FILES[name]}")
    assert program == example(name)
    assert program.name == name and program.description


# ---------------------------------------------------------------------------- widest

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


@pytest.mark.parametrize("spec", ["kron:scale=7,ef=8,seed=2,weights=1:50",
                                  "grid:rows=8,cols=9,weights=1:9",
                                  "rmat:scale=6,ef=6,seed=3,weights=1:20"])
def test_widest_against_dijkstra(spec):
    graph = graph_of(spec)
    root = busiest(graph)
    result = run_program(example("widest"), graph, root=root)
    assert result.values.tolist() == widest_reference(graph, root)
    assert len(set(result.values.tolist())) > 2


# ---------------------------------------------------------------------------- spmv

SPMV_GRAPHS = ["kron:scale=7,ef=8,seed=2,weights=1:50", "grid:rows=8,cols=9,weights=1:9",
               "nx:lesmis", "matrix"]


def spmv_x(graph) -> np.ndarray:
    """x as spmv.py documents it: NumPy's default_rng(1), float32 in [0, 1)."""
    return np.random.default_rng(1).random(graph.num_vertices, dtype=np.float32)


@pytest.mark.parametrize("spec", SPMV_GRAPHS)
def test_spmv_against_scipy(spec):
    """y = Aᵀx with A[u, v] the weight of u -> v, in float64: the float32 result within
    the rounding of k products and k - 1 additions of positive terms, (k + 1) u relative
    for a vertex of in-degree k."""
    graph = graph_of(spec)
    x = spmv_x(graph)
    n = graph.num_vertices
    matrix = sparse.csr_matrix((graph.weight.astype(np.float64), (graph.src, graph.dst)),
                               shape=(n, n))
    exact = matrix.T @ x.astype(np.float64)
    result = run_program(example("spmv"), graph)
    assert result.values.dtype == np.float32 and result.iterations == 1
    assert result.counters["edges_processed"] == graph.num_edges
    bound = (graph.in_degree + 1) * UNIT_ROUNDOFF * exact
    assert np.all(np.abs(result.values.astype(np.float64) - exact) <= bound)
    assert np.count_nonzero(exact) > n // 2


@pytest.mark.parametrize("spec", SPMV_GRAPHS)
def test_spmv_bit_for_bit_in_edge_id_order(spec):
    """The golden model's documented order: each destination's float32 products added one
    at a time in edge-id order, from +0.0."""
    graph = graph_of(spec)
    x = spmv_x(graph)
    weight = graph.weight.astype(np.float32)
    y = [np.float32(0.0)] * graph.num_vertices
    for e, (u, v) in enumerate(zip(graph.src.tolist(), graph.dst.tolist())):
        y[v] = np.float32(y[v] + np.float32(weight[e] * x[u]))
    result = run_program(example("spmv"), graph)
    assert result.values.view(np.uint32).tolist() == \
        np.array(y, dtype=np.float32).view(np.uint32).tolist()


def test_spmv_needs_weights():
    with pytest.raises(golden.GraphError, match="needs a float32 weight"):
        run_program(example("spmv"), golden.from_spec("kron:scale=5,ef=4,seed=1"))


# ---------------------------------------------------------------------------- ppr

PPR_GRAPHS = ["kron:scale=7,ef=8,seed=2", "grid:rows=8,cols=9", "nx:karate"]


def transition(graph) -> sparse.csr_matrix:
    """P[u, v] = 1 / outdeg(u) per edge u -> v (parallel edges add), in float64."""
    n = graph.num_vertices
    inverse = 1.0 / np.maximum(graph.out_degree, 1)
    return sparse.csr_matrix((inverse[graph.src], (graph.src, graph.dst)), shape=(n, n))


@pytest.mark.parametrize("spec", PPR_GRAPHS)
def test_ppr_against_a_power_iteration(spec):
    """r <- alpha Pᵀ r + (1 - alpha) e_root from r = e_root, ten times, in float64."""
    graph = graph_of(spec)
    root = busiest(graph)
    teleport = np.zeros(graph.num_vertices)
    teleport[root] = 1.0
    step = transition(graph).T
    rank = teleport.copy()
    for _ in range(10):
        rank = 0.85 * (step @ rank) + 0.15 * teleport
    result = run_program(example("ppr"), graph, root=root)
    assert result.iterations == 10
    np.testing.assert_allclose(result.values, rank, rtol=1e-5, atol=1e-7)
    assert np.count_nonzero(rank) > 10


@pytest.mark.parametrize("spec", PPR_GRAPHS[:2])
def test_ppr_converges_to_the_linear_solve(spec):
    """Run long enough (0.85^120 < 1e-8), personalized PageRank is the solution of
    (I - alpha Pᵀ) r = (1 - alpha) e_root."""
    graph = graph_of(spec)
    root = busiest(graph)
    n = graph.num_vertices
    teleport = np.zeros(n)
    teleport[root] = 0.15
    solved = linalg.spsolve(sparse.identity(n, format="csc") - 0.85 * transition(graph).T.tocsc(),
                            teleport)
    result = run_program(example("ppr"), graph, root=root, iters=120)
    np.testing.assert_allclose(result.values, solved, rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------------------- labelprop

@pytest.mark.parametrize("spec, components", [
    ("kron:scale=7,ef=1,seed=2", "several"), ("rmat:scale=7,ef=1,seed=3", "several"),
    ("nx:florentine", "one"), ("grid:rows=5,cols=6", "one")])
def test_labelprop_against_networkx_components(spec, components):
    """Each vertex: the largest id of its weakly connected component."""
    graph = graph_of(spec)
    undirected = nx.Graph()
    undirected.add_nodes_from(range(graph.num_vertices))
    undirected.add_edges_from(zip(graph.src.tolist(), graph.dst.tolist()))
    expected = np.zeros(graph.num_vertices, dtype=np.int64)
    found = list(nx.connected_components(undirected))
    for component in found:
        expected[list(component)] = max(component)
    result = run_program(example("labelprop"), graph)
    assert result.values.tolist() == expected.tolist()
    assert (len(found) > 1) == (components == "several")


@pytest.mark.parametrize("spec", ["kron:scale=8,ef=8,seed=1,weights=1:20",
                                  "grid:rows=9,cols=11,weights=1:20"])
@pytest.mark.parametrize("max_weight", [None, 12])
def test_bounded_hops_against_scipy_on_the_light_edges(spec, max_weight):
    """docs/programs.md's worked example: hop counts from the root over the edges of weight
    at most max_weight (its default 10, or 12 given), against SciPy's unweighted shortest
    paths on the graph of those edges."""
    from scipy.sparse.csgraph import shortest_path
    graph = golden.from_spec(spec)
    root = busiest(graph)
    params = {} if max_weight is None else {"max_weight": max_weight}
    result = run_program(example("bounded_hops"), graph, root=root, **params)
    light = graph.weight <= (max_weight or 10)
    adjacency = sparse.csr_matrix((np.ones(int(light.sum())), (graph.src[light],
                                                                graph.dst[light])),
                                  shape=(graph.num_vertices,) * 2)
    hops = shortest_path(adjacency, unweighted=True, indices=root)
    expected = np.where(np.isinf(hops), 2**32 - 1, hops).astype(np.uint32)
    assert result.values.tolist() == expected.tolist()
    assert 2 < len(set(expected.tolist())) and (expected == 2**32 - 1).any()
