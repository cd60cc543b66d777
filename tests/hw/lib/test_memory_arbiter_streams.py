"""The memory arbiter's interface contract only (its internals are being reworked): with
several clients issuing random reads and masked writes, every read is answered once, to the
client that asked, in that client's order, with the line as that client's earlier writes
left it (each client keeps to lines of its own); each client's writes reach the memory in
its order; no more than ``outstanding`` reads are in flight at the memory. Clients,
their response sides and the memory are paused at random."""

import random

import pytest

from hw.lib.memory.arbiter import MemoryArbiter
from sim.amaranth_memory import LineMemoryModel
from tests.support.stream_drivers import PAUSES, Bench, memory_client_program

ADDR = 16
LINES_PER_CLIENT = 6


def client_program(rng, client, count, writes=True):
    return memory_client_program(rng, client, count, lines_per_client=LINES_PER_CLIENT,
                                 write_share=0.4 if writes else 0)


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("ports, outstanding, read_only, response_buffer, request_slice, "
                         "never_refused",
                         [(1, 2, (), False, False, False), (3, 4, (), False, False, False),
                          (4, 16, (), False, False, False), (4, 8, (0, 2), False, False, False),
                          (1, 2, (), True, False, False), (4, 8, (0, 2), True, False, False),
                          (1, 2, (), False, True, False), (4, 8, (0, 2), True, True, False),
                          (3, 4, (), False, False, True), (4, 8, (0, 2), True, True, True),
                          (9, 8, (1, 4, 7), False, False, False),
                          (6, 8, (0,), True, True, True)])
def test_memory_arbiter_contract(ports, outstanding, read_only, response_buffer,
                                 request_slice, never_refused, pause):
    """The cases with ``never_refused``: their clients' response sides never pause. Nine and
    six clients make two-level grants (groups of at most four)."""
    rng = random.Random(f"arbiter/{ports}/{read_only}")
    dut = MemoryArbiter(ports=ports, addr_width=ADDR, outstanding=outstanding,
                        read_only=read_only, response_buffer=response_buffer,
                        request_slice=request_slice, responses_never_refused=never_refused)
    bench = Bench(dut, f"MemoryArbiter(ports={ports}, outstanding={outstanding}, "
                       f"response_buffer={response_buffer}, request_slice={request_slice}, "
                       f"never_refused={never_refused})",
                  pause=pause)
    image, programs = {}, []
    for c in range(ports):
        lines, requests, reads, writes = client_program(rng, c, rng.randrange(40, 80),
                                                        writes=c not in read_only)
        image.update(lines)
        programs.append((requests, reads, writes))
        bench.source(f"clients[{c}].req", dut.clients[c].req, requests)
        bench.sink(f"clients[{c}].resp", dut.clients[c].resp, len(reads),
                   pausing=not never_refused)
    memory = LineMemoryModel(image, latency=2 if pause is None else 7,
                             jitter=0 if pause is None else 6,
                             stall_probability=0 if pause is None else 0.3,
                             seed=f"{pause}/memory")
    bench.watch("bus.req", dut.bus.req, progress=False)
    bench.watch("bus.resp", dut.bus.resp, progress=False)
    writes_seen = []

    async def serve(ctx):
        await memory.serve(ctx, dut.bus)

    async def bus_monitor(ctx):
        in_flight = 0
        async for _, _, qv, qr, write, addr, sv, sr in ctx.tick().sample(
                dut.bus.req.valid, dut.bus.req.ready, dut.bus.req.payload.write,
                dut.bus.req.payload.addr, dut.bus.resp.valid, dut.bus.resp.ready):
            if qv and qr and write:
                writes_seen.append(addr)
            in_flight += (qv and qr and not write) - (sv and sr)
            if in_flight > outstanding:
                bench.fail(f"{in_flight} reads in flight at the memory (cycle {bench.cycle})")

    bench.add_process(serve)
    bench.add_process(bus_monitor)
    bench.until(lambda: all(bench.sent[f"clients[{c}].req"] == len(programs[c][0])
                            for c in range(ports)))
    cycles = bench.run(settle=40)
    for c, (requests, reads, writes) in enumerate(programs):
        bench.check_equal(bench.received[f"clients[{c}].resp"], reads,
                          f"client {c}'s read responses")
        bench.check_equal([a for a in writes_seen if a // 100 == c], writes,
                          f"client {c}'s writes at the memory")
    if pause is None:
        total = sum(len(p[0]) for p in programs)
        if cycles > 3 * total + 100:
            bench.fail(f"{cycles} cycles for {total} requests without pauses")
