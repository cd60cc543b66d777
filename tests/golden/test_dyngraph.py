"""The slab-hash graph's golden model against a plain dict-of-dicts adjacency, its invariants,
its counters read by hand, and the update format's refusals."""

import numpy as np
import pytest

import golden
from golden.dyngraph import (OpKind, SlabGraph, SlabOptions, UpdateError, bucket_of,
                             buckets_for_degree, generate_updates, parse_updates, write_updates)
from golden.dyngraph.slab import AUX_WORD, EMPTY_KEY, NEXT_WORD, NULL_SLAB, TOMBSTONE_KEY


class DictGraph:
    """The reference: a dict of dicts, every operation by its plain meaning."""

    def __init__(self, graph: golden.Graph, max_vertices: int):
        self.max_vertices = max_vertices
        self.adj = {u: {} for u in range(graph.num_vertices)}
        weights = graph.weight if graph.weight is not None else np.ones(graph.num_edges)
        for u, v, w in zip(graph.src.tolist(), graph.dst.tolist(), weights.tolist()):
            self.adj[u][v] = int(w)

    def apply(self, updates):
        answers, skipped = [], 0
        for kind, u, v, w in zip(updates.kind.tolist(), updates.u.tolist(),
                                 updates.v.tolist(), updates.w.tolist()):
            kind = OpKind(kind)
            if kind == OpKind.INSERT_VERTEX:
                self.adj.setdefault(u, {})
            elif kind == OpKind.DELETE_VERTEX:
                if self.adj.pop(u, None) is not None:
                    for table in self.adj.values():
                        table.pop(u, None)
            elif u not in self.adj or v not in self.adj:
                skipped += 1
                if kind == OpKind.SEARCH_EDGE:
                    answers.append(None)
            elif kind == OpKind.INSERT_EDGE:
                self.adj[u][v] = w
            elif kind == OpKind.DELETE_EDGE:
                self.adj[u].pop(v, None)
            else:
                answers.append(self.adj[u].get(v))
        return answers, skipped

    def edges(self):
        triples = sorted((u, v, w) for u, table in self.adj.items() for v, w in table.items())
        return [np.array([t[i] for t in triples], dtype=np.int64) for i in range(3)]


def _same_edges(model: SlabGraph, reference: DictGraph):
    src, dst, weight = model.edges()
    want = reference.edges()
    assert np.array_equal(src, want[0]) and np.array_equal(dst, want[1])
    assert np.array_equal(weight.astype(np.int64), want[2])
    assert set(np.flatnonzero(model.present).tolist()) == set(reference.adj)


def _answers(answers):
    return [int(w) if f else None for f, w in zip(answers.found, answers.weight)]


GRAPHS = {
    "kron": "kron:scale=8,ef=8,seed=2,weights=uniform:1:50",
    "uniform": "uniform:n=200,m=1500,seed=3",
    "grid": "grid:rows=12,cols=12,seed=1",
}


@pytest.mark.parametrize("graph_name", list(GRAPHS))
@pytest.mark.parametrize("mix", [
    "insert=40,delete=20,search=30,vinsert=5,vdelete=5,hit=50",
    "insert=70,delete=10,search=20,hit=10",          # chains grow past one slab
    "insert=30,delete=40,search=30,hit=80",          # deletes, tombstones reused
    "insert=30,delete=10,search=20,vinsert=15,vdelete=25,hit=50",
])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_batches_match_the_dict_model(graph_name, mix, seed):
    graph = golden.from_spec(GRAPHS[graph_name])
    max_vertices = graph.num_vertices + 16
    options = SlabOptions(load_factor_percent=90, max_vertices=max_vertices)
    model = SlabGraph.build(graph, options)
    reference = DictGraph(graph, max_vertices)
    updates = generate_updates(f"mix:ops=3000,{mix},seed={seed},weights=0:4294967295",
                               graph, max_vertices)
    for batch in updates.batches(700):
        part = updates.slice(batch)
        answers, counters = model.apply(part)
        want, skipped = reference.apply(part)
        assert _answers(answers) == want
        assert counters.skipped == skipped
        model.check()
        _same_edges(model, reference)


