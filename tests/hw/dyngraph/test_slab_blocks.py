"""The dynamic graph unit's blocks in Amaranth's simulator: the bucket hash against the golden
model's, the 15-key slab compare against a loop reading of the rules, and the lock stage's
ordering (one operation in flight per bucket, each bucket's in file order) with a conflict
queue, with and without pauses."""

import random

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

import golden.dyngraph.slab as golden_slab
from golden.dyngraph import bucket_of
from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from hw.dyngraph import layouts
from hw.dyngraph.bucket_hash import BucketHash
from hw.dyngraph.lock_issue import LockIssue
from hw.dyngraph.slab_compare import SlabCompare
from tests.support.stream_drivers import PAUSES, Bench

SLAB_BITS = 20


def test_layout_constants_agree_with_the_golden_model():
    for name in ("SLAB_PAIRS", "AUX_WORD", "NEXT_WORD", "EMPTY_KEY", "TOMBSTONE_KEY",
                 "NULL_SLAB", "FREE_OWNER", "HASH_MULTIPLIER"):
        assert getattr(layouts, name) == getattr(golden_slab, name), name
    assert layouts.Slab.size == 32 * golden_slab.SLAB_WORDS


@pytest.mark.parametrize("pause", PAUSES)
def test_bucket_hash_equals_the_golden_hash(pause):
    rng = random.Random(f"hash/{pause}")
    items, expected = [], []
    for k in range(300):
        key = rng.choice([rng.randrange(1 << 32), rng.randrange(64)])
        buckets = rng.choice([1, 2, 3, 7, rng.randrange(1, 4096)])
        base = rng.randrange(1 << SLAB_BITS)
        word = base | buckets << SLAB_BITS
        items.append({"word": word, "ctx": {"purpose": 0, "op": {"v": key, "answer": k}}})
        expected.append((base + bucket_of(key, buckets), k))
    dut = BucketHash(slab_index_bits=SLAB_BITS)
    bench = Bench(dut, "BucketHash", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(items))
    bench.run()
    got = [(item["slab"], item["ctx"]["op"]["answer"]) for item in bench.received["o"]]
    assert all(item["ctx"]["op"]["slab"] == item["slab"] for item in bench.received["o"])
    bench.check_equal(got, expected, "slabs")


def _random_slab(rng, key):
    keys = []
    for _ in range(layouts.SLAB_PAIRS):
        keys.append(rng.choice([layouts.EMPTY_KEY, layouts.TOMBSTONE_KEY, key,
                                rng.randrange(1 << 32), rng.randrange(16)]))
    values = [rng.randrange(1 << 32) for _ in keys]
    return keys, values, rng.randrange(1 << 32), rng.choice([layouts.NULL_SLAB, 5])


def _reading(keys, values, key, aux, following):
    """What the slab says about ``key``, by the rules, one cell after another."""
    found = next((c for c, k in enumerate(keys) if k == key), None)
    opened = next((c for c, k in enumerate(keys)
                   if k in (layouts.EMPTY_KEY, layouts.TOMBSTONE_KEY)), None)
    return {"found": int(found is not None), "found_cell": found or 0,
            "value": values[found or 0], "open": int(opened is not None),
            "open_cell": opened or 0, "has_empty": int(layouts.EMPTY_KEY in keys),
            "next": following, "aux": aux,
            "end": int(layouts.EMPTY_KEY in keys or following == layouts.NULL_SLAB)}


@pytest.mark.parametrize("pause", PAUSES)
def test_slab_compare_reads_all_fifteen_keys(pause):
    rng = random.Random(f"compare/{pause}")
    items, expected = [], []
    for k in range(200):
        key = rng.choice([rng.randrange(16), rng.randrange(1 << 32)])
        keys, values, aux, following = _random_slab(rng, key)
        slab = {"pairs": [{"key": kk, "value": vv} for kk, vv in zip(keys, values)],
                "aux": aux, "next": following}
        items.append({"slab": slab, "index": k, "ctx": {"purpose": 0, "op": {"v": key}}})
        expected.append(_reading(keys, values, key, aux, following))
    dut = SlabCompare(ctx_shape=layouts.SlabCtx, key_of=lambda ctx: ctx.op.v)
    bench = Bench(dut, "SlabCompare", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(items))
    bench.run()
    got = [item["match"] for item in bench.received["o"]]
    for item in got:           # the cells' contents are don't-care where nothing was found
        if not item["found"]:
            item["found_cell"] = item["value"] = 0
        if not item["open"]:
            item["open_cell"] = 0
    for item in expected:
        if not item["found"]:
            item["value"] = 0
    bench.check_equal(got, expected, "matches")


