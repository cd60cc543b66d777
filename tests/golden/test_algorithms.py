"""golden.algorithms against networkx and scipy.sparse.csgraph, and bit-exact references.

BFS, SSSP and CC are checked against two independent libraries on networkx's bundled
graphs (directed and undirected), on generated graphs and on hypothesis' random graphs.
PageRank is checked against a float64 scipy power iteration (rtol 1e-4) and bit for bit
against a pure-Python loop doing the documented float32 operations in edge-id order.
CF is checked bit for bit against a straightforward loop on a tiny rating graph.
"""


import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph


import golden
from golden import ALPHA, ONE_MINUS_ALPHA, Graph, GraphError, run

INF = 2**32 - 1


# ---------------------------------------------------------------------------- fixtures

def from_networkx(nxg, directed: bool, weight: str | None = None) -> Graph:
    """Integer-label the graph; undirected ones become both directions (symmetric)."""
    nxg = nx.convert_node_labels_to_integers(nxg, ordering="sorted")
    src, dst, w = [], [], []
    for u, v, data in nxg.edges(data=True):
        pairs = [(u, v)] if directed else ([(u, v), (v, u)] if u != v else [(u, u)])
        for a, b in pairs:
            src.append(a)
            dst.append(b)
            w.append(int(data.get(weight, 1)) if weight else 1)
    return Graph.from_edges(nxg.number_of_nodes(), src, dst,
                            weight=w if weight else None, symmetric=not directed)


def oriented(graph: Graph) -> Graph:
    """A directed version: keep only the edges from the lower to the higher id."""
    keep = graph.src < graph.dst
    weight = None if graph.weight is None else graph.weight[keep]
    return Graph.from_edges(graph.num_vertices, graph.src[keep], graph.dst[keep], weight)


def bundled():
    karate = nx.karate_club_graph()
    les = nx.les_miserables_graph()
    flo = nx.florentine_families_graph()
    davis = nx.davis_southern_women_graph()
    undirected = {
        "karate": from_networkx(karate, False, "weight"),
        "lesmis": from_networkx(les, False, "weight"),
        "florentine": from_networkx(flo, False),
        "davis": from_networkx(davis, False),
    }
    graphs = dict(undirected)
    graphs.update({f"{k}-directed": oriented(g) for k, g in undirected.items()})
    return graphs


BUNDLED = bundled()
GENERATED = {
    "kron": golden.kronecker(9, 8, seed=2, weights="1:20"),
    "rmat": golden.rmat(9, 6, seed=3, weights="1:20"),
    "grid": golden.grid(30, 40, seed=4, weights="1:20"),
    "uniform": golden.uniform(800, 4000, seed=5, weights="1:20"),
    "scalefree": golden.scale_free(3000, seed=6, weights="1:20"),
}
ALL = {**BUNDLED, **GENERATED}


def to_networkx(graph: Graph, weighted: bool = False) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(graph.num_vertices))
    w = graph.require_nonnegative_integer_weights() if weighted else np.ones(graph.num_edges)
    g.add_weighted_edges_from(zip(graph.src.tolist(), graph.dst.tolist(), w.tolist()))
    return g


def to_scipy(graph: Graph, weighted: bool = False) -> sp.csr_matrix:
    """Adjacency matrix keeping the lightest of parallel edges (csr would add them up)."""
    d = graph.without_duplicates() if not weighted else _min_parallel(graph)
    w = (d.require_nonnegative_integer_weights() if weighted else np.ones(d.num_edges))
    return sp.csr_matrix((w.astype(np.float64), (d.src, d.dst)),
                         shape=(graph.num_vertices,) * 2)


def _min_parallel(graph: Graph) -> Graph:
    from golden.graph import group_starts
    starts = group_starts(graph.src, graph.dst)
    w = np.minimum.reduceat(graph.require_nonnegative_integer_weights(), starts)
    return Graph.from_edges(graph.num_vertices, graph.src[starts], graph.dst[starts], w)


def roots(graph: Graph):
    deg = graph.out_degree
    return sorted({0, int(np.argmax(deg)), int(np.flatnonzero(deg)[-1]) if deg.any() else 0})


def distances(values):
    return [None if v == INF else int(v) for v in values.tolist()]


