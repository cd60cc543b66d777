"""The whole dynamic graph unit (:class:`hw.dyngraph.top.UpdateUnit`) in Amaranth's own
simulator, programmed through its registers like the host does, on a line memory model: a
small slab-hash graph and a mixed batch (inserts, deletes, searches, vertex insertions and
deletions) with the compactor after it. The state read back (pool, vertex table, free stack)
keeps the slab hash's invariants and holds the golden model's edges and weights, every answer
and every counter the rules define equal the golden model's, and the compactor's lists equal
:func:`golden.dyngraph.compaction.compact`'s. The Verilog of the same unit is checked at
scale by test_dyngraph_rtl.py; this runs in a few seconds without a build, with and without
memory pauses."""

import numpy as np
import pytest

import golden
from golden.dyngraph import SlabGraph, SlabOptions, generate_updates
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.top import COUNTERS, REGISTERS, UpdateUnit
from sim.dyngraph.image import answers_from_words, build_dyngraph_image, state_from_image
from sim.dyngraph.run import COMPACTED, COMPARED, check_compaction, golden_counters
from golden.dyngraph.compaction import compact
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

CONFIG = DynGraphConfig(max_vertices=32, slots=4, lock_ways=4, slab_ports=2, sweep_group=3,
                        slab_index_bits=12, load_factor_percent=100, addr_width=16,
                        memory_outstanding=16, read_window=4)
MIX = "mix:ops=45,insert=40,delete=15,search=25,vinsert=8,vdelete=12,hit=50,seed=4"
BATCH = 16


def _lines(array):
    return {k: int.from_bytes(row.astype("<u4").tobytes(), "little")
            for k, row in enumerate(array)}


# Two of the three PAUSES: the unit is large for the Python simulator (about half a minute a
# run); STREAM_PAUSE_SEEDS sweeps more seeds.
@pytest.mark.parametrize("pause", PAUSES[:2])
def test_a_batch_and_its_compaction_equal_the_golden_model(pause):
    CONFIG.validate()
    graph = golden.generators.uniform(24, 90, seed=5, weights="1:50")
    updates = generate_updates(MIX, graph, CONFIG.max_vertices)
    options = SlabOptions(**CONFIG.golden_options())
    state = SlabGraph.build(graph, options)
    n = CONFIG.max_vertices
    image = build_dyngraph_image(state, updates, CONFIG, batch=BATCH, compact_vertices=n)
    wanted, counters, batches = state.apply_batches(updates, BATCH)
    assert counters.vertices_deleted and counters.inserted and counters.search_hits

    dut = UpdateUnit(CONFIG)
    bench = Bench(dut, "UpdateUnit", pause=pause, watchdog=10**9)
    memory = serve_memory(bench, "mem", dut.mem, _lines(image.dram.to_lines()), pause)
    stats = {}

    async def host(ctx):
        for address, name in enumerate(REGISTERS):
            ctx.set(dut.regs.addr, address)
            ctx.set(dut.regs.data, image.registers[name])
            ctx.set(dut.regs.write, 1)
            await ctx.tick()
        ctx.set(dut.regs.write, 0)
        ctx.set(dut.control.start, 1)
        await ctx.tick()
        ctx.set(dut.control.start, 0)
        while not ctx.get(dut.control.done):
            if ctx.get(dut.control.error):
                bench.fail("the unit raised its error output")
            await ctx.tick()
        stats.update({name: ctx.get(getattr(dut.counters, name)) for name in COUNTERS})

    bench.add_process(host)
    bench.until(lambda: bool(stats))
    bench.run(max_cycles=400_000)

    total = image.dram.total_lines
    lines = np.zeros((total, 16), dtype=np.uint32)
    for k in range(total):
        value = memory.lines.get(k, 0)
        lines[k] = np.frombuffer(value.to_bytes(64, "little"), dtype="<u4")
    words = {name: image.dram.region_from_lines(lines, name)
             for name in ("pool", "vertices", "stack", "answers", *COMPACTED)}
    result = state_from_image(words["pool"], words["vertices"], words["stack"],
                              stats["stack_top"], options, CONFIG.slab_index_bits)
    result.check()
    for got, want in zip(result.edges(), state.edges()):
        np.testing.assert_array_equal(got, want)
    found, weights = answers_from_words(words["answers"], image.searches)
    np.testing.assert_array_equal(found, wanted.found)
    np.testing.assert_array_equal(weights[wanted.found], wanted.weight[wanted.found])
    expected = golden_counters(counters, batches)
    assert {name: stats[name] for name in COMPARED} == {name: expected[name]
                                                         for name in COMPARED}
    assert stats["issued"] == len(updates)
    check = check_compaction({name: words[name] for name in COMPACTED}, compact(state, n),
                             stats)
    assert check["matches_golden"], check["first_mismatch"]
