"""DepGraph's update network against a routing model: every update of every source reaches
the one bank whose partition holds its vertex (bank b holds bounds[b-1] <= v < bounds[b]),
exactly once, unchanged, and the updates from one source to one bank keep their order;
``busy`` is high exactly while an update taken has not been delivered."""

import bisect
import random

import pytest

from hw.depgraph.update_network import UpdateNetwork
from tests.support.stream_drivers import PAUSES, Bench


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("sources, banks", [(1, 1), (3, 2), (5, 4)])
def test_update_network(sources, banks, pause):
    rng = random.Random(f"network/{sources}/{banks}")
    bounds = sorted(rng.sample(range(1, 1000), banks - 1))
    per_source = [[{"vertex": rng.choice([rng.randrange(1000), *bounds, *[b - 1 for b in bounds],
                                          0, 999]),
                    "value": rng.randrange(1 << 32), "origin": s, "leave": rng.randrange(2)}
                   for _ in range(rng.randrange(80, 150))] for s in range(sources)]
    dut = UpdateNetwork(sources=sources, banks=banks, queue_depth=3)
    bench = Bench(dut, f"UpdateNetwork(sources={sources}, banks={banks})", pause=pause)
    for s in range(sources):
        bench.source(f"i[{s}]", dut.i[s], per_source[s])
    want = [[] for _ in range(banks)]
    for s in range(sources):
        for k, update in enumerate(per_source[s]):
            # Tag each update with its place in its source, in the value's low bits' stead:
            # order is checked per (source, bank) pair.
            want[bisect.bisect_right(bounds, update["vertex"])].append((s, k))
    for b in range(banks):
        bench.sink(f"o[{b}]", dut.o[b], len(want[b]))

    async def setup_and_busy(ctx):
        for b, bound in enumerate(bounds):
            ctx.set(dut.bounds[b], bound)
        inside = 0
        signals = [dut.busy]
        for stream in [*dut.i, *dut.o]:
            signals += [stream.valid, stream.ready]
        async for _, _, busy, *hs in ctx.tick().sample(*signals):
            if bool(busy) != (inside > 0):
                bench.fail(f"busy={busy} with {inside} updates inside (cycle {bench.cycle})")
            took = sum(hs[2 * k] and hs[2 * k + 1] for k in range(sources))
            gave = sum(hs[2 * k] and hs[2 * k + 1] for k in range(sources, sources + banks))
            inside += took - gave

    bench.add_process(setup_and_busy)
    cycles = bench.run()
    for b in range(banks):
        got = bench.received[f"o[{b}]"]
        for s in range(sources):
            from_s = [u for u in got if u["origin"] == s]
            bench.check_equal(from_s, [per_source[s][k] for (t, k) in want[b] if t == s],
                              f"bank {b}'s updates from source {s}")
    total = sum(map(len, per_source))
    if pause is None and sources == banks == 1 and cycles > total + 30:
        bench.fail(f"{cycles} cycles for {total} updates without pauses")
