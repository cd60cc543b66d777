"""The DepGraph golden model (golden/depgraph): results against independent references,
hub selection and core paths, linearity gating, hub-index learning and the counters."""

import dataclasses
import math

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix, identity
from scipy.sparse.csgraph import connected_components, dijkstra, shortest_path
from scipy.sparse.linalg import spsolve

import golden
from graphgen.programs import PROGRAMS
from golden.depgraph import (DAMPING, FLAG_A, PAGERANK, SSSP, GasAlgorithm, check_linear,
                             core_structure, get_algorithm, owner_of, partition_bounds,
                             run_depgraph, run_ligra_baseline, run_sync_baseline, select_hubs)

U32 = int(golden.UNREACHED)
ONE_MINUS = float(golden.ONE_MINUS_ALPHA)


# ---------------------------------------------------------------------------- references

def _matrix(graph, weights=None):
    data = np.ones(graph.num_edges) if weights is None else weights.astype(np.float64)
    return csr_matrix((data, (graph.src, graph.dst)),
                      shape=(graph.num_vertices, graph.num_vertices))


def _as_u32(dist):
    out = np.full(dist.size, U32, dtype=np.uint32)
    ok = np.isfinite(dist)
    out[ok] = dist[ok].astype(np.uint32)
    return out


def ref_bfs(graph, root):
    return _as_u32(shortest_path(_matrix(graph), unweighted=True, indices=root))


def ref_sssp(graph, root):
    w = graph.require_nonnegative_integer_weights()
    return _as_u32(dijkstra(_matrix(graph, w), indices=root))


def ref_cc(graph):
    n = graph.num_vertices
    _, labels = connected_components(_matrix(graph), directed=True, connection="weak")
    smallest = np.full(labels.max() + 1, n, dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(n))
    return smallest[labels].astype(np.uint32)


def ref_pagerank(graph):
    """Exact fixpoint of r = b + d * sum_{u->v} r_u / outdeg(u) (dangling rank lost), with the
    PageRank program's float32 d and b = float32(1 - d)."""
    n = graph.num_vertices
    inv = np.zeros(n)
    np.divide(1.0, graph.out_degree, out=inv, where=graph.out_degree > 0)
    m = csr_matrix((inv[graph.src], (graph.dst, graph.src)), shape=(n, n))
    return spsolve((identity(n, format="csc") - DAMPING * m).tocsc(), np.full(n, ONE_MINUS))


def karate():
    g = nx.karate_club_graph()
    u, v = zip(*g.edges())
    src = np.array(u + v)
    dst = np.array(v + u)
    w = np.array([1 + (a * 7 + b * 3) % 9 for a, b in zip(src, dst)])
    w = np.concatenate([w[:len(u)], w[:len(u)]])                # same weight both ways
    return golden.Graph.from_edges(g.number_of_nodes(), src, dst, w, symmetric=True)


GRAPHS = {
    "kron9": lambda: golden.kronecker(9, 8, seed=3, weights="uniform:1:20"),
    "kron10": lambda: golden.kronecker(10, 16, seed=1, weights="uniform:1:255"),
    "rmat9": lambda: golden.rmat(9, 8, seed=2, weights="uniform:1:50"),
    "grid": lambda: golden.grid(12, 14, seed=4, weights="uniform:1:9"),
    "karate": karate,
}
_CACHE = {}


def graph(name):
    if name not in _CACHE:
        _CACHE[name] = GRAPHS[name]()
    return _CACHE[name]


def root_of(g):
    return int(np.argmax(g.out_degree))


# (engines, stack_depth, hub_index, extra run_depgraph arguments)
CONFIGS = [
    (1, 1, True, {}),
    (2, 2, False, {}),
    (4, 10, True, {"lam": 0.2, "beta": 0.05}),
    (4, 16, False, {"lam": 0.2, "beta": 0.05}),
    (2, 10, True, {"lam": 0.1, "beta": 0.1, "walk_max_indegree": 1}),
    (4, 10, True, {"queue_capacity": 3, "seed": 5}),
]


# ---------------------------------------------------------------------------- min type

