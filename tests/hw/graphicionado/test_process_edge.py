# amaranth: UnusedElaboratable=no
"""Process_Edge (P5) built from a program's ``process_edge`` expression, against
``golden.programs.evaluate``: each edge in, one update ``<dst, process_edge(...)>`` out, in
order, for the built-in scalar programs, the examples (spmv's weights are float32) and one
reading ``dst_prop``; the operands a program cannot have are refused."""

import random

import numpy as np
import pytest

from golden.programs import evaluate
from graphgen.programs import PROGRAMS, Float32, UInt, VertexProgram, build, sat_sub, uint
from hw.graphicionado.process_edge import ProcessEdge
from hw.lib.config import ConfigError
from tests.support.examples import example
from tests.support.stream_drivers import PAUSES, Bench

INF = 0xFFFF_FFFF


class Gap(VertexProgram):
    """Reads the destination's property (stage P4)."""
    prop = UInt(32)
    reduce = "min"

    def init(self, h):
        return uint(0)

    def process_edge(self, e):
        return sat_sub(e.dst_prop, e.src_prop)

    def apply(self, v):
        return v.temp


def f32_bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def random_edges(program, rng, n=200):
    items = []
    floating = not isinstance(program.prop, UInt)
    for _ in range(n):
        if floating:
            prop = int(f32_bits(rng.choice([rng.uniform(0.15, 50), 0.15, 0.0, 1e30])))
            const = int(f32_bits(np.float32(1) / np.float32(rng.randrange(1, 1000))))
        else:
            prop = rng.choice([rng.randrange(64), INF, INF - 1, rng.randrange(1 << 32)])
            const = rng.randrange(1 << 32)
        if program.weight == Float32:
            weight = int(f32_bits(rng.choice([rng.uniform(0.5, 60), 1.0, 0.0, 3e38])))
        else:
            weight = rng.choice([rng.randrange(1, 256), rng.randrange(1 << 32), INF])
        items.append({"edge": {"src": rng.randrange(1 << 32), "dst": rng.randrange(1 << 32),
                               "weight": weight, "reserved": 0}, "prop": prop,
                      "const": const, "dst_prop": rng.randrange(1 << 32)})
    return items


def model(program, items):
    floating = not isinstance(program.prop, UInt)

    def column(key, as_float):
        words = np.array([key(item) for item in items], dtype=np.uint32)
        return words.view(np.float32) if as_float else words

    operands = {"weight": column(lambda it: it["edge"]["weight"], program.weight == Float32),
                "src_prop": column(lambda it: it["prop"], floating),
                "src_const": column(lambda it: it["const"], True),
                "dst_prop": column(lambda it: it.get("dst_prop", 0), floating)}
    values = np.broadcast_to(np.asarray(evaluate(program.process_edge, operands)), len(items))
    words = values.view(np.uint32) if values.dtype == np.float32 else values.astype(np.uint32)
    return [{"dst": item["edge"]["dst"], "value": int(w)} for item, w in zip(items, words)]


CASES = [("bfs", False), ("sssp", False), ("cc", True), ("pagerank", False),
         ("widest", False), ("labelprop", False), ("spmv", False), ("gap", True)]


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("name, dst_prop", CASES)
def test_process_edge(name, dst_prop, pause):
    program = build(Gap) if name == "gap" else PROGRAMS.get(name) or example(name)
    dut = ProcessEdge(program=program, dst_prop=dst_prop)
    items = random_edges(program, random.Random(f"edges/{name}"))
    if not dst_prop:
        items = [{k: v for k, v in item.items() if k != "dst_prop"} for item in items]
    bench = Bench(dut, f"ProcessEdge({name}, dst_prop={dst_prop})", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(items))
    cycles = bench.run()
    bench.check_equal(bench.received["o"], model(program, items))
    if pause is None and cycles > len(items) + dut.latency + 30:
        bench.fail(f"{cycles} cycles for {len(items)} edges without pauses")


def test_dst_prop_needs_stage_p4():
    with pytest.raises(ConfigError, match="gap reads dst_prop"):
        ProcessEdge(program=build(Gap))
    with pytest.raises(ConfigError, match="must be a graphgen.programs Program"):
        ProcessEdge(program="bfs")
