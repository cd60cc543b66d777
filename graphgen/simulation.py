"""A design's RTL simulation as ``graphgen sim`` and ``graphgen sweep`` see it: what to run
(:class:`SimRequest`), what came back (:class:`SimRun`) and the hooks a design registers for
it (:class:`Simulation`), with the configuration and memory settings built from ``--set`` and
``--mem`` the same way for every design."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from .algo_option import with_algo
from .common import UsageError


__all__ = ["SimRequest", "SimRun", "Simulation", "SIM_OPTIONS", "match_memory_channels",
           "sim_settings"]

# The options of ``graphgen sim`` that some designs take and others do not.
SIM_OPTIONS = ("algo", "param", "root", "iters", "slices", "vertex_order", "roots", "parents",
               "updates", "batch", "answers")


@dataclasses.dataclass(frozen=True)
class SimRequest:
    """One run: the graph (and, for the dynamic graph, the operations on it) through a
    configuration beside the simulated memory. Options a design does not take stay None."""
    graph: object = None             # a golden.Graph
    graph_name: str = ""
    config: object = None
    memory: object = None            # a SimMemoryConfig
    algo: str | None = None
    params: dict | None = None       # the program's parameters (--param)
    root: int | None = None
    iters: int | None = None
    slices: int | None = None
    vertex_order: str | None = None
    roots: int | None = None
    clock: object = None             # a graphgen.throughput.Clock, or None: no clock
    updates: str | None = None       # FILE|SPEC of the operations
    batch: int | None = None
    simulator: str = "verilator"
    seed: int = 1
    trace: Path | None = None
    keep: bool = False
    bus: str = "native"
    axi: dict | None = None          # the AXI top's parameters (bus "axi")

    def run_settings(self, **settings):
        """The host's :class:`sim.run_settings.RunSettings` of this request: how it is
        simulated (simulator, seed, trace, keep, the graph's name, the bus) and ``settings``, what the
        design computes (``algo``, ``root``, ...)."""
        from sim.run_settings import RunSettings
        return RunSettings(simulator=self.simulator, seed=self.seed, trace=self.trace,
                           keep=self.keep, graph_name=self.graph_name, bus=self.bus,
                           axi=self.axi, **settings)


@dataclasses.dataclass
class SimRun:
    """What a run gave: the lines ``graphgen sim`` prints around the design's figures, the
    work done in ``cycles`` (``{"edges": n}`` or ``{"operations": n}``), the files it offers
    (option name: (content, binary)), the design's part of the ``--json`` report and the
    memory traffic its roofline comes from."""
    heading: str
    matches: bool
    cycles: int
    work: dict[str, int]
    verdict: str                     # the last line when it matches
    mismatch: str                    # what differs, after "MISMATCH with the golden model"
    reports: list                    # the host's reports, for the design's report hook
    json: dict
    outputs: dict[str, tuple] = dataclasses.field(default_factory=dict)
    run_dirs: list[Path] = dataclasses.field(default_factory=list)
    rate: dict = dataclasses.field(default_factory=dict)   # the design's throughput wording
    # The lines each memory client moved (sim.traffic.MemoryTraffic; None when not counted)
    # and what each client's lines hold (the design's MEMORY_KINDS).
    traffic: object = None
    memory_kinds: dict = dataclasses.field(default_factory=dict)

    def throughput(self, clock=None) -> dict:
        """The work per cycle and, at ``clock``, per second
        (:func:`graphgen.throughput.throughput`), with the design's own wording (``rate``:
        its unit's name, a per-second figure of its own such as TEPS' harmonic mean)."""
        from .throughput import throughput
        return {**throughput(self.work, self.cycles, clock), **self.rate}

    def roofline(self, memory) -> dict | None:
        """The run's memory roofline (:func:`sim.traffic.roofline`) on ``memory`` (a
        SimMemoryConfig), per edge (or operation) of :attr:`work`; None when the traffic was
        not counted."""
        if self.traffic is None:
            return None
        from sim.traffic import roofline
        (name, count), = self.work.items()
        return roofline(self.traffic, self.memory_kinds, count, self.cycles,
                        memory.bytes_per_cycle, unit=name.removesuffix("s"))

    def summary(self, memory=None) -> dict:
        """The sweep's figures of the run; on ``memory`` (a SimMemoryConfig), its roofline's
        too: bytes per unit of work, the share of the peak used and the bound at that
        traffic (none when the traffic was not counted)."""
        figures = {"cycles": self.cycles, "matches_golden": bool(self.matches)}
        for name, count in self.work.items():
            figures[name] = count
            figures[f"{name}_per_cycle"] = count / self.cycles if self.cycles else 0.0
        roof = self.roofline(memory) if memory is not None else None
        if roof is not None:
            unit = roof["unit"]
            figures[f"bytes_per_{unit}"] = roof[f"bytes_per_{unit}"]["total"]
            figures["bandwidth_share"] = roof["share"]
            figures[f"bound_{unit}s_per_cycle"] = roof[f"bound_{unit}s_per_cycle"]
        return figures


@dataclasses.dataclass(frozen=True)
class Simulation:
    """A design's hooks for running it on a graph.

    ``options``: which of :data:`SIM_OPTIONS` it takes; ``requires``: those it cannot run
    without; ``check_program``: its refusal (ConfigError or UsageError, one line) of a vertex
    program (``--algo``, already loaded and valid) it does not run; ``check``: its own
    refusals of a request, before the graph is loaded; ``simulate``: the run; ``report``: its
    figures as terminal lines. ``refusals`` words the refusal of an option it does not take,
    where the generic one would mislead."""
    options: tuple[str, ...]
    requires: tuple[str, ...]
    check_program: Callable[[str], None]
    check: Callable[[SimRequest], None]
    simulate: Callable[[SimRequest], SimRun]
    report: Callable[[SimRun], list[str]]
    refusals: dict[str, str] = dataclasses.field(default_factory=dict)
    prints_throughput: bool = False  # its report hook prints the per-second figures itself


def match_memory_channels(overrides: dict, mem_overrides: dict) -> None:
    """A design with one memory port per channel of the simulated memory: ``--mem
    channels=N`` (or a preset's) sets ``memory_channels``, ``--set memory_channels=N`` alone
    sets the memory's channels; both, differing, are refused."""
    from sim.gateware.sim_memory import PRESETS
    given = mem_overrides.get("channels",
                              PRESETS.get(mem_overrides.get("preset", ""), {}).get("channels"))
    if "memory_channels" not in overrides:
        if given is not None:
            overrides["memory_channels"] = str(given)
        return
    if given is None:
        mem_overrides["channels"] = overrides["memory_channels"]
    elif str(given).strip() != str(overrides["memory_channels"]).strip():
        raise UsageError(f"--set memory_channels={overrides['memory_channels']} contradicts "
                         f"the memory's channels={given} (--mem): the pipeline needs one "
                         f"memory port per channel")


def sim_settings(design, overrides: dict[str, str], mem_overrides: dict[str, str],
                 algo: str | None):
    """The configuration and the simulated memory of a run: ``algo`` goes into a
    configuration that has one, the memory's channels into one with ``memory_channels``; a
    design without memory ports to spare runs on one channel."""
    from sim.gateware.sim_memory import SimMemoryConfig
    fields = design.config_class.field_names()
    overrides = with_algo(design, design.config_class.expand_preset(overrides), algo)
    if "memory_channels" in fields:
        match_memory_channels(overrides, mem_overrides)
    config = design.config(overrides)
    memory = SimMemoryConfig.from_overrides(mem_overrides)
    if "memory_channels" not in fields and memory.channels != 1:
        raise UsageError(f"{design.name} has one memory port: the simulated memory needs "
                         f"channels=1, not {memory.channels}")
    return config, memory
