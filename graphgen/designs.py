"""The designs ``graphgen`` knows: their parameter dataclass, how to elaborate them, the name
of their top module and their cocotb testbench."""

import dataclasses
from typing import Callable

from hw.atomic_update_cam import AtomicUpdateCAM, CAMConfig
from hw.config import ConfigError, DesignConfig


__all__ = ["Design", "DESIGNS", "get_design", "ConfigError"]


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    summary: str
    config_class: type[DesignConfig]
    build: Callable[[DesignConfig], object]
    testbench: str

    def config(self, overrides: dict[str, str] | None = None) -> DesignConfig:
        return self.config_class.from_overrides(overrides or {})

    def top(self, config: DesignConfig) -> str:
        """Module name of the emitted Verilog: the design name (one per configuration file)."""
        return self.name


DESIGNS = {
    design.name: design for design in [
        Design("cam", "Graphicionado atomic-update CAM (stage P6)", CAMConfig, AtomicUpdateCAM,
               "sim.tb.test_cam"),
    ]
}


def get_design(name: str) -> Design:
    try:
        return DESIGNS[name]
    except KeyError:
        raise ConfigError(f"unknown design {name!r}; valid: {', '.join(DESIGNS)}") from None
