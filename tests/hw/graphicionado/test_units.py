# amaranth: UnusedElaboratable=no
"""Graphicionado's custom compute modules (``compute_units``): for each algorithm, the units
a destination stream gets, each run in Amaranth's simulator against the golden vertex
program's operation on random operands bit for bit (sssp's Process_Edge and Reduce,
PageRank's multiply and add, CF's lane-wise Reduce), tags carried; with and without
pauses."""

import numpy as np
import pytest
from amaranth.hdl import Fragment

from golden.algorithms import PAGERANK, SSSP
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.units import compute_units
from tests.support.stream_drivers import PAUSES, Bench
from tests.hw.graphicionado.test_cf_process_edge import bits

INDEX_WIDTH = 8


def _units(algo, **extra):
    units = compute_units(GraphicionadoConfig(algo=algo, max_vertices=64, **extra),
                          index_width=INDEX_WIDTH)
    for unit in units.values():         # elaborated: each a real, buildable unit
        Fragment.get(unit, None)
    return units


def test_unit_sets():
    for algo in ("bfs", "sssp", "cc"):
        assert set(_units(algo)) == {"process", "reduce"}
    assert set(_units("pagerank")) == {"process", "reduce", "apply_multiplier", "apply_adder"}
    assert set(_units("cf")) == {"reduce"}


def _run(unit, name, pause, a, b, want, tag_bits):
    rng = np.random.default_rng(len(a))
    tags = [int(t) for t in rng.integers(0, 1 << tag_bits, len(a))]
    bench = Bench(unit, name, pause=pause)
    bench.source("i", unit.i, [{"a": x, "b": y, "tag": t} for x, y, t in zip(a, b, tags)])
    bench.sink("o", unit.o, len(a))
    bench.run()
    bench.check_equal(bench.received["o"], [{"result": r, "tag": t}
                                            for r, t in zip(want, tags)], name)


@pytest.mark.parametrize("pause", PAUSES)
def test_sssp_units_against_the_golden_program(pause):
    rng = np.random.default_rng(1)
    prop = rng.integers(0, 1 << 32, 200, dtype=np.uint64).astype(np.uint32)
    prop[::5] = 0xFFFF_FFFF                          # unreachable stays unreachable
    prop[1::9] = 0xFFFF_FFF0
    weight = rng.integers(0, 1 << 20, 200).astype(np.uint32)
    units = _units("sssp")
    want = SSSP.process_edge(weight, prop, None, None)
    _run(units["process"], "sssp process", pause, prop.tolist(), weight.tolist(),
         [int(x) for x in want], 32)
    other = rng.integers(0, 1 << 32, 200, dtype=np.uint64).astype(np.uint32)
    _run(units["reduce"], "sssp reduce", pause, prop.tolist(), other.tolist(),
         [int(x) for x in SSSP.reduce(prop, other)], INDEX_WIDTH)


@pytest.mark.parametrize("pause", PAUSES)
def test_pagerank_units_against_the_golden_program(pause):
    rng = np.random.default_rng(2)
    prop = rng.random(150).astype(np.float32)
    const = (1 / rng.integers(1, 50, 150)).astype(np.float32)
    units = _units("pagerank")
    _run(units["process"], "pagerank process", pause, bits(prop), bits(const),
         bits(PAGERANK.process_edge(None, prop, const, None)), 32)
    other = (rng.random(150) * 3).astype(np.float32)
    _run(units["reduce"], "pagerank reduce", pause, bits(prop), bits(other),
         bits(PAGERANK.reduce(prop, other)), INDEX_WIDTH)
    _run(units["apply_multiplier"], "apply multiplier", pause, bits(prop), bits(other),
         bits(prop * other), 1)
    _run(units["apply_adder"], "apply adder", pause, bits(prop), bits(-other),
         bits(prop - other), 1)


@pytest.mark.parametrize("pause", PAUSES)
def test_cf_reduce_adds_lane_by_lane(pause):
    config = GraphicionadoConfig(algo="cf", max_vertices=64)
    lanes = config.lanes
    unit = compute_units(config, index_width=INDEX_WIDTH)["reduce"]
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
