"""The BFS golden model (golden/bfs): levels against scipy, parents by Graph500's rules, and
every per-level counter against a plain loop-by-loop reading of the same specification."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

import golden
from golden.bfs import (BfsOptions, ValidationError, component_edges, harmonic_mean,
                        run_bfs, validate_parents)
from golden.bfs.frontier import (block_bounds, blocked_scan, degree_class, derived_queue,
                                 interleaved_scan, split_by_class)

GRAPHS = ["kron:scale=9,ef=8,undirected=1", "kron:scale=8,ef=4", "rmat:scale=8,ef=8,undirected=1",
          "grid:rows=12,cols=15", "scalefree:n=600,hub_degree=120"]


def scipy_levels(graph, root):
    m = csr_matrix((np.ones(graph.num_edges), (graph.src, graph.dst)),
                   shape=(graph.num_vertices,) * 2)
    d = shortest_path(m, unweighted=True, indices=root)
    return np.where(np.isinf(d), 2**32 - 1, d).astype(np.uint32)


def reference_bfs(graph, root, opts: BfsOptions):
    """The specification of golden/bfs/traversal.py, one vertex and one edge at a time."""
    n = graph.num_vertices
    out = [[] for _ in range(n)]
    inn = [[] for _ in range(n)]
    for u, v in zip(graph.src.tolist(), graph.dst.tolist()):
        out[u].append(v)
        inn[v].append(u)
    for lst in inn:
        lst.sort()
    hub = [len(out[v]) > opts.tau for v in range(n)]
    level = [None] * n
    parent = [-1] * n
    level[root], parent[root] = 0, root
    cache = [None] * opts.cache_slots

    def fill(vertices):
        for i in range(len(cache)):
            cache[i] = None
        for v in vertices:
            slot = v % len(cache) if cache else None
            if hub[v] and cache and (cache[slot] is None or cache[slot] < v):
                cache[slot] = v

    def classify(queue, degree):
        bins = [[], [], [], []]
        for v in queue:
            d = degree(v)
            bins[sum(d >= t for t in opts.thresholds)].append(v)
        return bins

    def lane_major(hits, lanes):
        return [v for lane in range(lanes) for v in hits if v % lanes == lane]

    records = []
    direction = "bottomup" if opts.direction == "bottomup" else "topdown"
    fill([root])
    if direction == "topdown":
        queue = lane_major([root], opts.lanes)
    else:
        queue = [v for v in range(n) if level[v] is None]
    switched_back, previous = False, 1
    L = 1
    while queue:
        checked = reads = hits = 0
        new = []
        if direction == "topdown":
            bins = classify(queue, lambda v: len(out[v]))
            for u in [v for b in bins for v in b]:
                for v in out[u]:
                    checked += 1
                    reads += 1
                    if level[v] is None:
                        level[v], parent[v] = L, u
                        new.append(v)
        else:
            bins = classify(queue, lambda v: len(inn[v]))
            for v in [x for b in bins for x in b]:
                for u in inn[v]:
                    checked += 1
                    if cache and cache[u % len(cache)] == u:
                        hits += 1
                        found = True
                    else:
                        reads += 1
                        found = level[u] == L - 1
                    if found:
                        new.append(v)
                        parent[v] = u
                        break
            for v in new:
                level[v] = L
        records.append((direction, len(queue), [len(b) for b in bins], checked, reads, hits,
                        len(new), sum(hub[v] for v in new)))
        if not new:
            break
        fill(new)
        following = direction
        if opts.direction == "auto":
            hubs = sum(hub)
            if direction == "topdown" and not switched_back and hubs and \
                    100 * sum(hub[v] for v in new) > opts.gamma_percent * hubs:
                following = "bottomup"
            elif direction == "bottomup" and len(new) < n / opts.tail_beta and len(new) < previous:
                following, switched_back = "topdown", True
        just = [v for v in range(n) if level[v] == L]
        if following == "topdown":
            queue = lane_major(just, opts.lanes)
        elif direction == "topdown":
            queue = [v for v in range(n) if level[v] is None]
        else:
            queue = [v for v in queue if level[v] != L]
        direction, previous = following, len(new)
        L += 1
    levels = np.array([2**32 - 1 if x is None else x for x in level], dtype=np.uint32)
    return levels, np.array(parent, dtype=np.int64), records


OPTIONS = [dict(direction=d, hub_cache=hc, hub_cache_entries=16, lanes=lanes, tau=tau)
           for d in ("auto", "topdown", "bottomup") for hc in (False, True)
           for lanes, tau in ((1, 8), (8, 16), (3, 40))]


@pytest.mark.parametrize("spec", GRAPHS)
def test_levels_equal_scipy_and_parents_pass_graph500(spec):
    graph = golden.load_graph(spec)
    for root in (0, 7, graph.num_vertices - 1):
        expected = scipy_levels(graph, root)
        for opts in OPTIONS:
            result = run_bfs(graph, root, **opts)
            np.testing.assert_array_equal(result.levels, expected, err_msg=str(opts))
            depths = validate_parents(graph, root, result.parents, result.levels)
            np.testing.assert_array_equal(depths, expected)


@pytest.mark.parametrize("spec", GRAPHS)
def test_every_counter_equals_the_loop_reading(spec):
    graph = golden.load_graph(spec)
    for root in (0, 11):
        for raw in OPTIONS[::2] + OPTIONS[1::5]:
            opts = BfsOptions(**raw)
            result = run_bfs(graph, root, opts)
            levels, parents, records = reference_bfs(graph, root, opts)
            np.testing.assert_array_equal(result.levels, levels)
            np.testing.assert_array_equal(result.parents, parents, err_msg=str(raw))
            got = [(r.direction, r.frontier, list(r.classes.values()), r.edges_checked,
                    r.status_reads, r.hub_cache_hits, r.visited, r.hubs_visited)
                   for r in result.records]
            assert got == records, raw


def test_auto_switches_on_hubs_and_checks_fewer_edges():
    graph = golden.load_graph("kron:scale=12,ef=16,undirected=1")
    root = int(np.argmax(np.diff(graph.offsets) > 0))
    top = run_bfs(graph, root, direction="topdown", tau=64)
    auto = run_bfs(graph, root, direction="auto", tau=64, hub_cache=False)
    assert "bottomup" in auto.directions() and auto.directions()[0] == "topdown"
    assert auto.directions()[-1] == "topdown"                # back for the tail
    assert auto.total("edges_checked") < 0.5 * top.total("edges_checked")
    cached = run_bfs(graph, root, direction="auto", tau=64, hub_cache_entries=256)
    assert cached.total("hub_cache_hits") > 0
    assert cached.total("status_reads") < auto.total("status_reads")
    assert cached.total("edges_checked") == auto.total("edges_checked")


def test_a_graph_without_hubs_stays_top_down():
    graph = golden.load_graph("grid:rows=10,cols=10")
    result = run_bfs(graph, 0, direction="auto", tau=8)
    assert set(result.directions()) == {"topdown"} and result.num_hubs == 0


def test_frontier_workflows():
    hits = np.zeros(20, dtype=bool)
    hits[[1, 2, 5, 6, 9, 12, 19]] = True
    assert interleaved_scan(hits, 4).tolist() == [12, 1, 5, 9, 2, 6, 19]
    assert blocked_scan(hits, 4).tolist() == [1, 2, 5, 6, 9, 12, 19]
    assert block_bounds(10, 4).tolist() == [0, 4, 8, 10, 10]
    visited = np.zeros(20, dtype=bool)
    visited[[5, 19]] = True
    assert derived_queue(np.array([12, 1, 5, 9, 19]), visited).tolist() == [12, 1, 9]
    assert degree_class(np.array([0, 31, 32, 255, 256, 65535, 65536])).tolist() == \
        [0, 0, 1, 1, 2, 2, 3]
    degree = np.array([1, 40, 300, 70000, 2])
    parts = split_by_class(np.array([4, 3, 2, 1, 0]), degree)
    assert [p.tolist() for p in parts] == [[4, 0], [1], [2], [3]]


def _tree(graph, root):
    return run_bfs(graph, root, direction="topdown").parents.copy()


def test_graph500_validation_names_the_broken_rule():
    graph = golden.load_graph("kron:scale=7,ef=8,undirected=1")
    root = 0
    good = _tree(graph, root)
    reached = np.flatnonzero(good >= 0)
    deep = [v for v in reached if v != root and good[good[v]] != good[v]]
    v = int(deep[0])
    broken = good.copy()
    broken[root] = -1
    with pytest.raises(ValidationError) as e:
        validate_parents(graph, root, broken)
    assert e.value.rule == 1
    broken = good.copy()                                    # a two-cycle
    broken[v], broken[good[v]] = good[v], v
    with pytest.raises(ValidationError) as e:
        validate_parents(graph, root, broken)
    assert e.value.rule == 1
    levels = run_bfs(graph, root).levels.copy()
    levels[v] += 1
    with pytest.raises(ValidationError) as e:
        validate_parents(graph, root, good, levels)
    assert e.value.rule == 2
    broken = good.copy()                                    # an unreached end of an edge
    leaves = [x for x in reached if x != root and x not in set(good[reached].tolist())]
    broken[leaves[0]] = -1
    with pytest.raises(ValidationError) as e:
        validate_parents(graph, root, broken)
    assert e.value.rule == 4
    path = golden.Graph.from_edges(4, [0, 1, 2, 0], [1, 2, 3, 3])     # 0->3 directly
    with pytest.raises(ValidationError) as e:
        validate_parents(path, 0, [0, 0, 1, 2])
    assert e.value.rule == 3
    with pytest.raises(ValidationError) as e:                # 2's parent 0: no such edge
        validate_parents(path, 0, [0, 0, 0, 0])
    assert e.value.rule == 5
    validate_parents(path, 0, [0, 0, 1, 0])


def test_component_edges_and_harmonic_mean():
    graph = golden.load_graph("kron:scale=8,ef=4,undirected=1")
    levels = run_bfs(graph, 3).levels
    reached = levels != 2**32 - 1
    undirected = {(min(u, v), max(u, v)) for u, v in zip(graph.src.tolist(), graph.dst.tolist())
                  if reached[u]}
    assert component_edges(graph, reached) == len(undirected)
    directed = golden.load_graph("kron:scale=8,ef=4")
    r = run_bfs(directed, 3).levels != 2**32 - 1
    assert component_edges(directed, r) == int(r[directed.src].sum())
    assert harmonic_mean([1.0, 3.0]) == pytest.approx(1.5)
    assert harmonic_mean([]) == 0.0


def test_bad_options_are_refused():
    for bad in (dict(direction="sideways"), dict(lanes=0), dict(gamma_percent=101),
                dict(large_degree=16), dict(hub_cache_entries=0)):
        with pytest.raises(golden.GraphError):
            BfsOptions(**bad)
    graph = golden.load_graph("grid:rows=3,cols=3")
    with pytest.raises(golden.GraphError):
        run_bfs(graph, 9)
