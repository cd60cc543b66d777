"""Helpers shared by the cocotb testbenches: configuration from the harness, clock and reset,
and pause generators for idle cycles and backpressure (after Forencich's verilog-axis TBs)."""

import itertools
import json
import os
import random
import time

import cocotb
from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.triggers import ClockCycles, First, ReadOnly, RisingEdge


__all__ = ["config_from_env", "test_options", "start_clock_and_reset", "pause_generator",
           "apply_run_inputs", "counter_signal", "read_counters", "run_to_done", "dump_and_record",
           "sim_cycle", "link_states", "CLOCK_PERIOD_NS"]

CLOCK_PERIOD_NS = 10


def config_from_env() -> dict:
    """The design parameters the harness elaborated the Verilog with."""
    return json.loads(os.environ["GRAPHGEN_CONFIG"])


def test_options() -> dict:
    """Per-run options of the testbench (cycles, seed, ...), set by the caller."""
    return json.loads(os.environ.get("GRAPHGEN_TEST_OPTIONS", "{}"))


async def start_clock_and_reset(dut, cycles: int = 4):
    cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, unit="ns").start())
    dut.rst.value = 1
    for _ in range(cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


def pause_generator(rng: random.Random, pause_probability: float):
    """An endless stream of booleans, True meaning "pause this cycle"."""
    if pause_probability <= 0:
        return itertools.repeat(False)
    return (rng.random() < pause_probability for _ in itertools.count())


def apply_run_inputs(dut, run: dict):
    """Inputs held steady for the whole run, set before reset: the watchdog's limit and, in a
    design built with stall injection, the stall seed its throttles load out of reset."""
    dut.watchdog_limit.value = run.get("watchdog", 0)
    if hasattr(dut, "stall_seed"):
        dut.stall_seed.value = run.get("stall_seed", 1) & 0xFFFF_FFFF


def counter_signal(dut, name: str):
    """The top's output carrying the status counter ``name``."""
    return getattr(dut, f"stat_{name}")


def read_counters(dut, names) -> dict[str, int]:
    """The counters ``names``, by name, as they are now."""
    return {name: int(counter_signal(dut, name).value) for name in names}


def sim_cycle() -> int:
    return int(get_sim_time("ns") // CLOCK_PERIOD_NS)


async def _watch_iterations(dut, run: dict, snapshots: list):
    """Each time the counter ``run["iteration_counter"]`` changes, append the cycle and every
    counter of ``run["counters"]`` to ``snapshots``. Only reads: the design sees nothing."""
    signal = counter_signal(dut, run["iteration_counter"])
    last = int(signal.value)
    while True:
        await signal.value_change
        await ReadOnly()
        value = int(signal.value)
        if value != last:
            snapshots.append({"iteration": value, "sim_cycle": sim_cycle(),
                              "counters": read_counters(dut, run["counters"])})
            last = value


def link_states(dut, names: list[str]) -> list[dict]:
    valid, ready = int(dut.link_valid.value), int(dut.link_ready.value)
    return [{"link": name, "valid": bool(valid >> i & 1), "ready": bool(ready >> i & 1)}
            for i, name in enumerate(names)]


async def run_to_done(dut, run: dict, read_status):
    """The part of a whole-graph run common to the designs: wait while the design is busy
    after reset (``ready_cycles``), pulse ``start``, wait for ``done``,
    the watchdog's ``hang`` or ``run["max_cycles"]``, without acting on any cycle in between,
    record the status (``read_status(dut)``: a dict), the counters and, on a hang, every
    link's handshake, have the DRAM model dump its memory if the run finished, and write
    ``run["result_path"]``. The host judges the outcome: this test fails only if it could not
    write it.

    With ``run["iteration_counter"]`` (a counter's name), the result's
    ``iteration_snapshots`` lists the counters at each change of that counter
    (:func:`_watch_iterations`); one that changed on the cycle the run ended is taken from
    the final counters."""
    snapshots = []
    watcher = None
    # As a host would (a driver polls ``busy`` before it starts a run): the design's work
    # after reset (Graphicionado's scratchpad clear) is over before the start.
    ready_cycles = 0
    while int(dut.busy.value) and ready_cycles < run["max_cycles"]:
        await RisingEdge(dut.clk)
        ready_cycles += 1
    if run.get("iteration_counter"):
        watcher = cocotb.start_soon(_watch_iterations(dut, run, snapshots))
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    began = time.perf_counter()
    await First(RisingEdge(dut.done), RisingEdge(dut.hang),
                ClockCycles(dut.clk, run["max_cycles"]))
    seconds = time.perf_counter() - began
    await ReadOnly()
    finished = bool(int(dut.done.value))
    hang = bool(int(dut.hang.value)) and not finished
    counters = read_counters(dut, run["counters"])
    if watcher is not None:
        watcher.cancel()
        marker = counters[run["iteration_counter"]]
        if marker != (snapshots[-1]["iteration"] if snapshots else 0):
            snapshots.append({"iteration": marker, "sim_cycle": sim_cycle(),
                              "counters": counters})
    result = {
        "finished": finished,
        "hang": hang,
        "error": bool(int(dut.error.value)),
        **read_status(dut),
        "counters": counters,
        "run_wall_seconds": seconds,
        "sim_cycles": sim_cycle(),
        "quiet_cycles": int(dut.quiet_cycles.value),
        "ready_cycles": ready_cycles,
        "links": link_states(dut, run.get("link_names", [])) if not finished else [],
    }
    if watcher is not None:
        result["iteration_snapshots"] = snapshots
    await dump_and_record(dut, run, result, finished)


async def dump_and_record(dut, run: dict, result: dict, finished: bool):
    """The end of a run: the memory dumped (the DRAM model writes it when ``dump`` is
    pulsed) if the run finished, and ``result`` written to the run's ``result_path``, with
    the counted accesses of the top's ``run["sram_counters"]`` memories (``sram``)."""
    result["sram"] = [{kind: int(getattr(dut, f"sram{k}_{kind}").value)
                       for kind in ("reads", "writes")}
                      for k in range(run.get("sram_counters", 0))]
    if finished:
        await RisingEdge(dut.clk)
        dut.dump.value = 1
        await RisingEdge(dut.clk)
        dut.dump.value = 0
        await First(RisingEdge(dut.dump_done), ClockCycles(dut.clk, 10))
    with open(run["result_path"], "w") as file:
        json.dump(result, file)
