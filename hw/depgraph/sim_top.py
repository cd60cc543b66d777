"""DepGraph with the simulation-only DRAM model beside it: the top of its RTL simulations.

Never synthesized; ``graphgen synth`` takes :class:`hw.depgraph.depgraph.DepGraph` alone.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..dram_model import SimDRAM
from ..sim_memory import SimMemoryConfig, attach_sim_dram
from ..sim_watch import (add_behind_registers, attach_watchdog, drive_registered, elaborated,
                         memory_probes, watch_members)
from .config import DepGraphConfig
from .depgraph import COUNTERS, DepGraph


__all__ = ["DepGraphSimTop"]


class DepGraphSimTop(wiring.Component):
    """:class:`DepGraph` wired to a :class:`SimDRAM`, with a watchdog.

    Members: the register write port (``reg_addr``, ``reg_data``, ``reg_write``), ``start``,
    ``busy``, ``done``, ``error``, the ``stat_*`` counters, the DRAM's ``dump`` and
    ``dump_done``, the watchdog's ports (``watchdog_limit``, ``hang``, ``quiet_cycles``,
    ``link_valid``, ``link_ready``, one bit per name of :attr:`link_names`) and
    ``stall_seed`` when the design injects stalls. The design takes its reset and inputs
    one cycle after the top (see :func:`~hw.sim_watch.add_behind_registers`).
    """

    def __init__(self, config: DepGraphConfig, memory: SimMemoryConfig):
        self._config = config
        self._memory = memory
        self._design = DepGraph(config)
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
        """The watched links, in the bit order of ``link_valid`` and ``link_ready``."""
        return [probe.name for probe in self._probes]

    def elaborate(self, platform):
        m = Module()
        design = self._design
        add_behind_registers(m, self._fragment, "depgraph")
        dram = attach_sim_dram(m, design.mem, self._memory, self._config.addr_width,
                               domain="core")
        m.d.comb += [self.dump_done.eq(dram.dump_done), self.error.eq(design.error | dram.error)]
        drive_registered(m, dram.dump, self.dump)
        for name in ("reg_addr", "reg_data", "reg_write", "start"):
            drive_registered(m, getattr(design, name), getattr(self, name))
        if self._config.stall_injection:
            drive_registered(m, design.stall_seed, self.stall_seed)
        for name in ("busy", "done"):
            m.d.comb += getattr(self, name).eq(getattr(design, name))
        for name in COUNTERS:
            m.d.comb += getattr(self, f"stat_{name}").eq(getattr(design, f"stat_{name}"))
        attach_watchdog(m, self, self._probes, design.busy)
        return m
