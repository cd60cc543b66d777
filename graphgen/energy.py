"""Energy estimates of an accelerator run beside its time (issue 54, item 6), each term apart
and labelled with where it comes from. Every term is an estimate, none a measurement of
silicon:

* **logic**: OpenSTA's power of the 0.18 um netlist at the synthesis clock's period
  (``synth.sta``: the Liberty file's internal, switching and leakage power at OpenSTA's
  default activity, since OpenSTA 2.0.17 reads no VCD or SAIF), as energy a clock cycle, times
  the run's cycles;
* **SRAM**: the accesses the RTL run counted (:mod:`sim.gateware.sram_activity`) of each
  memory the ASIC flow keeps as a macro, times the SRAM model's access energy of its shape at
  0.18 um (``synth/sram_model.py``). A run that counted none (a netlist in the design's place,
  an AXI top) gets the upper bound instead: every port of every macro of the synthesis
  report on every cycle;
* **DRAM**: the bytes the simulated memory moved (lines times 64) times
  :data:`DRAM_PJ_PER_BYTE`, a published figure.

The CPU's energy is its power times its time: the package power when the bench can read it,
otherwise a stated power (``--cpu-watts``), labelled so.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from synth.flow import ASIC_NODE_NM, MACRO_MIN_DEPTH
from synth.sram_model import access_energy_pj

from .common import UsageError
from .throughput import read_synth_report


__all__ = ["DRAM_PJ_PER_BYTE", "DRAM_SOURCE", "EnergyModel", "energy_model_from_report",
           "estimate", "sram_term", "sram_of", "cpu_energy"]

DRAM_PJ_PER_BYTE = 160.0
DRAM_SOURCE = ("M. Horowitz, \"Computing's energy problem (and what we can do about it)\", "
               "ISSCC 2014: a 32-bit DRAM access 640 pJ (45 nm), so 160 pJ a byte")


@dataclasses.dataclass(frozen=True)
class EnergyModel:
    """What a synthesis report gives a run's energy: the logic's energy a cycle and the SRAM
    macros' bound a cycle (pJ), the power report's activity, and the report's name."""
    logic_pj_per_cycle: float
    sram_pj_per_cycle_bound: float
    activity: str
    source: str


def energy_model_from_report(path: Path, design: str) -> EnergyModel:
    """The :class:`EnergyModel` of a ``graphgen synth --target asic --json`` report of
    ``design``; one line (UsageError) when the file is no such report or has no power."""
    report = read_synth_report(path, design, "--asic")
    figures = report["figures"]
    if figures.get("target") != "asic":
        raise UsageError(f"--asic {path}: not a graphgen synth --target asic --json report")
    power = (figures.get("asic_timing") or {}).get("power")
    if not isinstance(power, dict):
        raise UsageError(f"--asic {path}: no power report (synthesized before graphgen "
                         f"reported OpenSTA's power, or without OpenSTA): synthesize again")
    sram = sum(memory["access_energy_pj_model"]
               * (memory["read_ports"] + memory["write_ports"])
               for memory in figures.get("memories", []))
    return EnergyModel(power["energy_per_cycle_pj"], sram, power["activity"],
                       f"{path} (configuration {report.get('config_digest')})")


def estimate(model: EnergyModel, cycles: int, dram_bytes: int, edges: int,
             dram_pj_per_byte: float = DRAM_PJ_PER_BYTE,
             dram_source: str = DRAM_SOURCE, sram: list[dict] | None = None) -> dict:
    """A run's energy by term (``logic``, ``sram`` or, without counts, ``sram_bound``,
    ``dram``: each ``joules`` and ``source``; ``dram`` also its ``bytes`` and
    ``pj_per_byte``), their total and the total per edge (``edges``, the run's work).
    ``sram``: the run's counted memories (a report's ``figures["sram"]``; empty when its
    configuration has none of SRAM depth, None when the run did not count them)."""
    terms = {
        "logic": {"joules": model.logic_pj_per_cycle * cycles * 1e-12,
                  "source": f"OpenSTA report_power of {model.source}, "
                            f"{model.logic_pj_per_cycle:,.0f} pJ a cycle; activity "
                            f"{model.activity}"},
        **({"sram": sram_term(sram)} if sram is not None else {"sram_bound": {
            "joules": model.sram_pj_per_cycle_bound * cycles * 1e-12,
            "source": f"every port of every SRAM macro each cycle, "
                      f"{model.sram_pj_per_cycle_bound:,.0f} pJ a cycle "
                      f"(synth/sram_model.py); an upper bound, accesses not counted"}}),
        "dram": {"joules": dram_pj_per_byte * dram_bytes * 1e-12, "bytes": dram_bytes,
                 "pj_per_byte": dram_pj_per_byte, "source": dram_source},
    }
    total = sum(term["joules"] for term in terms.values())
    return {"estimate": True, "terms": terms, "joules": total,
            "joules_per_edge": total / edges if edges else None}


def sram_term(memories: list[dict]) -> dict:
    """The SRAM term of a run from its counted memories: each memory's reads and writes at
    the access energy of its depth and width at the ASIC flow's node."""
    if not memories:
        return {"joules": 0.0, "accesses": 0, "memories": 0,
                "source": f"the run's configuration has no memory of SRAM depth "
                          f"({MACRO_MIN_DEPTH} words or more): its memories are flip-flops, "
                          f"in the logic term"}
    accesses = sum(memory["reads"] + memory["writes"] for memory in memories)
    picojoules = sum((memory["reads"] + memory["writes"])
                     * access_energy_pj(memory["depth"], memory["width"],
                                        node_nm=ASIC_NODE_NM)
                     for memory in memories)
    always = sum(memory["asynchronous_read_ports"] for memory in memories)
    return {"joules": picojoules * 1e-12, "accesses": accesses, "memories": len(memories),
            "source": f"{accesses:,} reads and writes counted in the RTL run on "
                      f"{len(memories)} memories of SRAM depth, at synth/sram_model.py's "
                      f"access energy of each one's shape at {ASIC_NODE_NM:g} nm"
                      + (f"; {always} asynchronous read port(s) counted every cycle"
                         if always else "")}


def sram_of(terms: dict) -> tuple[dict, bool]:
    """An estimate's SRAM term and whether it was counted (else it is the bound)."""
    return (terms["sram"], True) if "sram" in terms else (terms["sram_bound"], False)


def cpu_energy(seconds: float, watts: float | None, source: str) -> dict | None:
    """The CPU's energy at ``watts`` (None: not known, no estimate) over ``seconds``."""
    if watts is None:
        return None
    return {"estimate": True, "joules": watts * seconds, "watts": watts, "source": source}
