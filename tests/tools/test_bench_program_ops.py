"""bench/bench_program_ops.py, the table of operations docs/programs.md quotes: it builds every
operation of the vocabulary, and the latency it prints is the datapath's."""

import importlib.util
from pathlib import Path

from graphgen.programs import OPERATIONS
from hw.lib.program.schedule import Schedule

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_program_ops.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_program_ops", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_operation_is_measured_with_its_datapath_latency():
    bench = _bench()
    assert set(bench.OPERATION_EXPRESSIONS) >= set(OPERATIONS)
    for name in OPERATIONS:
        dut = bench.datapath_of(name)
        assert dut.latency == Schedule.of(bench.OPERATION_EXPRESSIONS[name]()).latency


def test_one_operation_synthesizes(tmp_path):
    bench = _bench()
    row = bench.measure("and", asic=False)
    assert row["latency"] == 1 and row["lut4"] >= 32 and row["ff"] >= 32