def test_chains_longer_than_a_slab_and_tombstones_reused():
    # One vertex, one bucket (load factor 100 and degree 15): every insert chains.
    graph = golden.Graph.from_edges(64, [0] * 15, list(range(1, 16)), list(range(15)))
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=100))
    assert model.buckets[0] == 1 and model.chain_lengths()[0] == 1
    text = "".join(f"+ 0 {v} {v}\n" for v in range(16, 64))      # 48 more: 63 pairs, 5 slabs
    answers, counters = model.apply(parse_updates(text.encode()))
    assert counters.allocations == 4 and counters.inserted == 48
    assert model.chain_lengths()[0] == 5
    # Walks stop at the slab holding an empty cell: the 48th insert read all four slabs.
    model.check()
    before = model.slabs_in_use()
    answers, counters = model.apply(parse_updates(b"- 0 3\n+ 0 3 7\n? 0 3\n? 0 63\n"))
    assert _answers(answers) == [7, 63]
    assert counters.allocations == 0 and model.slabs_in_use() == before
    # The re-insert found the tombstone in the first slab: same cell as before.
    slab = int(model.base[0])
    assert model.pool[slab, 2 * 2] == 3 and model.pool[slab, 2 * 2 + 1] == 7


def test_walk_reads_follow_the_rules():
    graph = golden.Graph.from_edges(64, [0] * 30, list(range(1, 31)), None)
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=100))
    assert model.buckets[0] == 2
    base = int(model.base[0])
    # Each bucket: its edges in order, 15 a slab, so a chain is full or ends in empties.
    keys = [v for v in range(1, 31)]
    per_bucket = [sum(1 for v in keys if bucket_of(v, 2) == b) for b in range(2)]
    for b in range(2):
        chain = [base + b]
        while model.pool[chain[-1], NEXT_WORD] != NULL_SLAB:
            chain.append(int(model.pool[chain[-1], NEXT_WORD]))
        assert len(chain) == -(-per_bucket[b] // 15)
        # A search for an absent key reads the whole chain unless a slab has an empty cell.
        absent = next(v for v in range(31, 200) if bucket_of(v, 2) == b)
        _, counters = model.apply(parse_updates(f"? 0 {absent}\n".encode()))
        assert counters.walk_slab_reads == len(chain)
        # A present key in the first slab: one read.
        first = int(model.pool[base + b, 0])
        _, counters = model.apply(parse_updates(f"? 0 {first}\n".encode()))
        assert counters.walk_slab_reads == 1


def test_build_layout():
    graph = golden.from_spec("kron:scale=7,ef=16,seed=5,weights=uniform:1:9")
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=70))
    model.check()
    buckets = buckets_for_degree(graph.out_degree, 70)
    assert np.array_equal(model.buckets[:graph.num_vertices], buckets)
    assert np.array_equal(model.base[:graph.num_vertices],
                          np.concatenate(([0], np.cumsum(buckets)[:-1])))
    assert (model.pool[:int(buckets.sum()), AUX_WORD]
            == np.repeat(np.arange(graph.num_vertices), buckets)).all()
    src, dst, weight = model.edges()
    assert np.array_equal(src, graph.src) and np.array_equal(dst, graph.dst)
    assert np.array_equal(weight, graph.weight)
    assert model.free[-1] == model.slabs_in_use()      # the lowest free slab is handed out first
    assert 0 < model.memory_efficiency() <= 15 * 8 / 128


def test_repeated_edges_keep_the_last_weight_and_unweighted_get_one():
    graph = golden.Graph.from_edges(3, [0, 0, 1], [1, 1, 2], [5, 9, 4])
    model = SlabGraph.build(graph)
    assert [t.tolist() for t in model.edges()] == [[0, 1], [1, 2], [9, 4]]
    model = SlabGraph.build(golden.Graph.from_edges(3, [0], [2]))
    assert model.edges()[2].tolist() == [1]


