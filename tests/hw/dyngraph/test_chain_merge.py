"""The compactor's chain follower in Amaranth's simulator: each base slab followed at once by
its chain (the slabs its ``next`` words link, read through ``chain_reads`` and answered by a
model of the chain port), the end marker's slab not followed; against a loop over the chains;
with and without pauses."""

import random

import pytest

from hw.dyngraph.chain_merge import ChainMerge
from hw.dyngraph.layouts import NULL_SLAB
from tests.support.stream_drivers import PAUSES, Bench


def _slab(rng, following):
    return {"pairs": [{"key": rng.randrange(1 << 32), "value": rng.randrange(1 << 32)}
                      for _ in range(15)], "aux": rng.randrange(1 << 32), "next": following}


@pytest.mark.parametrize("pause", PAUSES)
def test_chains_follow_their_base_slab(pause):
    rng = random.Random(f"chains/{pause}")
    pool, base, expected = {}, [], []
    spare = iter(range(1000, 100000))
    for k in range(80):
        end = k == 79 or rng.random() < 0.05
        length = rng.choice([0, 0, 0, 1, 2, 4])
        chain = [next(spare) for _ in range(length)]
        links = chain + [NULL_SLAB]
        for index, following in zip(chain, links[1:]):
            pool[index] = _slab(rng, following)
        ctx = {"u": rng.randrange(1 << 32), "end": int(end)}
        head = {"slab": _slab(rng, links[0]), "index": k, "ctx": ctx}
        base.append(head)
        expected.append((k, head["slab"]["next"], ctx["u"], ctx["end"]))
        if not end:
            expected += [(index, pool[index]["next"], ctx["u"], 0) for index in chain]
    dut = ChainMerge()
    bench = Bench(dut, "ChainMerge", pause=pause)
    bench.source("base", dut.base, base)
    chained = bench.feed("chained", dut.chained)

    def answer(read):
        chained.append({"slab": pool[read["slab"]], "index": read["slab"], "ctx": read["ctx"]})

    bench.sink("chain_reads", dut.chain_reads, on_item=answer)
    bench.sink("slabs", dut.slabs, len(expected))
    bench.run()
    got = [(s["index"], s["slab"]["next"], s["ctx"]["u"], s["ctx"]["end"])
           for s in bench.received["slabs"]]
    bench.check_equal(got, expected, "slabs")
    want_slabs = {k: b["slab"] for k, b in enumerate(base)} | pool
    for s in bench.received["slabs"]:
        if s["slab"] != want_slabs[s["index"]]:
            bench.fail(f"slab {s['index']}'s contents changed on the way")
