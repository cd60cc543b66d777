"""The compactor's index in Amaranth's simulator: edges sorted by source (and the end marker)
in; the edge records (the paper's four words, or the compact layouts' dst and weight or dst
alone), the EdgeIDTable's ``num_vertices + 1`` entries and the degree items out,
against NumPy's bincount and cumsum (as :func:`golden.dyngraph.compaction.compact` makes
them); restarted between runs; with and without pauses."""

import random

import numpy as np
import pytest

from hw.dyngraph.compact_index import CompactIndex
from tests.support.stream_drivers import PAUSES, Bench


def _run_edges(rng, n, m):
    src = sorted(rng.randrange(n) for _ in range(m))
    return [(u, rng.randrange(1 << 32), rng.randrange(1 << 32)) for u in src]


RECORDS = {4: lambda u, v, w: u | v << 32 | w << 64, 2: lambda u, v, w: v | w << 32,
           1: lambda u, v, w: v}


@pytest.mark.parametrize("edge_words", [4, 2, 1])
@pytest.mark.parametrize("pause", PAUSES)
def test_records_table_and_degrees(pause, edge_words):
    rng = random.Random(f"index/{pause}")
    runs = [(1, 0), (1, 3), (12, 40), (20, 0), (25, 5), (7, 30)]
    dut = CompactIndex(edge_words)
    bench = Bench(dut, "CompactIndex", pause=pause)
    edges_q = bench.feed("edges", dut.edges)
    for name, stream in (("records", dut.records), ("entries", dut.entries),
                         ("degrees", dut.degrees)):
        bench.sink(name, stream)
    results, done = [], []

    async def drive(ctx):
        for n, m in runs:
            edges = _run_edges(rng, n, m)
            marks = {name: len(bench.received[name])
                     for name in ("records", "entries", "degrees")}
            ctx.set(dut.num_vertices, n)
            ctx.set(dut.restart, 1)
            await ctx.tick()
            ctx.set(dut.restart, 0)
            edges_q.extend({"u": u, "v": v, "w": w, "end": 0} for u, v, w in edges)
            edges_q.append({"u": 0, "v": 0, "w": 0, "end": 1})
            while (len(bench.received["records"]) < marks["records"] + m + 1 or
                   len(bench.received["entries"]) < marks["entries"] + n + 1 or
                   len(bench.received["degrees"]) < marks["degrees"] + n + 1 or
                   ctx.get(dut.busy)):
                await ctx.tick()
            await ctx.tick().repeat(5)
            results.append((n, edges, marks, ctx.get(dut.edge_count)))
        done.append(1)

    bench.add_process(drive)
    bench.until(lambda: bool(done))
    bench.run()
    ends = [marks for _, _, marks, _ in results[1:]] + [
        {name: len(bench.received[name]) for name in ("records", "entries", "degrees")}]
    for (n, edges, marks, count), end in zip(results, ends):
        got = {name: bench.received[name][marks[name]:end[name]] for name in marks}
        want_records = [{"data": RECORDS[edge_words](u, v, w), "empty": 0, "last": 0}
                        for u, v, w in edges] + [{"data": 0, "empty": 1, "last": 1}]
        records = [dict(r, data=0) if r["empty"] else r for r in got["records"]]
        bench.check_equal(records, want_records, f"records ({n} vertices)")
        degree = np.bincount([u for u, _, _ in edges], minlength=n)
        table = np.concatenate(([0], np.cumsum(degree)))
        want_entries = [{"data": int(t), "empty": 0, "last": int(k == n)}
                        for k, t in enumerate(table)]
        bench.check_equal(got["entries"], want_entries, f"table entries ({n} vertices)")
        want_degrees = [{"value": 0, "side": {"empty": 1, "last": 0}}] + [
            {"value": int(d), "side": {"empty": 0, "last": int(k == n - 1)}}
            for k, d in enumerate(degree)]
        bench.check_equal(got["degrees"], want_degrees, f"degrees ({n} vertices)")
        assert count == len(edges)


def test_an_edge_layout_graphicionado_cannot_read_is_refused():
    from hw.dyngraph.config import DynGraphConfig
    from hw.lib.config import ConfigError
    with pytest.raises(ConfigError, match="compact_edge_words must be 4 \\(coo\\), 2 or 1"):
        DynGraphConfig(compact_edge_words=3)
    with pytest.raises(ConfigError, match="CompactIndex: edge_words must be 4, 2 or 1"):
        CompactIndex(8)
