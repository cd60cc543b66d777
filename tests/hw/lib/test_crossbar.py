# amaranth: UnusedElaboratable=no
"""Crossbar against a model of its virtual output queues: every word comes out once, at the
output its route names, each input's words to one output in order; the outputs hold their
offers (stream rule 2); each output offers a word whenever a queue for it holds one and
serves its queues round robin; busy, stalls, contention and occupancy follow the words the
model counts in each queue, cycle by cycle. An output that never takes a word blocks only the
queues for it (the point of virtual output queues). Bad parameters raise ConfigError."""

import random

import pytest
from amaranth.lib import data

from hw.lib.config import ConfigError
from hw.lib.stream.crossbar import Crossbar
from tests.support.stream_drivers import PAUSES, Bench

Edge = data.StructLayout({"src": 32, "dst": 32})
SIZES = [(1, 1), (1, 4), (2, 2), (4, 2), (2, 4), (8, 8), (6, 2)]


def log2(n):
    return n.bit_length() - 1


def make(inputs, outputs, voq_depth=4):
    bits = log2(outputs)
    return Crossbar(Edge, inputs=inputs, outputs=outputs, voq_depth=voq_depth,
                    route=lambda p: p.dst[0:bits])


def edge(k, seq, dst):
    # src names the input and the word's place in it; the model reads both back.
    return {"src": k << 16 | seq, "dst": dst}