# ---------------------------------------------------------------------------- BFS / SSSP

@pytest.mark.parametrize("name", ALL)
def test_bfs_matches_networkx_and_scipy(name):
    graph = ALL[name]
    nxg = to_networkx(graph)
    matrix = to_scipy(graph)
    for root in roots(graph):
        result = run("bfs", graph, root=root)
        assert result.values.dtype == np.uint32
        expected = [None] * graph.num_vertices
        for v, d in nx.single_source_shortest_path_length(nxg, root).items():
            expected[v] = d
        assert distances(result.values) == expected
        sc = csgraph.shortest_path(matrix, directed=True, unweighted=True, indices=root)
        assert distances(result.values) == [None if np.isinf(x) else int(x) for x in sc]
        reached = result.values != INF
        # every reached vertex is active exactly once; the last frontier changes nothing
        assert result.counters["edges_processed"] == int(graph.out_degree[reached].sum())
        assert result.iterations == int(result.values[reached].max()) + 1
        assert result.counters["active_per_iteration"][0] == 1 and result.counters["converged"]


@pytest.mark.parametrize("name", ALL)
def test_sssp_matches_dijkstra(name):
    graph = ALL[name]
    if graph.weight is None:
        graph = Graph.from_edges(graph.num_vertices, graph.src, graph.dst,
                                 weight=np.arange(graph.num_edges) % 7 + 1)
    nxg = to_networkx(graph, weighted=True)
    matrix = to_scipy(graph, weighted=True)
    for root in roots(graph):
        result = run("sssp", graph, root=root)
        expected = [None] * graph.num_vertices
        for v, d in nx.single_source_dijkstra_path_length(nxg, root).items():
            expected[v] = int(d)
        assert distances(result.values) == expected
        sc = csgraph.shortest_path(matrix, method="D", directed=True, indices=root)
        assert distances(result.values) == [None if np.isinf(x) else int(x) for x in sc]


def test_sssp_unweighted_is_bfs_and_saturates():
    graph = GENERATED["kron"]
    plain = Graph.from_edges(graph.num_vertices, graph.src, graph.dst)
    assert np.array_equal(run("sssp", plain, root=5).values, run("bfs", plain, root=5).values)
    heavy = Graph.from_edges(3, [0, 1], [1, 2], weight=[2**32 - 2, 7])
    assert run("sssp", heavy, root=0).values.tolist() == [0, 2**32 - 2, 2**32 - 1]
    zero = Graph.from_edges(3, [0, 1, 0], [1, 2, 2], weight=[0, 0, 5])
    assert run("sssp", zero, root=0).values.tolist() == [0, 0, 0]


def test_iteration_cap():
    graph = Graph.from_edges(5, [0, 1, 2, 3], [1, 2, 3, 4])
    result = run("bfs", graph, root=0, iters=2)
    assert result.values.tolist() == [0, 1, 2, INF, INF] and result.iterations == 2
    assert not result.counters["converged"]
    assert run("bfs", graph, root=0, iters=0).values.tolist() == [0] + [INF] * 4
    assert run("bfs", graph).values.tolist() == [0, 1, 2, 3, 4]          # root 0 by default


# ---------------------------------------------------------------------------- CC

def expected_labels(graph: Graph) -> list[int]:
    labels = [0] * graph.num_vertices
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(graph.num_vertices))
    nxg.add_edges_from(zip(graph.src.tolist(), graph.dst.tolist()))
    for component in nx.weakly_connected_components(nxg):
        for v in component:
            labels[v] = min(component)
    return labels


@pytest.mark.parametrize("name", ALL)
def test_cc_matches_networkx_and_scipy(name):
    graph = ALL[name]
    result = run("cc", graph)
    assert result.values.tolist() == expected_labels(graph)
    count, comp = csgraph.connected_components(to_scipy(graph), directed=True, connection="weak")
    assert len(set(result.values.tolist())) == count
    first = {}
    for v, c in enumerate(comp.tolist()):
        first.setdefault(c, v)
    assert result.values.tolist() == [first[c] for c in comp.tolist()]
    assert result.counters["active_per_iteration"][0] == graph.num_vertices


# ---------------------------------------------------------------------------- PageRank

