# amaranth: UnusedElaboratable=no
"""The Reduce unit of a destination stream (``reduce_unit``), built from the program's reduce
operation, run in Amaranth's simulator against ``golden.programs``' reductions on random
operands bit for bit (min, max, saturating add, FP32 add; CF's lane-wise adds), tags
carried; with and without pauses."""

import numpy as np
import pytest
from amaranth.hdl import Fragment

from graphgen.programs import UInt, VertexProgram, uint
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.units import reduce_unit
from tests.support.examples import examples_path
from tests.support.stream_drivers import PAUSES, Bench
from tests.hw.graphicionado.test_flit_process_edge import bits

INDEX_WIDTH = 8
INF = 0xFFFF_FFFF


class Count(VertexProgram):
    """Counts paths of at most one hop, saturating: a reduce by saturating add."""
    prop = UInt(32)
    reduce = "sat_add"

    def init(self, h):
        return uint(1)

    def process_edge(self, e):
        return e.src_prop

    def apply(self, v):
        return v.temp


def _run(unit, name, pause, a, b, want):
    rng = np.random.default_rng(len(a))
    tags = [int(t) for t in rng.integers(0, 1 << INDEX_WIDTH, len(a))]
    bench = Bench(unit, name, pause=pause)
    bench.source("i", unit.i, [{"a": x, "b": y, "tag": t} for x, y, t in zip(a, b, tags)])
    bench.sink("o", unit.o, len(a))
    bench.run()
    bench.check_equal(bench.received["o"], [{"result": r, "tag": t}
                                            for r, t in zip(want, tags)], name)


def _words(rng, n):
    words = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    words[::5] = INF
    words[1::7] = INF - 3
    return words


def _saturated(a, b):
    return np.minimum(a + b, INF)


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo, want", [("bfs", np.minimum), ("widest", np.maximum),
                                        ("Count", _saturated)])
def test_integer_reduce(algo, want, pause):
    path = {"widest": examples_path("widest"), "Count": f"{__file__}:Count"}.get(algo, algo)
    unit = reduce_unit(GraphicionadoConfig(algo=path, max_vertices=64),
                       index_width=INDEX_WIDTH)
    Fragment.get(unit, None)
    rng = np.random.default_rng(len(algo))
    a, b = _words(rng, 150), _words(rng, 150)
    _run(unit, f"{algo} reduce", pause, a.tolist(), b.tolist(),
         [int(x) for x in want(a, b)])


@pytest.mark.parametrize("pause", PAUSES)
def test_fp32_reduce(pause):
    unit = reduce_unit(GraphicionadoConfig(algo="pagerank", max_vertices=64),
                       index_width=INDEX_WIDTH)
    rng = np.random.default_rng(2)
    a = rng.random(150).astype(np.float32)
    b = (rng.random(150) * 3).astype(np.float32)
    b[::6] = -a[::6]
    _run(unit, "pagerank reduce", pause, bits(a), bits(b), bits(a + b))


@pytest.mark.parametrize("pause", PAUSES)
def test_cf_reduce_adds_lane_by_lane(pause):
    config = GraphicionadoConfig(algo="cf", max_vertices=64)
    lanes = config.lanes
    unit = reduce_unit(config, index_width=INDEX_WIDTH)
    Fragment.get(unit, None)
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((40, lanes)) * 5).astype(np.float32)
    b = (rng.standard_normal((40, lanes)) * 5).astype(np.float32)
    b[::4] = -a[::4]
    tags = [int(t) for t in rng.integers(0, 1 << INDEX_WIDTH, 40)]
    bench = Bench(unit, "cf reduce", pause=pause)
    bench.source("i", unit.i, [{"a": bits(x), "b": bits(y), "tag": t}
                               for x, y, t in zip(a, b, tags)])
    bench.sink("o", unit.o, 40)
    bench.run()
    bench.check_equal(bench.received["o"], [{"result": bits(x + y), "tag": t}
                                            for x, y, t in zip(a, b, tags)], "lane sums")
