"""Helpers shared by the cocotb testbenches: configuration from the harness, clock and reset,
and pause generators for idle cycles and backpressure (after Forencich's verilog-axis TBs)."""

import itertools
import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge


__all__ = ["config_from_env", "test_options", "start_clock_and_reset", "pause_generator",
           "CLOCK_PERIOD_NS"]

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
