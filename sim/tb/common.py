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
           "apply_run_inputs", "run_to_done", "CLOCK_PERIOD_NS"]

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


def _link_states(dut, names: list[str]) -> list[dict]:
    valid, ready = int(dut.link_valid.value), int(dut.link_ready.value)
    return [{"link": name, "valid": bool(valid >> i & 1), "ready": bool(ready >> i & 1)}
            for i, name in enumerate(names)]


async def run_to_done(dut, run: dict, read_status):
    """The part of a whole-graph run common to the designs: pulse ``start``, wait for ``done``,
    the watchdog's ``hang`` or ``run["max_cycles"]``, without acting on any cycle in between,
    record the status (``read_status(dut)``: a dict), the counters and, on a hang, every
    link's handshake, have the DRAM model dump its memory if the run finished, and write
    ``run["result_path"]``. The host judges the outcome: this test fails only if it could not
    write it."""
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
    result = {
        "finished": finished,
        "hang": hang,
        "error": bool(int(dut.error.value)),
        **read_status(dut),
        "counters": {name: int(getattr(dut, f"stat_{name}").value) for name in run["counters"]},
        "run_wall_seconds": seconds,
        "sim_cycles": int(get_sim_time("ns") // CLOCK_PERIOD_NS),
        "quiet_cycles": int(dut.quiet_cycles.value),
        "links": _link_states(dut, run.get("link_names", [])) if not finished else [],
    }
    if finished:
        await RisingEdge(dut.clk)
        dut.dump.value = 1
        await RisingEdge(dut.clk)
        dut.dump.value = 0
        await First(RisingEdge(dut.dump_done), ClockCycles(dut.clk, 10))
    with open(run["result_path"], "w") as file:
        json.dump(result, file)
