"""The designs ``graphgen`` knows: their parameter dataclass, how to elaborate them, the name
of their top module, their cocotb testbench (none for a unit that is synthesized alone but
tested inside its accelerator) and, for those that run graphs, their simulation hooks (how to
run them on a graph in RTL simulation and how to print their figures: ``graphgen sim`` and
``graphgen sweep`` go through these, whatever the design)."""

import dataclasses
import functools
from typing import Callable

from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from hw.bfs.top import BfsEngine
from hw.bfs.config import BfsConfig
from hw.lib.config import ConfigError, DesignConfig
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.ddmu_with_learner import DDMUWithLearner
from hw.depgraph.top import DepGraph
from hw.depgraph.hdtl import HDTL
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.top import UpdateUnit
from hw.graphicionado.cf_datapath import CFDatapath, CFDatapathConfig
from hw.graphicionado.config import GraphicionadoConfig
from hw.lib.stream.crossbar import Crossbar
from hw.graphicionado.top import GraphicionadoPipeline
from sim.gateware.stream_throttle import StreamThrottle

from .algo_option import with_algo
from .common import UsageError, parse_sets
from .simulation import SIM_OPTIONS, Simulation
from .simulations import bfs, depgraph, dyngraph, graphicionado


__all__ = ["Design", "DESIGNS", "get_design", "design_and_config", "simulated_designs",
           "register_designs", "check_sim_options", "ConfigError"]


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    summary: str
    config_class: type[DesignConfig]
    build: Callable[[DesignConfig], object]
    testbench: str | None         # None: synthesis only (tested inside its accelerator)
    simulation: Simulation | None = None      # runs graphs: ``graphgen sim``

    @property
    def needs_graph(self) -> bool:
        return self.simulation is not None

    def config(self, overrides: dict[str, str] | None = None) -> DesignConfig:
        return self.config_class.from_overrides(overrides or {})

    def top(self, config: DesignConfig, bus: str = "native") -> str:
        """Module name of the emitted Verilog: the design name, ``-`` made ``_`` (one per
        configuration file), with ``_axi`` for its AXI top."""
        name = self.name.replace("-", "_")
        return name if bus == "native" else f"{name}_{bus}"

    def axi_top(self, config: DesignConfig, **options):
        """The design in an :class:`~hw.lib.axi.top.AXITop` with ``options`` (its
        parameters); ConfigError for a design not run through registers."""
        from hw.lib.axi.top import AXITop
        from hw.lib.registers.design import RegisterDesign
        if self.name not in register_designs():
            raise ConfigError(f"{self.name} has no AXI top: it is not run through registers "
                              f"(those that are: {', '.join(register_designs())})")
        component = self.build(config)
        if not isinstance(component, RegisterDesign):
            raise ConfigError(f"{self.name}'s testbench is the register run but its top is "
                              f"not a RegisterDesign")
        return AXITop(component, **options)

    def verilog(self, config: DesignConfig, component=None, *, bus: str = "native") -> str:
        """The Verilog of ``component`` (by default the design, or with ``bus="axi"`` its
        AXI top with the default parameters)."""
        from sim.harness import emit_verilog
        if component is None:
            component = self.axi_top(config) if bus == "axi" else self.build(config)
        return emit_verilog(component, self.top(config, bus))

    def run_test(self, config: DesignConfig, *, simulator: str = "verilator", seed: int = 1,
                 options: dict | None = None, component=None, trace=None,
                 keep: bool = False):
        """Run the design's cocotb testbench on its Verilog; returns a ``SimResult``.

        ``component`` replaces the elaborated design (tests use it to check that the
        testbench catches a broken one); ``keep`` keeps the run's folder
        (``SimResult.run_dir``)."""
        import json
        from sim.harness import run_cocotb
        if self.testbench is None:
            raise ConfigError(f"{self.name} has no testbench of its own: it is tested inside "
                              f"its accelerator")
        env = {"GRAPHGEN_CONFIG": json.dumps(config.as_dict()),
               "GRAPHGEN_TEST_OPTIONS": json.dumps({"seed": seed, **(options or {})})}
        return run_cocotb(self.verilog(config, component), self.top(config), self.testbench,
                          simulator=simulator, seed=seed, env=env, trace=trace,
                          keep=keep)


def with_throttles(design_class):
    """``design_class`` built with the simulation's stream throttle at hand, used only when
    the configuration asks for ``stall_injection`` (a build for RTL simulation)."""
    return functools.partial(design_class, throttle=StreamThrottle)


def graphicionado_crossbar(config: GraphicionadoConfig) -> Crossbar:
    """The crossbar of :class:`GraphicionadoPipeline` alone, as the pipeline builds it (its
    area apart from the streams')."""
    return Crossbar(config.edge_payload, inputs=config.streams_src * config.source_outputs,
                    outputs=config.streams_dst, route=lambda edge: edge.edge.dst,
                    voq_depth=config.voq_entries, packet_last=config.packet_last)