@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc"])
def test_min_algorithms_match_references(name, algo):
    g = graph(name)
    root = root_of(g) if algo != "cc" else None
    expected = {"bfs": lambda: ref_bfs(g, root), "sssp": lambda: ref_sssp(g, root),
                "cc": lambda: ref_cc(g)}[algo]()
    np.testing.assert_array_equal(golden.run(algo, g, root=root).values, expected)
    sync = run_sync_baseline(algo, g, root=root)
    assert sync.converged
    np.testing.assert_array_equal(sync.states, expected)
    used = 0
    for engines, depth, hub, extra in CONFIGS:
        r = run_depgraph(algo, g, root=root, engines=engines, stack_depth=depth,
                         hub_index=hub, **extra)
        assert r.converged
        np.testing.assert_array_equal(r.states, expected,
                                      err_msg=f"{name} {algo} {engines} {depth} {hub} {extra}")
        assert r.shortcuts == hub
        assert r.shortcut_reason == "" if hub else "disabled" in r.shortcut_reason
        used += r.counters.shortcut_uses
    if algo == "sssp" and name in ("kron10", "rmat9", "grid"):
        assert used > 0                                  # the shortcuts were exercised


def test_karate_against_networkx():
    g = karate()
    nxg = nx.DiGraph()
    nxg.add_weighted_edges_from(zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()))
    dist = nx.single_source_dijkstra_path_length(nxg, 0)
    levels = nx.single_source_shortest_path_length(nxg, 0)
    sssp = run_depgraph("sssp", g, root=0, engines=2, lam=0.2, beta=0.2)
    bfs = run_depgraph("bfs", g, root=0, engines=3, stack_depth=2)
    assert [int(sssp.states[v]) for v in range(34)] == [dist[v] for v in range(34)]
    assert [int(bfs.states[v]) for v in range(34)] == [levels[v] for v in range(34)]


def test_unreachable_duplicates_and_self_loops():
    # duplicate edges (the lighter one counts), self loops, an unreachable vertex
    g = golden.Graph.from_edges(6, [0, 0, 0, 1, 1, 2, 3, 5], [1, 1, 2, 1, 3, 3, 4, 0],
                                [7, 2, 9, 1, 4, 1, 3, 1])
    for depth in (1, 3):
        r = run_depgraph("sssp", g, root=0, engines=2, stack_depth=depth, hubs=[3])
        assert r.states.tolist() == [0, 2, 9, 6, 9, U32]
        r = run_depgraph("pagerank", g, engines=2, stack_depth=depth, tolerance=1e-12)
        np.testing.assert_allclose(r.states, ref_pagerank(g), atol=1e-8)


def test_cc_directed_without_symmetrising():
    g = golden.Graph.from_edges(4, [1, 2], [0, 3])          # weak components {0,1} {2,3}
    assert run_depgraph("cc", g).states.tolist() == [0, 0, 2, 2]
    # min-label propagation along directed edges only: smallest id that reaches v
    assert run_depgraph("cc", g, symmetrize=False).states.tolist() == [0, 1, 2, 2]


# ---------------------------------------------------------------------------- PageRank

@pytest.mark.parametrize("name", ["kron9", "rmat9", "grid", "karate"])
def test_pagerank_converges_to_the_fixpoint(name):
    g = graph(name)
    tol = 1e-10
    exact = ref_pagerank(g)
    bound = g.num_vertices * tol / (1 - DAMPING)     # 1-norm bound of the leftover deltas
    sync = run_sync_baseline("pagerank", g, tolerance=tol)
    assert sync.converged and np.abs(sync.states - exact).sum() <= bound
    configs = CONFIGS
    if name != "grid":       # the literal walk rule is very slow on a hub-less grid (docs)
        # It walks into every vertex outside H''; the sample of beta alone (no floor) makes
        # H'' large on graphs this small, which keeps the run to seconds (docs).
        configs = configs + [(4, 10, True, {"walk_max_indegree": None, "hub_sample_min": 1})]
    for engines, depth, hub, extra in configs:
        r = run_depgraph("pagerank", g, engines=engines, stack_depth=depth, hub_index=hub,
                         tolerance=tol, **extra)
        assert r.converged
        assert np.abs(r.states - exact).sum() <= bound, (engines, depth, hub, extra)
        assert np.abs(r.states - sync.states).sum() <= 2 * bound
        if r.shortcuts:
            assert r.counters.pseudo_edges == r.counters.shortcut_uses


