"""``graphgen test``: a design's cocotb testbench on its Verilog (the designs that run graphs
are tested with ``graphgen sim``)."""

from pathlib import Path

from ..common import TRACE_HELP, UsageError, add_design_options, settings_lines, trace_path
from ..designs import DESIGNS, design_and_config
from ..reports import base_report, write_json


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    command = commands.add_parser("test", help="run a design's cocotb test on its Verilog")
    add_design_options(command, DESIGNS)
    command.add_argument("--simulator", default="verilator", choices=("verilator", "icarus"))
    command.add_argument("--seed", type=int, default=1)
    command.add_argument("--json", metavar="FILE")
    command.add_argument("--trace", metavar="FILE.fst", help=TRACE_HELP)
    command.add_argument("--keep", action="store_true", help="keep the run's folder")
    command.set_defaults(run=run)


def run(args) -> int:
    design, config = design_and_config(args)
    if design.needs_graph:
        raise UsageError(f"{design.name} runs graphs: use graphgen sim --design {design.name}")
    result = design.run_test(config, simulator=args.simulator, seed=args.seed,
                             trace=trace_path(args), keep=args.keep)
    cycles = sum(test.sim_time_ns for test in result.tests) / 10
    wall = sum(test.wall_seconds for test in result.tests)
    print(f"RTL test of {design.name}")
    print("\n".join(settings_lines({"configuration": config.as_dict()})))
    print(result.summary())
    print(f"{cycles:.0f} simulated cycles in {wall:.2f} s of test time: "
          f"{cycles / wall if wall else 0:.0f} cycles/s")
    if args.json:
        report = base_report("test", design.name, config)
        report["figures"] = {
            "simulator": result.simulator, "passed": result.passed, "cached_build": result.cached,
            "build_seconds": result.build_seconds, "run_seconds": result.run_seconds,
            "simulated_cycles": cycles, "cycles_per_second": cycles / wall if wall else None,
            "tests": [vars(test) for test in result.tests],
        }
        write_json(Path(args.json), report)
    if result.run_dir:
        print(f"kept {result.run_dir}")
    return 0 if result.passed else 1
