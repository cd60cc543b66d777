"""The pipeline with the simulation-only DRAM model beside it: the top of RTL simulations.

Never synthesized (the DRAM is a behavioural Verilog module); ``graphgen synth`` takes
:class:`GraphicionadoPipeline` alone, whose memory port is a plain request/response stream.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from sim.gateware.dram_model import SimDRAM
from sim.gateware.stream_throttle import StreamThrottle
from sim.gateware.sim_memory import SimMemoryConfig
from sim.gateware.sim_watch import (add_design_and_dram, attach_watchdog, elaborated, memory_probes,
                         watch_members)
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.top import GraphicionadoPipeline, counter_names, registers


__all__ = ["SimMemoryConfig", "GraphicionadoSimTop"]


class GraphicionadoSimTop(wiring.Component):
    """:class:`GraphicionadoPipeline` wired to a :class:`SimDRAM`, with a watchdog: the
    pipeline's memory channel ``c`` to the DRAM's channel ``c`` (the two must have as many
    channels). The pipeline takes its reset, ``start``, registers and stall seed one cycle
    after the top (see :func:`~sim.gateware.sim_watch.add_behind_registers`: Verilator runs faster).

    Members: the pipeline's registers, ``start``, ``busy``, ``done``, ``iterations``,
    ``active_count_out``, ``error`` and ``stat_*`` counters; the DRAM's ``dump`` and
    ``dump_done``; the watchdog's ``watchdog_limit``, ``hang``, ``quiet_cycles``,
    ``link_valid`` and ``link_ready`` (one bit per name of :attr:`link_names`); and
    ``stall_seed`` when the pipeline injects stalls.
    """

    def __init__(self, config: GraphicionadoConfig, memory: SimMemoryConfig):
        self._config = config
        self._memory = memory
        self._pipeline, self._fragment, self._probes = self._make_pipeline(config)
        members = {
            "start": In(1), "busy": Out(1), "done": Out(1), "iterations": Out(32),
            "active_count_out": Out(32), "error": Out(1), "dump": In(1), "dump_done": Out(1),
        }
        members.update({name: In(32) for name in registers(config)})
        members.update({f"stat_{name}": Out(32) for name in counter_names(config)})
        members.update(watch_members(len(self._probes), bool(config.stall_injection)))
        super().__init__(members)

    def _make_pipeline(self, config: GraphicionadoConfig):
        """The pipeline (an object with its ports), the fragment to add as the submodule
        ``pipeline`` and the links to watch. Post-synthesis simulation
        (:mod:`sim.postsynth`) puts the synthesized netlist in the pipeline's place."""
        pipeline = GraphicionadoPipeline(config, throttle=StreamThrottle)
        return pipeline, elaborated(pipeline), pipeline.link_probes + memory_probes(pipeline.mem)

    @property
    def extra_sources(self):
        return [SimDRAM.VERILOG_SOURCE]

    @property
    def link_names(self) -> list[str]:
        """The watched links, in the bit order of ``link_valid`` and ``link_ready``."""
        return [probe.name for probe in self._probes]

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        pipeline = self._pipeline
        inputs = ["start", *registers(cfg)] + (["stall_seed"] if cfg.stall_injection else [])
        dram = add_design_and_dram(m, self, self._fragment, "pipeline", pipeline,
                                   self._memory, cfg.addr_width, inputs)
        for name in ("busy", "done", "iterations", "active_count_out"):
            m.d.comb += getattr(self, name).eq(getattr(pipeline, name))
        m.d.comb += self.error.eq(pipeline.error | dram.error)
        for name in counter_names(cfg):
            m.d.comb += getattr(self, f"stat_{name}").eq(getattr(pipeline, f"stat_{name}"))
        attach_watchdog(m, self, self._probes, pipeline.busy)
        return m
