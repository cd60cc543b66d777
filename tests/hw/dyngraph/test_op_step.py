"""One step of an edge operation's walk in Amaranth's simulator: random slab compare results
for random inserts, deletes and searches, each routed to the next slab read, the allocator or
the retire stage with the write, answer and outcome the rules of
:mod:`golden.dyngraph.slab_graph` (``_walk`` and ``_edge_op``) give, written out as a Python
model here; with and without pauses."""

import random

import pytest

from hw.dyngraph.layouts import NULL_SLAB, TOMBSTONE_KEY, EdgeKind, Outcome, SlabPurpose
from hw.dyngraph.op_step import OpStep
from tests.support.stream_drivers import PAUSES, Bench

INSERT, DELETE, SEARCH = (k.value for k in (EdgeKind.INSERT, EdgeKind.DELETE, EdgeKind.SEARCH))
NO_WRITE = {"write": 0, "slab": 0, "line": 0, "data": 0, "mask": 0}


def cell_write(slab, cell, key, value, key_too, value_too):
    pair = cell & 7
    mask8 = (0xF if key_too else 0) | (0xF0 if value_too else 0)
    return {"write": 1, "slab": slab, "line": cell >> 3,
            "data": sum((key | value << 32) << 64 * p for p in range(8)),
            "mask": mask8 << 8 * pair}


def step(match, op):
    """(stream, payload) for one slab of ``op``'s walk."""
    has_open = op["open"] or match["open"]
    open_slab, open_cell = ((op["open_slab"], op["open_cell"]) if op["open"]
                            else (op["slab"], match["open_cell"]))
    end = match["has_empty"] or match["next"] == NULL_SLAB
    kind = op["kind"]
    if not match["found"] and not end:
        return "next", {"slab": match["next"], "ctx": {"purpose": SlabPurpose.WALK.value, "op": {
            **op, "slab": match["next"], "open": int(has_open), "open_slab": open_slab,
            "open_cell": open_cell}}}
    if not match["found"] and kind == INSERT and not has_open:
        return "allocate", {"vertex": op["u"], "pair": 1, "key": op["v"], "value": op["w"],
                            "last": op["slab"], "answer": op["answer"], "lock": op["bucket"]}
    write = dict(NO_WRITE)
    if match["found"]:
        outcome = {INSERT: Outcome.REPLACED, DELETE: Outcome.DELETED,
                   SEARCH: Outcome.SEARCH_HITS}[kind]
        if kind == INSERT:
            write = cell_write(op["slab"], match["found_cell"], op["v"], op["w"], False, True)
        elif kind == DELETE:
            write = cell_write(op["slab"], match["found_cell"], TOMBSTONE_KEY, op["w"],
                               True, False)
    else:
        outcome = {INSERT: Outcome.INSERTED, DELETE: Outcome.DELETE_MISSES,
                   SEARCH: Outcome.SEARCH_MISSES}[kind]
        if kind == INSERT:
            write = cell_write(open_slab, open_cell, op["v"], op["w"], True, True)
    return "retire", {"outcome": outcome.value,
                      "slab_write": {**write, "release": 1, "lock": op["bucket"],
                                     "vertex": op["u"]},
                      "search": int(kind == SEARCH),
                      "answer": {"index": op["answer"], "found": match["found"],
                                 "weight": match["value"]}}


@pytest.mark.parametrize("pause", PAUSES)
def test_each_slab_goes_where_the_rules_say(pause):
    rng = random.Random(f"opstep/{pause}")
    items, expected = [], {"next": [], "retire": [], "allocate": []}
    for k in range(400):
        match = {"found": int(rng.random() < 0.3), "found_cell": rng.randrange(15),
                 "value": rng.randrange(1 << 32), "open": rng.randrange(2),
                 "open_cell": rng.randrange(15), "has_empty": int(rng.random() < 0.3),
                 "next": rng.choice([NULL_SLAB, rng.randrange(1 << 20)]),
                 "aux": rng.randrange(1 << 32)}
        match["end"] = int(match["has_empty"] or match["next"] == NULL_SLAB)
        op = {"kind": rng.choice([INSERT, INSERT, DELETE, SEARCH]), "u": rng.randrange(1 << 32),
              "v": rng.randrange(1 << 32), "w": rng.randrange(1 << 32), "answer": k,
              "bucket": rng.randrange(1 << 24), "slab": rng.randrange(1 << 20),
              "open": int(rng.random() < 0.3), "open_slab": rng.randrange(1 << 20),
              "open_cell": rng.randrange(15)}
        items.append({"match": match, "ctx": {"purpose": SlabPurpose.WALK.value, "op": op}})
        where, payload = step(match, op)
        expected[where].append(payload)
    assert all(len(v) > 20 for v in expected.values()), {k: len(v) for k, v in expected.items()}
    dut = OpStep()
    bench = Bench(dut, "OpStep", pause=pause)
    bench.source("i", dut.i, items)
    for name in expected:
        bench.sink(name, getattr(dut, name), len(expected[name]))
    steps = []

    async def count(ctx):
        while bench.sent["i"] < len(items) or ctx.get(dut.busy):
            await ctx.tick()
        steps.append(ctx.get(dut.steps))

    bench.add_process(count)
    bench.until(lambda: bool(steps))
    bench.run()
    for name in expected:
        bench.check_equal(bench.received[name], expected[name], name)
    assert steps == [len(items)]
