"""The slab allocator in Amaranth's simulator, its free stack in a line memory model: requests
(vertex tables and edge inserts whose chain is full) pop distinct slabs from the top of the
stack and write each one empty with its owner (the new pair in cell 0 for an edge insert), an
edge insert's link after its chain's last slab with the release of its bucket, and its end on
``retire``; with the stack empty a request is refused and nothing but an edge insert's release
is written. Freed slabs are pushed and handed out again, last freed first; the stack in memory
and the counters are checked after each phase, with and without pauses."""

import random

import pytest

from hw.dyngraph.layouts import EMPTY_KEY, NULL_SLAB, Outcome
from hw.dyngraph.slab_allocator import SlabAllocator
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench

STACK_BASE = 40         # line address of the stack
MASK_ALL = (1 << 64) - 1


def serve_stack(bench, port, lines, pause):
    """A line memory on ``port`` (``lines``, updated by its writes) that takes requests and
    answers reads at the clock edge: the allocator's request is combinational from its
    input streams, driven by other testbenches in the same cycle."""
    rng = random.Random(f"{pause}/stack")
    bench.watch("mem.req", port.req, progress=False)
    bench.watch("mem.resp", port.resp, progress=False)
    req, resp = port.req, port.resp

    async def serve(ctx):
        pending, cycle = [], 0          # (due, data), oldest first
        sampled = (req.valid, req.ready, req.payload, resp.valid, resp.ready)
        async for _, _, valid, ready, payload, answered, taken in ctx.tick().sample(*sampled):
            cycle += 1
            if valid and ready:
                addr = payload.addr
                if payload.write:
                    mask = sum(0xFF << 8 * b for b in range(64) if payload.wmask >> b & 1)
                    lines[addr] = lines.get(addr, 0) & ~mask | payload.wdata & mask
                else:
                    pending.append((cycle + (3 if pause is None else rng.randint(2, 9)),
                                    lines.get(addr, 0)))
            if answered and taken:
                pending.pop(0)
            ctx.set(req.ready, pause is None or rng.random() >= 0.3)
            ctx.set(resp.valid, bool(pending) and pending[0][0] <= cycle)
            if pending:
                ctx.set(resp.payload.rdata, pending[0][1])

    bench.add_process(serve)


def words(line):
    return [line >> 32 * k & 0xFFFF_FFFF for k in range(16)]


def request(rng, number, *, pair):
    return {"vertex": rng.randrange(1 << 20), "pair": pair, "key": rng.randrange(1 << 32),
            "value": rng.randrange(1 << 32), "last": rng.randrange(1 << 20),
            "answer": 1000 + number, "lock": rng.randrange(1 << 24)}


def expected_writes(req, slab):
    """The writes of a request granted ``slab`` (None: refused)."""
    common = {"vertex": req["vertex"], "lock": req["lock"]}
    if slab is None:
        # A refused edge insert releases its bucket and writes nothing.
        return [{"write": 0, "release": 1, "slab": req["last"], **common}] if req["pair"] else []
    cell0 = [req["key"], req["value"]] if req["pair"] else [EMPTY_KEY, 0]
    line0 = cell0 + [EMPTY_KEY, 0] * 7
    line1 = [EMPTY_KEY, 0] * 7 + [req["vertex"], NULL_SLAB]
    writes = [{"write": 1, "release": 0, "slab": slab, "line": 0, "data": line0,
               "mask": MASK_ALL, **common},
              {"write": 1, "release": 0, "slab": slab, "line": 1, "data": line1,
               "mask": MASK_ALL, **common}]
    if req["pair"]:
        # The link: word 15 (the next index) of the chain's last slab.
        writes.append({"write": 1, "release": 1, "slab": req["last"], "line": 1,
                       "mask": 0xF << 60, "next": slab, **common})
    return writes


