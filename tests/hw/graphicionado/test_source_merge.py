"""Source Merge (full edge access, §4.B) against a model: the sequential VProperty and VConst
streams are zipped per vertex, and the next ``degree`` edges of the edge stream leave with
that vertex's property and constant; vertices of degree 0 take no edge. ``mismatch`` is set
(and stays set) only when an edge's srcid is not the vertex the degrees point at; ``busy`` is
low once everything has gone through."""

import random

import pytest

from hw.graphicionado.source_merge import SourceMerge
from tests.support.stream_drivers import PAUSES, Bench


def random_image(rng, n=60):
    degrees = [rng.choice([0, 0, 1, 1, 2, 3, rng.randrange(4, 12)]) for _ in range(n)]
    base = rng.randrange(1 << 16)
    props = [rng.randrange(1 << 32) for _ in range(n)]
    consts = [rng.randrange(1 << 32) for _ in range(n)]
    edges = [{"src": base + v, "dst": rng.randrange(1 << 32), "weight": rng.randrange(1 << 32),
              "reserved": rng.randrange(1 << 32)}
             for v in range(n) for _ in range(degrees[v])]
    return base, degrees, props, consts, edges


def model(base, degrees, props, consts):
    """The operands each edge of a consistent image must leave with, in order."""
    return [(props[v], consts[v]) for v in range(len(degrees)) for _ in range(degrees[v])]


def run(pause, base, degrees, props, consts, edges, name, srcid_stored=True):
    dut = SourceMerge(depth=4, srcid_stored=srcid_stored)
    bench = Bench(dut, name, pause=pause)
    bench.source("prop", dut.prop, [{"index": base + v, "data": p}
                                    for v, p in enumerate(props)])
    bench.source("const", dut.const, [{"index": base + v, "data": c | d << 32}
                                      for v, (c, d) in enumerate(zip(consts, degrees))])
    bench.source("edges", dut.edges, [{"edge": e, "prop": 0, "const": 0} for e in edges])
    bench.sink("o", dut.o, len(edges))
    mismatch_at = []

    async def flags(ctx):
        async for _, _, mismatch, busy, o_valid in ctx.tick().sample(
                dut.mismatch, dut.busy, dut.o.valid):
            if o_valid and not busy:
                bench.fail(f"busy low while o offers an edge (cycle {bench.cycle})")
            if mismatch and not mismatch_at:
                mismatch_at.append(bench.cycle)
            if mismatch_at and not mismatch:
                bench.fail("mismatch fell after it was set")

    bench.add_process(flags)
    bench.at_end(lambda ctx: ctx.get(dut.busy) and
                 bench.fail("busy high after every vertex and edge went through"))
    # Wait for the vertex streams too: trailing vertices of degree 0 pass no edge.
    bench.until(lambda: bench.sent["prop"] == bench.sent["const"] == len(props))
    cycles = bench.run()
    return dut, bench, cycles, mismatch_at


@pytest.mark.parametrize("pause", PAUSES)
def test_source_merge(pause):
    rng = random.Random("source-merge")
    base, degrees, props, consts, edges = image = random_image(rng)
    dut, bench, cycles, mismatch_at = run(pause, *image, "SourceMerge")
    got = bench.received["o"]
    bench.check_equal([item["edge"] for item in got], edges, "edges")
    bench.check_equal([(item["prop"], item["const"]) for item in got],
                      model(base, degrees, props, consts), "source operands")
    if mismatch_at:
        bench.fail(f"mismatch set at cycle {mismatch_at[0]} on a consistent image")
    if pause is None and cycles > max(len(edges), len(props)) + 40:
        bench.fail(f"{cycles} cycles for {len(edges)} edges without pauses")


@pytest.mark.parametrize("pause", PAUSES)
def test_compact_edges_take_the_vertex_as_srcid(pause):
    # The compact layout stores no srcid: each edge leaves with the vertex the degrees give
    # it, and nothing is checked.
    rng = random.Random("source-merge-csr")
    base, degrees, props, consts, edges = random_image(rng)
    stored = [dict(edge, src=0) for edge in edges]
    dut, bench, _, mismatch_at = run(pause, base, degrees, props, consts, stored,
                                     "SourceMerge (csr)", srcid_stored=False)
    bench.check_equal([item["edge"] for item in bench.received["o"]], edges, "edges")
    if mismatch_at:
        bench.fail("mismatch set without stored srcids")


@pytest.mark.parametrize("pause", [1])
def test_source_merge_mismatch(pause):
    rng = random.Random("source-merge-bad")
    base, degrees, props, consts, edges = random_image(rng)
    bad = rng.randrange(len(edges) // 2, len(edges))
    edges[bad] = dict(edges[bad], src=edges[bad]["src"] + 1)
    dut, bench, _, mismatch_at = run(pause, base, degrees, props, consts, edges,
                                     "SourceMerge (bad image)")
    if not mismatch_at:
        bench.fail(f"mismatch never set (edge {bad} has the wrong srcid)")
    bench.check_equal([(item["prop"], item["const"]) for item in bench.received["o"]],
                      model(base, degrees, props, consts), "source operands")