def pagerank_float64(graph: Graph, iters: int) -> np.ndarray:
    n = graph.num_vertices
    a = sp.csr_matrix((np.ones(graph.num_edges), (graph.src, graph.dst)), shape=(n, n))
    outdeg = np.asarray(a.sum(axis=1)).ravel()
    inv = np.divide(1.0, outdeg, out=np.zeros(n), where=outdeg > 0)
    r = np.ones(n)
    for _ in range(iters):
        r = 0.15 + 0.85 * (a.T @ (r * inv))
    return r


@pytest.mark.parametrize("name", ALL)
def test_pagerank_matches_float64_power_iteration(name):
    graph = ALL[name]
    for iters in (1, 10):
        result = run("pagerank", graph, iters=iters)
        assert result.values.dtype == np.float32 and result.iterations == iters
        np.testing.assert_allclose(result.values, pagerank_float64(graph, iters), rtol=1e-4)
        assert result.counters["edges_processed"] == iters * graph.num_edges


def pagerank_sequential(graph: Graph, iters: int, order=None) -> np.ndarray:
    """The documented float32 operations, one edge at a time, in edge-id order."""
    n = graph.num_vertices
    deg = graph.out_degree
    inv = [np.float32(1.0) / np.float32(d) if d else np.float32(0.0) for d in deg.tolist()]
    r = [np.float32(1.0)] * n
    edges = list(range(graph.num_edges)) if order is None else order
    src, dst = graph.src.tolist(), graph.dst.tolist()
    for _ in range(iters):
        temp = [np.float32(0.0)] * n
        for e in edges:
            res = np.float32(r[src[e]] * inv[src[e]])
            temp[dst[e]] = np.float32(temp[dst[e]] + res)
        r = [np.float32(np.float32(ALPHA * t) + ONE_MINUS_ALPHA) for t in temp]
    return np.array(r, dtype=np.float32)


def test_pagerank_is_bit_exact_with_the_sequential_edge_order():
    # a skewed graph so that many contributions of different sizes meet at each vertex
    graph = golden.rmat(7, 12, seed=11)
    exact = run("pagerank", graph, iters=3).values
    reference = pagerank_sequential(graph, 3)
    assert exact.tobytes() == reference.tobytes()
    # the check is sensitive to the order: reducing in reverse edge order differs
    reverse = pagerank_sequential(graph, 3, order=list(range(graph.num_edges))[::-1])
    assert reverse.tobytes() != reference.tobytes()


def test_add_at_applies_repeated_indices_in_order():
    values = np.array([1e8, 1.0, -1e8, 1.0, 3.0, 1e-3], dtype=np.float32)
    index = np.array([0, 0, 0, 0, 1, 0])
    out = np.zeros(2, dtype=np.float32)
    np.add.at(out, index, values)
    acc = np.float32(0.0)
    for v in values[index == 0]:
        acc = np.float32(acc + v)
    assert out[0] == acc and out[0] != np.float32(values[index == 0].astype(np.float64).sum())


def test_pagerank_dangling_vertices_keep_only_the_base():
    graph = Graph.from_edges(3, [0, 0], [1, 2])
    r = run("pagerank", graph, iters=4).values
    assert r[0] == ONE_MINUS_ALPHA                  # nothing flows back from 1 and 2
    share = np.float32(ONE_MINUS_ALPHA * np.float32(0.5))
    assert r[1] == r[2] == np.float32(np.float32(ALPHA * share) + ONE_MINUS_ALPHA)
    assert r.sum() < 3                              # rank held by dangling vertices is lost


# ---------------------------------------------------------------------------- CF

def tree_sum(terms: list) -> np.float32:
    """Neighbours added pairwise, level by level, after padding with +0.0 to a power of two
    (the order the CF specification gives its dot product)."""
    while len(terms) & (len(terms) - 1):
        terms = terms + [np.float32(0.0)]
    while len(terms) > 1:
        terms = [np.float32(terms[i] + terms[i + 1]) for i in range(0, len(terms), 2)]
    return terms[0]


