"""What every design's RTL run reports: the base of the four ``<Design>Report`` classes that
``sim/<design>/run.py``'s ``simulate`` returns."""

import abc
import dataclasses
from pathlib import Path


__all__ = ["SimReport"]


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
