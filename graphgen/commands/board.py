"""``graphgen board``: a design's AXI top in a LiteX SoC for a board (its SDRAM through
LiteDRAM, its registers and the SDRAM reachable over the UART bridge), written as Verilog, an
LPF and a build script, then built to a bitstream with the YoWASP tools
(:mod:`graphgen.board`, docs/board.md)."""

import json
import shutil
import tempfile
from pathlib import Path

from ..common import UsageError, add_design_options
from ..designs import DESIGNS, design_and_config, register_designs
from ..reports import atomic_write


__all__ = ["add_parser", "run", "check_board"]

DATA_WIDTHS = (32, 64, 128)


def add_parser(commands) -> None:
    from ..board import BOARDS, CLOCK_MHZ
    command = commands.add_parser(
        "board", help="build a design into a LiteX SoC on a board's DRAM, up to a bitstream")
    command.add_argument("--board", required=True, metavar="NAME",
                         help=f"the board: {', '.join(BOARDS)}")
    add_design_options(command, DESIGNS)
    command.add_argument("--data-width", type=int, default=64, choices=DATA_WIDTHS,
                         help="the AXI4 masters' data width, each on a LiteDRAM port of its "
                              "own (default 64)")
    command.add_argument("--clock-mhz", type=float, default=CLOCK_MHZ,
                         help=f"the system clock, the design's and the SDRAM's (default "
                              f"{CLOCK_MHZ:g})")
    command.add_argument("--seed", type=int, default=1, help="nextpnr's seed")
    command.add_argument("-o", "--output", metavar="DIR",
                         help="the build folder, made or replaced (one holding board.json) "
                              "(default build/board/<design>-<board>)")
    command.add_argument("--no-compile", action="store_true",
                         help="stop after the Verilog, the LPF and the build script")
    command.add_argument("--json", metavar="FILE", help="the figures as JSON")
    command.set_defaults(run=run, output_may_be_folder=True)


def check_board(name: str) -> None:
    """An unknown board, or the board extra missing: one line."""
    from ..board import BOARDS, require_litex
    if name not in BOARDS:
        raise UsageError(f"unknown board {name!r}; valid: {', '.join(BOARDS)}")
    require_litex()


def _output(args, design_name: str) -> Path:
    folder = Path(args.output or f"build/board/{design_name}-{args.board}")
    if args.output is not None and not args.output:
        raise UsageError("-o '' is not a folder name")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())
                            and not (folder / "board.json").exists()):
        raise UsageError(f"-o {folder}: exists and is not a board build folder")
    if args.output is not None and not folder.parent.is_dir():
        raise UsageError(f"-o {folder}: folder {folder.parent} does not exist")
    return folder


def run(args) -> int:
    check_board(args.board)
    design, config = design_and_config(args)
    if design.name not in register_designs():
        raise UsageError(f"{design.name} has no AXI top; boards take "
                         f"{', '.join(register_designs())}")
    if args.clock_mhz <= 0:
        raise UsageError(f"--clock-mhz {args.clock_mhz}: give a positive frequency")
    folder = _output(args, design.name)
    config = config.design_only()
    from ..board.build import compile_soc, write_soc
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        build = write_soc(design, config, staging, board=args.board,
                          data_width=args.data_width, clock_mhz=args.clock_mhz,
                          seed=args.seed)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    gateware = folder / "gateware"
    layout = build.memory_map()
    print(f"wrote {gateware}: {', '.join(build.files)}")
    print(f"map: registers at {layout['registers_base']:#010x}, design byte 0 at "
          f"{layout['memory_base']:#010x} (main_ram, {layout['memory_bytes'] >> 20} MiB), "
          f"{len(build.masters)} AXI4 master(s) of {build.data_width} bits on LiteDRAM")
    figures = {"board": args.board, "design": design.name, "config": config.as_dict(),
               "folder": str(folder), **layout}
    if not args.no_compile:
        result = compile_soc(gateware, args.board, clock_mhz=args.clock_mhz, seed=args.seed,
                             progress=lambda line: print(line, flush=True))
        figures.update(result)
        print(_figures_text(result, args.clock_mhz))
    if args.json:
        atomic_write(Path(args.json), json.dumps(figures, indent=1) + "\n")
    return 0


def _figures_text(result: dict, clock_mhz: float) -> str:
    used = result["utilisation"]

    def bel(name):
        entry = used.get(name, {})
        return f"{entry.get('used', 0):,} of {entry.get('available', 0):,}"
    fmax = ", ".join(f"{clock} {mhz:.1f} MHz" for clock, mhz in sorted(result["fmax_mhz"].items()))
    seconds = ", ".join(f"{tool} {s:.0f} s" for tool, s in result["seconds"].items())
    return "\n".join([
        f"bitstream {result['bitstream']}",
        f"Yosys: LUT4 {result['lut4']:,}, FF {result['ff']:,}, DP16KD {result['dp16kd']}, "
        f"MULT18X18D {result['mult18']}",
        f"nextpnr (seed {result['seed']}): TRELLIS_COMB {bel('TRELLIS_COMB')}, TRELLIS_FF "
        f"{bel('TRELLIS_FF')}, DP16KD {bel('DP16KD')}, MULT18X18D {bel('MULT18X18D')}",
        f"Fmax: {fmax or 'none reported'} (asked {clock_mhz:g} MHz: "
        f"{'met' if result['timing_met'] else 'NOT met'})",
        f"tools: {seconds}"])
