"""Vertex insertion and deletion in Amaranth's simulator, the vertex table, the presence
bitmap, the slab allocator, the slab port and the pool sweep played by testbenches: an insert
of an absent vertex allocates one slab as its table and writes its word and presence bit (or,
refused by the allocator, changes nothing); a delete of a present vertex frees every slab of
every bucket's chain (read, marked free, pushed) and clears its word and presence bit; the
present inserts and absent deletes change nothing; a group's deleted vertices go to one sweep
after its last operation. Every stream's traffic and the counters are compared with a
sequential model of the same rules, with and without pauses."""

import random

import pytest

from hw.dyngraph.layouts import FREE_OWNER, NULL_SLAB, SLAB_PAIRS, SlabPurpose, TablePurpose
from hw.dyngraph.vertex_ops import VertexOps
from tests.support.stream_drivers import PAUSES, Bench

BITS = 16               # slab_index_bits
GROUP = 3


def word(base, buckets):
    return base | buckets << BITS


def model(ops, table, chains, pool):
    """What VertexOps must do for ``ops`` (dicts of VertexOp) on vertex ``table`` (vertex ->
    (base, buckets)), slab ``chains`` (slab -> next) and the allocator's free ``pool``."""
    table, pool = dict(table), list(pool)
    want = {"alloc": [], "table_writes": [], "presence": [], "reads": [], "frees": [],
            "sweeps": []}
    counters = dict(inserted=0, insert_present=0, deleted=0, delete_absent=0, free_reads=0,
                    sweeps=0)
    group = []
    for op in ops:
        u = op["u"]
        assert op["present"] == (u in table)
        if op["insert"] and op["present"]:
            counters["insert_present"] += 1
            continue
        if op["insert"]:
            want["alloc"].append(u)
            if pool:
                slab = pool.pop(0)
                table[u] = (slab, 1)
                want["table_writes"].append((u, word(slab, 1)))
                want["presence"].append((u, 1))
                counters["inserted"] += 1
            continue
        if op["present"]:
            base, buckets = table.pop(u)
            for bucket in range(buckets):
                slab = base + bucket
                while slab != NULL_SLAB:
                    want["reads"].append(slab)
                    want["frees"].append(slab)
                    counters["free_reads"] += 1
                    slab = chains[slab]
            want["table_writes"].append((u, 0))
            want["presence"].append((u, 0))
            counters["deleted"] += 1
            group.append(u)
        else:
            counters["delete_absent"] += 1
        if op["group_end"] and group:
            want["sweeps"].append(group)
            counters["sweeps"] += 1
            group = []
    return want, counters


def scenario(rng):
    """A table of four vertices with chains of several slabs, a pool of two slabs, and ops
    (their ``present`` as the issue stage would give it)."""
    table, chains, next_slab = {}, {}, 5000
    for k, vertex in enumerate([3, 8, 21, 40]):
        base, buckets = 100 * (k + 1), rng.randint(1, 3)
        table[vertex] = (base, buckets)
        for bucket in range(buckets):
            slab = base + bucket
            for _ in range(rng.randint(0, 2)):
                chains[slab] = next_slab
                slab, next_slab = next_slab, next_slab + 1
            chains[slab] = NULL_SLAB
    pool = [7001, 7002]
    chains.update({slab: NULL_SLAB for slab in pool})    # written empty when allocated
    plan = [(1, 3, 0), (1, 5, 0), (0, 8, 0), (0, 9, 1),         # a group: one deleted
            (0, 21, 0), (0, 3, 0), (1, 6, 0), (0, 40, 1),       # a group: three deleted
            (1, 11, 0), (0, 5, 1),                              # refused; a group
            (1, 8, 1), (0, 77, 1)]                              # no group
    present, ops = set(table), []
    pool_left = len(pool)
    for insert, u, group_end in plan:
        ops.append({"insert": insert, "u": u, "present": int(u in present),
                    "group_end": group_end})
        if insert and u not in present and pool_left:
            present.add(u)
            pool_left -= 1
        elif not insert:
            present.discard(u)
    return table, chains, pool, ops


def slab_payload(rng, slab, chains):
    return {"pairs": [{"key": rng.randrange(1 << 32), "value": rng.randrange(1 << 32)}
                      for _ in range(SLAB_PAIRS)],
            "aux": rng.randrange(1 << 32), "next": chains[slab]}


