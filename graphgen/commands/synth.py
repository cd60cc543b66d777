"""``graphgen synth``: a design's area and clock figures for a target (``synth.synthesize``),
or a bitstream for a board (``synth.board``)."""

import math
from pathlib import Path

from ..algo_option import add_algo_option
from ..common import UsageError, add_design_options, settings_lines
from ..designs import DESIGNS, design_and_config
from ..reports import atomic_write, base_report, write_json
from .verilog import AXI_OPTIONS, BUSES, axi_options

# synth.TARGETS, without importing synth (and its tools) to build the parser.
TARGETS = ("ecp5", "gw5a-138", "generic", "asic")
# The targets placed and routed by nextpnr (--clock-mhz, --seeds).
PNR_TARGETS = ("ecp5", "gw5a-138")


__all__ = ["add_parser", "run", "synthesized_source"]


def add_parser(commands) -> None:
    command = commands.add_parser("synth", help="synthesize a design for area and clock "
                                                "figures")
    add_design_options(command, DESIGNS)
    add_algo_option(command, "the vertex program the design is built for (sets its algo "
                             "parameter)")
    command.add_argument("--target", choices=TARGETS,
                         help="ecp5: Lattice ECP5-85k; gw5a-138: Gowin GW5AST-138C (out of "
                              "context); generic: Yosys gates; asic: standard cells")
    command.add_argument("--bus", choices=BUSES, default="native",
                         help="native: the design alone (default); axi: its AXI top (as "
                              "graphgen verilog --bus axi emits it), --per-unit naming the "
                              "AXI4 masters (master, or master0, master1, ... per memory "
                              "channel), the AXI4-Lite register slave (regs) and the design")
    command.add_argument("--axi", action="append", metavar="KEY=VALUE",
                         help=f"a parameter of the AXI top (--bus axi): "
                              f"{', '.join(AXI_OPTIONS)}")
    command.add_argument("--board", metavar="NAME",
                         help="build up to a bitstream for an amaranth-boards board "
                              "(ulx3s-85f, ecpix5-85, versa-ecp5, ...) instead of a --target")
    command.add_argument("--liberty", metavar="FILE", help="Liberty file for --target asic")
    command.add_argument("--clock-mhz", type=float,
                         help="clock constraint: nextpnr's for ecp5 and gw5a-138 (default "
                              "100), the SDC's for OpenSTA for asic (default 250)")
    command.add_argument("--seeds", type=int, default=1, metavar="N",
                         help="ecp5, gw5a-138: place and route with seeds 1..N, report the "
                              "best")
    command.add_argument("--per-unit", action="store_true",
                         help="asic: synthesize each submodule of the top apart and report "
                              "each one's area (needed for designs a flat run cannot hold); "
                              "ecp5: also each top-level unit's cells")
    command.add_argument("--scale-to", type=float, metavar="NM",
                         help="asic: also give the area scaled to this node (classical "
                              "scaling)")
    command.add_argument("--jobs", type=int, metavar="N",
                         help="asic --per-unit: Yosys runs at a time; ecp5 or gw5a-138 "
                              "--seeds: seeds placed and routed at a time (default: one per "
                              "core)")
    command.add_argument("--time-limit", type=float, metavar="SECONDS",
                         help="stop the tools after this long in all (an error saying so; "
                              "nextpnr stopped: the counts and how far it got, no Fmax)")
    command.add_argument("--json", metavar="FILE")
    command.set_defaults(run=run)


def _design_alone(args):
    """The design and its configuration without the run settings (stall injection, the
    watchdog): synthesis builds the hardware alone."""
    design, config = design_and_config(args)
    ignored = config.run_settings()
    if ignored:
        print(f"synthesis leaves out the simulation settings "
              f"{', '.join(f'{k}={v}' for k, v in ignored.items())}")
    return design, config.design_only()


def synthesized_source(design, config, bus: str = "native",
                       options: dict | None = None) -> tuple[str, str]:
    """``(top module, Verilog)`` that ``graphgen synth`` synthesizes: the design, or with
    ``bus="axi"`` its AXI top with ``options`` (``--axi``), whose submodules, the per-unit
    flows' units, are ``design``, ``master`` (or ``master0``, ``master1``, ... per memory
    channel), ``regs`` (the AXI4-Lite register slave)."""
    component = design.axi_top(config, **(options or {})) if bus == "axi" else None
    return design.top(config, bus), design.verilog(config, component, bus=bus)


