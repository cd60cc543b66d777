"""The DDMU with its hub-index learner, as one block: lookups and observations interleaved at
random on the two sides, each against the Python models of ``test_depgraph_ddmu`` and
``test_depgraph_hub_index_learner`` (shortcut updates and pseudo-edges of a root's A
entries, its N and I entries answered then ``done``; each observation applied to the entry
array by the learning rule, the array compared word for word at the end), with every stream
and both memories paused at random; ``busy`` low at the end and the counters as the models
count."""

import random

import numpy as np
import pytest

from golden.depgraph import FLAG_A
from hw.depgraph.ddmu_with_learner import DDMUWithLearner
from hw.depgraph.layouts import ORIGIN_DDMU
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory
from tests.hw.depgraph.test_ddmu import HASH_BASE, build_index, f32_bits, shortcut
from tests.hw.depgraph.test_hub_index_learner import (model_observe, random_entry_words,
                                                   random_observations)

U32 = 0xFFFF_FFFF
CANDIDATES = 3
LOANS = 4


def memory(bench, name, port, lines, pause):
    return serve_memory(bench, name, port, lines, pause, latency=6, jitter=5)


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
def test_ddmu_with_learner(algo, pause):
    rng = random.Random(f"ddmu/{algo}")
    is_min = algo != "pagerank"
    hash_slots = 16
    lines, index_base, entries_of, ranges, table = build_index(
        rng, hash_slots=hash_slots, vertices=9, is_min=is_min)
    present = list(entries_of)
    requests = []
    for _ in range(30):
        root = rng.choice(present) if rng.random() < 0.8 else rng.randrange(2**32 - 1)
        x = rng.choice([0, 7, rng.randrange(2**32), U32]) if is_min else \
            f32_bits(rng.choice([0.0, rng.uniform(-2, 2), rng.uniform(0, 1) * 1e10]))
        requests.append({"root": root, "x": x, "engine": rng.randrange(8)})
    want_updates, want_pseudo, want_answers = [], [], []
    for r in requests:
        entries = entries_of.get(r["root"], [])
        lent = [(e[1], shortcut(is_min, r["x"], e[2], e[3])) for e in entries
                if e[0] == FLAG_A]
        lent = lent if is_min else lent[:LOANS]
        want_updates += [{"vertex": t, "value": z, "origin": ORIGIN_DDMU, "leave": 0}
                         for t, z in lent]
        if not is_min:
            want_pseudo += [{"tail": t, "z": z, "engine": r["engine"]} for t, z in lent]
        learnable = [e for e in entries if e[0] != FLAG_A][:CANDIDATES]
        want_answers += [(r["engine"], 0, e[4], e[5], e[6], e[1]) for e in learnable]
        want_answers.append((r["engine"], 1))

    # The learner's side: its own entry array at the same index_base, in its own memory.
    entries = 12
    words = [w for _ in range(entries) for w in random_entry_words(rng, is_min)]
    observations = random_observations(rng, is_min, entries, 60)
    learner_lines = words_to_lines(words, index_base)
    expected = np.array(words, dtype=np.uint32)
    outcomes = [model_observe(is_min, expected, j, x, y)[0] for j, x, y in observations]

    dut = DDMUWithLearner(algo=algo, addr_width=16, candidates=CANDIDATES,
                          loans=None if is_min else LOANS)
    bench = Bench(dut, f"DDMUWithLearner({algo})", pause=pause)
    memory(bench, "ddmu_mem", dut.ddmu_mem, lines, pause)
    learner_memory = memory(bench, "learner_mem", dut.learner_mem, learner_lines, pause)
    bench.source("lookup", dut.lookup, requests)
    bench.source("observe", dut.observe, [{"entry": j, "x": x, "y": y}
                                          for j, x, y in observations])
    bench.sink("updates", dut.updates, len(want_updates))
    bench.sink("pseudo", dut.pseudo, len(want_pseudo))

    def answer(a):
        return (a["engine"], 1) if a["done"] else \
            (a["engine"], 0, a["entry"], a["second"], a["length"], a["tail"])

    bench.sink("answers", dut.answers, len(want_answers), convert=lambda p: answer(
        {name: int(p[name]) for name in ("engine", "done", "entry", "second", "length",
                                         "tail")}))
    counters = {}

    async def configure(ctx):
        ctx.set(dut.hash_base, HASH_BASE)
        ctx.set(dut.index_base, index_base)
        ctx.set(dut.hash_slots, hash_slots)

    bench.add_process(configure)

    def at_end(ctx):
        if ctx.get(dut.busy):
            bench.fail("busy high at the end")
        counters.update({name: ctx.get(getattr(dut, name))
                         for name in ("lookups", "shortcut_uses", "observations", "learnt",
                                      "rejected")})

    bench.until(lambda: bench.sent["observe"] == len(observations))
    bench.at_end(at_end)
    bench.run(settle=150, max_cycles=30_000)
    bench.check_equal(bench.received["updates"], want_updates, "shortcut updates")
    bench.check_equal(bench.received["pseudo"], want_pseudo, "pseudo-edges")
    bench.check_equal(bench.received["answers"], want_answers, "answers")
    bench.check_equal(lines_to_words(learner_memory.lines, index_base, 8 * entries).tolist(),
                      expected.tolist(), "entry array after the observations")
    bench.check_equal(counters, {
        "lookups": len(requests), "shortcut_uses": len(want_updates),
        "observations": sum(o != "ignored" for o in outcomes),
        "learnt": outcomes.count("learnt"),
        "rejected": sum(o.startswith("rejected") for o in outcomes)}, "counters")
