"""DepGraph's processing element against ``golden.depgraph.gas``'s EdgeComputes: each edge
task u→w leaves as one update ``<w, EdgeCompute(x, weight, const), origin = engine, leave>``,
in order (BFS x + 1, SSSP x + weight, saturating; CC x; PageRank x · const in FP32, and a
pseudo-edge's -x unchanged; widest paths min(x, weight) and label propagation x on the
complemented words of a max Accum); ``busy`` is high exactly while a task taken has not
left."""

import random

import numpy as np
import pytest

from golden.depgraph.gas import get_algorithm
from hw.lib.arith.fp32 import QNAN
from hw.depgraph.processing_element import ProcessingElement
from hw.depgraph.program import gas_of, stored
from tests.support.stream_drivers import PAUSES, Bench
from tests.support.examples import spec_of


def f32(x):
    return int(np.float32(x).view(np.uint32))


def as_f32(bits):
    return np.uint32(bits).view(np.float32)


def model(algo, engine, task):
    if algo == "pagerank":
        with np.errstate(all="ignore"):
            value = -as_f32(task["x"]) if task["pseudo"] else \
                np.float32(as_f32(task["x"]) * as_f32(task["const"]))
        value = QNAN if np.isnan(value) else int(np.float32(value).view(np.uint32))
    else:
        weights = np.array([task["weight"]], dtype=np.uint32)
        form = gas_of(spec_of(algo))
        x = int(stored(form, task["x"]))
        value = int(stored(form, get_algorithm(spec_of(algo)).edge_compute(x, weights, 0, 1)[0]))
    return {"vertex": task["dst"], "value": value, "origin": engine, "leave": task["leave"]}


def random_tasks(algo, rng, n=250):
    tasks = []
    for _ in range(n):
        if algo == "pagerank":
            x = rng.choice([f32(rng.uniform(-2, 2)), 0, rng.randrange(1 << 32)])
            const = rng.choice([f32(np.float32(0.85) / np.float32(rng.randrange(1, 500))),
                                rng.randrange(1 << 32)])
        else:
            x = rng.choice([rng.randrange(100), 0xFFFF_FFFF, 0xFFFF_FFFE,
                            rng.randrange(1 << 32)])
            const = 0
        tasks.append({"dst": rng.randrange(1 << 32), "x": x, "const": const,
                      "weight": rng.choice([rng.randrange(1, 100), rng.randrange(1 << 32)]),
                      "leave": rng.randrange(2),
                      "pseudo": int(algo == "pagerank" and rng.random() < 0.3)})
    return tasks


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc", "pagerank", "widest", "labelprop"])
def test_processing_element(algo, pause):
    engine = 2
    dut = ProcessingElement(algo=spec_of(algo), engine=engine)
    tasks = random_tasks(algo, random.Random(f"pe/{algo}"))
    bench = Bench(dut, f"ProcessingElement({algo})", pause=pause)
    bench.source("edges", dut.edges, tasks)
    bench.sink("updates", dut.updates, len(tasks))

    async def busy_model(ctx):
        inside = 0
        async for _, _, iv, ir, ov, ordy, busy in ctx.tick().sample(
                dut.edges.valid, dut.edges.ready, dut.updates.valid, dut.updates.ready,
                dut.busy):
            if bool(busy) != (inside > 0):
                bench.fail(f"busy={busy} with {inside} tasks inside (cycle {bench.cycle})")
            inside += (iv and ir) - (ov and ordy)

    bench.add_process(busy_model)
    cycles = bench.run()
    bench.check_equal(bench.received["updates"], [model(algo, engine, t) for t in tasks],
                      "updates")
    if pause is None and cycles > len(tasks) + 30:
        bench.fail(f"{cycles} cycles for {len(tasks)} tasks without pauses")
