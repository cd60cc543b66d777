"""Random Vertex Read of the destination property (P4) against a line memory model, in
Amaranth's simulator."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.graphicionado.random_vertex_read import RandomVertexRead
from sim.amaranth_memory import LineMemoryModel, words_to_lines

VPROP_BASE = 7


def random_edges(rng, n, count):
    """Edges as (src, dst, weight, reserved, prop, const), every field distinct noise, with
    the first and last word of a line and the last vertex among the destinations."""
    dst = rng.integers(0, n, count)
    dst[:4] = [15, 16, 0, n - 1]
    return [tuple(int(x) for x in row) for row in zip(
        rng.integers(0, n, count), dst, *rng.integers(0, 2**32, (4, count), dtype=np.uint64))]


def run(edges, vprop, *, outstanding=16, latency=15, jitter=0, stall=0.0, input_gap=0.0,
        output_ready=1.0, idle_between=0, seed=1, limit=None):
    """Feed ``edges`` through the block; return what came out, the cycles from the first
    edge offered to the last handed out, and the memory model. Checks on every cycle that
    ``busy`` is high while an edge taken in has not left, and low once all have left."""
    dut = RandomVertexRead(addr_width=16, outstanding=outstanding)
    memory = LineMemoryModel(words_to_lines(vprop, VPROP_BASE), latency=latency, jitter=jitter,
                             stall_probability=stall, seed=seed)
    rng = random.Random(seed)
    out = []
    cycles = []
    limit = limit or 40 * len(edges) * (idle_between + 1) + 200

    async def memory_process(ctx):
        await memory.serve(ctx, dut.mem)

    async def testbench(ctx):
        ctx.set(dut.vprop_base, VPROP_BASE)
        taken = 0
        for cycle in range(limit):
            if len(out) == len(edges):
                break
            # With ``idle_between``, the next edge waits until the last one has left.
            offer = taken < len(edges) and rng.random() >= input_gap and \
                (not idle_between or len(out) == taken)
            ctx.set(dut.i.valid, offer)
            if offer:
                src, dst, weight, reserved, prop, const = edges[taken]
                ctx.set(dut.i.payload, {"edge": {"src": src, "dst": dst, "weight": weight,
                                                 "reserved": reserved},
                                        "prop": prop, "const": const})
            ready = rng.random() < output_ready
            ctx.set(dut.o.ready, ready)
            if not ctx.get(dut.busy):
                assert taken == len(out), f"busy low with {taken - len(out)} edges inside"
            if ready and ctx.get(dut.o.valid):
                item = ctx.get(dut.o.payload)
                edge = item.edge
                out.append((edge.src, edge.dst, edge.weight, edge.reserved, item.prop,
                            item.const, item.dst_prop))
            taken += offer and ctx.get(dut.i.ready)
            await ctx.tick()
            if idle_between and len(out) == taken:
                for _ in range(idle_between):
                    assert not ctx.get(dut.busy)
                    await ctx.tick()
        else:
            raise AssertionError(f"{len(out)} of {len(edges)} edges out after {limit} cycles")
        cycles.append(cycle)
        ctx.set(dut.i.valid, 0)
        for _ in range(10):
            assert not ctx.get(dut.busy) and not ctx.get(dut.o.valid)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run()
    return out, cycles[0], memory


def expected(edges, vprop):
    return [edge + (int(vprop[edge[1]]),) for edge in edges]


@pytest.mark.parametrize("outstanding", [1, 5, 32])
@pytest.mark.parametrize("seed", [1, 2])
def test_each_edge_gets_its_destination_property(outstanding, seed):
    rng = np.random.default_rng(seed)
    n = 300
    vprop = rng.integers(0, 2**32, n, dtype=np.uint32)
    edges = random_edges(rng, n, 400)
    out, _, memory = run(edges, vprop, outstanding=outstanding, latency=15, jitter=6,
                         stall=0.3, input_gap=0.3, output_ready=0.7, seed=seed)
    assert out == expected(edges, vprop)
    assert memory.reads == len(edges)


def test_busy_covers_a_lone_edge():
    # One edge at a time, the block idle in between: ``run`` checks that ``busy`` rises with
    # the edge taken in, holds until it leaves and is low in the idle cycles after.
    rng = np.random.default_rng(3)
    vprop = rng.integers(0, 2**32, 64, dtype=np.uint32)
    edges = random_edges(rng, 64, 12)
    out, _, _ = run(edges, vprop, latency=9, jitter=3, output_ready=0.5, idle_between=3)
    assert out == expected(edges, vprop)


@pytest.mark.parametrize("outstanding", [128, 8])
def test_one_edge_per_cycle_when_outstanding_covers_latency(outstanding):
    count, latency = 512, 20
    rng = np.random.default_rng(4)
    vprop = rng.integers(0, 2**32, 1000, dtype=np.uint32)
    edges = random_edges(rng, 1000, count)
    out, cycles, _ = run(edges, vprop, outstanding=outstanding, latency=latency)
    assert out == expected(edges, vprop)
    if outstanding > latency:
        # The latency is paid once, for the first edge, plus a register stage in each of the
        # three queues (addresses, edges in flight, output) and the memory's own; after that
        # an edge leaves every cycle.
        assert cycles <= count + latency + 8, cycles
    else:
        # Fewer edges in flight than cycles of latency: at most ``outstanding`` edges per
        # round trip, so the same measurement must show the latency.
        assert cycles >= count * latency / outstanding, cycles
