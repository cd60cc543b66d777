"""The run-time settings of one RTL simulation, shared by the four designs' hosts.

Every ``sim/<design>/run.py`` has the one entry point ``simulate(graph, config, memory=None,
run=RunSettings()) -> <Design>Report``: the graph, the design's configuration (what is built),
the simulated memory (:class:`sim.gateware.sim_memory.SimMemoryConfig`; None: the default one
with the configuration's channels) and a :class:`RunSettings`, what this run does with them.
"""

import dataclasses
import numbers
from pathlib import Path

from golden.vertex_order import VERTEX_ORDERS
from hw.lib.config import ConfigError
from sim.harness import DEFAULT_BUILD_ROOT, SIMULATORS


__all__ = ["RunSettings", "DESIGN_SETTINGS", "COMMON_SETTINGS", "BUSES",
           "AXI_SIM_OPTIONS"]

# The settings of how a run is simulated, which every design takes.
COMMON_SETTINGS = ("simulator", "seed", "build_root", "max_cycles", "graph_name", "trace",
                   "keep", "bus", "axi")

# How the host reaches the design: its internal line port and register ports, or its AXI top.
BUSES = ("native", "axi")
# The AXI top's parameters a simulation may set (hw.lib.axi.top.AXITop's; its memory_bytes is
# the simulated memory's).
AXI_SIM_OPTIONS = ("data_width", "id_width", "read_outstanding", "write_outstanding",
                   "max_burst_beats", "write_buffer", "open_bursts", "burst_hold",
                   "write_waiting")

# The settings of what a run computes, by design.
DESIGN_SETTINGS = {
    "bfs": ("algo", "root"),
    "depgraph": ("algo", "root", "tolerance", "hub_lam", "hub_sample_min"),
    "dyngraph": ("updates", "batch", "compact_vertices"),
    "graphicionado": ("algo", "root", "iters", "slices", "cf", "params", "overlay", "sim_top",
                      "vertex_order"),
}

# CF's parameters a run may set (``golden.cf_program``'s; K is the configuration's).
CF_PARAMETERS = ("gamma", "lam", "seed", "init_scale")


