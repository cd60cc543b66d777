# amaranth: UnusedElaboratable=no
"""Process_Edge with the symmetric-graph optimisation's duplicated update path (§IV.D),
PageRank's program, against ``golden.graphicionado.execute_symmetric(paired_runs=PAIRING_LEVELS)``:
edges in runs of one source, some self-loops, go in with random gaps and the output is
taken under random backpressure; the updates out (each pair's v update, then its u update
when there is one), as (vertex index[, owner], float32 bits), are the exact sequence of
reductions the golden ``_both_ends`` makes for the edges in that order, the u updates of a
source's consecutive edges added in pairs; ``flush`` releases the last held u update and
``busy`` then falls. With ``dst_shift = owner_bits = 1`` an update names ``id >> 1`` and
owner ``id & 1``; ``owner_bits`` other than ``dst_shift`` is refused."""

import dataclasses
import types

import numpy as np
import pytest

from golden.graph import Graph
from golden.graphicionado.extended_slicing import _both_ends
from golden.programs import golden_program
from hw.graphicionado.algorithms import algorithm_of
from hw.graphicionado.symmetric_process_edge import PAIRING_LEVELS, SymmetricProcessEdge
from hw.lib.config import ConfigError
from tests.hw.graphicionado.test_flit_process_edge import bits
from tests.support.stream_drivers import PAUSES, Bench

N, EDGES = 64, 150


def random_graph(rng):
    """Edge ends in runs of 1 to 6 edges of one source (about one edge in eight a self-loop),
    VProperty (with zeros and far magnitudes) and VConst (1 / out-degree like) as float32."""
    src, dst = [], []
    while len(src) < EDGES:
        u = int(rng.integers(N))
        for _ in range(int(rng.integers(1, 7))):
            src.append(u)
            dst.append(u if rng.random() < 0.12 else int(rng.integers(N)))
    vprop = rng.uniform(0.01, 10, N).astype(np.float32)
    special = rng.random(N) < 0.2
    vprop[special] = rng.choice(np.array([0.0, 1e30, 1e-30, 1 / 3], dtype=np.float32),
                                int(special.sum()))
    vconst = (np.float32(1) / rng.integers(1, 1000, N)).astype(np.float32)
    return np.array(src[:EDGES]), np.array(dst[:EDGES]), vprop, vconst


def golden_reductions(program, src, dst, vprop, vconst):
    """(vertex id, float32 bits) of each reduction ``_both_ends`` makes, in order."""
    golden, _ = golden_program(program, Graph.from_edges(N, src, dst))
    made = []

    class Recorded:
        """The Reduce, its scatter recording what it reduces."""

        def __call__(self, a, b):
            return golden.reduce(a, b)

        def at(self, temp, index, values):
            made.extend(zip(np.asarray(index).tolist(), bits(values)))

    _both_ends(dataclasses.replace(golden, reduce=Recorded()),
               types.SimpleNamespace(src=src, dst=dst),
               types.SimpleNamespace(weight=None, vconst=vconst), vprop, None,
               np.arange(src.size), paired_runs=PAIRING_LEVELS)
    return made


@pytest.mark.parametrize("pause", PAUSES[:2])
@pytest.mark.parametrize("shift", [0, 1])
def test_symmetric_updates_as_golden(shift, pause):
    program = algorithm_of("pagerank").program
    rng = np.random.default_rng(17 + shift)
    src, dst, vprop, vconst = random_graph(rng)
    p, c = bits(vprop), bits(vconst)
    items = [{"edge": {"src": int(u), "dst": int(v), "weight": 0, "reserved": 0},
              "prop": p[u], "const": c[u], "dst_prop": p[v], "dst_const": c[v]}
             for u, v in zip(src, dst)]
    name = "PageRank" + (f", dst_shift=owner_bits={shift}" if shift else "")

    def update(vertex, value):
        return (vertex >> shift, vertex & 1, value) if shift else (vertex, value)

    want = [update(vertex, value)
            for vertex, value in golden_reductions(program, src, dst, vprop, vconst)]
    assert len(want) < 2 * EDGES - np.count_nonzero(src == dst)   # some u updates paired
    dut = SymmetricProcessEdge(program=program, dst_shift=shift, owner_bits=shift)
    bench = Bench(dut, f"SymmetricProcessEdge({name})", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o)             # run until ``want``'s length, then 20 cycles more

    drained = []

    async def flush_at_end(ctx):
        while bench.sent.get("i", 0) < len(items):
            await ctx.tick()
        ctx.set(dut.flush, 1)
        while ctx.get(dut.busy) or ctx.get(dut.o.valid):
            await ctx.tick()
        drained.append(True)

    def got():
        out = []
        for pair in bench.received["o"]:
            for end in ("v", "u"):
                if pair[f"{end}_valid"]:
                    upd = pair[end]
                    out.append((upd["dst"], upd["owner"], upd["value"][0]) if shift
                               else (upd["dst"], upd["value"][0]))
        return out

    bench.add_process(flush_at_end)
    if shift:
        # One held update per owner: the order is not the golden model's, so each vertex's
        # updates are summed and compared (run until every pair is out and the flush done).
        bench.until(lambda: bool(drained))
    else:
        bench.until(lambda: len(got()) >= len(want))
    busy = []
    bench.at_end(lambda ctx: busy.append(ctx.get(dut.busy)))
    bench.run()
    if shift:
        check_sums(got(), want, shift)
    else:
        bench.check_equal(got(), want)
    assert busy == [0], "busy still high after the flush"


def check_sums(got, want, shift):
    """Each vertex's updates (index, owner) add up to the golden model's, within float32
    rounding, and every update names its owner consistently."""
    def sums(updates):
        total = {}
        for index, owner, value in updates:
            vertex = (index << shift) | owner
            word = np.array([value], dtype=np.uint32).view(np.float32)[0]
            total[vertex] = total.get(vertex, 0.0) + float(word)
        return total
    mine, theirs = sums(got), sums(want)
    assert mine.keys() == theirs.keys()
    for vertex, value in theirs.items():
        assert mine[vertex] == pytest.approx(value, rel=1e-5, abs=1e-30), vertex


@pytest.mark.parametrize("dst_shift, owner_bits", [(1, 2), (0, 1), (2, 1)])
def test_owner_bits_must_equal_dst_shift(dst_shift, owner_bits):
    with pytest.raises(ConfigError, match="owner_bits"):
        SymmetricProcessEdge(program=algorithm_of("pagerank").program, dst_shift=dst_shift,
                             owner_bits=owner_bits)
