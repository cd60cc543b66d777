"""The dynamic graph unit with the simulation-only DRAM model beside it: the top of its RTL
simulations. Never synthesized; ``graphgen synth`` takes :class:`UpdateUnit` alone."""

from ..register_sim_top import RegisterSimTop
from ..sim_memory import SimMemoryConfig
from .config import DynGraphConfig
from .update_unit import COUNTERS, UpdateUnit


__all__ = ["DynGraphSimTop"]


class DynGraphSimTop(RegisterSimTop):
    """:class:`UpdateUnit` wired to a simulated DRAM, with a watchdog (the members of
    :class:`hw.register_sim_top.RegisterSimTop`)."""

    def __init__(self, config: DynGraphConfig, memory: SimMemoryConfig):
        super().__init__(UpdateUnit(config), name="dyngraph", counters=COUNTERS,
                         memory=memory, addr_width=config.addr_width,
                         stalls=bool(config.stall_injection))
