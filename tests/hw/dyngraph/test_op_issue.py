"""Operation issue in Amaranth's simulator, with a model of the presence bitmap (a Python set,
answering a read the cycle after, changed by each vertex operation as it is taken) and of the
edge operations' ends (``released`` pulses after random delays). Against a Python reading of
the issue rules: every operation leaves once, in file order, to the right stream (edge
operations with both ends present to the table read, numbered by the searches before them;
others skipped; vertex operations with their presence and sweep-group end); a vertex
operation leaves only when no edge operation is in flight, the first operation of a batch
only when the batch before has ended; the issued and batch counters and ``finished`` at the
end. With and without pauses."""

import random

import pytest

from hw.dyngraph.layouts import OpKind, Outcome, TablePurpose
from hw.dyngraph.op_issue import OpIssue
from tests.support.stream_drivers import PAUSES, Bench

INSERT, DELETE, SEARCH, INSERT_V, DELETE_V = (k.value for k in OpKind)
VERTICES = 10


def expected_outputs(ops, present, batch, group_size):
    """Each operation's stream and payload, in file order."""
    present = set(present)
    out, searches, group = [], 0, 0
    for i, (kind, u, v, w) in enumerate(ops):
        if kind in (INSERT, DELETE, SEARCH):
            if u in present and v in present:
                op = {"kind": kind, "u": u, "v": v, "w": w, "answer": searches, "bucket": 0,
                      "slab": 0, "open": 0, "open_slab": 0, "open_cell": 0}
                out.append(("edges", {"write": 0, "vertex": u, "word": 0, "ctx": {
                    "purpose": TablePurpose.TO_HASH.value, "op": op}}))
            else:
                out.append(("skips", (Outcome.SKIPPED.value, int(kind == SEARCH), searches)))
        else:
            next_delete = i + 1 < len(ops) and ops[i + 1][0] == DELETE_V
            end = (i + 1 == len(ops) or (i % batch) + 1 == batch or group + 1 == group_size
                   or not next_delete)
            out.append(("vertex_ops", {"insert": int(kind == INSERT_V), "u": u,
                                       "present": int(u in present), "group_end": int(end)}))
            if kind == DELETE_V:
                group = 0 if end else group + 1
            (present.add if kind == INSERT_V else present.discard)(u)
        searches += kind == SEARCH
    return out


@pytest.mark.parametrize("batch,count", [(1000, 160), (7, 160), (1, 30), (5, 0)])
@pytest.mark.parametrize("pause", PAUSES)
def test_issue_in_order_with_vertex_operations_alone(pause, batch, count):
    rng = random.Random(f"opissue/{pause}/{batch}")
    group_size = 3
    present = {v for v in range(VERTICES) if rng.random() < 0.7}
    ops = []
    while len(ops) < count:
        if rng.random() < 0.12:                       # a run of vertex deletions
            ops += [(DELETE_V, rng.randrange(VERTICES), 0, 0)
                    for _ in range(rng.randint(1, 5))]
        elif rng.random() < 0.08:
            ops.append((INSERT_V, rng.randrange(VERTICES), 0, 0))
        else:
            ops.append((rng.choice([INSERT, DELETE, SEARCH]), rng.randrange(VERTICES),
                        rng.randrange(VERTICES), rng.randrange(1 << 32)))
    ops = ops[:count]
    want = expected_outputs(ops, present, batch, group_size)
    dut = OpIssue(sweep_group=group_size)
    bench = Bench(dut, "OpIssue", pause=pause)
    bench.source("ops", dut.ops, [{"data": k | u << 32 | v << 64 | w << 96, "index": i,
                                   "last": int(i == count - 1), "ctx": 0}
                                  for i, (k, u, v, w) in enumerate(ops)])
    for name in ("edges", "skips", "vertex_ops"):
        bench.sink(name, getattr(dut, name))
    state = {"present": set(present), "sent": 0, "released": 0, "left": [], "end": None}
    releaser_rng = random.Random(f"release/{pause}")

    async def presence_and_monitor(ctx):
        ctx.set(dut.go, 1)
        ctx.set(dut.ops_count, count)
        ctx.set(dut.batch_size, batch)
        streams = [getattr(dut, name) for name in ("edges", "skips", "vertex_ops")]
        signals = [dut.read_en, dut.read_u, dut.read_v, dut.released, dut.vertex_ops.payload.u,
                   dut.vertex_ops.payload.insert]
        signals += [s for stream in streams for s in (stream.valid, stream.ready)]
        async for _, _, en, u, v, released, vu, vinsert, *handshakes in \
                ctx.tick().sample(*signals):
            left = [name for k, name in enumerate(("edges", "skips", "vertex_ops"))
                    if handshakes[2 * k] and handshakes[2 * k + 1]]
            if len(left) > 1:
                bench.fail(f"two operations left in one cycle: {left}")
            if left:
                i = len(state["left"])
                drained = state["sent"] == state["released"]
                if left == ["vertex_ops"] and not drained:
                    bench.fail(f"vertex operation {i} left with edge operations in flight")
                if i and i % batch == 0 and not drained:
                    bench.fail(f"operation {i} started a batch before the last one ended")
                state["left"].append(left[0])
                if left == ["vertex_ops"]:
                    (state["present"].add if vinsert else state["present"].discard)(vu)
                if left == ["edges"]:
                    state["sent"] += 1
            state["released"] += released
            if en:
                ctx.set(dut.present_u, u in state["present"])
                ctx.set(dut.present_v, v in state["present"])

    async def releaser(ctx):
        pulses = 0          # its own count: the monitor's may lag a cycle, never lead
        while True:
            pulse = state["sent"] > pulses and releaser_rng.random() < 0.4
            ctx.set(dut.released, pulse)
            pulses += pulse
            await ctx.tick()

    async def finish(ctx):
        while not ctx.get(dut.finished):
            await ctx.tick()
        state["end"] = (ctx.get(dut.issued), ctx.get(dut.batches))

    bench.add_process(presence_and_monitor)
    bench.add_process(releaser)
    bench.add_process(finish)
    bench.until(lambda: state["end"] is not None)
    bench.run()
    bench.check_equal(state["left"], [name for name, _ in want], "streams taken, in order")
    for name in ("edges", "vertex_ops"):
        bench.check_equal(bench.received[name], [p for n, p in want if n == name], name)
    skips = [(s["outcome"], s["search"], s["answer"]["index"]) for s in bench.received["skips"]]
    bench.check_equal(skips, [p for n, p in want if n == "skips"], "skips")
    assert state["end"] == (count, -(-count // batch)), state["end"]