def test_full_slabs_reach_the_papers_best_efficiency():
    n = 16                                   # each vertex points at the 15 others
    src = np.repeat(np.arange(n), 15)
    dst = np.array([v for u in range(n) for v in range(n) if v != u])
    graph = golden.Graph.from_edges(200, src, dst)
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=100, max_vertices=200))
    model.apply(parse_updates("".join(f"-v {u}\n" for u in range(n, 200)).encode()))
    model.check()
    assert model.memory_efficiency() == pytest.approx(15 * 8 / 128)


def test_allocator_exhaustion_refuses_inserts_without_corruption():
    graph = golden.from_spec("uniform:n=50,m=300,seed=4")
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=100))
    pool = model.slabs_in_use() + 3
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=100, pool_slabs=pool))
    reference = DictGraph(graph, 50)
    updates = generate_updates("mix:ops=2000,insert=90,search=10,hit=0,seed=5", graph, 50)
    answers, counters = model.apply(updates)
    want, _ = reference.apply(updates)
    assert counters.allocation_failures > 0 and counters.allocations == 3
    assert not model.free
    model.check()
    src, dst, weight = model.edges()
    held = {(u, v): w for u, v, w in zip(src.tolist(), dst.tolist(), weight.tolist())}
    wanted = {(u, v): w for u, v, w in zip(*(t.tolist() for t in reference.edges()))}
    assert held.keys() <= wanted.keys()
    assert all(wanted[edge] == w for edge, w in held.items())
    assert len(wanted) - len(held) <= counters.allocation_failures
    for got, expected in zip(_answers(answers), want):
        assert got is None or got == expected


def test_vertex_deletion_sweeps_in_groups():
    graph = golden.from_spec("uniform:n=40,m=400,seed=6")
    model = SlabGraph.build(graph, SlabOptions(sweep_group=2))
    reference = DictGraph(graph, 40)
    text = b"-v 3\n-v 4\n-v 5\n-v 3\n+v 3\n+ 3 7 11\n+ 7 3 12\n-v 7\n? 3 7\n"
    updates = parse_updates(text)
    answers, counters = model.apply(updates)
    want, _ = reference.apply(updates)
    assert _answers(answers) == want == [None]
    assert counters.sweeps == 3                     # {3, 4}, {5} (+ absent 3), {7}
    assert counters.vertex_delete_absent == 1
    assert counters.sweep_slab_reads == 3 * len(model.pool)
    def in_edges(targets, gone):
        return int((np.isin(graph.dst, targets) & ~np.isin(graph.src, gone)).sum())
    assert counters.in_edges_removed == (in_edges([3, 4], [3, 4]) + in_edges([5], [3, 4, 5])
                                         + 1 + in_edges([7], [3, 4, 5, 7]))   # 1: 3 -> 7
    model.check()
    _same_edges(model, reference)


def test_parse_format_and_refusals(tmp_path):
    updates = parse_updates(b"# a comment\n+ 1 2 3  # trailing\n\n- 1 2\n? 4 5\n+v 9\n-v 9\n")
    assert updates.kind.tolist() == [0, 1, 2, 3, 4]
    assert updates.line.tolist() == [2, 4, 5, 6, 7]
    assert updates.w.tolist() == [3, 0, 0, 0, 0]
    path = tmp_path / "ops.txt"
    write_updates(updates, path)
    again = parse_updates(path.read_bytes())
    assert all(np.array_equal(getattr(again, f), getattr(updates, f))
               for f in ("kind", "u", "v", "w"))
    for text, fault in [(b"+ 1 2\n", r"line 1: \+ takes 3 values"),
                        (b"\n* 1 2\n", "line 2: unknown operation"),
                        (b"? 1 x\n", "line 1: .x. is not"),
                        (b"? 1 -2\n", "line 1: '-2' is not"),
                        (b"+ 1 2 4294967296\n", "line 1: weight 4294967296 does not fit"),
                        (b"+v 4294967295\n", "line 1: vertex 4294967295 does not fit"),
                        (b"-v\n", "line 1: -v takes 1 value")]:
        with pytest.raises(UpdateError, match=fault):
            parse_updates(text)


