"""The pipeline with the simulation-only DRAM model beside it: the top of RTL simulations.

Never synthesized (the DRAM is a behavioural Verilog module); ``graphgen synth`` takes
:class:`GraphicionadoPipeline` alone, whose memory port is a plain request/response stream.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..dram_model import SimDRAM
from ..sim_memory import SimMemoryConfig, attach_sim_dram
from .config import GraphicionadoConfig
from .pipeline import COUNTERS, REGISTERS, GraphicionadoPipeline


__all__ = ["SimMemoryConfig", "GraphicionadoSimTop"]


class GraphicionadoSimTop(wiring.Component):
    """:class:`GraphicionadoPipeline` wired to a :class:`SimDRAM`.

    Members: the pipeline's registers, ``start``, ``busy``, ``done``, ``iterations``,
    ``active_count_out``, ``error`` and ``stat_*`` counters, plus the DRAM's ``dump`` and
    ``dump_done``.
    """

    def __init__(self, config: GraphicionadoConfig, memory: SimMemoryConfig):
        self._config = config
        self._memory = memory
        members = {
            "start": In(1), "busy": Out(1), "done": Out(1), "iterations": Out(32),
            "active_count_out": Out(32), "error": Out(1), "dump": In(1), "dump_done": Out(1),
        }
        members.update({name: In(32) for name in REGISTERS})
        members.update({f"stat_{name}": Out(32) for name in COUNTERS})
        super().__init__(members)

    @property
    def extra_sources(self):
        return [SimDRAM.VERILOG_SOURCE]

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        m.submodules.pipeline = pipeline = GraphicionadoPipeline(cfg)
        dram = attach_sim_dram(m, pipeline.mem, self._memory, cfg.addr_width)
        m.d.comb += [dram.dump.eq(self.dump), self.dump_done.eq(dram.dump_done)]
        for name in ("start",) + REGISTERS:
            m.d.comb += getattr(pipeline, name).eq(getattr(self, name))
        for name in ("busy", "done", "iterations", "active_count_out"):
            m.d.comb += getattr(self, name).eq(getattr(pipeline, name))
        m.d.comb += self.error.eq(pipeline.error | dram.error)
        for name in COUNTERS:
            m.d.comb += getattr(self, f"stat_{name}").eq(getattr(pipeline, f"stat_{name}"))
        return m
