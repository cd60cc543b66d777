# amaranth: UnusedElaboratable=no
"""The stream demultiplexer and multiplexer in Amaranth's simulator. The demultiplexer by a
payload field: each output gets exactly its items, in order; by ``select``: every item to the
chosen output. The multiplexer: with ``select`` on input k, exactly input k's items pass, in
order, the others wait untouched; then the next input. Against Python filters; with and
without pauses."""

import random

import pytest
from amaranth.lib import data

from hw.lib.config import ConfigError
from hw.lib.stream.select import StreamDemux, StreamMux
from tests.support.stream_drivers import PAUSES, Bench

Item = data.StructLayout({"route": 2, "value": 16})


def test_counts_are_checked():
    with pytest.raises(ConfigError):
        StreamDemux(8, 0)
    with pytest.raises(ConfigError):
        StreamMux(8, 0)


@pytest.mark.parametrize("pause", PAUSES)
def test_demux_by_route(pause):
    rng = random.Random(f"demux/{pause}")
    items = [{"route": rng.randrange(3), "value": k} for k in range(300)]
    dut = StreamDemux(Item, 3, route=lambda p: p.route)
    bench = Bench(dut, "StreamDemux", pause=pause)
    bench.source("i", dut.i, items)
    for k in range(3):
        bench.sink(f"o{k}", dut.o[k], sum(i["route"] == k for i in items))
    bench.run()
    for k in range(3):
        bench.check_equal(bench.received[f"o{k}"], [i for i in items if i["route"] == k],
                          f"output {k}")


@pytest.mark.parametrize("select", [0, 2])
@pytest.mark.parametrize("pause", PAUSES)
def test_demux_by_select(pause, select):
    items = list(range(100))
    dut = StreamDemux(16, 3)
    bench = Bench(dut, "StreamDemux", pause=pause)

    async def hold(ctx):
        ctx.set(dut.select, select)

    bench.add_process(hold)
    bench.source("i", dut.i, items)
    for k in range(3):
        bench.sink(f"o{k}", dut.o[k], len(items) if k == select else 0)
    bench.run()
    bench.check_equal(bench.received[f"o{select}"], items, f"output {select}")


@pytest.mark.parametrize("pause", PAUSES)
def test_mux_passes_the_selected_input(pause):
    rng = random.Random(f"mux/{pause}")
    inputs = [[(k << 12) | n for n in range(rng.randrange(20, 60))] for k in range(3)]
    dut = StreamMux(16, 3)
    bench = Bench(dut, "StreamMux", pause=pause)
    bench.sink("o", dut.o)
    order = [1, 0, 2]
    for k in range(3):
        bench.source(f"i{k}", dut.i[k], inputs[k])
    done = []

    async def drive(ctx):
        for k in order:
            ctx.set(dut.select, k)
            while bench.sent[f"i{k}"] < len(inputs[k]):
                await ctx.tick()
                for other in range(3):
                    if other not in order[:order.index(k) + 1] and bench.sent[f"i{other}"]:
                        bench.fail(f"input {other} taken while {k} was selected")
        done.append(1)

    bench.add_process(drive)
    bench.until(lambda: bool(done))
    bench.run()
    bench.check_equal(bench.received["o"], [x for k in order for x in inputs[k]], "output")