def watch_model(bench, dut, inputs, outputs):
    """Check busy, stalls, contention, occupancy and the outputs' valid against the words
    held per queue (the queues fall through: a word is offered the cycle after it arrives),
    and that each output serves its queues round robin."""
    held = [[0] * outputs for _ in range(inputs)]
    waits = [[0] * outputs for _ in range(inputs)]
    previous_total = [0]
    signals = [dut.busy, dut.stalls, dut.contention, dut.occupancy]
    for port in [*dut.i, *dut.o]:
        signals += [port.valid, port.ready, port.payload.as_value()]

    async def model(ctx):
        async for _, _, busy, stalls, contention, occupancy, *ports in \
                ctx.tick().sample(*signals):
            before = [row[:] for row in held]
            total = sum(map(sum, held))
            if busy != (total > 0):
                bench.fail(f"busy={busy} with {total} words held (cycle {bench.cycle})")
            if occupancy != previous_total[0]:
                bench.fail(f"occupancy={occupancy}, want {previous_total[0]} (the words "
                           f"held a cycle before; cycle {bench.cycle})")
            for j in range(outputs):
                want = sum(held[k][j] > 0 for k in range(inputs)) > 1
                if (contention >> j & 1) != want:
                    bench.fail(f"contention[{j}]={contention >> j & 1} with queues for it "
                               f"holding {[held[k][j] for k in range(inputs)]} "
                               f"(cycle {bench.cycle})")
            for k in range(inputs):
                valid, ready, payload = ports[3 * k:3 * k + 3]
                if (stalls >> k & 1) != (valid and not ready):
                    bench.fail(f"stalls[{k}]={stalls >> k & 1} with valid={valid} "
                               f"ready={ready} (cycle {bench.cycle})")
                if valid and ready:
                    held[k][(payload >> 32) % outputs] += 1
            for j in range(outputs):
                valid, ready, payload = ports[3 * (inputs + j):3 * (inputs + j) + 3]
                queued = [k for k in range(inputs) if before[k][j]]
                if valid != bool(queued):
                    bench.fail(f"output {j}: valid={valid} with inputs {queued} queued for "
                               f"it (cycle {bench.cycle})")
                if valid and ready:
                    k = (payload & 0xffff_ffff) >> 16
                    if before[k][j] == 0:
                        bench.fail(f"output {j} gave input {k}'s word {payload:#x} with "
                                   f"none queued (cycle {bench.cycle})")
                    held[k][j] -= 1
                    # Round robin: a queue waits at most inputs - 1 transfers of others.
                    for other in queued:
                        waits[other][j] = 0 if other == k else waits[other][j] + 1
                        if waits[other][j] >= inputs:
                            bench.fail(f"input {other}'s queue for output {j} waited "
                                       f"{waits[other][j]} transfers (cycle {bench.cycle})")
            previous_total[0] = total

    bench.add_process(model)
    return held


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("inputs, outputs", SIZES)
def test_crossbar(inputs, outputs, pause):
    dut = make(inputs, outputs)
    rng = random.Random(f"edges/{inputs}/{outputs}")
    count = 240 // inputs if inputs * outputs < 64 else 40
    # A hot output for a while, then uniform: queues fill, contend and drain.
    hot = rng.randrange(outputs)
    items = [[edge(k, s, (rng.randrange(1 << 20) & ~(outputs - 1)) | hot
                   if s < count // 3 and rng.random() < 0.7 else rng.randrange(1 << 32))
              for s in range(count)] for k in range(inputs)]
    bench = Bench(dut, f"Crossbar(inputs={inputs}, outputs={outputs})", pause=pause)
    for k in range(inputs):
        bench.source(f"i[{k}]", dut.i[k], items[k])
    for j in range(outputs):
        bench.sink(f"o[{j}]", dut.o[j],
                   sum(item["dst"] % outputs == j for words in items for item in words))
    held = watch_model(bench, dut, inputs, outputs)
    seen_busy = []

    async def busy_seen(ctx):
        async for _, _, busy in ctx.tick().sample(dut.busy):
            seen_busy.append(busy)

    bench.add_process(busy_seen)

    def at_end(ctx):
        if ctx.get(dut.busy) or any(map(any, held)):
            bench.fail(f"busy={ctx.get(dut.busy)} at the end, words held {held}")

    bench.at_end(at_end)
    bench.run()
    for j in range(outputs):
        got = bench.received[f"o[{j}]"]
        for k in range(inputs):
            bench.check_equal([item for item in got if item["src"] >> 16 == k],
                              [item for item in items[k] if item["dst"] % outputs == j],
                              f"input {k}'s words at output {j}")
    if not any(seen_busy):
        bench.fail("busy never rose")


@pytest.mark.parametrize("pause", [None, 1])
@pytest.mark.parametrize("inputs, outputs", [(2, 2), (4, 4)])
def test_blocked_output_blocks_only_its_queues(inputs, outputs, pause):
    """Output 0 never takes a word. Input 0 sends words for every output with ``depth`` words
    for output 0 among them, then one more for output 0 (which must wait for ever) and more
    for the others (which can then never leave); the other inputs send ``depth - 1`` words for
    output 0 among theirs. Every word before input 0's blocked one, and every other input's
    word for the other outputs, arrives."""
    depth = 3
    dut = make(inputs, outputs, voq_depth=depth)
    rng = random.Random(f"blocked/{inputs}/{outputs}")

    def other():
        return rng.randrange(1 << 20) * outputs + rng.randrange(1, outputs)

    items = []
    for k in range(inputs):
        dsts = [other() for _ in range(30)]
        for place in sorted(rng.sample(range(1, 30), depth if k == 0 else depth - 1)):
            dsts[place] = rng.randrange(1 << 20) * outputs
        if k == 0:
            dsts += [rng.randrange(1 << 20) * outputs] + [other() for _ in range(10)]
        items.append([edge(k, s, dst) for s, dst in enumerate(dsts)])
    blocked = 30            # input 0's word that waits for ever
    delivered = [words[:blocked] for words in items]
    bench = Bench(dut, f"Crossbar(inputs={inputs}, outputs={outputs}), output 0 blocked",
                  pause=pause)
    for k in range(inputs):
        bench.source(f"i[{k}]", dut.i[k], items[k])
    bench.watch("o[0]", dut.o[0])
    for j in range(1, outputs):
        bench.sink(f"o[{j}]", dut.o[j],
                   sum(item["dst"] % outputs == j for words in delivered for item in words))
    held = watch_model(bench, dut, inputs, outputs)

    def at_end(ctx):
        queued = [held[k][0] for k in range(inputs)]
        if queued != [depth] + [depth - 1] * (inputs - 1):
            bench.fail(f"queues for output 0 hold {queued}")
        if any(held[k][j] for k in range(inputs) for j in range(1, outputs)):
            bench.fail(f"words left for the free outputs: {held}")
        if bench.sent["i[0]"] != blocked or (ctx.get(dut.stalls) & 1) != 1 \
                or not ctx.get(dut.busy):
            bench.fail(f"input 0 sent {bench.sent['i[0]']} words, stalls="
                       f"{ctx.get(dut.stalls):#b}, busy={ctx.get(dut.busy)}")
        if ctx.get(dut.occupancy) != depth * inputs - (inputs - 1):
            bench.fail(f"occupancy {ctx.get(dut.occupancy)}")

    bench.at_end(at_end)
    bench.run()
    for j in range(1, outputs):
        got = bench.received[f"o[{j}]"]
        for k in range(inputs):
            bench.check_equal([item for item in got if item["src"] >> 16 == k],
                              [item for item in delivered[k] if item["dst"] % outputs == j],
                              f"input {k}'s words at output {j}")


Flit = data.StructLayout({"src": 32, "dst": 32, "flit": 2})


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("inputs, outputs", [(4, 2), (3, 4)])
def test_packets_pass_whole(inputs, outputs, pause):
    """Packets of four flits (§IV.E, wormhole switching): at every output each packet's
    flits come one after another, none of another packet between them, and every input's
    packets to an output in order; with pauses a packet's next flit is often late, and the
    output waits for it."""
    flits = 4
    bits = log2(outputs)
    dut = Crossbar(Flit, inputs=inputs, outputs=outputs, voq_depth=3,
                   route=lambda p: p.dst[0:bits], packet_last=lambda p: p.flit == flits - 1)
    rng = random.Random(f"packets/{inputs}/{outputs}")
    items = []
    for k in range(inputs):
        words = []
        for s in range(30):
            dst = rng.randrange(1 << 20) if rng.random() < 0.5 else rng.randrange(4) * outputs
            words += [{"src": k << 16 | s, "dst": dst, "flit": f} for f in range(flits)]
        items.append(words)
    bench = Bench(dut, f"Crossbar(inputs={inputs}, outputs={outputs}, packets)", pause=pause)
    for k in range(inputs):
        bench.source(f"i[{k}]", dut.i[k], items[k])
    for j in range(outputs):
        bench.sink(f"o[{j}]", dut.o[j],
                   sum(item["dst"] % outputs == j for words in items for item in words))
    bench.run()
    for j in range(outputs):
        got = bench.received[f"o[{j}]"]
        for at in range(0, len(got), flits):
            packet = got[at:at + flits]
            if [w["flit"] for w in packet] != list(range(flits)) or \
                    len({w["src"] for w in packet}) != 1:
                bench.fail(f"output {j}: words {at}..{at + flits - 1} are not one packet: "
                           f"{packet}")
        for k in range(inputs):
            bench.check_equal([item for item in got if item["src"] >> 16 == k],
                              [item for item in items[k] if item["dst"] % outputs == j],
                              f"input {k}'s flits at output {j}")


@pytest.mark.parametrize("args, message", [
    ({"inputs": 0, "outputs": 2}, "inputs must be a whole number from 1 to 128"),
    ({"inputs": 129, "outputs": 2}, "inputs must be a whole number from 1 to 128"),
    ({"inputs": 2, "outputs": 6}, "outputs must be a power of two"),
    ({"inputs": 2, "outputs": 2.0}, "outputs must be a power of two"),
    ({"inputs": True, "outputs": 2}, "inputs must be a whole number"),
    ({"inputs": 2, "outputs": 2, "voq_depth": 1}, "voq_depth must be"),
    ({"inputs": 2, "outputs": 2, "voq_depth": 4.0}, "voq_depth must be"),
    ({"inputs": 2, "outputs": 2, "route": None}, "route must be a callable"),
])
def test_bad_parameters(args, message):
    args = {"route": lambda p: p.dst, **args}
    with pytest.raises(ConfigError, match=message):
        Crossbar(Edge, **args)
