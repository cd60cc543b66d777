"""The response router: every response reaches the client it names, once and in order, under
random stalls on the input and on every client; one response per cycle without them; every
output's valid and the input's ready do not follow any output's ready within a cycle; its
payload registers change only when a response enters."""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.lib.memory.response_router import ResponseRouter


def _run(dut, items, stalls, seed):
    """Offer ``items`` ((client, value) pairs) on ``dut.i``; every output is ready with
    probability 1 - ``stalls`` a cycle. Returns what each client received, in order, and the
    cycles taken."""
    clients = len(dut.o)
    rng = random.Random(seed)
    received = [[] for _ in range(clients)]
    cycles = 0

    async def bench(ctx):
        nonlocal cycles
        sent = 0
        registered = [dut.i.ready, dut.level] + [output.valid for output in dut.o]
        while sum(map(len, received)) < len(items):
            offer = sent < len(items) and rng.random() >= stalls
            takes = [rng.random() >= stalls for _ in range(clients)]
            ctx.set(dut.i.valid, offer)
            client, value = items[sent] if offer else (0, 0)
            ctx.set(dut.i.payload, {"data": value, "clients": 1 << client})
            for output in dut.o:
                ctx.set(output.ready, 0)
            before = [ctx.get(signal) for signal in registered]
            for output, take in zip(dut.o, takes):
                ctx.set(output.ready, take)
            assert [ctx.get(signal) for signal in registered] == before, \
                "a registered output followed an output's ready within the cycle"
            assert ctx.get(dut.level) == sent - sum(map(len, received))
            valid = [ctx.get(output.valid) for output in dut.o]
            assert sum(valid) <= 1, "more than one client offered a response"
            for k, output in enumerate(dut.o):
                if valid[k] and takes[k]:
                    received[k].append(ctx.get(output.payload))
            if offer and ctx.get(dut.i.ready):
                sent += 1
            await ctx.tick()
            cycles += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return received, cycles


@pytest.mark.parametrize("clients, lanes", [(1, 1), (3, 1), (5, 1), (3, 4)])
@pytest.mark.parametrize("stalls", [0.0, 0.3, 0.7])
def test_responses_reach_their_clients_in_order(clients, lanes, stalls):
    dut = ResponseRouter(16, clients, lanes=lanes)
    rng = random.Random(f"router/{clients}/{stalls}")
    items = [(rng.randrange(clients), rng.randrange(1 << 16)) for _ in range(300)]
    received, cycles = _run(dut, items, stalls, seed=f"router/{clients}/{stalls}/run")
    for k in range(clients):
        assert received[k] == [value for client, value in items if client == k]
    if stalls == 0:
        assert cycles == len(items) + 1


def test_payload_registers_change_only_on_input():
    """With the input idle, the outputs stalling and taking in turn leave both entries."""
    dut = ResponseRouter(8, 2)

    async def bench(ctx):
        for client, value in ((1, 0x11), (0, 0x22)):
            ctx.set(dut.i.valid, 1)
            ctx.set(dut.i.payload, {"data": value, "clients": 1 << client})
            await ctx.tick()
        ctx.set(dut.i.valid, 0)
        ctx.set(dut.i.payload, {"data": 0xFF, "clients": 3})
        assert ctx.get(dut.level) == 2 and not ctx.get(dut.i.ready)
        seen = []
        for take in (0, 1, 0, 1):
            for output in dut.o:
                ctx.set(output.ready, take)
            for k, output in enumerate(dut.o):
                if take and ctx.get(output.valid):
                    seen.append((k, ctx.get(output.payload)))
            await ctx.tick()
        assert seen == [(1, 0x11), (0, 0x22)]
        assert ctx.get(dut.level) == 0
        assert not any(ctx.get(output.valid) for output in dut.o)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("lanes", [1, 3])
@pytest.mark.parametrize("stalls", [0.0, 0.5])
def test_never_refused_hands_each_response_out_once_without_ready(stalls, lanes):
    """``never_refused``: with every output's ready held low, each response is offered to
    its client for exactly one cycle, in order; the input is never held up longer than the
    router's two entries need."""
    dut = ResponseRouter(16, 3, never_refused=True, lanes=lanes)
    rng = random.Random(f"never/{stalls}")
    items = [(rng.randrange(3), rng.randrange(1 << 16)) for _ in range(200)]
    received = [[] for _ in range(3)]
    cycles = 0

    async def bench(ctx):
        nonlocal cycles
        sent = 0
        for output in dut.o:
            ctx.set(output.ready, 0)
        while sum(map(len, received)) < len(items):
            assert cycles < 10 * len(items), "the router stopped handing out"
            offer = sent < len(items) and rng.random() >= stalls
            ctx.set(dut.i.valid, offer)
            client, value = items[sent] if offer else (0, 0)
            ctx.set(dut.i.payload, {"data": value, "clients": 1 << client})
            valid = [ctx.get(output.valid) for output in dut.o]
            assert sum(valid) <= 1, "more than one client offered a response"
            for k, output in enumerate(dut.o):
                if valid[k]:
                    received[k].append(ctx.get(output.payload))
            if offer:
                assert ctx.get(dut.i.ready), "a never-refused router held its input up"
                sent += 1
            await ctx.tick()
            cycles += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    for k in range(3):
        assert received[k] == [value for client, value in items if client == k]
    if stalls == 0:
        assert cycles == len(items) + 1


def test_no_clients_is_refused():
    with pytest.raises(ConfigError, match="at least 1"):
        ResponseRouter(8, 0)