@dataclasses.dataclass(frozen=True)
class RunSettings:
    """What one simulation computes and how it is simulated.

    The algorithm and its inputs, by design (:data:`DESIGN_SETTINGS`; a design refuses, with
    :meth:`check`, a setting it does not take that is not left at its default):

    - ``algo`` (bfs, depgraph, graphicionado): the algorithm; None: the configuration's (bfs:
      ``"bfs"``). One the configuration does not run is refused.
    - ``root`` (bfs, depgraph, graphicionado): the source vertex of BFS and SSSP; None: 0.
    - ``iters`` (graphicionado): the iterations to run; None: to convergence, 10 for
      PageRank and CF (as the golden model).
    - ``slices`` (graphicionado): run in that many graph slices (§VI.A), or with extended
      slicing partitions (§VI.B); None: as many as the scratchpad needs.
    - ``cf`` (graphicionado): CF's parameters (``gamma``, ``lam``, ``seed``, ``init_scale``
      of :func:`golden.cf_program`; K is the configuration's ``property_bytes / 4``).
    - ``params`` (graphicionado): values of the program's parameters by name (the others keep
      their defaults): its initial state, its golden run and the design's ``param_<k>``
      registers.
    - ``overlay`` (graphicionado): region name to uint32 words another unit wrote (the
      dynamic graph's compactor: ``edges``, ``table``, ``vconst``), put over the regions the
      host laid out, so the pipeline reads that unit's lists.
    - ``vertex_order`` (graphicionado): ``ids`` (None, the default: the graph's own ids,
      which the streams own by their low bits as in the paper) or ``spread``: the host
      renumbers the vertices first (:func:`golden.vertex_order.spread_hubs`) so that every
      destination stream owns about as many edges, and gives the values back in the graph's
      order.
    - ``sim_top`` (graphicionado): ``(make_top, digest)``, a function of ``(config, memory)``
      building the sim top in place of the design's and a digest naming what it adds (the
      post-synthesis run of :mod:`sim.postsynth` passes a top around the ECP5 netlist).
    - ``tolerance`` (depgraph): PageRank stops when every change is below it.
    - ``hub_lam``, ``hub_sample_min`` (depgraph): the host's choice of hubs, as ``lam`` and
      ``hub_sample_min`` of :func:`golden.depgraph.run_depgraph`.
    - ``updates`` (dyngraph, required): the operations (:class:`golden.dyngraph.Updates`).
    - ``batch`` (dyngraph): operations a batch; None: all in one.
    - ``compact_vertices`` (dyngraph): > 0, after the operations the compactor writes
      vertices ``0 .. compact_vertices - 1`` out as Graphicionado's edge list, checked word
      for word against the golden model's.

    How it is simulated (:data:`COMMON_SETTINGS`, every design): ``simulator`` (verilator or
    icarus), ``seed`` (the DRAM's randomness and the stall throttles), ``build_root`` (the
    build cache and run folders), ``max_cycles`` (the run's limit), ``graph_name`` (for the
    report), ``trace`` (an FST file to dump the waveform to), ``keep`` (keep the run's
    folder), ``bus`` (``native``: the design's line ports beside the DRAM model and its
    register ports; ``axi``: its AXI top, AXI slave adapters in front of the DRAM model,
    registers over AXI4-Lite, :mod:`sim.gateware.axi_sim_top`), ``axi`` (with ``bus="axi"``:
    the AXI top's parameters, :data:`sim.gateware.axi_sim_top.AXI_SIM_OPTIONS`)."""
    algo: str | None = None
    root: int | None = None
    iters: int | None = None
    slices: int | None = None
    cf: dict | None = None
    params: dict | None = None
    overlay: dict | None = None
    sim_top: tuple | None = None
    vertex_order: str | None = None
    tolerance: float = 1e-6
    hub_lam: float = 0.005
    hub_sample_min: int = 1024
    updates: object = None
    batch: int | None = None
    compact_vertices: int = 0
    simulator: str = "verilator"
    seed: int = 1
    build_root: Path = DEFAULT_BUILD_ROOT
    max_cycles: int = 2_000_000_000
    graph_name: str = ""
    trace: Path | None = None
    keep: bool = False
    bus: str = "native"
    axi: dict | None = None

    def __post_init__(self):
        if self.bus not in BUSES:
            raise ConfigError(f"RunSettings: bus must be one of {', '.join(BUSES)}, "
                              f"not {self.bus!r}")
        if self.axi is not None:
            if self.bus != "axi":
                raise ConfigError("RunSettings: axi sets the AXI top's parameters: give "
                                  "bus='axi'")
            if not isinstance(self.axi, dict):
                raise ConfigError(f"RunSettings: axi must map parameters to integers, not "
                                  f"{type(self.axi).__name__}")
            for key, value in self.axi.items():
                if key not in AXI_SIM_OPTIONS:
                    raise ConfigError(f"RunSettings: axi takes {', '.join(AXI_SIM_OPTIONS)}, "
                                      f"not {key}")
                _check_int(f"axi {key}", value, low=0 if key == "burst_hold" else 1)
        if self.simulator not in SIMULATORS:
            raise ConfigError(f"RunSettings: simulator must be one of {', '.join(SIMULATORS)}, "
                              f"not {self.simulator!r}")
        _check_int("seed", self.seed, low=None)
        _check_int("max_cycles", self.max_cycles, low=1)
        _check_int("compact_vertices", self.compact_vertices, low=0)
        _check_int("hub_sample_min", self.hub_sample_min, low=1)
        for name in ("root", "iters"):
            if getattr(self, name) is not None:
                _check_int(name, getattr(self, name), low=0)
        for name in ("slices", "batch"):
            # Their lower bounds are the planners' to refuse, with their own words.
            if getattr(self, name) is not None:
                _check_int(name, getattr(self, name), low=None)
        for name in ("tolerance", "hub_lam"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
                    not value > 0:
                raise ConfigError(f"RunSettings: {name} must be a positive number, "
                                  f"not {value!r}")
        if self.cf is not None:
            unknown = sorted(set(self.cf) - set(CF_PARAMETERS))
            if unknown:
                raise ConfigError(f"RunSettings: cf takes {', '.join(CF_PARAMETERS)}, not "
                                  f"{', '.join(unknown)}")
        if self.params is not None and not isinstance(self.params, dict):
            raise ConfigError(f"RunSettings: params must map parameter names to values, not "
                              f"{type(self.params).__name__}")
        if self.sim_top is not None and not (
                isinstance(self.sim_top, tuple) and len(self.sim_top) == 2 and
                callable(self.sim_top[0])):
            raise ConfigError("RunSettings: sim_top must be (make_top, digest), make_top a "
                              "function of (config, memory)")
        if self.vertex_order not in (None, *VERTEX_ORDERS):
            raise ConfigError(f"RunSettings: vertex_order must be one of "
                              f"{', '.join(VERTEX_ORDERS)}, not {self.vertex_order!r}")
        if self.overlay is not None and not isinstance(self.overlay, dict):
            raise ConfigError(f"RunSettings: overlay must map region names to words, not "
                              f"{type(self.overlay).__name__}")

    def check(self, design: str) -> "RunSettings":
        """Refuse, with one line, a setting ``design`` does not take that is set away from
        its default; return the settings."""
        takes = set(DESIGN_SETTINGS[design]) | set(COMMON_SETTINGS)
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            unset = value is None if field.default is None else value == field.default
            if field.name not in takes and not unset:
                what = "given" if field.name in ("updates", "overlay", "sim_top") else \
                    f"{value!r}"
                raise ConfigError(f"the {design} simulation does not take "
                                  f"{field.name} ({what}); it takes "
                                  f"{', '.join(DESIGN_SETTINGS[design])}")
        return self


def _check_int(name: str, value, *, low: int | None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or \
            (low is not None and value < low):
        bound = "an integer" if low is None else f"an integer from {low}"
        raise ConfigError(f"RunSettings: {name} must be {bound}, not {value!r}")
