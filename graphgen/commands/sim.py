"""``graphgen sim``: a graph through a design in RTL simulation, checked against the golden
model. Whatever the design, the run goes through its simulation hooks in the registry
(:mod:`graphgen.designs`); this module reads the command line into a request, prints the
settings, the design's figures and the verdict, and writes the files asked for."""

import argparse
import dataclasses
import sys
from pathlib import Path

from ..algo_option import add_algo_option, add_param_option, program_params
from ..common import (TRACE_HELP, UsageError, add_design_options, parse_sets, settings_lines,
                      trace_path)
from ..designs import DESIGNS, check_sim_options, get_design, simulated_designs
from ..graph_option import add_symmetry_options, load_graph, symmetry_line
from ..reports import atomic_write, base_report, write_json
from ..simulation import SIM_OPTIONS, SimRequest, sim_settings
from ..throughput import resolve_clock, throughput_lines

from golden.vertex_order import VERTEX_ORDERS
from sim.run_settings import AXI_SIM_OPTIONS, BUSES
from sim.report import sram_line
from sim.traffic import roofline_lines


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    command = commands.add_parser("sim", help="run a graph through a design in RTL simulation",
                                  epilog=_options_by_design(),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    add_design_options(command, DESIGNS)
    add_algo_option(command, "the vertex program (dyngraph: optional, run on the updated "
                             "graph)")
    add_param_option(command)
    command.add_argument("--graph", required=True, metavar="FILE|SPEC")
    command.add_argument("--root", type=int)
    command.add_argument("--iters", type=int)
    command.add_argument("--slices", type=int, metavar="N",
                         help="graphicionado: run in N graph slices (default: as many as "
                              "the scratchpad needs, one if the graph fits); with "
                              "symmetric=1 and max_slices > 1, N partitions of extended "
                              "slicing (N(N+1)/2 slices)")
    command.add_argument("--vertex-order", choices=VERTEX_ORDERS,
                         help="graphicionado: ids (default: the graph's own, the streams "
                              "owning them by their low bits as in the paper) or spread (the "
                              "host renumbers the vertices so that every destination stream "
                              "owns about as many edges, and maps the values back)")
    command.add_argument("--mem", action="append", metavar="KEY=VALUE",
                         help="simulated DRAM: preset (paper, paper_stream), latency, "
                              "latency_dist (fixed|uniform|tail), jitter, tail_percent, tail, "
                              "outstanding, pushback, reorder, bytes_per_cycle (per channel), "
                              "depth_lines, channels (sets memory_channels where the design "
                              "has one memory port a channel)")
    command.add_argument("--bus", default="native", choices=BUSES,
                         help="native: the design's line ports beside the DRAM model "
                              "(default); axi: its AXI top (graphgen verilog --bus axi), AXI "
                              "slave adapters in front of the same DRAM model, the registers "
                              "over AXI4-Lite")
    command.add_argument("--axi", action="append", metavar="KEY=VALUE",
                         help=f"a parameter of the AXI top (--bus axi): "
                              f"{', '.join(AXI_SIM_OPTIONS)}")
    command.add_argument("--simulator", default="verilator", choices=("verilator", "icarus"))
    command.add_argument("--seed", type=int, default=1,
                         help="seeds the DRAM's randomness and the stall throttles")
    command.add_argument("-o", "--output", metavar="values.npy",
                         help="the values (bfs: levels, uint32; with --roots one row a root; "
                              "dyngraph: the final graph as u v w lines)")
    command.add_argument("--roots", type=int, metavar="K",
                         help="bfs: K roots drawn the Graph500 way (--seed), each run and "
                              "checked; TEPS per root and their harmonic mean")
    command.add_argument("--parents", metavar="FILE.npy",
                         help="bfs: the parent array (int64, the root its own parent, -1 "
                              "unreached; with --roots one row a root)")
    command.add_argument("--clock-mhz", type=float, metavar="F",
                         help="the clock for the per-second figures (TEPS, edges/s, "
                              "operations/s), stated (default: the Fmax of --fmax-from, or "
                              "the one graphgen synth --target ecp5 of this configuration "
                              "left in build/synth; none: per cycle only)")
    command.add_argument("--fmax-from", metavar="SYNTH.json",
                         help="the clock: the Fmax of this graphgen synth --json report (the "
                              "same design and configuration; ECP5, GW5A, or asic: OpenSTA's "
                              "pre-layout one)")
    add_symmetry_options(command)
    command.add_argument("--updates", metavar="FILE|SPEC",
                         help="dyngraph: the operations (a file of + u v w / - u v / ? u v / "
                              "+v u / -v u lines, or mix:ops=N,insert=P,...)")
    command.add_argument("--batch", type=int, metavar="N",
                         help="dyngraph: operations a batch (default: all in one)")
    command.add_argument("--answers", metavar="FILE",
                         help="dyngraph: the searches' answers, one a line")
    command.add_argument("--trace", metavar="FILE.fst", help=TRACE_HELP)
    command.add_argument("--json", metavar="FILE")
    command.add_argument("--keep", action="store_true",
                         help="keep the run's folder (memory images, simulator log)")
    command.set_defaults(run=run)


def _options_by_design() -> str:
    """Which design takes which of the options that differ between designs (the registry's
    word, so that the help cannot drift from what is checked)."""
    lines = ["options by design (needed ones marked !):"]
    for name in simulated_designs():
        simulation = DESIGNS[name].simulation
        named = [f"--{option.replace('_', '-')}" + ("!" if option in simulation.requires
                                                    else "")
                 for option in SIM_OPTIONS if option in simulation.options]
        lines.append(f"  {name:<14} {' '.join(named)}")
    return "\n".join(lines)


def _axi_options(args) -> dict[str, int] | None:
    """``--axi`` pairs checked: known keys, integer values; only with ``--bus axi``."""
    pairs = parse_sets(args.axi, "--axi")
    if pairs and args.bus != "axi":
        raise UsageError("--axi sets parameters of the AXI top: give --bus axi")
    options = {}
    for key, value in pairs.items():
        if key not in AXI_SIM_OPTIONS:
            raise UsageError(f"--axi {key}: unknown parameter; valid: "
                             f"{', '.join(AXI_SIM_OPTIONS)}")
        try:
            options[key] = int(value, 0)
        except ValueError:
            raise UsageError(f"--axi {key} expects an integer, got {value!r}") from None
    return options or None


def _program_parameters(algo: str | None, given: dict | None) -> dict:
    """Every parameter of the program the run used, the given ones and the defaults."""
    if algo is None:
        return {}
    from golden.programs import param_values
    from ..programs import load_program
    return param_values(load_program(algo), given or {})


def run(args) -> int:
    design = get_design(args.design)
    if design.simulation is None:
        names = simulated_designs()
        raise UsageError(f"graphgen sim runs graphs on {', '.join(names[:-1])} or "
                         f"{names[-1]}, not {design.name!r}")
    check_sim_options(design, {option for option in SIM_OPTIONS
                               if getattr(args, option) is not None})
    request = SimRequest(
        graph_name=args.graph, algo=args.algo, params=program_params(args.algo, args.param),
        root=args.root, iters=args.iters,
        slices=args.slices, vertex_order=args.vertex_order, roots=args.roots,
        updates=args.updates,
        batch=args.batch, simulator=args.simulator, seed=args.seed, trace=trace_path(args),
        keep=args.keep, bus=args.bus, axi=_axi_options(args))
    design.simulation.check(request)
    config, memory = sim_settings(design, parse_sets(args.set), parse_sets(args.mem, "--mem"),
                                  args.algo)
    clock = resolve_clock(args.clock_mhz, args.fmax_from, design.name, config)
    graph, symmetry = load_graph(args.graph, args.undirected, args.directed)
    request = dataclasses.replace(request, config=config, memory=memory, graph=graph,
                                  clock=clock)
    result = design.simulation.simulate(request)
    rate = result.throughput(clock)
    roofline = result.roofline(memory)
    print(result.heading)
    bus = {"bus": args.bus, **(request.axi or {})}
    params = _program_parameters(args.algo, request.params)
    print("\n".join(settings_lines({"configuration": config.as_dict(),
                                    **({"program parameters": params} if params else {}),
                                    "simulated memory": memory.as_dict(), "bus": bus})))
    print(symmetry_line(symmetry))
    print("\n".join(design.simulation.report(result)))
    if roofline is not None:
        print("\n".join(roofline_lines(roofline)))
    sram = sram_line(result.reports)
    if sram:
        print(sram)
    if not design.simulation.prints_throughput:
        print("\n".join(throughput_lines(rate)))
    for folder in result.run_dirs:
        print(f"kept {folder}")
    for option, (content, binary) in result.outputs.items():
        if getattr(args, option):
            atomic_write(Path(getattr(args, option)), content, binary=binary)
    if args.json:
        report = base_report("sim", design.name, config)
        report["memory"] = memory.as_dict()
        report["bus"] = bus
        if params:
            report["program_parameters"] = params
        report.update(result.json)
        report.setdefault("graph", {}).update(symmetry)
        report["throughput"] = rate
        report["roofline"] = roofline
        write_json(Path(args.json), report)
    if not result.matches:
        print(f"graphgen: MISMATCH with the golden model{result.mismatch}", file=sys.stderr)
        return 1
    print(result.verdict)
    return 0