def test_an_id_beyond_max_vertices_applies_nothing():
    graph = golden.from_spec("uniform:n=20,m=50,seed=1")
    model = SlabGraph.build(graph)
    before = model.pool.copy()
    with pytest.raises(UpdateError, match="line 3: vertex 20 is not below max_vertices"):
        model.apply(parse_updates(b"+ 1 2 3\n-v 4\n? 1 20\n"))
    assert np.array_equal(model.pool, before)


@pytest.mark.parametrize("spec, fault", [
    ("mix:insert=50,delete=20", "sum to 70"),
    ("mix:ops=0", "ops must be in"),
    ("mix:bogus=1", "unknown key"),
    ("mix:weights=5:1", "empty range"),
    ("shuffle:ops=3", "no such update file or generator spec"),
])
def test_generator_spec_refusals(spec, fault):
    graph = golden.from_spec("uniform:n=20,m=50,seed=1")
    with pytest.raises(UpdateError, match=fault):
        generate_updates(spec, graph, 20)


def test_sentinels_are_not_vertex_ids():
    assert EMPTY_KEY > TOMBSTONE_KEY
    model = SlabGraph.build(golden.Graph.from_edges(4, [0], [1]))
    assert (model.pool[1:, 0::2][:, :15] == EMPTY_KEY).all()


def test_analytics_on_the_updated_graph_match_networkx():
    networkx = pytest.importorskip("networkx")
    graph = golden.from_spec("kron:scale=7,ef=8,seed=3")
    model = SlabGraph.build(graph, SlabOptions(max_vertices=140))
    model.apply(generate_updates("mix:ops=800,insert=50,delete=30,vinsert=10,vdelete=10,seed=2",
                                 graph, 140))
    updated = model.to_graph()
    reference = networkx.DiGraph()
    reference.add_nodes_from(range(140))
    reference.add_edges_from(zip(updated.src.tolist(), updated.dst.tolist()))
    root = int(updated.src[0])
    levels = golden.run("bfs", updated, root=root).values
    want = networkx.single_source_shortest_path_length(reference, root)
    assert {v: int(levels[v]) for v in range(140) if levels[v] != golden.UNREACHED} == want


@pytest.mark.parametrize("graph_name", list(GRAPHS))
def test_compaction_is_the_graph_grouped_by_source(graph_name):
    """The compactor's walk: the edge set of the dict model, sources ascending (the order
    Graphicionado's EdgeIDTable needs), every chain slab read once, the table a prefix sum of
    the degrees and VConst Graphicionado's PageRank constants."""
    from golden.algorithms import pagerank_inv_outdeg
    from golden.dyngraph.compaction import compact
    graph = golden.from_spec(GRAPHS[graph_name])
    max_vertices = graph.num_vertices + 16
    model = SlabGraph.build(graph, SlabOptions(load_factor_percent=90, max_vertices=max_vertices))
    reference = DictGraph(graph, max_vertices)
    updates = generate_updates("mix:ops=2000,insert=60,delete=15,search=5,vinsert=10,"
                               "vdelete=10,hit=40,seed=4", graph, max_vertices)
    model.apply(updates)
    reference.apply(updates)
    out = compact(model)
    assert np.all(np.diff(out.src) >= 0)
    got = sorted(zip(out.src.tolist(), out.dst.tolist(), out.weight.tolist()))
    want = sorted((u, v, w) for u, row in reference.adj.items() for v, w in row.items())
    assert got == want
    assert out.slab_reads == int(model.chain_lengths().sum())
    assert np.array_equal(np.diff(out.edge_id_table), out.degree)
    assert out.edge_id_table[-1] == out.num_edges
    assert np.array_equal(out.inv_degree, pagerank_inv_outdeg(model.to_graph()))
    # Fewer vertices: a prefix of the walk.
    half = compact(model, max_vertices // 2)
    assert np.array_equal(half.src, out.src[:half.num_edges])
    assert half.edge_id_table[-1] == half.num_edges == out.edge_id_table[max_vertices // 2]
