"""``graphgen programs``: the vertex programs (:mod:`graphgen.programs`), one line each: the
name to give ``--algo``, the property type, Reduce, the mode, the designs that run it (each
design's own word: its simulation hook ``check_program``) and its docstring's first line."""

from ..algo_option import ALGO_METAVAR, program_spec
from ..common import UsageError
from ..designs import DESIGNS, ConfigError, simulated_designs


__all__ = ["add_parser", "run", "designs_running"]


def add_parser(commands) -> None:
    command = commands.add_parser("programs", help="list the vertex programs and the designs "
                                                   "that run them")
    command.add_argument("specs", nargs="*", type=program_spec, metavar=ALGO_METAVAR,
                         help="the programs to describe (default: every built-in)")
    command.set_defaults(run=run)


def designs_running(spec: str) -> list[str]:
    """The designs that run the program ``spec`` (``--algo``) on a graph."""
    running = []
    for name in simulated_designs():
        try:
            DESIGNS[name].simulation.check_program(spec)
        except (ConfigError, UsageError):
            continue
        running.append(name)
    return running


def run(args) -> int:
    from ..programs import PROGRAMS, load_program
    rows = [("program", "property", "reduce", "mode", "designs", "description")]
    for spec in args.specs or list(PROGRAMS):
        program = load_program(spec)
        rows.append((spec, repr(program.prop), program.reduce, program.mode,
                     ",".join(designs_running(spec)) or "-", program.description))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  " + row[-1])
    return 0