def run(args) -> int:
    from synth import format_table, synthesize
    if (args.target is None) == (args.board is None):
        raise UsageError("synth needs --target or --board (one of them)")
    if args.board is not None:
        return _synth_board(args)
    design, config = _design_alone(args)
    # Checked here as well as in synthesize(): before the design is emitted and its build
    # folder made.
    _check_target_options(args)
    options = axi_options(args)
    top, text = synthesized_source(design, config, args.bus, options)
    build_dir = Path("build") / "synth" / (f"{design.name}-{config.digest()}-{args.target}"
                                         + ("-axi" if args.bus == "axi" else "")
                                         + "".join(f"-{key}{value}" for key, value
                                                   in sorted(options.items()))
                                         + ("-units" if args.per_unit else ""))
    build_dir.mkdir(parents=True, exist_ok=True)
    verilog_path = build_dir / f"{top}.v"
    atomic_write(verilog_path, text)
    figures = synthesize(verilog_path, top, args.target, build_dir,
                         liberty=Path(args.liberty) if args.liberty else None,
                         clock_mhz=args.clock_mhz, seeds=args.seeds,
                         per_unit=args.per_unit, jobs=args.jobs,
                         time_limit_s=args.time_limit)
    if args.scale_to is not None:
        figures["scaled"] = _scaled(figures, args.scale_to)
    report = base_report("synth", design.name, config)
    report["figures"] = figures
    report["bus"] = args.bus
    if args.bus == "axi":
        report["axi"] = options
    print(f"synthesis of {design.name}{' (AXI top)' if args.bus == 'axi' else ''} for "
          f"{args.target}")
    print("\n".join(settings_lines({"configuration": config.as_dict()})))
    print(format_table(figures))
    if "scaled" in figures:
        scaled = figures["scaled"]
        print(f"scaled to {scaled['node_nm']:g} nm: {scaled['area_um2'] / 1e6:.4f} mm² "
              f"(x{scaled['factor']:.4f}, {scaled['rule']})")
    if args.json:
        write_json(Path(args.json), report)
    return 0


def _check_target_options(args) -> None:
    if args.clock_mhz is not None and not (math.isfinite(args.clock_mhz)
                                           and args.clock_mhz > 0):
        raise UsageError(f"--clock-mhz must be a positive number, not {args.clock_mhz}")
    if args.seeds < 1:
        raise UsageError(f"--seeds must be at least 1, not {args.seeds}")
    if args.liberty and not Path(args.liberty).is_file():
        raise UsageError(f"--liberty {args.liberty}: no such file")
    if args.per_unit and args.target not in ("asic", "ecp5"):
        raise UsageError("--per-unit is built for --target asic and ecp5")
    if args.scale_to is not None and (args.target != "asic" or not
                                      (math.isfinite(args.scale_to) and args.scale_to > 0)):
        raise UsageError("--scale-to takes a positive node in nm, with --target asic")
    if args.jobs is not None and not ((args.per_unit and args.target == "asic") or
                                      (args.seeds > 1 and args.target in PNR_TARGETS)):
        raise UsageError("--jobs is for --per-unit asic synthesis and ecp5 or gw5a-138 "
                         "--seeds")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    if args.time_limit is not None and not (math.isfinite(args.time_limit)
                                            and args.time_limit > 0):
        raise UsageError(f"--time-limit must be a positive number of seconds, not "
                         f"{args.time_limit}")


def _scaled(figures: dict, node_nm: float) -> dict:
    from synth.flow import ASIC_NODE_NM
    from synth.sram_model import scale_area
    total = figures.get("area_total_um2_with_model", figures["area_um2"])
    return {"node_nm": node_nm, "from_nm": ASIC_NODE_NM,
            "factor": scale_area(1.0, ASIC_NODE_NM, node_nm),
            "area_um2": scale_area(total, ASIC_NODE_NM, node_nm),
            "rule": "classical (node ratio)^2 scaling: a lower bound below about 45 nm "
                    "(synth/sram_model.py scale_area)"}


def _synth_board(args) -> int:
    from synth.board import BOARDS, build_for_board
    if args.board not in BOARDS:
        raise UsageError(f"unknown board {args.board!r}: expected one of {', '.join(BOARDS)}")
    for option in ("liberty", "per_unit", "jobs", "scale_to"):
        if getattr(args, option):
            raise UsageError(f"--{option.replace('_', '-')} is not for --board")
    if args.bus != "native" or args.axi:
        raise UsageError("--bus and --axi are not for --board (the board build has its own "
                         "top)")
    design, config = _design_alone(args)
    build_dir = Path("build") / "synth" / f"{design.name}-{config.digest()}-{args.board}"
    figures = build_for_board(design.build(config), args.board, build_dir)
    used = {bel: u for bel, u in figures["utilisation"].items() if u["used"]}
    print(f"{design.name} on {args.board} ({figures['device']}, {figures['package']}), "
          f"clock {figures['clock_mhz']:g} MHz")
    print("\n".join(settings_lines({"configuration": config.as_dict()})))
    print(f"Fmax {figures['fmax_mhz']:.1f} MHz (timing "
          f"{'met' if figures['timing_met'] else 'NOT met'}); bitstream "
          f"{figures['bitstream']} ({figures['bitstream_bytes']:,} bytes)")
    print("utilisation " + ", ".join(f"{bel} {u['used']:,}/{u['available']:,}"
                                      for bel, u in used.items()))
    print(figures["notes"][0])
    if args.json:
        report = base_report("synth", design.name, config)
        report["figures"] = figures
        write_json(Path(args.json), report)
    return 0
