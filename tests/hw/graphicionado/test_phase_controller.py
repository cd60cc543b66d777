"""PhaseController in Amaranth's simulator, the rest of the pipeline played by a testbench:
each start pulse reaches its phase within a few cycles and makes it busy for a random while
(its idle input low, then the memory busy a little longer). The pulses must come in the order
of Graphicionado's loop (§III: the scratchpad cleared once after reset, a start then
waiting for it; the EdgeIDTable loaded, then processing and apply per slice, §VI.A, or per step of the extended schedule, §VI.B,
golden.graphicionado.extended_slicing), each only once the phase before it has drained, and
the run must end when the frontier is empty or after ``max_iterations``, with the iteration
count, parity and ActiveVertex counts to match.
"""

import random

import pytest
from amaranth.sim import Simulator

from golden.graphicionado.extended_slicing import extended_schedule
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.extended_schedule import max_partitions
from hw.graphicionado.phase_controller import PhaseController


# Each start pulse and the idle input it makes busy.
RESPONSES = {"load": "loaded", "clear": "cleared", "clear_all": "cleared",
             "spill_load": "spilled", "start_process": "drained",
             "start_apply": "applied", "spill_store": "spilled"}


def expected_plain(cfg, num_slices, max_iterations, initial, new_counts, *, first=True):
    """The pulses (name, slice) of a run without extended slicing (the ``first`` after
    reset: after the reset-time clear), the iterations it makes and the counts of each
    iteration. No run clears the scratchpad: apply leaves it clear."""
    full = cfg.algorithm.full_edge_access
    slices = max(1, min(num_slices, cfg.max_slices))
    events = [("clear_all", 0)] if first else []
    if not (full or num_slices > 1):
        events.append(("load", 0))
    counts = [0] * len(initial) if full else list(initial)
    per_iteration = []
    iterations = 0
    while not ((sum(counts) == 0 and not full) or iterations == max_iterations):
        per_iteration.append(counts)
        for s in range(slices):
            if not full and num_slices > 1:
                events.append(("load", s))
            events += [("start_process", s), ("start_apply", s)]
        iterations += 1
        if not full:
            counts = list(new_counts[iterations - 1])
    return events, iterations, per_iteration


def expected_extended(partitions, max_iterations, overlap):
    """The pulses (name, step, src, dst) of the first run after reset with extended
    slicing. With ``overlap`` a write-back not followed by an apply lets the next slice's
    load start beside it, and a slice that would clear its region behind one does not."""
    events = [("clear_all", 0, 0, 0), ("clear", 0, 0, 0)]
    for _ in range(max_iterations):
        swapped = False
        for number, step in enumerate(extended_schedule(partitions)):
            where = (number, step.src, step.dst)
            if not step.clear:
                events.append(("spill_load", *where))
            elif not swapped:
                events.append(("clear", *where))
            events.append(("start_process", *where))
            if step.store:
                events.append(("spill_store", *where))
            if step.apply:
                events.append(("start_apply", *where))
            swapped = overlap and step.store and not step.apply
    return events


