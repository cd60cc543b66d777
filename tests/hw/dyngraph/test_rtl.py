"""The dynamic graph unit's Verilog against the golden model: after random mixed batches
(duplicates, deletes of absent edges, vertex insertions and deletions, chains longer than a
slab, the pool running out) the state read back keeps the slab hash's invariants, and the
final edges with their weights, every answer and every counter equal the golden model's,
under random stalls and a hostile memory (push-back, reordering, a slow tail). After each run
the compactor's edge list, EdgeIDTable and VConst equal the golden walk's word for word, and
BFS and PageRank run by Graphicionado's RTL on those words equal the golden model on the
updated graph."""

import dataclasses

import golden
import numpy as np
import pytest
from golden.dyngraph import SlabGraph, SlabOptions, generate_updates
from hw.dyngraph.compact_index import record_fields
from hw.dyngraph.config import DynGraphConfig
from sim.gateware.sim_memory import SimMemoryConfig
from sim.dyngraph.analytics import analytics_config, run_analytics
from sim.dyngraph.run import MEMORY_KINDS, simulate
from tests.support.traffic import check_traffic
from sim.run_settings import RunSettings

MEMORY = SimMemoryConfig(latency=40, latency_dist="uniform", jitter=16, outstanding=64,
                         depth_lines=1 << 15)
HOSTILE = SimMemoryConfig(latency=30, latency_dist="tail", jitter=6, tail_percent=10,
                          tail=300, outstanding=5, pushback=30, reorder=True,
                          bytes_per_cycle=12.5, depth_lines=1 << 15)

GRAPH = "kron:scale=7,ef=8,seed=2,weights=uniform:1:50"
MIXED = "insert=35,delete=15,search=30,vinsert=8,vdelete=12,hit=50"
FILLING = "insert=90,search=10,hit=0"

SOAK = pytest.mark.soak
# (name, configuration, runs): each run is (mix, operations, batch, memory, spare slabs);
# spare slabs None: the default pool, else the build's slabs plus that many (exhaustion).
CASES = [
    pytest.param("s4-ports2-ch2-stalls",
                 dict(slots=4, lock_ways=4, slab_ports=2, memory_channels=2, sweep_group=3,
                      stall_injection=20),
                 [(MIXED, 200, 64, "memory", None), (FILLING, 250, 50, "hostile", 1)]),
    pytest.param("s16-ports1-ch1-csr",
                 dict(slots=16, memory_outstanding=64, compact_edge_words=1),
                 [(MIXED, 500, None, "memory", None), (FILLING, 400, 100, "memory", 2)],
                 marks=SOAK),
    pytest.param("s2-ports4-ch4-group1-stalls",
                 dict(slots=2, lock_ways=2, slab_ports=4, memory_channels=4, sweep_group=1,
                      stall_injection=35),
                 [(MIXED, 300, 37, "hostile", None), (FILLING, 300, None, "memory", 1)],
                 marks=SOAK),
]


def _memory(name, channels):
    base = MEMORY if name == "memory" else HOSTILE
    return dataclasses.replace(base, channels=channels)


@pytest.mark.parametrize("name, settings, runs", CASES, ids=[c.values[0] for c in CASES])
def test_rtl_matches_golden(name, settings, runs, run_seeds):
    graph = golden.from_spec(GRAPH)
    kinds = set()
    chain_reads = 0
    for index, (mix, count, batch, memory, spare) in enumerate(runs):
        config = DynGraphConfig(max_vertices=256, load_factor_percent=90, **settings)
        if spare is not None:
            built = SlabGraph.build(graph, SlabOptions(**config.golden_options()))
            config = dataclasses.replace(config, pool_slabs=built.slabs_in_use() + spare)
        seed = run_seeds.get(index)
        updates = generate_updates(f"mix:ops={count},{mix},seed={seed}", graph, 256)
        report = simulate(graph, config, _memory(memory, config.memory_channels),
                          RunSettings(updates=updates, batch=batch, seed=seed,
                                      compact_vertices=256))
        assert report.structure_error is None, report.structure_error
        assert report.edges_match, report.first_mismatch
        assert report.answers_match, report.first_mismatch
        assert report.counter_mismatch is None, report.counter_mismatch
        assert report.compaction["matches_golden"], report.compaction
        check_traffic(report, MEMORY_KINDS)
        chain_reads += report.compaction["chain_reads"]
        if index == 0:
            _check_analytics(report, "pagerank", seed)
        c = report.counters
        kinds |= {name for name in ("replaced", "deleted", "delete_misses", "search_hits",
                                    "search_misses", "skipped", "vertices_inserted",
                                    "vertices_deleted", "in_edges_removed", "allocations",
                                    "allocation_failures", "deferred") if c[name]}
    # The runs reached every rule they are meant to check.
    assert kinds >= {"replaced", "deleted", "delete_misses", "search_hits", "search_misses",
                     "skipped", "vertices_inserted", "vertices_deleted", "in_edges_removed",
                     "allocations", "allocation_failures"}, kinds
    assert chain_reads > 0


def _check_analytics(report, algo, seed):
    """``algo`` in Graphicionado's RTL on the compactor's words equals the golden model on the
    updated graph (PageRank bit for bit); the same run on a list with one edge moved must not
    (the pipeline reads the compactor's words, not the host's)."""
    memory = _memory("hostile", 1)
    words = report.compaction["edge_words"]
    pipeline = analytics_config(algo, 256, edge_words=words, stall_injection=20)
    u = int(report.compacted_reference.src[0])        # the first vertex with out-edges
    root = u if algo == "bfs" else None
    settings = RunSettings(algo=algo, root=root, seed=seed)
    result = run_analytics(report, pipeline, memory, settings)
    assert result.matches, (algo, result.first_mismatch)
    assert result.comparison == "exact"
    # u's first edge moved to the farthest vertex from u (BFS: its level becomes 1; PageRank:
    # rank moves): the result must differ.
    edges = report.compacted["edges"].copy()
    first = int(report.compacted["table"][u])
    at = words * first + record_fields(words).index("dst")
    edges[at] = int(np.argmax(result.values)) if algo == "bfs" else (int(edges[at]) + 1) % 256
    moved = dataclasses.replace(report, compacted={**report.compacted, "edges": edges})
    broken = run_analytics(moved, pipeline, memory, settings)
    assert not broken.matches


@SOAK
def test_bfs_on_the_compacted_graph(run_seeds):
    """BFS reads the compactor's EdgeIDTable (PageRank, in the test above, its VConst), here
    in the compact layout (an edge its dstid alone, Graphicionado's edge_format csr); its
    Graphicionado build runs in make soak (the test budget)."""
    graph = golden.from_spec(GRAPH)
    config = DynGraphConfig(max_vertices=256, load_factor_percent=90, slots=4, lock_ways=4,
                            slab_ports=2, memory_channels=2, sweep_group=3, stall_injection=20,
                            compact_edge_words=1)
    seed = run_seeds.get(0)
    updates = generate_updates(f"mix:ops=200,{MIXED},seed={seed}", graph, 256)
    report = simulate(graph, config, _memory("memory", 2),
                      RunSettings(updates=updates, batch=64, seed=seed, compact_vertices=256))
    assert report.matches, (report.compaction, report.first_mismatch)
    _check_analytics(report, "bfs", seed)