def test_pagerank_matches_graphicionado_model_after_convergence():
    g = graph("kron9")
    r = run_depgraph("pagerank", g, tolerance=1e-9)
    ref = golden.run("pagerank", g, iters=200).values       # float32, alpha = float32(0.85)
    np.testing.assert_allclose(r.states, ref, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------- hubs, H''

def test_hub_selection_properties():
    g = golden.kronecker(12, 16, seed=1)
    degree = g.out_degree + g.in_degree
    for lam, beta, floor in [(0.005, 0.001, 1), (0.1, 0.05, 1), (0.5, 0.01, 1),
                             (0.005, 0.001, 1024), (0.02, 0.5, 1024)]:
        sel = select_hubs(g, lam=lam, beta=beta, seed=7, min_sample=floor)
        k = min(g.num_vertices, max(floor, round(beta * g.num_vertices)))
        assert sel.sample.size == k == np.unique(sel.sample).size
        top = max(1, math.ceil(lam * k))
        assert sel.threshold == np.sort(degree[sel.sample])[::-1][top - 1]
        assert np.array_equal(sel.hubs, np.flatnonzero(degree > sel.threshold))
        again = select_hubs(g, lam=lam, beta=beta, seed=7, min_sample=floor)
        assert np.array_equal(again.sample, sel.sample) and np.array_equal(again.hubs, sel.hubs)
    samples = {tuple(select_hubs(g, 0.1, 0.01, seed=s).sample) for s in range(4)}
    assert len(samples) > 1
    tiny = golden.Graph.from_edges(3, [0], [1])
    assert select_hubs(tiny, beta=0.001, min_sample=1).sample.size == 1   # at least one
    assert select_hubs(tiny, beta=0.001).sample.size == 3                  # at most n
    # the floor keeps the hubs near lam of the vertices on a small graph
    assert select_hubs(g, seed=7).hubs.size < 0.02 * g.num_vertices


def test_partitions_balance_edges():
    g = graph("kron10")
    for parts in (1, 2, 4, 7):
        b = partition_bounds(g, parts)
        assert b[0] == 0 and b[-1] == g.num_vertices and np.all(np.diff(b) >= 1)
        edges = np.diff(g.offsets[b])
        assert edges.max() <= g.num_edges / parts + g.out_degree.max()
        owner = owner_of(b, g.num_vertices)
        assert all(np.all(owner[b[i]:b[i + 1]] == i) for i in range(parts))
    with pytest.raises(ValueError):
        partition_bounds(golden.Graph.from_edges(2, [0], [1]), 3)


@pytest.mark.parametrize("name,parts", [("kron10", 4), ("rmat9", 3), ("grid", 2)])
def test_core_paths_are_disjoint_and_end_in_hpp(name, parts):
    g = graph(name)
    hubs = select_hubs(g, lam=0.2, beta=0.05, seed=1).hubs
    if hubs.size == 0:                                           # the grid: all degrees equal
        hubs = np.arange(0, g.num_vertices, 9)
    bounds = partition_bounds(g, parts)
    owner = owner_of(bounds, g.num_vertices)
    core = core_structure(g, hubs, bounds, max_len=6)
    assert core.hpp[hubs].all() and core.hpp[core.boundary].all() and core.hpp[core.core].all()
    assert np.array_equal(core.hpp, core.hub | core.core | core.boundary)
    assert core.boundary.any() and core.num_paths > 0
    edges = set(zip(g.src.tolist(), g.dst.tolist()))
    seen_interior, seen_edges = set(), set()
    for i in range(core.num_paths):
        p = core.path(i).tolist()
        assert len(p) >= 2 and core.hpp[p[0]] and core.hpp[p[-1]]
        assert len(p) - 1 <= 6
        assert not core.hpp[p[1:-1]].any()
        assert all((a, b) in edges for a, b in zip(p, p[1:]))
        assert not seen_edges & set(zip(p, p[1:]))
        seen_edges |= set(zip(p, p[1:]))
        assert not seen_interior & set(p[1:-1])                 # disjoint interiors
        seen_interior |= set(p[1:-1])
        assert len({owner[v] for v in p[:-1]}) == 1              # head + interior: one engine
    # a boundary vertex is entered by a core edge from another partition
    starts = {(int(core.path(i)[-2]), int(core.path(i)[-1])) for i in range(core.num_paths)}
    for b_ in np.flatnonzero(core.boundary & ~core.hub):
        assert any(t == b_ and owner[a] != owner[t] for a, t in starts)


# ---------------------------------------------------------------------------- linearity

def test_linearity_gate():
    g = graph("kron9")
    for algo in ("pagerank", "sssp", "bfs", "cc"):
        assert check_linear(get_algorithm(algo), g,
                            g.require_nonnegative_integer_weights()) == (True, "")
    square = dataclasses.replace(SSSP, name="square", edge_compute=lambda x, w, c, k: np.minimum(
        np.asarray(x, np.uint64) ** 2 + w.astype(np.uint64), U32).astype(np.uint32))
    r = run_depgraph(square, g, root=root_of(g), lam=0.2, beta=0.05)
    assert not r.shortcuts and "not linear" in r.shortcut_reason and r.index is None
    assert r.counters.shortcut_uses == 0 and r.converged
    np.testing.assert_array_equal(r.states, run_sync_baseline(square, g, root=root_of(g)).states)
    double = dataclasses.replace(SSSP, name="double", edge_compute=lambda x, w, c, k: np.minimum(
        2 * np.asarray(x, np.uint64) + w.astype(np.uint64), U32).astype(np.uint32))
    r = run_depgraph(double, g, root=root_of(g))
    assert not r.shortcuts and "mu != 1" in r.shortcut_reason
    halfsq = dataclasses.replace(PAGERANK, name="halfsq",
                                 edge_compute=lambda x, w, c, k: np.zeros(k) + np.multiply(
                                     c, np.multiply(x, x)))
    ok, reason = check_linear(halfsq, g)
    assert not ok and "not linear" in reason
    huge = golden.Graph.from_edges(3, [0, 1], [1, 2], [1, U32 - 5])     # saturates
    ok, reason = check_linear(SSSP, huge, huge.weight)
    assert not ok


# ---------------------------------------------------------------------------- hub index

def test_hub_index_learns_a_min_plus_chain_by_hand():
    # core path 0 -> 1 -> 2 -> 3 (weights 2, 3, 4; hubs 0 and 3); vertex 0 is reached three
    # times with decreasing distance: 10 (4->0), 5 (4->5->0), 4 (4->6->7->0)
    src, dst = [4, 4, 4, 0, 1, 2, 5, 6, 7], [0, 5, 6, 1, 2, 3, 0, 7, 0]
    g = golden.Graph.from_edges(8, src, dst, [10, 1, 2, 2, 3, 4, 4, 1, 1])
    r = run_depgraph("sssp", g, root=4, engines=1, hubs=[0, 3, 5, 6, 7])
    ix = r.index
    assert (ix.head.tolist(), ix.second.tolist(), ix.tail.tolist(), ix.length.tolist()) == (
        [0], [1], [3], [3])
    # observations (x=10, y=19) then (5, 14): mu = (14-19)/(5-10) = 1, eps = 14 - 5 = 9
    assert ix.flag[0] == FLAG_A and ix.mu[0] == 1.0 and ix.eps[0] == 9.0
    assert ix.observations == 2 and ix.learned == 1 and ix.rejected == 0
    # third visit of 0 (distance 4) uses the shortcut: 4 + 9 = 13 straight into vertex 3
    assert r.counters.shortcut_uses == 1
    assert r.states.tolist() == [4, 6, 9, 13, 0, 1, 2, 3]
    assert ix.entries_of(0) == (0, 1) and ix.entries_of(3) == (0, 0)
    assert r.hub_stats.index_bytes == 24 + 12


def test_hub_index_learns_a_pagerank_chain_by_hand():
    # a ring 0->1->2->3->5->4->0, hubs 0 and 3: core paths (0,1,2,3) and (3,5,4,0); every
    # out-degree is 1, so mu = alpha**3 and eps = 0; the fixpoint is r = b / (1 - alpha)
    # everywhere (1 up to the float32 rounding of the program's alpha and b)
    g = golden.Graph.from_edges(6, [0, 1, 2, 3, 5, 4], [1, 2, 3, 5, 4, 0])
    r = run_depgraph("pagerank", g, engines=1, hubs=[0, 3], tolerance=1e-12)
    ix = r.index
    assert sorted(zip(ix.head.tolist(), ix.second.tolist(), ix.tail.tolist())) == [
        (0, 1, 3), (3, 5, 0)]
    assert np.all(ix.flag == FLAG_A)
    np.testing.assert_allclose(ix.mu, DAMPING ** 3, rtol=1e-12)
    assert np.all(np.abs(ix.eps) < 1e-15)
    assert r.counters.shortcut_uses > 0
    assert r.counters.pseudo_edges == r.counters.shortcut_uses
    np.testing.assert_allclose(r.states, ONE_MINUS / (1 - DAMPING), atol=1e-9)


def test_hub_index_memory_share_is_reported():
    g = graph("kron10")
    r = run_depgraph("sssp", g, root=root_of(g), lam=0.2, beta=0.05)
    s = r.hub_stats
    assert s.index_bytes == 24 * s.index_entries + 12 * s.index_heads > 0
    assert s.graph_bytes == 4 * (g.num_vertices + 1 + 2 * g.num_edges)
    assert 0 < s.index_share < 1
    assert run_depgraph("sssp", g, hub_index=False).hub_stats.index_bytes == 0


# ---------------------------------------------------------------------------- counters

def test_fewer_updates_than_the_synchronous_baseline():
    g = golden.kronecker(12, 16, seed=1, weights="uniform:1:255")
    root = root_of(g)
    for algo, kw in (("pagerank", {"tolerance": 1e-6}), ("sssp", {"root": root})):
        dep = run_depgraph(algo, g, **kw)
        sync = run_sync_baseline(algo, g, **kw)
        assert dep.converged and sync.converged
        assert dep.counters.vertex_updates < sync.counters.vertex_updates, algo
        assert dep.counters.edges_fetched < sync.counters.edges_fetched, algo
        if algo == "sssp":
            np.testing.assert_array_equal(dep.states, sync.states)     # theorem 1


@pytest.mark.parametrize("algo", ["sssp", "pagerank", "cc"])
def test_ligra_o_spans_serial_to_synchronous(algo):
    """Ligra-o with one thread is the serial execution; with a thread per frontier vertex it is
    the bulk-synchronous baseline, update for update; in between the states agree."""
    g = golden.kronecker(10, 8, seed=2, weights="uniform:1:99")
    kw = {"root": root_of(g)} if algo == "sssp" else {}
    sync = run_sync_baseline(algo, g, **kw)
    wide = run_ligra_baseline(algo, g, threads=g.num_vertices, **kw)
    assert wide.counters.vertex_updates == sync.counters.vertex_updates
    assert wide.counters.rounds == sync.counters.rounds == wide.steps
    updates = []
    for threads in (1, 4, 64):
        run = run_ligra_baseline(algo, g, threads=threads, **kw)
        assert run.converged
        if algo == "pagerank":
            assert np.abs(run.states - sync.states).sum() < 2 * g.num_vertices * 1e-6 / 0.15
        else:
            np.testing.assert_array_equal(run.states, sync.states)
        assert run.steps >= -(-run.counters.vertex_updates // threads)
        updates.append(run.counters.vertex_updates)
    assert updates[0] <= sync.counters.vertex_updates


def test_ligra_o_sees_updates_within_a_round():
    """0→2 (10), 0→1 (1), 1→2 (1): in round 2 the frontier is {1, 2}; serially 1 goes first
    and lowers 2's distance before 2's turn, so 2 is folded once. Bulk-synchronously both
    fold at once and 2 folds again in a third round."""
    g = golden.Graph.from_edges(3, [0, 0, 1], [2, 1, 2], [10, 1, 1])
    serial = run_ligra_baseline("sssp", g, root=0, threads=1)
    sync = run_sync_baseline("sssp", g, root=0)
    assert serial.states.tolist() == sync.states.tolist() == [0, 1, 2]
    assert (serial.counters.rounds, serial.counters.vertex_updates) == (2, 3)
    assert (sync.counters.rounds, sync.counters.vertex_updates) == (3, 4)
    both = run_ligra_baseline("sssp", g, root=0, threads=2)
    assert (both.counters.rounds, both.counters.vertex_updates) == (3, 4)


def test_ligra_o_visibility_delays_the_updates_it_sees():
    """The same graph, one thread, pushes seen two steps later. Round 1 (step 1): 0 folds
    and pushes 1 and 10, seen at the barrier. Round 2: 1 folds at step 2 and pushes 2 to
    vertex 2, seen from step 4; at step 3 vertex 2 still holds 10 and folds it (a wasted
    update); the barrier brings the 2 in, so 2 folds again in round 3 (step 4): four
    updates in four steps against the serial execution's three in three."""
    g = golden.Graph.from_edges(3, [0, 0, 1], [2, 1, 2], [10, 1, 1])
    serial = run_ligra_baseline("sssp", g, root=0, threads=1)
    late = run_ligra_baseline("sssp", g, root=0, threads=1, visibility=2)
    assert (serial.steps, serial.counters.vertex_updates) == (3, 3)
    assert late.states.tolist() == [0, 1, 2]
    assert (late.counters.rounds, late.steps, late.counters.vertex_updates) == (3, 4, 4)
    assert late.counters.thread_steps == 4 and late.visibility == 2


@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
def test_ligra_o_seeing_nothing_before_the_barrier_is_synchronous(algo):
    """Pushes seen only at the round's barrier (a visibility longer than any round): every
    vertex folds what it held when the round began, as the bulk-synchronous run does."""
    g = golden.kronecker(9, 8, seed=2, weights="uniform:1:99")
    kw = {"root": root_of(g)} if algo == "sssp" else {}
    sync = run_sync_baseline(algo, g, **kw)
    blind = run_ligra_baseline(algo, g, threads=1, visibility=g.num_vertices + 1, **kw)
    assert blind.counters.vertex_updates == sync.counters.vertex_updates
    assert blind.counters.rounds == sync.counters.rounds
    if algo == "sssp":
        np.testing.assert_array_equal(blind.states, sync.states)


@pytest.mark.parametrize("algo", ["sssp", "pagerank", "cc"])
@pytest.mark.parametrize("hub_index", [True, False])
def test_several_walks_in_flight_reach_the_same_fixpoint(algo, hub_index):
    """Walk contexts taking turns change the order of visits, not the result; one context is
    the single walk of each engine."""
    g = golden.kronecker(11, 8, seed=4, weights="uniform:1:99")
    kw = {"root": root_of(g)} if algo == "sssp" else {}
    one = run_depgraph(algo, g, engines=2, hub_index=hub_index, **kw)
    assert one.counters == run_depgraph(algo, g, engines=2, hub_index=hub_index, walks=1,
                                        **kw).counters
    for walks in (2, 5):
        many = run_depgraph(algo, g, engines=2, hub_index=hub_index, walks=walks, **kw)
        assert many.converged and many.params["walks"] == walks
        if algo == "pagerank":
            assert np.abs(many.states - one.states).sum() < 2 * g.num_vertices * 1e-6 / 0.15
        else:
            np.testing.assert_array_equal(many.states, one.states)


@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
def test_a_big_batch_leaves_nothing_for_its_walk(algo):
    """``leave_max_edges``: a vertex of more out-edges is not pushed and queues what its
    batch activates. At 0 no vertex with an edge is pushed, which is a stack of one entry
    (every visit a root) but for what counts as an overflow; a limit changes the order of
    visits, not the fixpoint."""
    g = golden.kronecker(10, 8, seed=4, weights="uniform:1:99")
    kw = {"root": root_of(g)} if algo == "sssp" else {}
    flat = run_depgraph(algo, g, engines=2, hub_index=False, walks=2, stack_depth=1, **kw)
    none = run_depgraph(algo, g, engines=2, hub_index=False, walks=2, leave_max_edges=0, **kw)
    for c in (flat.counters, none.counters):
        c.stack_overflows = 0
    assert none.counters == flat.counters
    free = run_depgraph(algo, g, engines=2, hub_index=False, walks=2, **kw)
    some = run_depgraph(algo, g, engines=2, hub_index=False, walks=2, leave_max_edges=16, **kw)
    assert some.params["leave_max_edges"] == 16 and some.converged
    assert some.counters != free.counters
    if algo == "pagerank":
        assert np.abs(some.states - free.states).sum() < 2 * g.num_vertices * 1e-6 / 0.15
    else:
        np.testing.assert_array_equal(some.states, free.states)


def test_hub_chain_generator_shape():
    g = golden.load_graph("hubchain:hubs=8,chains=2,length=5,fan=6,stride=3,seed=2")
    per = 1 + 2 * 4 + 6
    assert g.num_vertices == 8 * per and g.num_edges == 8 * (2 * 5 + 6)
    hubs = np.arange(8) * per
    interior = np.setdiff1d(np.arange(g.num_vertices), hubs)
    chain = interior[(interior % per) <= 8]
    assert np.all(g.in_degree[chain] == 1) and np.all(g.out_degree[chain] == 1)
    assert np.all(g.out_degree[hubs] == 2) and np.all(g.in_degree[hubs] >= 6 + 1)
    ring_tail = g.dst[g.offsets[hubs[0] + 4]]            # last interior of hub 0's chain 0
    assert ring_tail == hubs[3]
    with pytest.raises(golden.GraphError, match="stride"):
        golden.load_graph("hubchain:hubs=4,stride=8")


def test_hub_index_pays_on_hub_chains():
    """Where the paper's effect needs it: core paths between hubs whose tails lie in other
    engines' partitions, a path within the stack depth, little else to do. Directed
    min-label CC, an engine per hub: the shortcut reaches the next hub before the walk."""
    g = golden.load_graph("hubchain:hubs=16,length=6,fan=40")
    on, off = (run_depgraph("cc", g, engines=16, hub_index=h, lam=0.05, symmetrize=False)
               for h in (True, False))
    np.testing.assert_array_equal(on.states, off.states)
    assert on.counters.shortcut_uses > 0
    assert on.counters.rounds <= 0.7 * off.counters.rounds
    assert on.counters.vertex_updates < off.counters.vertex_updates


def test_counters_are_consistent_and_deterministic():
    g = graph("kron10")
    a = run_depgraph("sssp", g, root=root_of(g), stack_depth=2, lam=0.2, beta=0.05)
    b = run_depgraph("sssp", g, root=root_of(g), stack_depth=2, lam=0.2, beta=0.05)
    assert a.counters == b.counters and np.array_equal(a.states, b.states)
    c = a.counters
    assert c.stack_overflows > 0 and c.queue_pushes > 0 and c.edges_fetched > 0
    assert c.vertex_updates == c.visits
    small = run_depgraph("pagerank", g, queue_capacity=2)
    assert small.counters.queue_overflows > 0 and small.counters.rescans > 0
    np.testing.assert_allclose(small.states, run_depgraph("pagerank", g).states, atol=1e-4)


# ---------------------------------------------------------------------------- input checks

@pytest.mark.parametrize("kwargs,match", [
    ({"root": -1}, "root"), ({"root": 10**6}, "root"), ({"root": 1.5}, "root"),
    ({"engines": 0}, "engines"), ({"engines": 10**6}, "engines"),
    ({"stack_depth": 0}, "stack_depth"), ({"tolerance": 0}, "tolerance"),
    ({"tolerance": float("nan")}, "tolerance"), ({"lam": 0}, "lam"), ({"beta": 1.5}, "beta"),
    ({"queue_capacity": 0}, "queue_capacity"), ({"seed": -1}, "seed"),
    ({"hubs": [10**6]}, "hub"), ({"max_path_len": 1}, "max_path_len"),
    ({"walk_max_indegree": -1}, "walk_max_indegree"), ({"hub_index": "yes"}, "hub_index"),
])
def test_bad_parameters(kwargs, match):
    g = graph("kron9")
    with pytest.raises(ValueError, match=match):
        run_depgraph("sssp", g, **kwargs)


def test_bad_algorithm_graph_and_root():
    g = graph("kron9")
    with pytest.raises(ValueError, match="unknown algorithm"):
        run_depgraph("nope", g)
    with pytest.raises(ValueError, match="Graph"):
        run_depgraph("bfs", [(0, 1)])
    with pytest.raises(ValueError, match="takes no root"):
        run_depgraph("pagerank", g, root=0)
    with pytest.raises(ValueError, match="tolerance"):
        run_sync_baseline("pagerank", g, tolerance=-1.0)
    with pytest.raises(ValueError, match="accum"):
        run_depgraph(GasAlgorithm("x", "product", np.uint32, 0, SSSP.edge_compute), g)
