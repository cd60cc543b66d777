"""The BFS engine with the simulation-only DRAM model beside it: the top of its RTL
simulations. Never synthesized; ``graphgen synth`` takes :class:`BfsEngine` alone."""

from sim.gateware.register_top import RegisterSimTop
from sim.gateware.stream_throttle import StreamThrottle
from sim.gateware.sim_memory import SimMemoryConfig
from hw.bfs.registers import COUNTERS
from hw.bfs.top import BfsEngine
from hw.bfs.config import BfsConfig


__all__ = ["BfsSimTop"]


class BfsSimTop(RegisterSimTop):
    """:class:`BfsEngine` wired to a simulated DRAM, with a watchdog (the members of
    :class:`sim.gateware.register_top.RegisterSimTop`)."""

    def __init__(self, config: BfsConfig, memory: SimMemoryConfig):
        super().__init__(**self.parts(config), memory=memory)

    @staticmethod
    def parts(config: BfsConfig) -> dict:
        """The design and how the sim tops name and watch it (this one's, the AXI one's)."""
        return dict(design=BfsEngine(config, throttle=StreamThrottle), name="bfs",
                    counters=COUNTERS, addr_width=config.addr_width,
                    stalls=bool(config.stall_injection))
