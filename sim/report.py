"""What every design's RTL run reports: the base of the four ``<Design>Report`` classes that
``sim/<design>/run.py``'s ``simulate`` returns."""

import abc
import dataclasses
from pathlib import Path


__all__ = ["SimReport", "sram_line"]


@dataclasses.dataclass(kw_only=True)
class SimReport(abc.ABC):
    """One checked run: the graph's name and size, the RTL's counters (``cycles`` among them),
    the first difference from the golden model (None when the result matches), the wall-clock
    phases (``golden``, ``image``, ``build``, ``simulation``, ``run``, ``readback``
    seconds), the simulator and whether its build came from the cache, the run's folder
    when kept, the lines each memory client moved and the counters at each iteration's
    end, and the cycles after reset before it could start. A design adds its result and its own checks; ``matches`` is the verdict over
    all of them and ``figures`` the design's figures as ``--json`` reports them."""
    graph: str
    num_vertices: int
    num_edges: int
    counters: dict
    first_mismatch: dict | None
    wall_seconds: dict
    simulator: str
    build_cached: bool
    run_dir: Path | None = None
    # The lines each memory client moved (sim.traffic.MemoryTraffic), None when not counted.
    traffic: object = dataclasses.field(default=None, repr=False)
    # The counters at each iteration's end (the testbench's snapshots, sim.iterations); empty
    # for a design without an iteration counter.
    snapshots: list = dataclasses.field(default_factory=list, repr=False)
    # The design's SRAM-deep memories with the reads and writes counted from start to done
    # (sim.gateware.sram_activity); None when the top does not count them.
    sram: list | None = dataclasses.field(default=None, repr=False)
    # Cycles from reset until the design was ready for the start (not busy: Graphicionado's
    # scratchpad clear); once per reset, not in the run's ``cycles``.
    ready_cycles: int = 0

    @property
    def cycles(self) -> int:
        """The run's clock cycles, from start to done."""
        return self.counters["cycles"]

    @property
    @abc.abstractmethod
    def matches(self) -> bool:
        """Every check of the run passed."""

    @property
    @abc.abstractmethod
    def figures(self) -> dict:
        """The run's figures (``cycles`` and ``matches_golden`` among them)."""


def sram_line(reports) -> str | None:
    """``graphgen sim``'s line of the SRAM accesses ``reports`` (one run's, a root each)
    counted, summed over them; None when none were counted."""
    reports = [report for report in reports if getattr(report, "sram", None)]
    memories = [memory for report in reports for memory in report.sram]
    cycles = sum(report.cycles for report in reports)
    if not memories or not cycles:
        return None
    reads = sum(memory["reads"] for memory in memories)
    writes = sum(memory["writes"] for memory in memories)
    names = len({memory["name"] for memory in memories})
    return (f"{'sram':<11} {reads:,} reads and {writes:,} writes of {names} memories of SRAM "
            f"depth, {(reads + writes) / cycles:.2f} a cycle (counted from start to done)")
