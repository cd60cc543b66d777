"""Process_Edge (P5) against the vertex programs of ``golden/algorithms.py``: each edge in,
one update ``<dst, Process_Edge(weight, prop, const)>`` out, in order, with the units the
pipeline builds it with (saturating add; FP32 multiply for PageRank)."""

import random

import numpy as np
import pytest

from hw.lib.arith.fp32 import FP32Multiplier, QNAN
from hw.graphicionado.process_edge import ProcessEdge
from hw.lib.arith.integer import SaturatingAdd
from tests.support.stream_drivers import PAUSES, Bench

INF = 0xFFFF_FFFF


def f32(x):
    return int(np.float32(x).view(np.uint32))


def model(algo, item):
    prop, weight, const = item["prop"], item["edge"]["weight"], item["const"]
    if algo == "pagerank":
        with np.errstate(all="ignore"):
            r = np.uint32(prop).view(np.float32) * np.uint32(const).view(np.float32)
        value = QNAN if np.isnan(r) else int(r.view(np.uint32))
    else:
        value = min(prop + {"bfs": 1, "sssp": weight, "cc": 0}[algo], INF)
    return {"dst": item["edge"]["dst"], "value": value}


def random_edges(algo, rng, n=250, dst_prop=False):
    items = []
    for _ in range(n):
        if algo == "pagerank":
            degree = rng.randrange(1, 1000)
            prop = rng.choice([f32(rng.uniform(0.15, 50)), f32(0.15), 0,
                               rng.randrange(1 << 32)])
            const = rng.choice([f32(np.float32(1) / np.float32(degree)),
                                rng.randrange(1 << 32)])
        else:
            prop = rng.choice([rng.randrange(64), INF, INF - 1, rng.randrange(1 << 32)])
            const = rng.randrange(1 << 32)
        weight = rng.choice([rng.randrange(1, 256), rng.randrange(1 << 32), INF])
        item = {"edge": {"src": rng.randrange(1 << 32), "dst": rng.randrange(1 << 32),
                         "weight": weight, "reserved": 0}, "prop": prop, "const": const}
        if dst_prop:
            item["dst_prop"] = rng.randrange(1 << 32)
        items.append(item)
    return items


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo, dst_prop", [("bfs", False), ("sssp", False), ("cc", True),
                                            ("pagerank", False)])
def test_process_edge(algo, dst_prop, pause):
    unit = FP32Multiplier(tag_width=32) if algo == "pagerank" else SaturatingAdd(tag_width=32)
    dut = ProcessEdge(algo=algo, unit=unit, dst_prop=dst_prop)
    items = random_edges(algo, random.Random(f"edges/{algo}"), dst_prop=dst_prop)
    bench = Bench(dut, f"ProcessEdge({algo}, dst_prop={dst_prop})", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(items))
    cycles = bench.run()
    bench.check_equal(bench.received["o"], [model(algo, item) for item in items])
    if pause is None and cycles > len(items) + 30:
        bench.fail(f"{cycles} cycles for {len(items)} edges without pauses")
