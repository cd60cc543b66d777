"""golden.graph and golden.generators: container validation, derived arrays, generators, specs."""


import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Import golden from this checkout even while the editable install still lists it as a
# namespace package (a stale install skips golden/__init__.py).

import golden
from golden import Graph, GraphError, SpecError


def edges_of(graph):
    weights = [None] * graph.num_edges if graph.weight is None else graph.weight.tolist()
    return list(zip(graph.src.tolist(), graph.dst.tolist(), weights))


# ---------------------------------------------------------------------------- container

def test_from_edges_sorts_stably_and_keeps_duplicates_and_loops():
    g = Graph.from_edges(4, [2, 0, 2, 1, 0, 2], [1, 3, 1, 1, 3, 0], weight=[5, 1, 6, 7, 2, 8])
    assert g.src.dtype == np.uint32 and g.dst.dtype == np.uint32 and g.weight.dtype == np.uint32
    assert edges_of(g) == [(0, 3, 1), (0, 3, 2), (1, 1, 7), (2, 0, 8), (2, 1, 5), (2, 1, 6)]
    assert g.num_edges == 6 and g.offsets.tolist() == [0, 2, 3, 6, 6]
    assert g.edge_id_table.dtype == np.uint32 and g.edge_id_table.tolist() == [0, 2, 3, 6, 6]
    assert g.out_degree.tolist() == [2, 1, 3, 0] and g.in_degree.tolist() == [1, 3, 0, 2]


def test_float_weights_become_float32_and_arrays_are_read_only():
    src = np.array([1, 0])
    g = Graph.from_edges(2, src, [0, 1], weight=np.array([0.5, 2.25]))
    assert g.weight.dtype == np.float32 and g.weight.tolist() == [2.25, 0.5]
    with pytest.raises(ValueError):
        g.src[0] = 1
    assert src.flags.writeable                     # the caller's array is left alone
    with pytest.raises(AttributeError):
        g.num_vertices = 3


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(num_vertices=3, src=[0, 1, 3], dst=[1, 2, 0]), "edge 2: source vertex 3 is out of range 0..2"),
    (dict(num_vertices=3, src=[0, 1], dst=[1, -1]), "edge 1: destination vertex -1"),
    (dict(num_vertices=3, src=[0, 1], dst=[1]), "src has 2 entries but dst has 1"),
    (dict(num_vertices=0, src=[], dst=[]), "num_vertices must be at least 1"),
    (dict(num_vertices=2.0, src=[], dst=[]), "num_vertices must be an integer"),
    (dict(num_vertices=3, src=[0.0], dst=[1]), "integer vertex ids"),
    (dict(num_vertices=3, src=[[0]], dst=[[1]]), "1-D"),
    (dict(num_vertices=3, src=[0, 1], dst=[1, 2], weight=[1.0, np.nan]), "edge 1: weight is NaN"),
    (dict(num_vertices=3, src=[0, 1], dst=[1, 2], weight=[-1.5, 2.0]), "edge 0: weight -1.5 is negative"),
    (dict(num_vertices=3, src=[0, 1], dst=[1, 2], weight=[3, -2]), "edge 1: weight -2 is negative"),
    (dict(num_vertices=3, src=[0], dst=[1], weight=[2**32]), "does not fit in 32 bits"),
    (dict(num_vertices=3, src=[0], dst=[1], weight=[1e39]), "not a finite float32"),
    (dict(num_vertices=3, src=[0], dst=[1], weight=[1, 2]), "one entry per edge"),
    (dict(num_vertices=3, src=[0], dst=[1], weight=[True]), "integer or floating point"),
])
def test_from_edges_rejects_bad_input(kwargs, fragment):
    with pytest.raises(GraphError) as info:
        Graph.from_edges(**kwargs)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_constructor_checks_but_does_not_sort():
    g = Graph(3, np.array([0, 0, 2], np.uint32), np.array([1, 2, 0], np.uint32))
    assert g.num_edges == 3 and not g.symmetric
    with pytest.raises(GraphError, match="not sorted"):
        Graph(3, np.array([2, 0]), np.array([0, 1]))
    with pytest.raises(GraphError, match="out of range"):
        Graph(2, np.array([0]), np.array([5]))


def test_empty_graph():
    g = Graph.from_edges(5, [], [])
    assert g.num_edges == 0 and g.offsets.tolist() == [0] * 6 and g.in_degree.tolist() == [0] * 5