def run(dut, cfg, *, seed, inputs, new_counts=(), max_delay=30, runs=1):
    """Start ``dut`` ``runs`` times with ``inputs`` and play the pipeline; returns per run the
    pulses seen (with the slice, and the schedule's partitions under extended slicing), the
    counts at each processing start and the outputs at ``done``."""
    rng = random.Random(seed)
    ext = cfg.extended_slicing
    pulses = [name for name in RESPONSES if hasattr(dut, name)]
    readies = sorted({RESPONSES[name] for name in pulses})
    results = []

    def offer_counts(ctx, iteration):
        if iteration < len(new_counts):
            for port, value in zip(dut.new_counts, new_counts[iteration]):
                ctx.set(port, value)

    async def bench(ctx):
        for name, value in inputs.items():
            if isinstance(value, list):
                for port, item in zip(getattr(dut, name), value):
                    ctx.set(port, item)
            else:
                ctx.set(getattr(dut, name), value)
        for _ in range(runs):
            events, counts_seen = [], []
            # A pulse reaches the phase's stages after ``lag`` cycles (the idle input still
            # high), which then stay busy for ``busy`` cycles (the idle input low).
            lag = {name: 0 for name in readies}
            busy = {name: 0 for name in readies}
            memory = 0                             # cycles the memory stays busy after it
            idle_history = []
            iterations_seen = 0
            offer_counts(ctx, 0)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            first = True
            for cycle in range(20_000):
                if ctx.get(dut.done):
                    break
                for name, value in busy.items():
                    if lag[name]:
                        lag[name] -= 1
                    elif value:
                        busy[name] -= 1
                        if busy[name] == 0:
                            memory = rng.randint(0, 4)
                if memory and not any(busy.values()):
                    memory -= 1
                seen = []
                for name in pulses:
                    if not ctx.get(getattr(dut, name)):
                        continue
                    # The phase before must have drained: idle two edges ago (the idle inputs
                    # are registered), except for the pulse that answers ``start``, a load
                    # beside a write-back (``spill_overlap``) and processing beside its
                    # region's load or clear (``process_overlap``).
                    overlapped = name == "spill_load" and events and \
                        events[-1][0] == "spill_store" and cfg.spill_overlap
                    beside = name == "start_process" and ext and cfg.process_overlap and \
                        (seen[-1:] in (["clear"], ["spill_load"]) or
                         events[-1][0] == "spill_store" and cfg.spill_overlap)
                    assert first or overlapped or beside or idle_history[-2], \
                        f"{name} at cycle {cycle} before the phase before it drained"
                    seen.append(name)
                    first = False
                    where = (ctx.get(dut.slice),)
                    if ext:
                        where += (ctx.get(dut.part_src), ctx.get(dut.part_dst))
                    events.append((name, *where))
                    phase = {"load": dut.in_load, "clear": dut.in_load,
                             "start_process": dut.in_process, "start_apply": dut.in_apply}
                    if name in phase:
                        inside = ctx.get(phase[name])
                        if ext and cfg.process_overlap and name == "clear":
                            inside |= ctx.get(dut.in_process)
                        assert inside, f"{name} outside its phase"
                    assert ctx.get(dut.busy)
                    if name == "start_process":
                        counts_seen.append([ctx.get(c) for c in dut.counts])
                        assert ctx.get(dut.active_total) == sum(counts_seen[-1])
                    lag[RESPONSES[name]] = rng.randint(0, 5)
                    busy[RESPONSES[name]] = rng.randint(0, max_delay)
                # Iteration k's new counts are new_counts[k], taken after its last apply.
                if ctx.get(dut.iterations) != iterations_seen:
                    iterations_seen = ctx.get(dut.iterations)
                    offer_counts(ctx, iterations_seen)
                for name in readies:
                    ctx.set(getattr(dut, name), busy[name] == 0 or lag[name] != 0)
                ctx.set(dut.memory_idle, memory == 0)
                idle_history.append(not any(busy.values()) and memory == 0)
                await ctx.tick()
            else:
                raise AssertionError("no done after 20000 cycles")
            results.append({"events": events, "counts": counts_seen,
                            "iterations": ctx.get(dut.iterations),
                            "parity": ctx.get(dut.parity), "busy": ctx.get(dut.busy)})
            await ctx.tick().repeat(3)
            assert ctx.get(dut.done) and not ctx.get(dut.busy)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return results


@pytest.mark.parametrize("num_slices", [0, 1, 3, 9])
def test_frontier_run_stops_when_no_vertex_is_active(num_slices):
    cfg = GraphicionadoConfig(algo="bfs", max_slices=4, streams_src=2)
    dut = PhaseController(cfg)
    initial = [1, 0]
    new_counts = [[3, 2], [0, 5], [0, 0], [7, 7]]
    result, = run(dut, cfg, seed=f"frontier/{num_slices}",
                  inputs={"num_slices": num_slices, "max_iterations": 100,
                          "initial_counts": initial},
                  new_counts=new_counts)
    events, iterations, counts = expected_plain(cfg, num_slices, 100, initial, new_counts)
    assert iterations == 3
    assert result["events"] == events
    slices = max(1, min(num_slices, cfg.max_slices))
    assert result["counts"] == [c for c in counts for _ in range(slices)]
    assert (result["iterations"], result["parity"]) == (3, 1)


def test_frontier_run_empty_at_start():
    cfg = GraphicionadoConfig(algo="sssp")
    dut = PhaseController(cfg)
    result, = run(dut, cfg, seed="empty", inputs={"num_slices": 1, "max_iterations": 10,
                                                  "initial_counts": [0]})
    assert result["events"] == [("clear_all", 0), ("load", 0)]
    assert (result["iterations"], result["parity"]) == (0, 0)


@pytest.mark.parametrize("max_iterations", [0, 1, 4])
def test_full_edge_access_runs_max_iterations(max_iterations):
    cfg = GraphicionadoConfig(algo="pagerank", max_slices=2)
    dut = PhaseController(cfg)
    results = run(dut, cfg, seed=f"full/{max_iterations}", runs=2,
                  inputs={"num_slices": 2, "max_iterations": max_iterations,
                          "initial_counts": [5]})
    for k, result in enumerate(results):      # a second run starts over
        events, iterations, _ = expected_plain(cfg, 2, max_iterations, [0], [], first=k == 0)
        assert result["events"] == events
        assert (result["iterations"], result["parity"]) == (iterations, iterations % 2)
        assert all(counts == [0] for counts in result["counts"])


@pytest.mark.parametrize("process_overlap", [True, False], ids=["early", "late"])
@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in-turn"])
@pytest.mark.parametrize("partitions", [1, 2, 4])
def test_extended_slicing_follows_the_schedule(partitions, overlap, process_overlap):
    cfg = GraphicionadoConfig(algo="cf", symmetric=True, max_slices=10, spill_overlap=overlap,
                              process_overlap=process_overlap)
    assert max_partitions(cfg.max_slices) == 4
    dut = PhaseController(cfg)
    result, = run(dut, cfg, seed=f"extended/{partitions}",
                  inputs={"ext_partitions": partitions, "num_slices": 1, "max_iterations": 2})
    assert result["events"] == expected_extended(partitions, 2, overlap)
    assert (result["iterations"], result["parity"]) == (2, 0)
