"""BankOutputs against a credit model: an op takes a credit of its queue when picked (only
while ``room`` says one is left), its answer enters the queue some cycles later and the
credit comes back when the answer leaves; a load or update that does not push gives its push
credit back at the pipeline's end. Each queue passes its answers in order, never refuses one,
and ``room`` is "credits used < depth" every cycle."""

import collections
import random

from amaranth.sim import Simulator

from hw.depgraph.bank_outputs import OUTPUTS, BankOutputs
from tests.support.stream_drivers import rerun_command

DEPTH = 4
LATENCY = 6


def test_bank_outputs_credits():
    dut = BankOutputs(depth=DEPTH)
    rng = random.Random(3)
    counts = collections.Counter()

    async def bench(ctx):
        used = [0] * len(OUTPUTS)
        in_flight = collections.deque([None] * LATENCY)     # (queue, pushes) per cycle
        sent = [collections.deque() for _ in OUTPUTS]
        serial = 0
        for cycle in range(3000):
            where = f"cycle {cycle}\nrerun: {rerun_command()}"
            room = ctx.get(dut.room)
            assert room == sum((used[k] != DEPTH) << k for k in range(len(OUTPUTS))), where
            # Pick an op whose queue has room.
            pick = rng.randrange(len(OUTPUTS) + 2)
            picked = pick < len(OUTPUTS) and room >> pick & 1
            ctx.set(dut.gain, 1 << pick if picked else 0)
            # The op that entered LATENCY cycles ago reaches the end.
            arriving = in_flight.popleft()
            in_flight.append((pick, rng.random() < 0.6) if picked else None)
            for k, name in enumerate(OUTPUTS):
                ctx.set(getattr(dut, f"{name}_in").valid, 0)
            ctx.set(dut.unused_push, 0)
            returned = [0] * len(OUTPUTS)
            if arriving is not None:
                k, pushes = arriving
                name = OUTPUTS[k]
                if name != "push" or pushes:
                    serial += 1
                    ctx.set(getattr(dut, f"{name}_in").valid, 1)
                    payload = {"probed": {"walkable": serial & 1},
                               "visited": {"worth": 1, "x": serial, "const": 0, "head": 0}
                               }.get(name, serial)
                    ctx.set(getattr(dut, f"{name}_in").payload, payload)
                    sent[k].append(serial & 1 if name == "probed" else serial)
                    assert ctx.get(getattr(dut, f"{name}_in").ready), where
                else:
                    ctx.set(dut.unused_push, 1)
                    returned[k] = 1
            released = [0] * len(OUTPUTS)
            for k, name in enumerate(OUTPUTS):
                out = getattr(dut, name)
                ready = rng.random() < 0.5
                ctx.set(out.ready, ready)
                if ready and ctx.get(out.valid):
                    value = ctx.get(out.payload)
                    value = {"probed": lambda v: v.walkable, "visited": lambda v: v.x
                             }.get(name, lambda v: v)(value)
                    assert int(value) == sent[k].popleft(), where
                    released[k] = 1
                    counts[name] += 1
            for k in range(len(OUTPUTS)):
                used[k] += (picked and pick == k) - released[k] - returned[k]
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert all(counts[name] > 100 for name in OUTPUTS)