def test_validate_for_hardware():
    g = Graph.from_edges(70001, [0, 70000], [70000, 1], weight=[3, 300])
    with pytest.raises(GraphError) as info:
        g.validate_for_hardware(16)
    assert str(info.value) == "vertex id 70000 needs 17 bits but the design holds 16"
    g.validate_for_hardware(17, weight_width=9)
    with pytest.raises(GraphError, match=r"weight 300 \(edge 1\) needs 9 bits but the design holds 8"):
        g.validate_for_hardware(17, weight_width=8)
    f = Graph.from_edges(2, [0], [1], weight=[0.5])
    f.validate_for_hardware(1)
    with pytest.raises(GraphError, match="float32 weights need a 32-bit"):
        f.validate_for_hardware(1, weight_width=16)
    Graph.from_edges(1, [], []).validate_for_hardware(1)


def test_require_nonnegative_integer_weights():
    assert Graph.from_edges(2, [0, 1], [1, 0]).require_nonnegative_integer_weights().tolist() == [1, 1]
    assert Graph.from_edges(2, [0], [1], weight=[4.0]).require_nonnegative_integer_weights().dtype == np.uint32
    with pytest.raises(GraphError, match="edge 1: weight 2.5 is not an integer"):
        Graph.from_edges(2, [0, 1], [1, 0], weight=[1.0, 2.5]).require_nonnegative_integer_weights()
    with pytest.raises(GraphError, match="does not fit in 32 bits"):
        Graph.from_edges(2, [0], [1], weight=[2.0**32]).require_nonnegative_integer_weights()


def test_symmetrized_and_without_duplicates():
    g = Graph.from_edges(4, [0, 0, 1, 2, 3, 0], [1, 1, 0, 2, 0, 1], weight=[7, 5, 9, 1, 4, 6])
    d = g.without_duplicates()
    assert edges_of(d) == [(0, 1, 7), (1, 0, 9), (2, 2, 1), (3, 0, 4)]
    s = g.symmetrized()
    assert s.symmetric and s.symmetrized() is s and g.symmetrized() is s
    assert edges_of(s) == [(0, 1, 5), (0, 3, 4), (1, 0, 5), (2, 2, 1), (3, 0, 4)]
    assert Graph.from_edges(3, [0], [2]).symmetrized() == Graph.from_edges(3, [0, 2], [2, 0],
                                                                           symmetric=True)


def test_equality_and_repr():
    a = Graph.from_edges(3, [0, 1], [1, 2], name="a")
    assert a == Graph.from_edges(3, [1, 0], [2, 1], name="b")          # names are metadata
    assert a != Graph.from_edges(4, [0, 1], [1, 2])
    assert a != Graph.from_edges(3, [0, 1], [1, 2], weight=[1, 1])
    assert Graph.from_edges(3, [0], [1], weight=[1]) != Graph.from_edges(3, [0], [1], weight=[1.0])
    assert repr(a) == "Graph('a', 3 vertices, 2 edges, unweighted, directed)"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, 9)), max_size=40))))
def test_from_edges_invariants(case):
    n, edges = case
    src, dst, w = (np.array([e[i] for e in edges], dtype=np.int64) for i in range(3))
    g = Graph.from_edges(n, src, dst, weight=w)
    assert sorted(edges_of(g)) == sorted(edges)
    assert edges_of(g) == sorted(edges, key=lambda e: (e[0], e[1]))   # stable on ties
    assert np.array_equal(g.offsets, np.searchsorted(g.src, np.arange(n + 1)))
    lightest = {}
    for u, v, x in edges:
        for pair in ((u, v), (v, u)):
            lightest[pair] = min(x, lightest.get(pair, x))
    expected = sorted((u, v, x) for (u, v), x in lightest.items())
    assert edges_of(g.symmetrized()) == expected
    as_float = Graph.from_edges(n, src, dst, weight=w.astype(np.float64) / 4)
    assert edges_of(as_float.symmetrized()) == [(u, v, x / 4) for u, v, x in expected]
    big = Graph.from_edges(2**30, src, dst, weight=w.astype(np.float32))   # too wide to pack
    assert edges_of(big.symmetrized()) == [(u, v, float(x)) for u, v, x in expected]


# ---------------------------------------------------------------------------- generators

