"""The ``graphgen`` command line: the parser, assembled from one module a subcommand
(:mod:`graphgen.commands`), and :func:`main`, which maps errors to exit statuses. The usage
is argparse's: ``graphgen --help`` and ``graphgen COMMAND --help``."""

import sys
from pathlib import Path

from .commands import board, golden, programs, report, run, sim, synth, sweep, test, verilog
from .common import ArgumentParser, UsageError


__all__ = ["main"]

COMMANDS = (verilog, test, synth, golden, sim, sweep, programs, report, board, run)

EPILOG = ("Bad input of any kind gives one line on standard error and exit status 2; a "
          "failing RTL test, a result that differs from the golden model, a hung run (the "
          "watchdog) or the design's error flag gives exit status 1. Files are written whole "
          "or not at all.")


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="graphgen", epilog=EPILOG,
                            description="Generate, test, synthesize and simulate "
                                        "graph-analytics accelerators.")
    commands = parser.add_subparsers(dest="command", required=True,
                                     parser_class=ArgumentParser)
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def _user_errors() -> tuple[type[BaseException], ...]:
    from hw.lib.config import ConfigError
    from sim.harness import SimulationError
    from .sweep import SweepError
    errors = [UsageError, ConfigError, OSError, SimulationError, SweepError]
    try:
        from golden import GraphError
        errors.append(GraphError)
    except ImportError:
        pass
    try:
        from synth import SynthError
        errors.append(SynthError)
    except ImportError:
        pass
    return tuple(errors)


def _check_outputs(args):
    """Refuse output paths that cannot be written before any work: a run writes ``-o`` and
    then ``--json``, and the first must not stay behind when the second fails. A command
    that takes a folder for ``-o`` (``output_may_be_folder``) checks that itself."""
    for option in ("output", "parents", "answers", "json"):
        value = getattr(args, option, None)
        if value is None:
            continue
        path = Path(value)
        if option == "output" and getattr(args, "output_may_be_folder", False) and \
                (path.is_dir() or value.endswith("/")):
            continue
        if not value or path.is_dir():
            raise UsageError(f"--{option} {value!r} is not a file name")
        if not path.parent.is_dir():
            raise UsageError(f"--{option} {value}: folder {path.parent} does not exist")


def main(argv: list[str] | None = None) -> int:
    from sim.dram_run import RunFailure
    user_errors = _user_errors()
    try:
        args = _parser().parse_args(argv)
        _check_outputs(args)
        return args.run(args)
    except RunFailure as failure:
        lines = str(failure).strip().splitlines() or [type(failure).__name__]
        print(f"graphgen: RUN FAILED: {lines[0]}", file=sys.stderr)
        for line in lines[1:]:
            print(line, file=sys.stderr)
        return 1
    except user_errors as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"graphgen: error: {message}", file=sys.stderr)
        return 2
    except MemoryError as error:      # a graph or design too large for this machine
        print(f"graphgen: error: out of memory: {str(error).strip() or 'MemoryError'}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