def cf_reference(graph: Graph, iters: int, K: int, gamma: float, lam: float, seed: int,
                 init_scale: float) -> np.ndarray:
    n = graph.num_vertices
    p = np.random.default_rng(seed).random((n, K), dtype=np.float32) * np.float32(init_scale)
    g32, l32 = np.float32(gamma), np.float32(lam)
    for _ in range(iters):
        temp = np.zeros((n, K), dtype=np.float32)
        for e in range(graph.num_edges):
            u, v = int(graph.src[e]), int(graph.dst[e])
            dot = tree_sum([np.float32(p[u, k] * p[v, k]) for k in range(K)])
            err = np.float32(np.float32(graph.weight[e]) - dot)
            for k in range(K):
                temp[v, k] = np.float32(temp[v, k] + np.float32(err * p[u, k]))
        new = np.empty_like(p)
        for v in range(n):
            for k in range(K):
                step = np.float32(g32 * np.float32(temp[v, k] - np.float32(l32 * p[v, k])))
                new[v, k] = np.float32(p[v, k] + step)
        p = new
    return p


def test_cf_matches_a_plain_loop_bit_for_bit():
    graph = golden.bipartite(5, 4, 3, seed=3)
    params = dict(K=8, gamma=0.01, lam=0.05, seed=7, init_scale=0.5)
    result = run("cf", graph, iters=3, **params)
    assert run("cf", graph, iters=3, **{**params, "K": 6}).values.tobytes() == \
        cf_reference(graph, 3, **{**params, "K": 6}).tobytes()
    assert result.values.shape == (9, 8) and result.values.dtype == np.float32
    reference = cf_reference(graph, 3, **params)
    assert result.values.tobytes() == reference.tobytes()


def test_cf_lowers_the_training_error():
    graph = golden.bipartite(200, 60, 12, seed=2)
    before = golden.cf_rmse(graph, run("cf", graph, iters=0).values)
    after = golden.cf_rmse(graph, run("cf", graph, iters=20, gamma=0.002).values)
    assert after < 0.8 * before
    assert run("cf", graph, iters=1).values.shape == (260, 32)


# ---------------------------------------------------------------------------- hypothesis

@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, 5)), max_size=40),
    st.integers(0, n - 1))))
def test_random_graphs(case):
    n, edges, root = case
    graph = Graph.from_edges(n, [e[0] for e in edges], [e[1] for e in edges],
                             weight=[e[2] for e in edges])
    nxg = to_networkx(graph, weighted=True)
    hops = nx.single_source_shortest_path_length(nxg, root)
    assert distances(run("bfs", graph, root=root).values) == [hops.get(v) for v in range(n)]
    dist = nx.single_source_dijkstra_path_length(nxg, root)
    assert distances(run("sssp", graph, root=root).values) == [
        None if v not in dist else int(dist[v]) for v in range(n)]
    assert run("cc", graph).values.tolist() == expected_labels(graph)
    np.testing.assert_allclose(run("pagerank", graph, iters=5).values,
                               pagerank_float64(graph, 5), rtol=1e-4)


# ---------------------------------------------------------------------------- errors

@pytest.mark.parametrize("call, fragment", [
    (lambda g: run("dfs", g), "unknown algorithm 'dfs' (algorithms: bfs, sssp, pagerank, cc, cf)"),
    (lambda g: run("bfs", g, root=999), "root 999 is out of range 0..3"),
    (lambda g: run("bfs", g, root=-1), "root -1 is out of range"),
    (lambda g: run("sssp", g, root="0"), "root must be a vertex id"),
    (lambda g: run("pagerank", g, root=0), "pagerank takes no root"),
    (lambda g: run("bfs", g, alpha=0.9), "bfs takes no parameters (got alpha)"),
    (lambda g: run("cf", g), "cf needs a rating"),
    (lambda g: run("cf", g.symmetrized(), colour=1), "cf has no parameter 'colour'"),
    (lambda g: run("bfs", g, iters=-1), "iters must be an integer >= 0"),
    (lambda g: run("bfs", "graph"), "run needs a Graph"),
    (lambda g: run("sssp", Graph.from_edges(2, [0], [1], weight=[0.5])), "not an integer"),
])
def test_errors(call, fragment):
    graph = Graph.from_edges(4, [0, 1], [1, 2])
    with pytest.raises(GraphError) as info:
        call(graph)
    assert fragment in str(info.value)
