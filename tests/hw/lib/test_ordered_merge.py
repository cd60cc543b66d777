"""OrderedMerge and MemoryPortMerge against a server that answers in request order: every
requester gets exactly the answers to its own answered requests, in its order; unanswered
requests (memory writes) reach the server and take no answer; no more than ``outstanding``
answers are owed at once."""

import random

import pytest
from amaranth.lib import data

from hw.lib.memory.port import line_request_layout
from hw.lib.stream.ordered_merge import MemoryPortMerge, OrderedMerge
from tests.support.stream_drivers import PAUSES, Bench

Request = data.StructLayout({"source": 3, "seq": 10, "answered": 1})
Response = data.StructLayout({"source": 3, "seq": 10, "check": 8})


def check_byte(source, seq):
    return (source * 37 + seq * 11) & 0xFF


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("count, outstanding", [(1, 1), (3, 2), (4, 8)])
def test_ordered_merge(count, outstanding, pause):
    dut = OrderedMerge(Request, Response, count, outstanding=outstanding,
                       answered=lambda request: request.answered)
    rng = random.Random(f"merge/{count}/{outstanding}")
    items = [[{"source": s, "seq": k, "answered": int(rng.random() < 0.8)}
              for k in range(rng.randrange(40, 90))] for s in range(count)]
    bench = Bench(dut, f"OrderedMerge(count={count}, outstanding={outstanding})",
                  pause=pause)
    for s in range(count):
        bench.source(f"requests[{s}]", dut.requests[s], items[s])
        bench.sink(f"responses[{s}]", dut.responses[s],
                   sum(item["answered"] for item in items[s]))
    answers = bench.feed("response", dut.response)

    def serve(request):
        if request["answered"]:
            answers.append({"source": request["source"], "seq": request["seq"],
                            "check": check_byte(request["source"], request["seq"])})

    bench.sink("request", dut.request, sum(map(len, items)), on_item=serve)
    most = [0]

    async def count_owed(ctx):
        owed = 0
        request, response = dut.request, dut.response
        async for _, _, qv, qr, answered, pv, pr in ctx.tick().sample(
                request.valid, request.ready, request.payload.answered,
                response.valid, response.ready):
            owed += (qv and qr and answered) - (pv and pr)
            most[0] = max(most[0], owed)
            if owed > outstanding:
                bench.fail(f"{owed} answers owed, more than {outstanding}")

    bench.add_process(count_owed)
    bench.run()
    assert most[0] >= 1
    for s in range(count):
        want = [{"source": s, "seq": item["seq"], "check": check_byte(s, item["seq"])}
                for item in items[s] if item["answered"]]
        bench.check_equal(bench.received[f"responses[{s}]"], want, f"responses[{s}]")
    got = bench.received["request"]
    for s in range(count):
        bench.check_equal([r for r in got if r["source"] == s], items[s], f"requests of {s}")


@pytest.mark.parametrize("pause", PAUSES)
def test_memory_port_merge(pause):
    count = 3
    dut = MemoryPortMerge(addr_width=16, count=count, outstanding=4)
    rng = random.Random("memory-merge")
    programs = [[{"addr": (s << 12) | k, "write": int(rng.random() < 0.25), "wdata": 0,
                  "wmask": 0} for k in range(50)] for s in range(count)]
    bench = Bench(dut, "MemoryPortMerge(count=3)", pause=pause)
    for s in range(count):
        bench.source(f"clients[{s}].req", dut.clients[s].req, programs[s])
        bench.sink(f"clients[{s}].resp", dut.clients[s].resp,
                   sum(1 - r["write"] for r in programs[s]))
    lines = bench.feed("mem.resp", dut.mem.resp)

    def serve(request):
        if not request["write"]:
            lines.append({"rdata": request["addr"] * 0x1_0001})

    bench.sink("mem.req", dut.mem.req, sum(map(len, programs)), on_item=serve)
    bench.run()
    for s in range(count):
        want = [{"rdata": r["addr"] * 0x1_0001} for r in programs[s] if not r["write"]]
        bench.check_equal(bench.received[f"clients[{s}].resp"], want, f"client {s}")
    assert line_request_layout(16).size == len(dut.mem.req.payload.as_value())
