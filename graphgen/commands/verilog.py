"""``graphgen verilog``: a design's Verilog, headed by its configuration; with ``--bus axi``
its AXI top (AXI4 masters, an AXI4-Lite register slave), headed also by the register map, and
with ``-o`` a folder the AXI top and its register map as files
(:mod:`graphgen.register_files`), with ``--core`` a folder those files and a FuseSoC core
(:mod:`graphgen.fusesoc_core`)."""

import json
from pathlib import Path

from ..algo_option import add_algo_option
from ..common import UsageError, add_design_options, parse_sets
from ..designs import DESIGNS, design_and_config
from ..fusesoc_core import core_description, core_file, lint_waivers, waivers_name
from ..register_files import register_files
from ..reports import atomic_write


__all__ = ["add_parser", "run", "AXI_OPTIONS"]

BUSES = ("native", "axi")
# AXITop's parameters, all integers (hw/lib/axi/top.py).
AXI_OPTIONS = ("data_width", "id_width", "axi_addr_width", "read_outstanding",
               "write_outstanding", "max_burst_beats", "write_buffer", "open_bursts",
               "burst_hold", "write_waiting", "lite_addr_width", "memory_bytes")


def add_parser(commands) -> None:
    command = commands.add_parser("verilog", help="emit the Verilog of a design")
    add_design_options(command, DESIGNS)
    add_algo_option(command, "the vertex program the design is built for (sets its algo "
                             "parameter)")
    command.add_argument("--bus", choices=BUSES, default="native",
                         help="native: the design's own ports (default); axi: its AXI top, "
                              "AXI4 masters (m_axi_*) and an AXI4-Lite register slave "
                              "(s_axil_*), for the designs run through registers")
    command.add_argument("--axi", action="append", metavar="KEY=VALUE",
                         help=f"a parameter of the AXI top (--bus axi): "
                              f"{', '.join(AXI_OPTIONS)}")
    output = command.add_mutually_exclusive_group(required=True)
    output.add_argument("-o", "--output", metavar="FILE.v|DIR/",
                        help="the Verilog file; with --bus axi a folder (one that exists, or "
                             "a name ending in /, made) gets <design>_axi.v and the register "
                             "map: <design>_regs.rdl (SystemRDL), .h (C), .md (Markdown), "
                             ".xml (IP-XACT)")
    output.add_argument("--core", metavar="DIR",
                        help="with --bus axi: a folder (made if missing) that gets the files "
                             "of -o DIR/, Verilator lint waivers <design>_axi_waivers.vlt and "
                             "a FuseSoC core <design>_axi.core (CAPI2, VLNV "
                             "graphgen:accelerators:<design>_axi:<graphgen version>; targets "
                             "default, lint, synth)")
    command.set_defaults(run=run, output_may_be_folder=True)


def axi_options(args) -> dict[str, int]:
    """``--axi`` pairs checked: known keys, integer values; only with ``--bus axi``."""
    pairs = parse_sets(args.axi, "--axi")
    if pairs and args.bus != "axi":
        raise UsageError("--axi sets parameters of the AXI top: give --bus axi")
    options = {}
    for key, value in pairs.items():
        if key not in AXI_OPTIONS:
            raise UsageError(f"--axi {key}: unknown parameter; valid: {', '.join(AXI_OPTIONS)}")
        try:
            options[key] = int(value, 0)
        except ValueError:
            raise UsageError(f"--axi {key} expects an integer, got {value!r}") from None
    return options


def is_folder(output: str) -> bool:
    """``-o`` names a folder: one that exists, or a name ending in ``/``."""
    return Path(output).is_dir() or output.endswith("/")


def core_folder(args) -> Path:
    """``--core`` checked: a folder, or a name to make one at, under a folder that exists;
    only with ``--bus axi``."""
    if args.bus != "axi":
        raise UsageError(f"--core {args.core}: a FuseSoC core packages the AXI top: "
                         f"give --bus axi")
    folder = Path(args.core)
    if not args.core or folder.exists() and not folder.is_dir():
        raise UsageError(f"--core {args.core!r} is not a folder")
    if not folder.parent.is_dir():
        raise UsageError(f"--core {args.core}: folder {folder.parent} does not exist")
    return folder


def run(args) -> int:
    if args.core is not None:
        folder = core_folder(args)
    else:
        folder = Path(args.output) if is_folder(args.output) else None
        if folder is not None and args.bus != "axi":
            raise UsageError(f"-o {args.output}: a folder takes the AXI top and its register "
                             f"map: give --bus axi")
        if folder is not None and not folder.parent.is_dir():
            raise UsageError(f"-o {args.output}: folder {folder.parent} does not exist")
    design, config = design_and_config(args)
    options = axi_options(args)
    header = f"// graphgen design {design.name}: {json.dumps(config.as_dict())}\n"
    component = None
    if args.bus == "axi":
        component = design.axi_top(config, **options)
        header += f"// bus axi: {json.dumps(options)}; AXI4-Lite register map:\n" + "".join(
            f"//   {entry.offset:#05x} {entry.name} ({entry.access}): {entry.description}\n"
            for entry in component.address_map)
    text = design.verilog(config, component, bus=args.bus)
    module = design.top(config, args.bus)
    if folder is None:
        atomic_write(Path(args.output), header + text)
        print(f"wrote {args.output}: module {module}, {text.count(chr(10))} lines")
        return 0
    source = component.design.register_description()
    if source is None:
        raise UsageError(f"{design.name} has no register description: -o FILE.v, "
                         f"without --core")
    comment = f"graphgen design {design.name}: {json.dumps(config.as_dict())}"
    files = {f"{module}.v": header + text,
             **register_files(source, design.top(config), module, comment)}
    if args.core is not None:
        files[waivers_name(module)] = lint_waivers(module)
        description = core_description(design.name, module, config, options)
        files[f"{module}.core"] = core_file(module, list(files), description, comment)
    folder.mkdir(exist_ok=True)
    for name, content in files.items():
        atomic_write(folder / name, content)
    print(f"wrote {folder}: module {module} ({text.count(chr(10))} lines), "
          f"{', '.join(files)}")
    return 0
