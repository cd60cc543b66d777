# amaranth: UnusedElaboratable=no
"""The partition walk (§V.A): a stream owning partitions first, first + step, ... is handed
each in turn with its number, size and line offset, and moves on only once the stream says
the partition is done and drained; bad parameters are refused."""

import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.graphicionado.partition_walk import PartitionWalk, partition_size


def test_partition_sizes_cover_the_vertices():
    for vertices in (0, 1, 7, 64, 1001):
        for partitions in (1, 2, 8):
            sizes = [partition_size(vertices, p, partitions) for p in range(partitions)]
            assert sizes == [len(range(p, vertices, partitions)) for p in range(partitions)]


@pytest.mark.parametrize("segments,first,step,partitions", [(1, 0, 1, 1), (4, 1, 2, 8),
                                                            (2, 3, 4, 8)])
@pytest.mark.parametrize("range_first, range_end", [(0, 1001), (256, 1001), (384, 512)])
def test_walk_hands_out_each_partition_once(segments, first, step, partitions, range_first,
                                            range_end):
    """Also over a graph slice's range (§VI.A): each partition's part of it, its offset
    past the slice's earlier vertices, the partition's own start beside it."""
    dut = PartitionWalk(segments=segments, first=first, step=step, partitions=partitions)
    seen = []

    async def bench(ctx):
        ctx.set(dut.num_vertices, range_end)
        ctx.set(dut.range_first, range_first)
        ctx.set(dut.part_lines, 5)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        for _ in range(400):
            await ctx.tick()
            if ctx.get(dut.seg_start):
                seen.append((ctx.get(dut.segment), ctx.get(dut.partition), ctx.get(dut.size),
                             ctx.get(dut.offset), ctx.get(dut.part_offset)))
                # The stream is busy with it for a while, then drains for a while.
                ctx.set(dut.seg_idle, 0)
                ctx.set(dut.seg_drained, 0)
                await ctx.tick().repeat(10)
                ctx.set(dut.seg_idle, 1)
            if ctx.get(dut.seg_end):
                assert not ctx.get(dut.seg_drained)
                await ctx.tick().repeat(7)
                ctx.set(dut.seg_drained, 1)
            if not ctx.get(dut.busy) and seen:
                break
        assert not ctx.get(dut.busy)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    parts = [first + k * step for k in range(segments)]
    assert seen == [(k, p, len(range(range_first + p, range_end, partitions)),
                     5 * p + range_first // (16 * partitions), 5 * p)
                    for k, p in enumerate(parts)]


def test_walk_refuses_partitions_it_cannot_own():
    with pytest.raises(ConfigError, match="do not fit"):
        PartitionWalk(segments=3, first=1, step=2, partitions=4)
    with pytest.raises(ConfigError, match="power of two"):
        PartitionWalk(segments=1, first=0, step=1, partitions=3)
