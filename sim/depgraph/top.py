"""DepGraph with the simulation-only DRAM model beside it: the top of its RTL simulations.

Never synthesized; ``graphgen synth`` takes :class:`hw.depgraph.top.DepGraph` alone.
"""

from sim.gateware.register_top import RegisterSimTop
from sim.gateware.stream_throttle import StreamThrottle
from sim.gateware.sim_memory import SimMemoryConfig
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.top import COUNTERS, DepGraph


__all__ = ["DepGraphSimTop"]


class DepGraphSimTop(RegisterSimTop):
    """:class:`DepGraph` wired to a simulated DRAM, with a watchdog (the members of
    :class:`sim.gateware.register_top.RegisterSimTop`)."""

    def __init__(self, config: DepGraphConfig, memory: SimMemoryConfig):
        super().__init__(**self.parts(config), memory=memory)

    @staticmethod
    def parts(config: DepGraphConfig) -> dict:
        """The design and how the sim tops name and watch it (this one's, the AXI one's)."""
        return dict(design=DepGraph(config, throttle=StreamThrottle), name="depgraph",
                    counters=COUNTERS, addr_width=config.addr_width,
                    stalls=bool(config.stall_injection))
