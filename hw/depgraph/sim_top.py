"""DepGraph with the simulation-only DRAM model beside it: the top of its RTL simulations.

Never synthesized; ``graphgen synth`` takes :class:`hw.depgraph.depgraph.DepGraph` alone.
"""

from ..register_sim_top import RegisterSimTop
from ..sim_memory import SimMemoryConfig
from .config import DepGraphConfig
from .depgraph import COUNTERS, DepGraph


__all__ = ["DepGraphSimTop"]


class DepGraphSimTop(RegisterSimTop):
    """:class:`DepGraph` wired to a simulated DRAM, with a watchdog (the members of
    :class:`hw.register_sim_top.RegisterSimTop`)."""

    def __init__(self, config: DepGraphConfig, memory: SimMemoryConfig):
        super().__init__(DepGraph(config), name="depgraph", counters=COUNTERS, memory=memory,
                         addr_width=config.addr_width, stalls=bool(config.stall_injection))
