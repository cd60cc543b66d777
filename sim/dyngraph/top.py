"""The dynamic graph unit with the simulation-only DRAM model beside it: the top of its RTL
simulations. Never synthesized; ``graphgen synth`` takes :class:`UpdateUnit` alone."""

from sim.gateware.register_top import RegisterSimTop
from sim.gateware.stream_throttle import StreamThrottle
from sim.gateware.sim_memory import SimMemoryConfig
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.registers import COUNTERS
from hw.dyngraph.top import UpdateUnit


__all__ = ["DynGraphSimTop"]


class DynGraphSimTop(RegisterSimTop):
    """:class:`UpdateUnit` wired to a simulated DRAM, with a watchdog (the members of
    :class:`sim.gateware.register_top.RegisterSimTop`)."""

    def __init__(self, config: DynGraphConfig, memory: SimMemoryConfig):
        super().__init__(**self.parts(config), memory=memory)

    @staticmethod
    def parts(config: DynGraphConfig) -> dict:
        """The design and how the sim tops name and watch it (this one's, the AXI one's)."""
        return dict(design=UpdateUnit(config, throttle=StreamThrottle), name="dyngraph",
                    counters=COUNTERS, addr_width=config.addr_width,
                    stalls=bool(config.stall_injection))
