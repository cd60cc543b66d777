"""MemoryArbiter (hw/lib/memory/arbiter.py) in Amaranth's simulator: requests leave tagged with
their client's index, responses go back by their tag, and the reads in flight stay within the
limit, against a memory that answers reads of different tags out of order."""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.lib.memory.arbiter import MemoryArbiter, _groups


def run_arbiter(*, ports=3, outstanding=5, reads=30, seed=1, latency=0):
    arbiter = MemoryArbiter(ports=ports, addr_width=10, outstanding=outstanding, tag_width=4)
    rng = random.Random(seed)
    plans = [[(rng.randrange(1 << 10), rng.random() < 0.25) for _ in range(reads)]
             for _ in range(ports)]
    received = [[] for _ in range(ports)]
    log = {"bus_tags": [], "max_in_flight": 0, "overtakes": 0}

    async def client(ctx, index):
        port = arbiter.clients[index]
        for addr, write in plans[index]:
            ctx.set(port.req.valid, 1)
            ctx.set(port.req.payload.addr, addr)
            ctx.set(port.req.payload.write, write)
            await ctx.tick().until(port.req.ready)
            ctx.set(port.req.valid, 0)
            for _ in range(rng.randrange(3)):
                await ctx.tick()

    async def sink(ctx, index):
        port = arbiter.clients[index]
        expected = sum(1 for _, write in plans[index] if not write)
        while len(received[index]) < expected:
            ctx.set(port.resp.ready, rng.random() < 0.7)
            _, _, valid, ready, rdata = await ctx.tick().sample(
                port.resp.valid, port.resp.ready, port.resp.payload.rdata)
            if valid and ready:
                received[index].append(rdata)

    async def memory(ctx):
        bus = arbiter.bus
        in_flight = []      # (data, tag, cycle), oldest first; any tag's oldest may answer
        answer = None
        cycle = 0
        while True:
            cycle += 1
            ctx.set(bus.req.ready, rng.random() < 0.8)
            if answer is None and in_flight:
                heads = {}
                for entry in in_flight:
                    heads.setdefault(entry[1], entry)
                due = [entry for entry in heads.values() if cycle - entry[2] >= latency]
                answer = rng.choice(due) if due else None
            ctx.set(bus.resp.valid, answer is not None)
            if answer is not None:
                ctx.set(bus.resp.payload.rdata, answer[0])
                ctx.set(bus.resp.payload.tag, answer[1])
            _, _, valid, ready, addr, write, tag, resp_ready = await ctx.tick().sample(
                bus.req.valid, bus.req.ready, bus.req.payload.addr, bus.req.payload.write,
                bus.req.payload.tag, bus.resp.ready)
            if answer is not None and resp_ready:
                log["overtakes"] += in_flight.index(answer) > 0
                in_flight.remove(answer)
                answer = None
            if valid and ready:
                log["bus_tags"].append(tag)
                if not write:
                    in_flight.append((addr * 16 + tag, tag, cycle))
            log["max_in_flight"] = max(log["max_in_flight"], len(in_flight))

    sim = Simulator(arbiter)
    sim.add_clock(1e-8)

    def bind(function, index):
        async def bound(ctx):
            await function(ctx, index)
        return bound

    for index in range(ports):
        sim.add_testbench(bind(client, index))
        sim.add_testbench(bind(sink, index))
    sim.add_testbench(memory, background=True)
    sim.run()
    return plans, received, log


def test_arbiter_routes_by_tag():
    """Each client gets exactly its own reads back, in its order, although the memory answers
    across clients out of order; requests carry their client's index as tag."""
    plans, received, log = run_arbiter()
    assert set(log["bus_tags"]) == {0, 1, 2}
    assert log["overtakes"] > 0, "the memory never answered out of order"
    for index, plan in enumerate(plans):
        want = [addr * 16 + index for addr, write in plan if not write]
        assert received[index] == want, f"client {index}"


@pytest.mark.parametrize("outstanding", [2, 5])
def test_arbiter_keeps_reads_in_flight_within_limit(outstanding):
    _, _, log = run_arbiter(outstanding=outstanding, seed=outstanding, latency=30)
    # Reads in flight as the memory sees them: sent by the arbiter, not yet answered.
    assert log["max_in_flight"] == outstanding


def test_arbiter_refuses_a_tag_too_narrow():
    with pytest.raises(ConfigError, match="cannot name 5 clients"):
        MemoryArbiter(ports=5, addr_width=10, tag_width=2)


def test_arbiter_refuses_a_read_only_client_that_does_not_exist():
    with pytest.raises(ConfigError, match=r"do not exist: \[3\]"):
        MemoryArbiter(ports=3, addr_width=10, read_only=(0, 3))


def two_level_turns(ports, asking, count):
    """The grants of a two-level round robin among clients that always ask: the groups of
    :func:`hw.lib.memory.arbiter._groups` take turns, and in each group its members."""
    groups = [[c for c in members if c in asking] for members in _groups(ports)]
    groups = [members for members in groups if members]
    served = [0] * len(groups)
    turns = []
    for step in range(count):
        g = step % len(groups)
        turns.append(groups[g][served[g] % len(groups[g])])
        served[g] += 1
    return turns


def test_arbiter_groups_are_small_and_even():
    assert _groups(5) == [[0, 1], [2, 3, 4]]
    assert _groups(4) == [[0, 1, 2, 3]]
    assert [len(g) for g in _groups(12)] == [4, 4, 4]
    assert [len(g) for g in _groups(13)] == [3, 3, 3, 4]


@pytest.mark.parametrize("request_slice", [False, True])
@pytest.mark.parametrize("ports, asking", [(5, (0, 1, 2, 3, 4)), (5, (1, 3)), (5, (4,)),
                                           (5, (0, 2, 3)), (4, (0, 1, 3)),
                                           (12, tuple(range(12))), (12, (0, 5, 6, 7, 11))])
def test_arbiter_grants_round_robin_at_a_request_a_cycle(ports, asking, request_slice):
    """Clients that always ask take turns, the groups in index order and in each group its
    members (with four clients or fewer, plain round robin), and the memory port takes a
    request every cycle once the queues are primed."""
    arbiter = MemoryArbiter(ports=ports, addr_width=10, outstanding=64, tag_width=4,
                            request_slice=request_slice)
    tags = []

    async def bench(ctx):
        for index in asking:
            ctx.set(arbiter.clients[index].req.valid, 1)
            ctx.set(arbiter.clients[index].req.payload.addr, index)
        ctx.set(arbiter.bus.req.ready, 1)
        for _ in range(40):
            _, _, valid, tag = await ctx.tick().sample(arbiter.bus.req.valid,
                                                       arbiter.bus.req.payload.tag)
            tags.append(tag if valid else None)

    sim = Simulator(arbiter)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    start = tags.index(asking[0])
    steady = tags[start:start + 25]
    assert None not in steady, f"a cycle without a request: {tags}"
    turn = two_level_turns(ports, asking, len(steady))
    assert steady == turn, f"grants {steady}, round robin {turn}"
