"""One RTL run of a design beside the simulated DRAM, as the host drives it: the image written
to a run folder, the Verilog built (cached) and simulated by the design's cocotb testbench
(which only configures, starts and waits), and one region of the dumped memory read back.
Shared by :mod:`sim.graphicionado_run` and :mod:`sim.depgraph_run`."""

import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from hw.config import ConfigError
from sim.dram_image import DRAMImage
from sim.harness import SimResult, SimulationError, emit_verilog, run_cocotb


__all__ = ["DRAMRun", "run_with_dram"]


@dataclasses.dataclass
class DRAMRun:
    outcome: dict                   # what the testbench wrote: counters, wall time, ...
    result: SimResult
    words: np.ndarray               # the read-back region, uint32
    image_seconds: float
    readback_seconds: float


# The Verilog of each sim top emitted in this process, by name and digest: a test suite runs
# many graphs on one configuration, and emitting a design takes seconds.
_emitted: dict[tuple[str, str], tuple[str, list]] = {}


def _verilog(make_top, top_name: str, digest: str) -> tuple[str, list]:
    key = (top_name, digest)
    if key not in _emitted:
        top = make_top()
        _emitted[key] = emit_verilog(top, top_name), list(top.extra_sources)
    return _emitted[key]


def run_with_dram(make_top, top_name: str, test_module: str, dram: DRAMImage,
                  run_spec: dict, *, depth_lines: int, digest: str, read_region: str,
                  simulator: str, seed: int, build_root: Path,
                  plusargs: list[str] = ()) -> DRAMRun:
    """Simulate the sim top ``make_top()`` builds (one with ``extra_sources``) on ``dram``;
    ``run_spec`` is the testbench's ``GRAPHGEN_RUN`` without its ``result_path``. ``digest``
    stands for every parameter of the top: it is built and emitted once per process for each
    digest. ``plusargs`` go to the simulation beside the DRAM image's (the DRAM's timing:
    :meth:`hw.sim_memory.SimMemoryConfig.plusargs`)."""
    if dram.total_lines > depth_lines:
        raise ConfigError(f"the graph needs {dram.total_lines} lines of simulated DRAM "
                          f"but it holds {depth_lines} (set --mem depth_lines=N)")
    verilog, extra_sources = _verilog(make_top, top_name, digest)
    start = time.perf_counter()
    run_dir = Path(build_root) / "runs" / f"{digest}-{time.time_ns()}"
    run_dir.mkdir(parents=True)
    # Binary images: $fread/$fwrite are an order of magnitude faster than $readmemh here.
    init_path, dump_path = run_dir / "dram_init.bin", run_dir / "dram_dump.bin"
    dram.write_bin(init_path)
    image_seconds = time.perf_counter() - start
    result_path = run_dir / "result.json"
    spec = {**run_spec, "result_path": str(result_path.resolve())}
    result = run_cocotb(verilog, top_name, test_module, simulator=simulator,
                        extra_sources=extra_sources, seed=seed,
                        env={"GRAPHGEN_RUN": json.dumps(spec)}, build_root=build_root,
                        plusargs=[f"+dram_init_bin={init_path.resolve()}",
                                  f"+dram_dump_bin={dump_path.resolve()}",
                                  f"+dram_seed={seed}", *plusargs])
    outcome = json.loads(result_path.read_text()) if result_path.exists() else None
    if outcome is None or not result.passed:
        raise SimulationError(f"the RTL run did not complete: {result.summary()}")
    start = time.perf_counter()
    base, count = dram.region(read_region)
    words = DRAMImage.read_hex_words(dump_path, base_line=base, count=count)
    return DRAMRun(outcome, result, words, image_seconds, time.perf_counter() - start)
