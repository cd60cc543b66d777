"""The HDTL's hub tracker on its own, against a Python walk: a root is looked up and answered
with entries <entry, L, length, tail>; the walk descends root → L → ... with random edge
weights, and the batch of the vertex at the entry's length holds an edge to the tail. The
observation must name the entry tracked by the depth-2 vertex and carry the root's x and
EdgeCompute of the path (x + the weights for SSSP, x · the constants for PageRank, in FP32
as the multiplier rounds); none for a walk whose depth-2 vertex is no entry's L. The learner
pauses at random; ``batch_finished`` must stay low until the observation is taken. PageRank:
``owed`` holds the done answer's count and falls by one per ``paid``."""

import random
import struct

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.depgraph.hub_tracker import HubTracker
from tests.support.stream_drivers import rerun_command

U32 = 0xFFFF_FFFF


def f32(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def from_f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


@pytest.mark.parametrize("algo", ["sssp", "pagerank"])
@pytest.mark.parametrize("seed", [1, 2])
def test_hub_tracker_observes_the_tracked_tail(algo, seed):
    rng = random.Random(seed)
    dut = HubTracker(algo=algo, track_entries=4, depth_bits=5)
    is_sum = algo == "pagerank"

    async def pulse(ctx, *signals):
        for s, v in signals:
            ctx.set(s, v)
        await ctx.tick()
        for s, _ in signals:
            ctx.set(s, 0)

    async def fold(ctx, vertex, depth, x, const):
        ctx.set(dut.vertex, vertex)
        ctx.set(dut.depth, depth)
        await pulse(ctx, (dut.folded, 1), (dut.fold_x, x), (dut.fold_const, const))
        for _ in range(20):                       # the multiplier's latency
            if ctx.get(dut.batch_finished):
                break
            await ctx.tick()

    async def bench(ctx):
        for walk in range(6):
            await pulse(ctx, (dut.new_walk, 1))
            entries = [(100 + i, 10 + i, rng.randrange(2, 5), 50 + i) for i in range(3)]
            root_x = f32(rng.uniform(0.5, 2)) if is_sum else rng.randrange(1000)
            await fold(ctx, 1, 1, root_x, f32(0.5) if is_sum else 0)
            await pulse(ctx, (dut.looked_up, 1))
            assert not ctx.get(dut.answered)
            for entry, second, length, tail in entries:
                await pulse(ctx, (dut.answers.valid, 1), (dut.answers.payload.entry, entry),
                            (dut.answers.payload.second, second),
                            (dut.answers.payload.length, length),
                            (dut.answers.payload.tail, tail))
            owed = rng.randrange(3)
            await pulse(ctx, (dut.answers.valid, 1), (dut.answers.payload.done, 1),
                        (dut.answers.payload.entry, owed))
            assert ctx.get(dut.answered)
            if is_sum:
                assert ctx.get(dut.owed) == owed
                for _ in range(owed):
                    await pulse(ctx, (dut.paid, 1))
                assert ctx.get(dut.owed) == 0
            # the walk: root (depth 1) -> L (depth 2) -> ... -> the tail's parent
            tracked = rng.random() < 0.8
            entry, second, length, tail = rng.choice(entries)
            second = second if tracked else 999
            y = root_x
            parent_const = f32(0.5)
            expected = None
            for depth in range(2, length + 1):
                weight = rng.randrange(1, 50)
                if is_sum:
                    y = f32(np.float32(from_f32(y)) * np.float32(from_f32(parent_const)))
                else:
                    y = min(y + weight, U32)
                const = f32(rng.uniform(0.1, 0.9))
                vertex = second if depth == 2 else 200 + depth
                await pulse(ctx, (dut.descend, 1), (dut.descend_y, y))
                await fold(ctx, vertex, depth, f32(1.0) if is_sum else 7, const)
                if depth == 2:
                    await pulse(ctx, (dut.choose, 1))
                await pulse(ctx, (dut.batch_start, 1))
                tail_weight = rng.randrange(1, 50)
                dsts = [300, tail, 301] if depth == length else [300, 301]
                for dst in dsts:
                    await pulse(ctx, (dut.batch_edge, 1), (dut.batch_dst, dst),
                                (dut.batch_weight, tail_weight if dst == tail else 9))
                if depth == length and tracked:
                    yc = f32(np.float32(from_f32(y)) * np.float32(from_f32(const))) \
                        if is_sum else y
                    expected = (entry, root_x, yc if is_sum else min(yc + tail_weight, U32))
                parent_const = const
            seen = None
            for _ in range(30):
                ctx.set(dut.observe.ready, rng.random() < 0.4)
                valid = ctx.get(dut.observe.valid)
                if valid:
                    assert not ctx.get(dut.batch_finished)
                if valid and ctx.get(dut.observe.ready):
                    p = dut.observe.payload
                    seen = (ctx.get(p.entry), ctx.get(p.x), ctx.get(p.y))
                await ctx.tick()
            ctx.set(dut.observe.ready, 0)
            assert seen == expected, f"walk {walk}: {seen} != {expected}\nrerun: {rerun_command()}"
            assert ctx.get(dut.batch_finished)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