class LockBench(wiring.Component):
    """The lock stage with the lock CAM it uses, as the update unit wires them."""

    def __init__(self, slots):
        self.lock_issue = LockIssue(slots=slots, waiting=4)
        self.cam = AtomicUpdateCAM(CAMConfig(entries=4 * slots, ways=4), second_probe=True)
        super().__init__({"i": wiring.In(self.lock_issue.i.signature.flip()),
                          "o": wiring.Out(self.lock_issue.o.signature),
                          "remove": wiring.In(self.cam.remove.signature.flip())})

    def elaborate(self, platform):
        m = Module()
        m.submodules.lock_issue = li = self.lock_issue
        m.submodules.cam = cam = self.cam
        wiring.connect(m, wiring.flipped(self.i), li.i)
        wiring.connect(m, li.o, wiring.flipped(self.o))
        wiring.connect(m, li.lock, cam.insert)
        wiring.connect(m, wiring.flipped(self.remove), cam.remove)
        m.d.comb += [cam.probe_id.eq(li.probe_id), li.probe_hit.eq(cam.probe_hit),
                     cam.probe2_id.eq(li.probe2_id), li.probe2_hit.eq(cam.probe2_hit),
                     li.released.eq(self.remove.valid), li.parallel.eq(1)]
        return m


@pytest.mark.parametrize("pause", PAUSES)
def test_lock_keeps_each_bucket_in_file_order(pause):
    """Operations on few buckets, ended after random delays: never two of one bucket in
    flight, each bucket's in file order, and operations of other buckets overtake one whose
    bucket is held."""
    rng = random.Random(f"lock/{pause}")
    count = 300
    ops = [{"slab": k, "ctx": {"op": {
               "bucket": rng.choice([1, 2, 3, 17, 33, rng.randrange(64), (1 << 24) - 1]),
               "answer": k}}}
           for k in range(count)]
    dut = LockBench(slots=4)
    bench = Bench(dut, "LockIssue", pause=pause)
    bench.source("i", dut.i, ops)
    held, order, overtakes = set(), [], [0]

    async def model(ctx):
        # Take each issued operation, check it, and end it (release its vertex) later.
        pending = []
        ctx.set(dut.o.ready, 1)
        while len(order) < count:
            ctx.set(dut.remove.valid, 0)
            if pending and rng.random() < 0.3:
                vertex = pending.pop(rng.randrange(len(pending)))
                ctx.set(dut.remove.payload, vertex)
                ctx.set(dut.remove.valid, 1)
                held.discard(vertex)
            _, _, valid, payload = await ctx.tick().sample(dut.o.valid, dut.o.payload)
            if valid:
                op = payload.ctx.op
                u, answer = int(op.bucket), int(op.answer)
                if u in held:
                    bench.fail(f"bucket {u} issued twice at once (operation {answer})")
                if len(held) == 4:
                    bench.fail(f"operation {answer} issued with all 4 slots taken")
                if int(payload.slab) != answer:
                    bench.fail(f"operation {answer} issued with another's slab read")
                if order and answer < order[-1][1]:
                    overtakes[0] += 1
                held.add(u)
                pending.append(u)
                order.append((u, answer))
        ctx.set(dut.remove.valid, 0)
        slot_waits.append(ctx.get(dut.lock_issue.slot_waits))

    slot_waits = []
    bench.add_process(model)
    bench.watch("o", dut.o)
    bench.until(lambda: len(order) == count)
    bench.run()
    per_vertex = {}
    for u, answer in order:
        per_vertex.setdefault(u, []).append(answer)
    for u, answers in per_vertex.items():
        assert answers == sorted(answers), f"bucket {u} out of file order"
    assert sorted(answer for _, answer in order) == list(range(count))
    assert overtakes[0] > 0, "no operation ever overtook one waiting on its bucket"
    assert slot_waits and slot_waits[0] > 0, "the issue never waited for a slot"
    assert np.all(np.diff([a for _, a in order]) != 0)
