"""DepGraph with the simulation-only DRAM model beside it: the top of its RTL simulations.

Never synthesized; ``graphgen synth`` takes :class:`hw.depgraph.depgraph.DepGraph` alone.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..dram_model import SimDRAM
from ..sim_memory import SimMemoryConfig, attach_sim_dram
from .config import DepGraphConfig
from .depgraph import COUNTERS, DepGraph


__all__ = ["DepGraphSimTop"]


class DepGraphSimTop(wiring.Component):
    """:class:`DepGraph` wired to a :class:`SimDRAM`.

    Members: the register write port (``reg_addr``, ``reg_data``, ``reg_write``), ``start``,
    ``busy``, ``done``, ``error``, the ``stat_*`` counters, and the DRAM's ``dump`` and
    ``dump_done``.
    """

    def __init__(self, config: DepGraphConfig, memory: SimMemoryConfig):
        self._config = config
        self._memory = memory
        members = {
            "reg_addr": In(8), "reg_data": In(32), "reg_write": In(1),
            "start": In(1), "busy": Out(1), "done": Out(1), "error": Out(1),
            "dump": In(1), "dump_done": Out(1),
        }
        members.update({f"stat_{name}": Out(32) for name in COUNTERS})
        super().__init__(members)

    @property
    def extra_sources(self):
        return [SimDRAM.VERILOG_SOURCE]

    def elaborate(self, platform):
        m = Module()
        m.submodules.depgraph = design = DepGraph(self._config)
        dram = attach_sim_dram(m, design.mem, self._memory, self._config.addr_width)
        m.d.comb += [dram.dump.eq(self.dump), self.dump_done.eq(dram.dump_done),
                     self.error.eq(design.error | dram.error)]
        for name in ("reg_addr", "reg_data", "reg_write", "start"):
            m.d.comb += getattr(design, name).eq(getattr(self, name))
        for name in ("busy", "done"):
            m.d.comb += getattr(self, name).eq(getattr(design, name))
        for name in COUNTERS:
            m.d.comb += getattr(self, f"stat_{name}").eq(getattr(design, f"stat_{name}"))
        return m