GENERATED = {
    "kron": lambda seed: golden.kronecker(8, 8, seed=seed),
    "rmat": lambda seed: golden.rmat(8, 8, seed=seed),
    "grid": lambda seed: golden.grid(9, 7, seed=seed),
    "scalefree": lambda seed: golden.scale_free(3000, seed=seed),
    "uniform": lambda seed: golden.uniform(300, 2000, seed=seed),
    "bipartite": lambda seed: golden.bipartite(40, 30, 6, seed=seed),
    "road": lambda seed: golden.road(500, seed=seed),
    "networkx": lambda seed: golden.networkx_graph("karate", seed=seed, weights="1:9"),
}


@pytest.mark.parametrize("name", GENERATED)
def test_generators_are_deterministic_simple_and_seeded(name):
    a, b, c = GENERATED[name](1), GENERATED[name](1), GENERATED[name](2)
    assert a == b and a != c
    assert not np.any(a.src == a.dst), "self loop"
    assert a.without_duplicates().num_edges == a.num_edges, "duplicate edge"
    if a.symmetric:
        assert a.symmetrized() == a


def test_kronecker_and_rmat_sizes_and_skew():
    k = golden.kronecker(10, 16, seed=1)
    assert k.num_vertices == 1024 and 0.7 * 16 * 1024 < k.num_edges <= 16 * 1024
    r = golden.rmat(10, 16, seed=1)
    assert r.num_vertices == 1024 and r.out_degree.max() > 4 * r.out_degree.mean()
    assert r.out_degree.argmax() == 0 and k.out_degree.max() > 10 * k.out_degree.mean()
    # every id bit is drawn: rows get bit b with probability c + d = 0.4, columns b + d = 0.4
    for ids in (r.src, r.dst):
        share = [((ids >> b) & 1).mean() for b in range(10)]
        assert min(share) > 0.35 and max(share) < 0.45, share
    assert r.out_degree[:32].sum() > k.out_degree[:32].sum()       # rmat hubs at low ids


def test_grid_degrees():
    g = golden.grid(20, 30, seed=3)
    assert g.symmetric and g.num_vertices == 600
    assert g.out_degree.max() <= 6 and np.array_equal(g.out_degree, g.in_degree)
    assert g.out_degree.max() == 6 and g.out_degree.min() >= 2
    edges = set(zip(g.src.tolist(), g.dst.tolist()))
    for r in range(20):
        for c in range(30):
            v = r * 30 + c
            assert c == 29 or (v, v + 1) in edges
            assert r == 19 or (v, v + 30) in edges
    assert golden.grid(1, 1).num_edges == 0 and golden.grid(1, 5).num_edges == 8


def test_scale_free_degrees():
    g = golden.scale_free(10_000, seed=2)
    deg = g.out_degree
    hubs = deg > 6
    assert hubs.sum() == 10 and deg[hubs].min() > 900 and deg.max() <= 1000
    assert deg[~hubs].min() >= 3 and deg[~hubs].mean() > 5.9


def test_road_is_planar_connected_and_sparse():
    g = golden.road(2000, seed=3)
    undirected = nx.Graph(zip(g.src.tolist(), g.dst.tolist()))
    assert g.symmetric and undirected.number_of_nodes() == 2000
    assert nx.is_connected(undirected) and nx.check_planarity(undirected)[0]
    assert 2.6 < g.out_degree.mean() < 3.0
    levels = nx.single_source_shortest_path_length(undirected, 0)
    assert max(levels.values()) > 40                 # deep, unlike Kronecker's handful
    tree = golden.road(2000, extra=0.0, seed=3)      # the spanning tree alone
    assert tree.num_edges == 2 * 1999
    full = golden.road(2000, extra=1.0, seed=3)      # the whole triangulation
    assert 2 * (3 * 2000 - 6) - 2 * 100 < full.num_edges <= 2 * (3 * 2000 - 6)
    assert set(zip(tree.src.tolist(), tree.dst.tolist())) <= set(zip(g.src.tolist(),
                                                                       g.dst.tolist()))


@pytest.mark.parametrize("name", golden.NETWORKX_GRAPHS)
def test_networkx_graphs_are_networkx_own(name):
    g = golden.from_spec(f"networkx:name={name}")
    theirs = getattr(nx, golden.NETWORKX_GRAPHS[name])()
    index = {node: i for i, node in enumerate(theirs.nodes)}
    assert g.symmetric and g.num_vertices == theirs.number_of_nodes()
    assert set(zip(g.src.tolist(), g.dst.tolist())) == {
        (index[a], index[b]) for u, v in theirs.edges for a, b in ((u, v), (v, u))}


