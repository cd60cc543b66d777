"""The pipeline with the simulation-only DRAM model beside it: the top of RTL simulations.

Never synthesized (the DRAM is a behavioural Verilog module); ``graphgen synth`` takes
:class:`GraphicionadoPipeline` alone, whose memory port is a plain request/response stream.
"""

import dataclasses

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..config import ConfigError, DesignConfig
from ..dram_model import DRAMConfig, SimDRAM
from .config import GraphicionadoConfig
from .pipeline import COUNTERS, REGISTERS, GraphicionadoPipeline


__all__ = ["SimMemoryConfig", "GraphicionadoSimTop"]


@dataclasses.dataclass(frozen=True)
class SimMemoryConfig(DesignConfig):
    """The simulated DRAM: 64-byte lines, at most one request and one response per cycle.

    Parameters
    ----------
    latency : int
        Cycles from a read request to its data (default 100).
    jitter : int
        Extra random latency 0..jitter per read (responses stay in order).
    outstanding : int
        Reads in flight at most.
    depth_lines : int
        Size of the simulated memory in 64-byte lines.
    bytes_per_cycle : int
        Bandwidth: every request (a 64-byte line, read or written) spends 64 bytes of a
        budget refilled by this many bytes a cycle (64: a line every cycle).
    """
    latency: int = 100
    jitter: int = 0
    outstanding: int = 128
    depth_lines: int = 1 << 21
    bytes_per_cycle: int = 64

    def validate(self):
        DRAMConfig(depth_lines=self.depth_lines, latency=self.latency, jitter=self.jitter,
                   outstanding=self.outstanding, tag_width=0, addr_width=26)
        if not 1 <= self.bytes_per_cycle <= 64:
            raise ConfigError(f"bytes_per_cycle must be between 1 and 64, "
                              f"not {self.bytes_per_cycle}")
        if self.depth_lines > 1 << 22:
            raise ConfigError(f"depth_lines above {1 << 22} (256 MiB) is not supported, "
                              f"not {self.depth_lines}")


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
        m.submodules.dram = dram = SimDRAM(DRAMConfig(
            depth_lines=self._memory.depth_lines, latency=self._memory.latency,
            jitter=self._memory.jitter, outstanding=self._memory.outstanding, tag_width=0,
            addr_width=cfg.addr_width))
        # Bandwidth budget in bytes, refilled every cycle, spent 64 bytes per request.
        budget = Signal(range(128), init=64)
        affordable = budget >= 64
        accepted = pipeline.mem.req.valid & dram.req.ready & affordable
        refill = self._memory.bytes_per_cycle
        m.d.sync += budget.eq(Mux(budget - 64 * accepted + refill > 64, 64,
                                  budget - 64 * accepted + refill))
        request = pipeline.mem.req.payload
        m.d.comb += [
            dram.req.valid.eq(pipeline.mem.req.valid & affordable),
            pipeline.mem.req.ready.eq(dram.req.ready & affordable),
            dram.req.payload.addr.eq(request.addr),
            dram.req.payload.write.eq(request.write),
            dram.req.payload.wdata.eq(request.wdata),
            dram.req.payload.wmask.eq(request.wmask),
            pipeline.mem.resp.valid.eq(dram.resp.valid),
            pipeline.mem.resp.payload.rdata.eq(dram.resp.payload.rdata),
            dram.resp.ready.eq(pipeline.mem.resp.ready),
            dram.dump.eq(self.dump),
            self.dump_done.eq(dram.dump_done),
        ]
        for name in ("start",) + REGISTERS:
            m.d.comb += getattr(pipeline, name).eq(getattr(self, name))
        for name in ("busy", "done", "iterations", "active_count_out"):
            m.d.comb += getattr(self, name).eq(getattr(pipeline, name))
        m.d.comb += self.error.eq(pipeline.error | dram.error)
        for name in COUNTERS:
            m.d.comb += getattr(self, f"stat_{name}").eq(getattr(pipeline, f"stat_{name}"))
        return m
