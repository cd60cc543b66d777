"""The BFS engine with the simulation-only DRAM model beside it: the top of its RTL
simulations. Never synthesized; ``graphgen synth`` takes :class:`BfsEngine` alone."""

from ..register_sim_top import RegisterSimTop
from ..sim_memory import SimMemoryConfig
from .bfs_engine import COUNTERS, BfsEngine
from .config import BfsConfig


__all__ = ["BfsSimTop"]


class BfsSimTop(RegisterSimTop):
    """:class:`BfsEngine` wired to a simulated DRAM, with a watchdog (the members of
    :class:`hw.register_sim_top.RegisterSimTop`)."""

    def __init__(self, config: BfsConfig, memory: SimMemoryConfig):
        super().__init__(BfsEngine(config), name="bfs", counters=COUNTERS, memory=memory,
                         addr_width=config.addr_width, stalls=bool(config.stall_injection))