def test_uniform_and_bipartite_shapes():
    u = golden.uniform(50, 2000, seed=4)
    assert u.num_edges == 2000
    with pytest.raises(GraphError, match="at most 6 edges"):
        golden.uniform(3, 7)
    b = golden.bipartite(30, 20, 15, seed=5)
    assert b.symmetric and b.num_vertices == 50 and b.weight.dtype == np.float32
    users = b.src < 30
    assert np.all(b.dst[users] >= 30) and np.all(b.dst[~users] < 30)
    assert np.all(b.out_degree[:30] == 15)
    assert set(np.unique(b.weight).tolist()) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    assert np.all(golden.bipartite(5, 4, 4).out_degree[:5] == 4)


def test_weights_option():
    g = golden.grid(6, 6, seed=1, weights="uniform:3:9")
    assert g.weight.dtype == np.uint32 and g.weight.min() >= 3 and g.weight.max() <= 9
    assert g.symmetrized() == g                      # one weight per undirected edge
    k1, k2 = golden.kronecker(6, 4, weights="1:100"), golden.kronecker(6, 4)
    assert np.array_equal(k1.src, k2.src) and k2.weight is None
    with pytest.raises(GraphError, match="uniform:LO:HI"):
        golden.uniform(10, 10, weights="gauss")


# ---------------------------------------------------------------------------- specs

def test_from_spec():
    g = golden.from_spec("kron:scale=6,ef=4,seed=3")
    assert g == golden.kronecker(6, 4, seed=3) and g.name == "kron:scale=6,ef=4,seed=3"
    assert golden.from_spec("rmat:scale=5,ef=8,seed=3") == golden.rmat(5, 8, seed=3)
    assert golden.from_spec("grid:rows=4,cols=5") == golden.grid(4, 5)
    assert golden.from_spec("scalefree:n=2000") == golden.scale_free(2000)
    assert golden.from_spec("uniform:n=100,m=800") == golden.uniform(100, 800)
    assert golden.from_spec("bipartite:users=10,items=5,ratings=3") == golden.bipartite(10, 5, 3)
    w = golden.from_spec("uniform:n=100,m=800,weights=1:255")
    assert w.weight.max() <= 255 and w.weight.min() >= 1
    u = golden.from_spec("kron:scale=6,ef=4,seed=3,weights=1:5,undirected=1")
    assert u == golden.kronecker(6, 4, seed=3, weights="1:5").symmetrized() and u.symmetric
    assert not golden.from_spec("kron:scale=6,ef=4,seed=3,undirected=0").symmetric


@pytest.mark.parametrize("spec, fragment", [
    ("nosuch:n=3", "unknown generator 'nosuch'"),
    ("kron:scale=abc", "scale must be an integer, got 'abc'"),
    ("kron:scale=4,colour=red", "unknown key 'colour'"),
    ("kron:ef=4", "kron needs scale"),
    ("grid:rows=3,cols", "'cols' is not key=value"),
    ("grid:rows=0,cols=3", "rows must be at least 1"),
    ("kron:scale=4,a=0.9", "a + b + c must be below 1"),
    ("uniform:n=10,m=5,weights=9:1", "LO <= HI"),
    ("bipartite:users=3,items=2,ratings=5", "ratings_per_user must be 0..2"),
    ("grid:rows=3,cols=3,undirected=yes", "undirected must be 0 or 1"),
    ("road:n=100,extra=2", "extra must be in 0..1"),
    ("networkx:name=zachary", "name must be one of karate, davis, florentine, lesmis"),
])
def test_from_spec_errors(spec, fragment):
    with pytest.raises(SpecError) as info:
        golden.from_spec(spec)
    message = str(info.value)
    assert fragment in message and "\n" not in message
    if "unknown key" in fragment:
        assert "keys: scale, ef, edge_factor, seed, a, b, c, weights" in message


def test_load_graph(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n")
    assert golden.load_graph(str(path)) == Graph.from_edges(3, [0, 1], [1, 2])
    assert golden.load_graph("grid:rows=2,cols=2").num_vertices == 4
    with pytest.raises(GraphError, match="no such file or generator spec: 'nosuchfile.mtx'"):
        golden.load_graph("nosuchfile.mtx")
    with pytest.raises(SpecError):
        golden.load_graph("kron:scale=abc")
