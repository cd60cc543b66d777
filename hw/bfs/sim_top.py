"""The BFS engine with the simulation-only DRAM model beside it: the top of its RTL
simulations. Never synthesized; ``graphgen synth`` takes :class:`BfsEngine` alone."""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..dram_model import SimDRAM
from ..sim_memory import SimMemoryConfig
from ..sim_watch import (add_design_and_dram, attach_watchdog, elaborated, memory_probes,
                         watch_members)
from .bfs_engine import COUNTERS, BfsEngine
from .config import BfsConfig


__all__ = ["BfsSimTop"]


class BfsSimTop(wiring.Component):
    """:class:`BfsEngine` wired to a :class:`SimDRAM`, with a watchdog; the members of
    :class:`hw.depgraph.sim_top.DepGraphSimTop`."""

    def __init__(self, config: BfsConfig, memory: SimMemoryConfig):
        self._config = config
        self._memory = memory
        self._design = BfsEngine(config)
        self._fragment = elaborated(self._design)
        self._probes = self._design.link_probes + memory_probes(self._design.mem)
        members = {
            "reg_addr": In(8), "reg_data": In(32), "reg_write": In(1),
            "start": In(1), "busy": Out(1), "done": Out(1), "error": Out(1),
            "dump": In(1), "dump_done": Out(1),
        }
        members.update({f"stat_{name}": Out(32) for name in COUNTERS})
        members.update(watch_members(len(self._probes), bool(config.stall_injection)))
        super().__init__(members)

    @property
    def extra_sources(self):
        return [SimDRAM.VERILOG_SOURCE]

    @property
    def link_names(self) -> list[str]:
        return [probe.name for probe in self._probes]

    def elaborate(self, platform):
        m = Module()
        design = self._design
        inputs = ["reg_addr", "reg_data", "reg_write", "start"] + (
            ["stall_seed"] if self._config.stall_injection else [])
        dram = add_design_and_dram(m, self, self._fragment, "bfs", design, self._memory,
                                   self._config.addr_width, inputs)
        m.d.comb += self.error.eq(design.error | dram.error)
        for name in ("busy", "done"):
            m.d.comb += getattr(self, name).eq(getattr(design, name))
        for name in COUNTERS:
            m.d.comb += getattr(self, f"stat_{name}").eq(getattr(design, f"stat_{name}"))
        attach_watchdog(m, self, self._probes, design.busy)
        return m
