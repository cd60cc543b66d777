"""What the ``graphgen`` subcommands share: the user error (one line, exit status 2), the
parser that raises it, ``--set``/``--mem`` pairs, ``--design``, the ``--trace`` path,
settings printed as aligned lines and values made ready for JSON."""

import argparse
from pathlib import Path


__all__ = ["UsageError", "ArgumentParser", "parse_sets", "add_design_options", "TRACE_HELP",
           "trace_path", "settings_lines", "jsonable"]


class UsageError(Exception):
    """Bad input from the user: reported on one line with exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_sets(pairs: list[str] | None, option: str = "--set") -> dict[str, str]:
    overrides = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{option} expects key=value, got {pair!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def add_design_options(command: argparse.ArgumentParser, design_names) -> None:
    command.add_argument("--design", required=True, help=f"one of {', '.join(design_names)}")
    command.add_argument("--set", action="append", metavar="KEY=VALUE",
                         help="override a design parameter")


TRACE_HELP = ("dump every signal of the run, under the design's block names, to an FST "
              "waveform (GTKWave, Surfer); Verilator only, a build of its own")


def trace_path(args) -> Path | None:
    """``--trace`` checked: an absolute ``.fst`` path for a Verilator run, or None."""
    if not getattr(args, "trace", None):
        return None
    path = Path(args.trace)
    if path.suffix != ".fst":
        raise UsageError(f"--trace writes an FST waveform: give a FILE.fst, not {args.trace!r}")
    if args.simulator != "verilator":
        raise UsageError("--trace needs --simulator verilator")
    return path.resolve()


def settings_lines(sections: dict[str, dict]) -> list[str]:
    """Each section's title, then its settings as ``key  value`` lines indented under it,
    the values of every section in one column."""
    width = max((len(str(key)) for settings in sections.values() for key in settings),
                default=0)
    lines = []
    for title, settings in sections.items():
        lines.append(title)
        lines += [f"  {key:<{width}}  {_setting(value)}" for key, value in settings.items()]
    return lines


def _setting(value) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return str(value)


def jsonable(value):
    """``value`` with NumPy arrays and scalars made lists and Python numbers, keys strings."""
    import numpy as np
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