def depgraph_hdtl(config: DepGraphConfig) -> HDTL:
    """Engine 0's HDTL as :class:`hw.depgraph.engine.Engine` builds it."""
    return HDTL(addr_width=config.addr_width, stack_depth=config.stack_depth,
                kept_lines=config.kept_lines, stack_lines=config.stack_lines,
                offsets_on_chip=config.offsets_on_chip, algo=config.algo,
                hub_index=config.hub_index,
                track_entries=config.track_entries, engine=0, edge_words=config.edge_words)


def depgraph_ddmu(config: DepGraphConfig) -> DDMUWithLearner:
    """The DDMU and the hub-index learner as :class:`hw.depgraph.top.DepGraph` builds
    them with the hub index (built whatever ``hub_index`` says)."""
    return DDMUWithLearner(algo=config.algo, addr_width=config.addr_width,
                           candidates=config.track_entries,
                           loans=None if config.is_min else config.pseudo_edge_buffer)


DESIGNS = {
    design.name: design for design in [
        Design("cam", "Graphicionado atomic-update CAM (stage P6)", CAMConfig, AtomicUpdateCAM,
               "sim.tb.test_cam"),
        Design("graphicionado",
               "Graphicionado: n source and m destination streams, a crossbar (P1-P9, A1-A5)",
               GraphicionadoConfig, with_throttles(GraphicionadoPipeline),
               "sim.tb.test_register_run", simulation=graphicionado.SIMULATION),
        Design("graphicionado-crossbar",
               "Graphicionado's crossbar with virtual output queues alone (synthesis only)",
               GraphicionadoConfig, graphicionado_crossbar, None),
        Design("graphicionado-cf",
               "Graphicionado's CF compute modules on flits: Process_Edge, Reduce, Apply "
               "(synthesis only)", CFDatapathConfig, CFDatapath, None),
        Design("depgraph", "DepGraph engines (HDTL, FIFO edge buffer, PE, circular queues)",
               DepGraphConfig, with_throttles(DepGraph), "sim.tb.test_register_run",
               simulation=depgraph.SIMULATION),
        Design("depgraph-hdtl", "DepGraph's HDTL alone, with its stack (synthesis only)",
               DepGraphConfig, depgraph_hdtl, None),
        Design("depgraph-ddmu", "DepGraph's DDMU with its hub-index learner (synthesis only)",
               DepGraphConfig, depgraph_ddmu, None),
        Design("bfs", "BFS engine of Enterprise and Luo et al.: frontier generator, "
               "degree classes, direction-optimising BFS with a hub cache",
               BfsConfig, with_throttles(BfsEngine), "sim.tb.test_register_run",
               simulation=bfs.SIMULATION),
        Design("dyngraph", "Dynamic graph unit: slab-hash adjacency in memory, batched edge "
               "and vertex updates (Awad et al.)", DynGraphConfig, with_throttles(UpdateUnit),
               "sim.tb.test_register_run", simulation=dyngraph.SIMULATION),
    ]
}


def get_design(name: str) -> Design:
    try:
        return DESIGNS[name]
    except KeyError:
        raise ConfigError(f"unknown design {name!r}; valid: {', '.join(DESIGNS)}") from None


def design_and_config(args) -> tuple[Design, DesignConfig]:
    """A command's ``--design`` and its configuration from ``--set`` and, for a command that
    builds the hardware and has one, ``--algo``."""
    design = get_design(args.design)
    overrides = with_algo(design, parse_sets(args.set), getattr(args, "algo", None),
                          build=True)
    return design, design.config(overrides)


def register_designs() -> list[str]:
    """The designs run through registers (their testbench is the register run): those with
    an AXI top."""
    return [name for name, design in DESIGNS.items()
            if design.testbench == "sim.tb.test_register_run"]


def simulated_designs() -> list[str]:
    return [name for name, design in DESIGNS.items() if design.simulation is not None]


def check_sim_options(design: Design, given: set[str],
                      offered: tuple[str, ...] = SIM_OPTIONS) -> None:
    """Refuse a run of ``design`` without an option it needs, or with one of the
    :data:`SIM_OPTIONS` it does not take, naming the designs that take it (and the other
    ``offered`` options only they take)."""
    simulation = design.simulation
    for option in simulation.requires:
        if option not in given:
            raise UsageError(f"--design {design.name} needs --{_flag(option)}")
    for option in (o for o in SIM_OPTIONS if o in given and o not in simulation.options):
        if option in simulation.refusals:
            raise UsageError(simulation.refusals[option])
        owners = _takers(option)
        # The options exactly these designs take, named together.
        group = [_flag(o) for o in offered if _takers(o) == owners]
        named = ", ".join(f"--{flag}" for flag in group[:-1])
        named = f"{named} and --{group[-1]}" if named else f"--{group[-1]}"
        raise UsageError(f"{named} {'is' if len(group) == 1 else 'are'} for --design "
                         f"{' or '.join(owners)}")


def _takers(option: str) -> list[str]:
    return [name for name, design in DESIGNS.items()
            if design.simulation is not None and option in design.simulation.options]


def _flag(option: str) -> str:
    return option.replace("_", "-")
