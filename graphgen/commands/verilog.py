"""``graphgen verilog``: a design's Verilog, headed by its configuration."""

import json
from pathlib import Path

from ..common import add_design_options
from ..designs import DESIGNS, design_and_config
from ..reports import atomic_write


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    command = commands.add_parser("verilog", help="emit the Verilog of a design")
    add_design_options(command, DESIGNS)
    command.add_argument("-o", "--output", required=True, metavar="FILE.v")
    command.set_defaults(run=run)


def run(args) -> int:
    design, config = design_and_config(args)
    text = design.verilog(config)
    header = f"// graphgen design {design.name}: {json.dumps(config.as_dict())}\n"
    atomic_write(Path(args.output), header + text)
    print(f"wrote {args.output}: module {design.top(config)}, {text.count(chr(10))} lines")
    return 0
