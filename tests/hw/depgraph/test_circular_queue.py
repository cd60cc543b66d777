"""DepGraph's circular queue against a deque, and the FIFO edge buffer, in Amaranth's
simulator."""

import collections
import random

import pytest
from amaranth.sim import Simulator

from hw.depgraph.circular_queue import CircularQueue
from hw.depgraph.fifo_edge_buffer import FIFOEdgeBuffer
from hw.depgraph.layouts import EdgeTask
from sim.amaranth_memory import LineMemoryModel


BASE = 40


class _SeenLines(dict):
    """The memory's lines, remembering every address read or written."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def get(self, key, default=None):
        self.seen.add(key)
        return super().get(key, default)


class Harness:
    """Drives the queue one cycle at a time and checks it against a deque."""

    def __init__(self, dut):
        self.dut = dut
        self.model = collections.deque()
        self.overflow = False
        self.pushed = self.popped = self.cycles = 0

    async def cycle(self, ctx, push=None, pop=False, start=False):
        dut = self.dut
        ctx.set(dut.start, start)
        ctx.set(dut.push.valid, push is not None)
        if push is not None:
            ctx.set(dut.push.payload, push)
        ctx.set(dut.pop.ready, pop)
        pushed = push is not None and ctx.get(dut.push.ready)
        popped = pop and ctx.get(dut.pop.valid)
        if popped:
            assert self.model, "popped from an empty queue"
            assert ctx.get(dut.pop.payload) == self.model.popleft(), "out of order"
            self.popped += 1
        if start:
            self.model.clear()
            self.overflow = False
        if pushed:
            if len(self.model) == self.dut.capacity:
                self.overflow = True
            else:
                self.model.append(push)
                self.pushed += 1
        await ctx.tick()
        self.cycles += 1
        assert ctx.get(dut.level) == len(self.model)
        assert ctx.get(dut.overflow) == self.overflow
        # The termination check relies on it.
        assert ctx.get(dut.busy) or not self.model, "busy low with ids inside"

    async def drain(self, ctx, limit=2000):
        for _ in range(limit):
            if not self.model and not ctx.get(self.dut.busy):
                return
            await self.cycle(ctx, pop=True)
        raise AssertionError("the queue did not drain")


def run(scenario, *, lines=4, prefetch=2, latency=8, jitter=4, stall=0.2, seed=1):
    dut = CircularQueue(addr_width=16, lines=lines, prefetch_lines=prefetch)
    memory = LineMemoryModel(latency=latency, jitter=jitter, stall_probability=stall,
                             seed=seed)
    memory.lines = _SeenLines()
    harness = Harness(dut)

    async def memory_process(ctx):
        await memory.serve(ctx, dut.mem)

    async def testbench(ctx):
        ctx.set(dut.base, BASE)
        await harness.cycle(ctx, start=True)
        await scenario(ctx, harness)

    async def monitor(ctx):
        # Sampled at the clock edges, after every testbench has set its inputs.
        in_flight = 0
        port = dut.mem
        async for _, _, req_valid, req_ready, write, resp_valid, resp_ready, busy in \
                ctx.tick().sample(port.req.valid, port.req.ready, port.req.payload.write,
                                  port.resp.valid, port.resp.ready, dut.busy):
            # A response held up would block every other client of a shared memory port.
            assert resp_ready or not resp_valid, "a read response was refused"
            assert busy or not (req_valid or in_flight), "busy low with memory traffic"
            in_flight += (req_valid and req_ready and not write) - (resp_valid and resp_ready)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(monitor, background=True)
    sim.add_testbench(testbench)
    sim.run()
    assert memory.lines.seen <= set(range(BASE, BASE + lines)), "access outside the ring"
    return dut, harness, memory


@pytest.mark.parametrize("lines, prefetch, latency, jitter, stall, seed", [
    (4, 2, 8, 4, 0.2, 1),
    (2, 1, 3, 0, 0.0, 2),
    (3, 3, 20, 10, 0.4, 3),
    (6, 2, 1, 2, 0.5, 4),
])
def test_random_interleaving(lines, prefetch, latency, jitter, stall, seed):
    rng = random.Random(seed)

    async def scenario(ctx, h):
        capacity = h.dut.capacity
        # Phases of different push and pop rates, so the level swings between empty and full.
        for _ in range(80):
            push_p, pop_p = rng.choice([(0.9, 0.2), (0.2, 0.9), (0.7, 0.7), (1.0, 1.0),
                                        (1.0, 0.0), (0.0, 1.0), (0.4, 0.5)])
            for _ in range(rng.randrange(20, 160)):
                push = None
                if len(h.model) < capacity and rng.random() < push_p:
                    push = rng.randrange(1 << 32)
                await h.cycle(ctx, push=push, pop=rng.random() < pop_p)
        await h.drain(ctx)

    dut, h, memory = run(scenario, lines=lines, prefetch=prefetch, latency=latency,
                         jitter=jitter, stall=stall, seed=seed)
    assert h.popped == h.pushed > 1000
    assert memory.writes > 4 * lines        # the ring wrapped
    assert memory.reads == memory.writes


def test_capacity_and_overflow():
    async def scenario(ctx, h):
        capacity = h.dut.capacity
        ids = list(range(1000, 1000 + capacity))
        for v in ids:
            while True:
                await h.cycle(ctx, push=v)
                if h.model and h.model[-1] == v:
                    break
        for _ in range(50):                  # let the writes settle
            await h.cycle(ctx)
        assert not ctx.get(h.dut.overflow) and ctx.get(h.dut.level) == capacity
        # One more: dropped, flagged, and the queue stays intact.
        while not h.overflow:
            await h.cycle(ctx, push=7)
        assert list(h.model) == ids
        await h.drain(ctx)
        assert h.popped == capacity

    for lines in (2, 5):
        run(scenario, lines=lines, latency=6, jitter=3, stall=0.3, seed=lines)


def test_full_while_popping_and_pushing():
    # Held at capacity with pops and pushes interleaved: every line slot of the ring is used
    # while reads are in flight.
    rng = random.Random(5)

    async def scenario(ctx, h):
        capacity = h.dut.capacity
        for _ in range(3000):
            push = rng.randrange(1 << 32) if len(h.model) < capacity else None
            await h.cycle(ctx, push=push, pop=len(h.model) >= capacity - 20 and
                          rng.random() < 0.5)
        await h.drain(ctx)

    dut, h, memory = run(scenario, lines=3, latency=12, jitter=6, stall=0.3, seed=5)
    assert memory.writes > 30


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_start_empties_the_queue(seed):
    rng = random.Random(seed)

    async def scenario(ctx, h):
        req = h.dut.mem.req

        def pending(write):
            return ctx.get(req.valid) and ctx.get(req.payload.write) == write

        for round_ in range(80):
            # Start while a write waits for the memory, while a read does, with lines read
            # ahead on chip, or anywhere; then go on at once or after a pause (stale reads
            # still arriving).
            when = rng.choice(["write", "read", "landed", "any"])
            for i in range(rng.randrange(5, 60) if when == "any" else 100):
                if when == "write" and pending(True) or when != "write" and i > 50:
                    break
                await h.cycle(ctx, push=round_ << 16 | i if rng.random() < 0.8 else None,
                              pop=rng.random() < 0.3)
            if when == "read":
                for _ in range(50):
                    if pending(False):
                        break
                    await h.cycle(ctx, pop=True)
            elif when == "landed":
                for _ in range(30):
                    await h.cycle(ctx)
            else:
                for _ in range(rng.choice([0, rng.randrange(0, 12)])):
                    await h.cycle(ctx, pop=True)
            await h.cycle(ctx, push=round_ << 16 | 0xFFFF if rng.random() < 0.5 else None,
                          start=True)
            assert ctx.get(h.dut.line_writes) == 0 and ctx.get(h.dut.line_reads) == 0
            for _ in range(rng.choice([0, rng.randrange(0, 20)])):
                await h.cycle(ctx)
        for i in range(40):
            await h.cycle(ctx, push=0x7000_0000 + i, pop=rng.random() < 0.5)
        await h.drain(ctx)

    run(scenario, lines=4, latency=15, jitter=5, stall=0.6, seed=seed)


def test_start_while_a_write_waits():
    # The memory holds the write of the old run's tail while new ids arrive after the start:
    # they must not enter the tail under that write (nor be cleared by its acceptance).
    rng = random.Random(9)

    async def scenario(ctx, h):
        req = h.dut.mem.req
        for round_ in range(20):
            while not (ctx.get(req.valid) and ctx.get(req.payload.write)):
                await h.cycle(ctx, push=rng.randrange(1 << 32))
            await h.cycle(ctx, start=True)
            for _ in range(30):
                await h.cycle(ctx, push=rng.randrange(1 << 32) if rng.random() < 0.5 else None)
            await h.drain(ctx)

    run(scenario, lines=3, latency=4, jitter=0, stall=0.9, seed=9)


def test_single_id_is_not_held_back():
    # A lone id in the tail reaches the head without waiting for a full line, with no
    # memory traffic.
    async def scenario(ctx, h):
        await h.cycle(ctx, push=123)
        waited = 0
        while not h.popped:
            await h.cycle(ctx, pop=True)
            waited += 1
        assert waited <= 2
        assert ctx.get(h.dut.line_writes) == 0 and ctx.get(h.dut.line_reads) == 0

    run(scenario)


@pytest.mark.parametrize("backlog", [0, 48])
def test_throughput(backlog):
    # A push and a pop every cycle, with a short queue (the tail hands its ids to the head)
    # and with a backlog in memory (every id goes through the ring).
    n = 1600

    async def scenario(ctx, h):
        while len(h.model) < backlog:
            await h.cycle(ctx, push=len(h.model))
        first, pushed, popped = h.cycles, h.pushed, h.popped
        while h.pushed - pushed < n:
            await h.cycle(ctx, push=h.pushed, pop=True)
        cycles = h.cycles - first
        assert (h.pushed - pushed) / cycles > 0.9
        assert (h.popped - popped) / cycles > 0.85
        await h.drain(ctx)

    run(scenario, lines=8, prefetch=2, latency=10, jitter=0, stall=0.0)


def test_fifo_edge_buffer():
    dut = FIFOEdgeBuffer(depth=16)
    assert dut.bits == 16 * EdgeTask.size == 16 * 134
    rng = random.Random(7)
    items = [{"dst": rng.randrange(1 << 32), "weight": rng.randrange(1 << 32),
              "x": rng.randrange(1 << 32), "const": rng.randrange(1 << 32),
              "leave": rng.randrange(2), "pseudo": rng.randrange(2)} for _ in range(300)]
    out = []

    async def testbench(ctx):
        pending = list(items)
        held = 0
        for _ in range(1500):
            assert ctx.get(dut.level) == held
            assert ctx.get(dut.busy) == (held != 0)
            assert ctx.get(dut.i.ready) == (held != 16)
            ctx.set(dut.i.valid, bool(pending) and rng.random() < 0.7)
            if pending:
                ctx.set(dut.i.payload, pending[0])
            ctx.set(dut.o.ready, rng.random() < 0.6)
            took = ctx.get(dut.i.valid) and ctx.get(dut.i.ready)
            gave = ctx.get(dut.o.ready) and ctx.get(dut.o.valid)
            if gave:
                item = ctx.get(dut.o.payload)
                out.append({name: int(getattr(item, name)) for name in items[0]})
            if took:
                pending.pop(0)
            held += took - gave
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert out == items
