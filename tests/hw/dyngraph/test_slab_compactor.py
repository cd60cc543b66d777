"""The dynamic graph unit's compactor in Amaranth's simulator: a slab-hash graph with chains,
tombstones and absent vertices (built and updated by the golden model) compacted into
Graphicionado's edge records, EdgeIDTable and VConst, each compared with
:func:`golden.dyngraph.compaction.compact`; with and without pauses of the memories."""

import numpy as np
import pytest

from golden.dyngraph import SlabGraph, SlabOptions
from golden.dyngraph.compaction import compact
from golden.dyngraph.updates import OpKind, Updates
from golden.generators import uniform
from hw.dyngraph.compact_index import RECORD_WORDS
from hw.dyngraph.slab_compactor import CLIENTS, SlabCompactor
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

SLAB_BITS = 16
VERTICES_BASE, POOL_BASE, EDGES_BASE, TABLE_BASE, VCONST_BASE = 10, 100, 2000, 4000, 4100


def _state(seed):
    """A small graph with one bucket a vertex (so hubs chain), then edge and vertex deletions
    (tombstones, absent vertices) and a vertex inserted back."""
    graph = uniform(40, 260, seed=seed, weights="1:1000")
    state = SlabGraph.build(graph, SlabOptions(load_factor_percent=100, max_buckets=1,
                                               max_vertices=48))
    rng = np.random.default_rng(seed)
    kinds, us, vs = [], [], []
    for k in range(60):
        edge = rng.integers(len(graph.src))
        kinds.append(int(OpKind.DELETE_EDGE))
        us.append(int(graph.src[edge]))
        vs.append(int(graph.dst[edge]))
    for u in (3, 17, 29):
        kinds.append(int(OpKind.DELETE_VERTEX))
        us.append(u)
        vs.append(0)
    kinds += [int(OpKind.INSERT_VERTEX), int(OpKind.INSERT_EDGE), int(OpKind.INSERT_EDGE)]
    us += [17, 17, 5]
    vs += [0, 5, 17]
    for hub in (5, 8):              # chains of two and three slabs
        for v in range(0, 40, 1 if hub == 8 else 2):
            kinds.append(int(OpKind.INSERT_EDGE))
            us.append(hub)
            vs.append(v)
    n = len(kinds)
    updates = Updates(np.array(kinds, dtype=np.uint8), np.array(us, dtype=np.uint32),
                      np.array(vs, dtype=np.uint32), np.full(n, 7, dtype=np.uint32),
                      np.arange(1, n + 1, dtype=np.int64))
    state.apply(updates)
    return state


@pytest.mark.parametrize("num_vertices", [45, 1])
@pytest.mark.parametrize("pause", PAUSES)
def test_compacted_lists_equal_the_golden_compaction(pause, num_vertices):
    state = _state(3)
    want = compact(state, num_vertices)
    assert (np.diff(want.src) >= 0).all() and (want.num_edges > 0 or num_vertices == 1)
    chained = (state.pool[:, 31] != 0xFFFF_FFFF).sum()
    assert chained > 0, "the test graph has no chains"
    words = np.where(state.present, state.base.astype(np.uint64) |
                     (state.buckets.astype(np.uint64) << SLAB_BITS), 0).astype(np.uint32)
    lines = {**words_to_lines(words, VERTICES_BASE),
             **words_to_lines(state.pool.reshape(-1), POOL_BASE)}
    dut = SlabCompactor(addr_width=16, slab_index_bits=SLAB_BITS, depth=8, read_window=4)
    bench = Bench(dut, "SlabCompactor", pause=pause, watchdog=4000)
    models = [serve_memory(bench, name, dut.mem[k], lines if k < 3 else {}, pause)
              for k, name in enumerate(CLIENTS)]
    finished = []

    async def drive(ctx):
        for name, value in (("vertices_base", VERTICES_BASE), ("pool_base", POOL_BASE),
                            ("edges_base", EDGES_BASE), ("table_base", TABLE_BASE),
                            ("vconst_base", VCONST_BASE), ("num_vertices", num_vertices)):
            ctx.set(getattr(dut, name), value)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick()
        while not (ctx.get(dut.done) and not ctx.get(dut.busy)):
            await ctx.tick()
        finished.append((ctx.get(dut.edges), ctx.get(dut.slab_reads)))

    bench.add_process(drive)
    bench.until(lambda: bool(finished))
    bench.run()
    written = models[3].lines
    edges = lines_to_words(written, EDGES_BASE, RECORD_WORDS * want.num_edges)
    edges = edges.reshape(-1, RECORD_WORDS)
    bench.check_equal(edges[:, 0].tolist(), want.src.tolist(), "edge sources")
    bench.check_equal(edges[:, 1].tolist(), want.dst.tolist(), "edge destinations")
    bench.check_equal(edges[:, 2].tolist(), want.weight.tolist(), "edge weights")
    assert not edges[:, 3].any()
    table = lines_to_words(written, TABLE_BASE, num_vertices + 1)
    bench.check_equal(table.tolist(), want.edge_id_table.tolist(), "EdgeIDTable")
    vconst = lines_to_words(written, VCONST_BASE, 2 * num_vertices).reshape(-1, 2)
    bench.check_equal(vconst[:, 1].tolist(), want.degree.tolist(), "out-degrees")
    bench.check_equal(vconst[:, 0].view(np.float32).tolist(), want.inv_degree.tolist(),
                      "VConst reciprocals")
    # The walk's end marker rides one more slab read (as sim/dyngraph/run.py counts it).
    want_counters = (want.num_edges, want.slab_reads + 1)
    assert finished[0] == want_counters, \
        f"counters (edges, slab reads) {finished[0]}, golden {want_counters}"
    assert models[0].writes == models[1].writes == models[2].writes == 0