@pytest.mark.parametrize("pause", PAUSES)
def test_vertex_inserts_and_deletes(pause):
    rng = random.Random(f"vertex-ops/{pause}")
    table, chains, pool, ops = scenario(rng)
    want, counters = model(ops, table, chains, pool)
    assert len(want["sweeps"]) == 3 and max(map(len, want["sweeps"])) == GROUP
    assert len(want["alloc"]) > len(pool)        # one insert refused

    dut = VertexOps(slab_index_bits=BITS, group=GROUP)
    bench = Bench(dut, "VertexOps", pause=pause)
    words = {vertex: word(*entry) for vertex, entry in table.items()}
    answers = bench.feed("table_answers", dut.table_answers)
    slabs = bench.feed("slabs", dut.slabs)
    got = {"alloc": [], "table_writes": [], "presence": [], "reads": [], "frees": [],
           "sweeps": []}
    marks = []

    def on_table(item):
        assert item["ctx"]["purpose"] == TablePurpose.TO_VERTEX_OPS.value
        if item["write"]:
            got["table_writes"].append((item["vertex"], item["word"]))
            words[item["vertex"]] = item["word"]
        else:
            answers.append({"word": words.get(item["vertex"], 0), "ctx": item["ctx"]})

    def on_read(item):
        assert item["ctx"]["purpose"] == SlabPurpose.FREE.value
        got["reads"].append(item["slab"])
        slabs.append({"slab": slab_payload(rng, item["slab"], chains), "index": item["slab"],
                      "ctx": item["ctx"]})

    bench.source("op", dut.op, ops)
    bench.sink("table", dut.table, on_item=on_table)
    bench.sink("presence", dut.presence,
               on_item=lambda p: got["presence"].append((p["vertex"], p["set"])))
    bench.sink("reads", dut.reads, on_item=on_read)
    bench.sink("writes", dut.writes, on_item=marks.append)
    bench.sink("frees", dut.frees, on_item=got["frees"].append)
    free_pool = list(pool)
    quiet_rng = random.Random(f"quiet/{pause}")

    async def allocator(ctx):
        # Grants a request after a while, taking it in the same cycle.
        granting = False
        async for _, _, valid in ctx.tick().sample(dut.alloc.valid):
            grant = not granting and valid and quiet_rng.random() < 0.4
            if grant:
                got["alloc"].append(ctx.get(dut.alloc.payload.vertex))
                ok = bool(free_pool)
                ctx.set(dut.granted.payload, {"ok": ok, "slab": free_pool.pop(0) if ok else 0})
            ctx.set(dut.granted.valid, grant)
            ctx.set(dut.alloc.ready, grant)
            granting = grant

    async def sweep_and_memory(ctx):
        busy = 0
        async for _, _, start, quiet in ctx.tick().sample(dut.sweep_start, dut.memory_quiet):
            if start:
                assert quiet, "a sweep started while the memory was busy"
                count = ctx.get(dut.sweep_count)
                got["sweeps"].append([ctx.get(dut.sweep_ids[k]) for k in range(count)])
                busy = quiet_rng.randint(1, 12)
            elif busy:
                busy -= 1
            ctx.set(dut.sweep_busy, busy != 0)
            ctx.set(dut.memory_quiet, pause is None or quiet_rng.random() < 0.7)

    bench.add_process(allocator)
    bench.add_process(sweep_and_memory)
    bench.until(lambda: bench.sent["op"] == len(ops))

    def check_counters(ctx):
        assert {name: ctx.get(getattr(dut, name)) for name in counters} == counters
        assert not ctx.get(dut.busy) and ctx.get(dut.sweep_count) == 0

    bench.at_end(check_counters)
    bench.run()
    for name in want:
        bench.check_equal(got[name], want[name], name)
    # Each slab freed is first marked free: its owner word (word 14 of line 1).
    bench.check_equal([(m["slab"], m["line"], m["mask"], m["data"] >> 32 * 14 & 0xFFFF_FFFF,
                        m["write"]) for m in marks],
                      [(slab, 1, 0xF << 56, FREE_OWNER, 1) for slab in want["frees"]], "marks")
