"""The dynamic graph unit's run control in Amaranth's simulator, in a scripted environment
(command streams taken after random delays, presence lines loaded one by one, the operations'
``finished`` and the memory's ``quiet`` toggling at random, the compactor's ``done`` late).
Checked against a cycle-by-cycle model of the run's phases: ``restart`` only in the start
cycle; the bitmap's load command, then the operations' command, with the registers' values;
``go`` only once every line is loaded and until finished and quiet; the compactor started once
(only when asked) and ``done`` only after it and the memory are done; the cycle counters equal
the cycles the model saw in each phase. With and without pauses."""

import random

import pytest

from hw.dyngraph.run_control import RunControl
from tests.support.stream_drivers import PAUSES, Bench


@pytest.mark.parametrize("lines,compact", [(3, 0), (1, 6), (0, 2)])
@pytest.mark.parametrize("pause", PAUSES)
def test_phases_in_order(pause, lines, compact):
    rng = random.Random(f"runctl/{pause}/{lines}/{compact}")
    dut = RunControl(addr_width=16)
    bench = Bench(dut, "RunControl", pause=pause)
    bench.sink("load_cmd", dut.load_cmd, 1)
    bench.sink("ops_cmd", dut.ops_cmd, 1)
    seen = {"phase": "idle", "cycles": 0, "load": 0, "compact": 0, "restarts": 0,
            "compact_starts": 0, "loaded": 0, "end": None}

    async def environment(ctx):
        ctx.set(dut.present_base, 77)
        ctx.set(dut.present_lines, lines)
        ctx.set(dut.ops_base, 300)
        ctx.set(dut.ops_count, 1234)
        ctx.set(dut.compact_vertices, compact)
        await ctx.tick().repeat(3)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        while len(bench.received["ops_cmd"]) == 0:
            await ctx.tick()
        for _ in range(lines):
            await ctx.tick().repeat(rng.randint(1, 6))
            ctx.set(dut.line_loaded, 1)
            await ctx.tick()
            ctx.set(dut.line_loaded, 0)
        await ctx.tick().repeat(rng.randint(5, 20))
        ctx.set(dut.finished, 1)
        while not ctx.get(dut.done):
            ctx.set(dut.quiet, rng.random() < 0.3)
            if seen["compact_starts"]:
                await ctx.tick().repeat(rng.randint(5, 15))
                ctx.set(dut.compact_done, 1)
            await ctx.tick()

    async def monitor(ctx):
        async for _, _, busy, go, restart, start_c, done, loaded, finished, quiet, \
                compact_done, load_valid, load_ready, ops_valid, ops_ready in ctx.tick().sample(
                dut.busy, dut.go, dut.restart, dut.compact_start, dut.done, dut.line_loaded,
                dut.finished, dut.quiet, dut.compact_done, dut.load_cmd.valid,
                dut.load_cmd.ready, dut.ops_cmd.valid, dut.ops_cmd.ready):
            phase = seen["phase"]
            seen["restarts"] += restart
            seen["compact_starts"] += start_c
            if restart and phase != "idle":
                bench.fail("restart outside the start cycle")
            if ops_valid and not bench.received["load_cmd"]:
                bench.fail("the operations' command before the bitmap's")
            if go and seen["loaded"] < lines:
                bench.fail(f"go with {seen['loaded']} of {lines} lines loaded")
            if go and phase not in ("load", "run"):
                bench.fail(f"go in phase {phase}")
            if start_c != (phase == "compact_start"):
                bench.fail(f"compact_start {start_c} in phase {phase} "
                           f"(compact_vertices {compact})")
            if done and phase not in ("run", "compact", "done"):
                bench.fail(f"done in phase {phase}")
            if done and compact and not compact_done:
                bench.fail("done before the compactor")
            if busy:
                seen["cycles"] += 1
                if phase in ("idle", "load") and not go:
                    seen["load"] += 1
                if start_c or phase == "compact":
                    seen["compact"] += 1
            # The next cycle's phase.
            if restart:
                phase = "load"
            elif go:
                phase = "run"
                if finished and quiet:
                    phase = "compact_start" if compact else "done"
            elif start_c:
                phase = "compact"
            elif done:
                phase = "done"
            seen["phase"] = phase
            seen["loaded"] += loaded
            if done and seen["end"] is None:
                seen["end"] = (ctx.get(dut.cycles), ctx.get(dut.load_cycles),
                               ctx.get(dut.compact_cycles))

    bench.add_process(environment)
    bench.add_process(monitor)
    bench.until(lambda: seen["end"] is not None)
    bench.run()
    assert bench.received["load_cmd"] == [{"base": 77, "first": 0, "count": lines, "ctx": 0}]
    assert bench.received["ops_cmd"] == [{"base": 300, "first": 0, "count": 1234, "ctx": 0}]
    assert seen["restarts"] == 1 and seen["compact_starts"] == int(compact != 0)
    assert seen["end"] == (seen["cycles"], seen["load"], seen["compact"]), (seen["end"], seen)


def test_a_start_after_done_runs_again():
    """A START in DONE (the host's next run, without a reset) restarts: ``restart`` in its
    cycle, the two commands again, ``done`` low until the new run ends."""
    from amaranth.sim import Simulator

    dut = RunControl(addr_width=16)
    runs = []

    async def testbench(ctx):
        ctx.set(dut.present_lines, 0)
        ctx.set(dut.load_cmd.ready, 1)
        ctx.set(dut.ops_cmd.ready, 1)
        ctx.set(dut.finished, 1)
        ctx.set(dut.quiet, 1)
        for _ in range(3):
            ctx.set(dut.start, 1)
            restarted = ctx.get(dut.restart)
            await ctx.tick()
            ctx.set(dut.start, 0)
            commands, cycles = 0, 0
            while not ctx.get(dut.done) and cycles < 20:
                commands += ctx.get(dut.load_cmd.valid) + ctx.get(dut.ops_cmd.valid)
                cycles += 1
                await ctx.tick()
            runs.append((restarted, commands, cycles, ctx.get(dut.done)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert runs == [(1, 2, 4, 1)] * 3, runs
