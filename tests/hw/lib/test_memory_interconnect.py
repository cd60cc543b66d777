"""The multi-channel memory interconnect (hw/lib/memory/interconnect.py) in Amaranth's simulator.

Several clients issue random reads and masked writes on lines spread over every channel; each
channel is a line memory of its own (the lines with ``addr % channels == c``) that answers
different tags out of order, after random delays, refusing requests at random with pauses.
Every client must get exactly its data in its request order; every request must reach the
channel of its line with the full address; a client's writes reach each channel in its order;
no channel has more than ``outstanding`` reads in flight; the clients' response sides pause
at random (back-pressure) and the watchdog catches a deadlock."""

import random

import pytest

from hw.lib.config import ConfigError
from hw.lib.memory.interconnect import MemoryInterconnect, ReorderBuffer
from sim.amaranth_memory import LineMemoryModel, serve_ports
from tests.support.stream_drivers import PAUSES, Bench, memory_client_program

ADDR = 16
LINES_PER_CLIENT = 12


def client_program(rng, client, count):
    return memory_client_program(rng, client, count, lines_per_client=LINES_PER_CLIENT,
                                 write_share=0.3)


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("ports, channels, outstanding, depth", [
    (1, 1, 2, None), (3, 2, 4, 2), (4, 4, 16, None), (8, 2, 8, 4)])
def test_memory_interconnect_contract(ports, channels, outstanding, depth, pause):
    rng = random.Random(f"interconnect/{ports}/{channels}")
    dut = MemoryInterconnect(ports=ports, channels=channels, addr_width=ADDR,
                             outstanding=outstanding, reorder_depth=depth)
    bench = Bench(dut, f"MemoryInterconnect(ports={ports}, channels={channels}, "
                  f"outstanding={outstanding}, reorder_depth={depth})", pause=pause)
    image, programs = {}, []
    for p in range(ports):
        lines, requests, reads, writes = client_program(rng, p, rng.randrange(40, 80))
        image.update(lines)
        programs.append((requests, reads, writes))
        bench.source(f"clients[{p}].req", dut.clients[p].req, requests)
        bench.sink(f"clients[{p}].resp", dut.clients[p].resp, len(reads))
    writes_seen = [[] for _ in range(channels)]
    served = []
    for c in range(channels):
        port = dut.channels[c]
        model = LineMemoryModel({a: v for a, v in image.items() if a % channels == c},
                                latency=2 if pause is None else 7,
                                jitter=3 if pause is None else 9,
                                stall_probability=0 if pause is None else 0.3,
                                seed=f"{pause}/channel{c}", reorder=True)
        bench.watch(f"channels[{c}].req", port.req, progress=False)
        bench.watch(f"channels[{c}].resp", port.resp, progress=False)

        served.append((model, port))

        async def monitor(ctx, c=c, port=port):
            in_flight = 0
            async for _, _, qv, qr, write, addr, sv, sr in ctx.tick().sample(
                    port.req.valid, port.req.ready, port.req.payload.write,
                    port.req.payload.addr, port.resp.valid, port.resp.ready):
                if qv and qr:
                    if addr % channels != c:
                        bench.fail(f"line {addr} on channel {c} (cycle {bench.cycle})")
                    if write:
                        writes_seen[c].append(addr)
                in_flight += (qv and qr and not write) - (sv and sr)
                if in_flight > outstanding:
                    bench.fail(f"{in_flight} reads in flight on channel {c} "
                               f"(cycle {bench.cycle})")

        bench.add_process(monitor)

    async def serve(ctx):
        await serve_ports(ctx, served)

    bench.add_process(serve)
    bench.until(lambda: all(bench.sent[f"clients[{p}].req"] == len(programs[p][0])
                            for p in range(ports)))
    cycles = bench.run(settle=60)
    for p, (requests, reads, writes) in enumerate(programs):
        bench.check_equal(bench.received[f"clients[{p}].resp"], reads,
                          f"client {p}'s read responses")
        for c in range(channels):
            bench.check_equal([a for a in writes_seen[c] if a // 100 == p],
                              [a for a in writes if a % channels == c],
                              f"client {p}'s writes at channel {c}")
    if pause is None:
        total = sum(len(p[0]) for p in programs)
        if cycles > 3 * total + 100:
            bench.fail(f"{cycles} cycles for {total} requests without pauses")


@pytest.mark.parametrize("kwargs, message", [
    ({"ports": 0, "channels": 2}, "ports must be at least 1"),
    ({"ports": 2, "channels": 3}, "channels must be a power of two from 1 to 16"),
    ({"ports": 2, "channels": 32}, "channels must be a power of two from 1 to 16"),
    ({"ports": 2, "channels": 0}, "channels must be a power of two from 1 to 16"),
    ({"ports": 2, "channels": 2, "outstanding": 1}, "outstanding must be at least 2"),
    ({"ports": 2, "channels": 2, "reorder_depth": 6}, "reorder_depth must be a power of two"),
    ({"ports": 5, "channels": 2, "tag_width": 2}, "a tag of 2 bits cannot name 5 clients"),
    ({"ports": 2, "channels": 16, "addr_width": 4}, "leaves no bits above the channel"),
])
def test_memory_interconnect_bad_parameters(kwargs, message):
    kwargs = {"addr_width": ADDR, **kwargs}
    with pytest.raises(ConfigError, match=message):
        MemoryInterconnect(**kwargs)


def test_reorder_buffer_bad_depth():
    with pytest.raises(ConfigError, match="reorder depth must be a power of two"):
        ReorderBuffer(channels=2, addr_width=ADDR, depth=3)
