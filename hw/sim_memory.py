"""The simulated memory behind an accelerator's port in RTL simulation: the DRAM model's
parameters and its wiring, with a bandwidth budget, to a design's memory port.

Simulation only (the DRAM is a behavioural Verilog module); the synthesized designs keep a
plain request/response port.
"""

import dataclasses

from amaranth.hdl import Mux, Signal

from .config import ConfigError, DesignConfig
from .dram_model import DRAMConfig, SimDRAM


__all__ = ["SimMemoryConfig", "attach_sim_dram"]


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


def attach_sim_dram(m, port, memory: SimMemoryConfig, addr_width: int) -> SimDRAM:
    """Add a :class:`SimDRAM` to module ``m`` serving the design's memory ``port`` (a
    :class:`hw.memory_port.MemoryPortSignature` seen from the design), with the bandwidth
    of ``memory``. Returns the DRAM, whose ``dump``, ``dump_done`` and ``error`` the caller
    wires."""
    m.submodules.dram = dram = SimDRAM(DRAMConfig(
        depth_lines=memory.depth_lines, latency=memory.latency, jitter=memory.jitter,
        outstanding=memory.outstanding, tag_width=0, addr_width=addr_width))
    # Bandwidth budget in bytes, refilled every cycle, spent 64 bytes per request.
    budget = Signal(range(128), init=64)
    affordable = budget >= 64
    accepted = port.req.valid & dram.req.ready & affordable
    refill = memory.bytes_per_cycle
    m.d.sync += budget.eq(Mux(budget - 64 * accepted + refill > 64, 64,
                              budget - 64 * accepted + refill))
    request = port.req.payload
    m.d.comb += [
        dram.req.valid.eq(port.req.valid & affordable),
        port.req.ready.eq(dram.req.ready & affordable),
        dram.req.payload.addr.eq(request.addr),
        dram.req.payload.write.eq(request.write),
        dram.req.payload.wdata.eq(request.wdata),
        dram.req.payload.wmask.eq(request.wmask),
        port.resp.valid.eq(dram.resp.valid),
        port.resp.payload.rdata.eq(dram.resp.payload.rdata),
        dram.resp.ready.eq(port.resp.ready),
    ]
    return dram
