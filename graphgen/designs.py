"""The designs ``graphgen`` knows: their parameter dataclass, how to elaborate them, the name
of their top module and their cocotb testbench."""

import dataclasses
from typing import Callable

from hw.atomic_update_cam import AtomicUpdateCAM, CAMConfig
from hw.config import ConfigError, DesignConfig
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.depgraph import DepGraph
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.pipeline import GraphicionadoPipeline


__all__ = ["Design", "DESIGNS", "get_design", "ConfigError"]


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    summary: str
    config_class: type[DesignConfig]
    build: Callable[[DesignConfig], object]
    testbench: str
    needs_graph: bool = False     # its testbench runs a graph: ``graphgen sim``

    def config(self, overrides: dict[str, str] | None = None) -> DesignConfig:
        return self.config_class.from_overrides(overrides or {})

    def top(self, config: DesignConfig) -> str:
        """Module name of the emitted Verilog: the design name (one per configuration file)."""
        return self.name

    def verilog(self, config: DesignConfig, component=None) -> str:
        from sim.harness import emit_verilog
        return emit_verilog(component or self.build(config), self.top(config))

    def run_test(self, config: DesignConfig, *, simulator: str = "verilator", seed: int = 1,
                 options: dict | None = None, component=None):
        """Run the design's cocotb testbench on its Verilog; returns a ``SimResult``.

        ``component`` replaces the elaborated design (tests use it to check that the
        testbench catches a broken one)."""
        import json
        from sim.harness import run_cocotb
        env = {"GRAPHGEN_CONFIG": json.dumps(config.as_dict()),
               "GRAPHGEN_TEST_OPTIONS": json.dumps({"seed": seed, **(options or {})})}
        return run_cocotb(self.verilog(config, component), self.top(config), self.testbench,
                          simulator=simulator, seed=seed, env=env)


DESIGNS = {
    design.name: design for design in [
        Design("cam", "Graphicionado atomic-update CAM (stage P6)", CAMConfig, AtomicUpdateCAM,
               "sim.tb.test_cam"),
        Design("graphicionado", "Graphicionado pipeline, one stream (P1-P9, A1-A5)",
               GraphicionadoConfig, GraphicionadoPipeline, "sim.tb.test_graphicionado",
               needs_graph=True),
        Design("depgraph", "DepGraph engines (HDTL, FIFO edge buffer, PE, circular queues)",
               DepGraphConfig, DepGraph, "sim.tb.test_depgraph", needs_graph=True),
    ]
}


def get_design(name: str) -> Design:
    try:
        return DESIGNS[name]
    except KeyError:
        raise ConfigError(f"unknown design {name!r}; valid: {', '.join(DESIGNS)}") from None
