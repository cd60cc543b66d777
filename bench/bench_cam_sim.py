"""RTL simulation speed of the atomic-update CAM testbench: simulated cycles per wall second,
Verilator against Icarus, on the same Verilog and the same cocotb testbench."""

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphgen.designs import get_design  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from sim.tb.common import CLOCK_PERIOD_NS  # noqa: E402


def measure(simulator: str, updates: int) -> dict:
    design = get_design("cam")
    config = design.config()
    result = design.run_test(config, simulator=simulator, options={"updates": updates})
    if not result.passed:
        raise SystemExit(f"CAM test failed on {simulator}:\n{result.summary()}")
    cycles = sum(test.sim_time_ns for test in result.tests) / CLOCK_PERIOD_NS
    wall = sum(test.wall_seconds for test in result.tests)
    return {"simulator": simulator, "updates_per_test": updates, "tests": len(result.tests),
            "simulated_cycles": int(cycles), "test_wall_seconds": round(wall, 3),
            "cycles_per_second": round(cycles / wall), "build_cached": result.cached,
            "build_seconds": round(result.build_seconds, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--updates", type=int, default=20000)
    parser.add_argument("--json")
    args = parser.parse_args()
    simulators = ["verilator"] + (["icarus"] if shutil.which("iverilog") else [])
    rows = [measure(simulator, args.updates) for simulator in simulators]
    print(f"{'simulator':<10} {'cycles':>9} {'wall s':>7} {'cycles/s':>9}")
    for row in rows:
        print(f"{row['simulator']:<10} {row['simulated_cycles']:>9} "
              f"{row['test_wall_seconds']:>7} {row['cycles_per_second']:>9}")
    if args.json:
        report = base_report("bench", "cam", get_design("cam").config())
        report["figures"] = rows
        write_json(Path(args.json), report)


if __name__ == "__main__":
    main()