def comparable(write):
    """A write as :func:`expected_writes` describes it (a refused release's data and mask do
    not matter; a link's only word 15)."""
    item = {name: write[name] for name in ("write", "release", "slab", "vertex", "lock")}
    if not write["write"]:
        return item
    item.update(line=write["line"], mask=write["mask"])
    if write["release"]:
        item["next"] = words(write["data"])[15]
    else:
        item["data"] = words(write["data"])
    return item


@pytest.mark.parametrize("pause", PAUSES)
def test_slabs_are_distinct_refused_when_out_and_reused_after_a_free(pause):
    rng = random.Random(f"allocator/{pause}")
    pool = 5
    stack = rng.sample(range(100, 10_000), pool)
    dut = SlabAllocator(addr_width=16)
    bench = Bench(dut, "SlabAllocator", pause=pause)
    memory = words_to_lines(stack, STACK_BASE)
    serve_stack(bench, dut.mem, memory, pause)
    requests = bench.feed("requests", dut.requests)
    frees = bench.feed("frees", dut.frees)
    bench.sink("writes", dut.writes)
    bench.sink("retire", dut.retire)
    bench.sink("granted", dut.granted)
    phases = []

    # Phase 1: the pool and two more; phase 2: three slabs freed; phase 3: four requests.
    first = [request(rng, k, pair=k % 2) for k in range(pool + 2)]
    freed = rng.sample(range(20_000, 30_000), 3)
    third = [request(rng, 100 + k, pair=int(k % 2 == 0)) for k in range(4)]

    def answered():
        return len(bench.received["retire"]) + len(bench.received["granted"])

    async def drive(ctx):
        ctx.set(dut.stack_base, STACK_BASE)
        ctx.set(dut.start_top, pool)
        ctx.set(dut.restart, 1)
        await ctx.tick()
        ctx.set(dut.restart, 0)
        for batch, free, wanted, pushes in ((first, [], len(first), 0),
                                            ([], freed, len(first), len(freed)),
                                            (third, [], len(first) + len(third), len(freed))):
            requests.extend(batch)
            frees.extend(free)
            while answered() < wanted or ctx.get(dut.pushes) < pushes:
                await ctx.tick()
            await ctx.tick().repeat(20)
            phases.append({name: ctx.get(getattr(dut, name))
                           for name in ("top", "allocations", "failures", "pushes", "busy")})
            phases[-1]["stack"] = list(lines_to_words(memory, STACK_BASE, pool))

    bench.add_process(drive)
    bench.until(lambda: len(phases) == 3)
    bench.run()

    # The grants, in order: the stack popped from its top, then the freed, last first.
    order = list(reversed(stack)) + [None, None] + list(reversed(freed)) + [None]
    every = first + third
    want_writes, want_retire, want_granted = [], [], []
    for req, slab in zip(every, order):
        want_writes += expected_writes(req, slab)
        if req["pair"]:
            outcome = Outcome.INSERTED if slab is not None else Outcome.REFUSED_INSERTS
            want_retire.append((outcome.value, req["answer"]))
        else:
            want_granted.append({"ok": int(slab is not None), "slab": slab})
    got_granted = [{"ok": g["ok"], "slab": g["slab"] if g["ok"] else None}
                   for g in bench.received["granted"]]
    bench.check_equal(got_granted, want_granted, "granted")
    bench.check_equal([(r["outcome"], r["answer"]["index"]) for r in bench.received["retire"]],
                      want_retire, "retire")
    bench.check_equal([comparable(w) for w in bench.received["writes"]], want_writes, "writes")
    granted = [slab for slab in order if slab is not None]
    assert len(set(granted)) == len(granted)

    assert phases[0] == {"top": 0, "allocations": pool, "failures": 2, "pushes": 0, "busy": 0,
                         "stack": stack}
    # The freed slabs pushed over the (popped) bottom of the stack.
    assert phases[1] == {"top": 3, "allocations": pool, "failures": 2, "pushes": 3, "busy": 0,
                         "stack": freed + stack[3:]}
    assert phases[2] == {"top": 0, "allocations": pool + 3, "failures": 3, "pushes": 3,
                         "busy": 0, "stack": freed + stack[3:]}
