"""Parameters of the BFS engine (Enterprise, Liu & Huang, SC'15; Luo et al., DAC'10)."""

import dataclasses

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two


__all__ = ["BfsConfig", "DIRECTIONS", "DISPATCH"]

DIRECTIONS = ("auto", "topdown", "bottomup")
DISPATCH = ("classes", "vertex")


@dataclasses.dataclass(frozen=True)
class BfsConfig(DesignConfig):
    """Parameters of :class:`hw.bfs.top.BfsEngine`; the golden model
    (:class:`golden.bfs.BfsOptions`) takes the same names.

    Parameters
    ----------
    lanes : int
        Lanes of the frontier generator (Enterprise §4.1: each scans its share of the status
        array into bins of its own); a power of two, 1..16.
    scan_hits : int
        Hits each frontier-generation lane takes from a status line a cycle: 4 (those of one
        degree class in one quad of the line, a bin line's worth) or 1 (one at a time).
    expand_lanes : int
        Top-down expand lanes, each checking one edge a cycle (a power of two, 1..16).
    dispatch : str
        How the top-down frontier is dealt to the expand lanes (Enterprise §4.2):
        ``classes``: Small vertices whole to a lane, Middle and Large a line of edges to
        each lane in turn, Extreme cut into a piece per lane; ``vertex``: every vertex whole
        to one lane (the baseline).
    memory_channels : int
        Memory channels (a power of two, 1..16), lines interleaved across them by their
        address; the simulated memory must have as many (``--mem channels=N``).
    direction : str
        ``auto`` (Enterprise's gamma rule down, Beamer's beta rule back), ``topdown`` or
        ``bottomup``.
    tau : int
        A hub has out-degree above tau (Enterprise §3, "hub vertex").
    gamma_percent : int
        Switch to bottom-up after a top-down level that visited more than this percentage
        of all hubs (Enterprise's equation 1; 30).
    tail_beta : int
        Back to top-down after a bottom-up level that visited fewer than n / tail_beta
        vertices and fewer than the level before (24).
    queues : str
        ``hier``: each lane writes bins of its own, and the next level reads them one after
        the other, their counts' running total giving each its place in the queue (Luo et
        al.'s hierarchical queues: local queues without contention, one offset computation
        for the merge); ``flat``: every lane writes one shared queue, one entry a cycle, and
        waits its turn (the single queue Luo et al. compare against).
    hub_cache : bool
        The hub cache (Enterprise §4.3): the hubs the previous level visited, looked up
        before a bottom-up status read.
    hub_cache_entries : int
        Slots of the hub cache (a power of two; each table holds an id and a level tag).
    middle_degree, large_degree, extreme_degree : int
        The lowest degree of the middle, large and extreme classes (Enterprise §4.2: 32,
        256, 65,536).
    bu_slots : int
        Bottom-up vertices in flight: each checks one neighbour at a time, so the status
        reads of a slot are never speculative; enough slots cover the memory latency.
    max_vertices : int
        Vertices the hub bitmap covers (a power of two, at least 16).
    read_window : int
        Lines a sequential reader (queues, edges) requests ahead.
    ranges_on_demand : bool
        A scan reads the edge ranges (the offsets) of only the status lines holding a
        frontier vertex; off: beside every status line, twice the traffic of a sparse scan.
    scan_window : int
        Lines the status scan's two readers (status lines and offsets) each request ahead,
        and status lines with a hit that may wait for their offsets: a reader keeps up a line
        a cycle when this covers the memory's latency (100 cycles by default), where 32 give
        it a third of a line a cycle.
    addr_width : int
        Width of a 64-byte line address.
    memory_outstanding : int
        Reads in flight at the memory port (the arbiter's limit).
    watchdog : int
        Cycles without a link moving before a simulation run is called hung (0: off).
    stall_injection : int
        Percentage of cycles each stream link stalls at random (verification; 0: none).

    Presets
    -------
    ``ecp5``: 2 lanes, 32 bottom-up slots, 16-line read and scan windows, 64 reads
    outstanding: the configuration for the ECP5-85k. The default does not fit it with room
    to route (71% of the logic cells placed, routing unfinished after an hour); this one
    placed at about half of them and routed.
    """

    RUN_SETTINGS = ("stall_injection", "watchdog")
    PRESETS = {"ecp5": {"lanes": "2", "bu_slots": "32", "read_window": "16",
                        "scan_window": "16", "memory_outstanding": "64"}}

    lanes: int = 4
    scan_hits: int = 4
    expand_lanes: int = 1
    dispatch: str = "classes"
    memory_channels: int = 1
    direction: str = "auto"
    tau: int = 256
    gamma_percent: int = 30
    tail_beta: int = 24
    queues: str = "hier"
    hub_cache: bool = True
    hub_cache_entries: int = 1024
    middle_degree: int = 32
    large_degree: int = 256
    extreme_degree: int = 65536
    bu_slots: int = 64
    max_vertices: int = 1 << 16
    read_window: int = 32
    scan_window: int = 128
    ranges_on_demand: bool = True
    addr_width: int = 26
    memory_outstanding: int = 128
    watchdog: int = 100_000
    stall_injection: int = 0

    def validate(self):
        if not (is_power_of_two(self.lanes) and self.lanes <= 16):
            raise ConfigError(f"lanes must be a power of two from 1 to 16, not {self.lanes}")
        if self.scan_hits not in (1, 4):
            raise ConfigError(f"scan_hits must be 1 or 4, not {self.scan_hits}")
        if not (is_power_of_two(self.expand_lanes) and self.expand_lanes <= 16):
            raise ConfigError(f"expand_lanes must be a power of two from 1 to 16, "
                              f"not {self.expand_lanes}")
        if self.dispatch not in DISPATCH:
            raise ConfigError(f"dispatch must be one of {', '.join(DISPATCH)}, "
                              f"not {self.dispatch!r}")
        if not (is_power_of_two(self.memory_channels) and self.memory_channels <= 16):
            raise ConfigError(f"memory_channels must be a power of two from 1 to 16, "
                              f"not {self.memory_channels}")
        if self.direction not in DIRECTIONS:
            raise ConfigError(f"direction must be one of {', '.join(DIRECTIONS)}, "
                              f"not {self.direction!r}")
        if self.queues not in ("hier", "flat"):
            raise ConfigError(f"queues must be hier or flat, not {self.queues!r}")
        if not 0 <= self.tau < 2**32:
            raise ConfigError(f"tau must be a degree (0 .. 2**32 - 1), not {self.tau}")
        if not 0 <= self.gamma_percent <= 100:
            raise ConfigError(f"gamma_percent must be 0..100, not {self.gamma_percent}")
        if not 1 <= self.tail_beta <= 1 << 16:
            raise ConfigError(f"tail_beta must be 1..65536, not {self.tail_beta}")
        if not (is_power_of_two(self.hub_cache_entries) and
                4 <= self.hub_cache_entries <= 1 << 16):
            raise ConfigError(f"hub_cache_entries must be a power of two from 4 to 65536, "
                              f"not {self.hub_cache_entries}")
        if not 0 < self.middle_degree < self.large_degree < self.extreme_degree < 2**32:
            raise ConfigError("middle_degree, large_degree and extreme_degree must increase "
                              f"from 1, not {self.middle_degree}, {self.large_degree}, "
                              f"{self.extreme_degree}")
        if not 2 <= self.bu_slots <= 256:
            raise ConfigError(f"bu_slots must be 2..256, not {self.bu_slots}")
        if not (is_power_of_two(self.max_vertices) and 16 <= self.max_vertices <= 1 << 24):
            raise ConfigError(f"max_vertices must be a power of two from 16 to 2**24, "
                              f"not {self.max_vertices}")
        if not 2 <= self.read_window <= 256:
            raise ConfigError(f"read_window must be 2..256, not {self.read_window}")
        if not 2 <= self.scan_window <= 256:
            raise ConfigError(f"scan_window must be 2..256, not {self.scan_window}")
        if not 8 <= self.addr_width <= 32:
            raise ConfigError(f"addr_width must be 8..32, not {self.addr_width}")
        if not 2 <= self.memory_outstanding <= 256:
            raise ConfigError(f"memory_outstanding must be 2..256, not "
                              f"{self.memory_outstanding}")
        if self.watchdog < 0:
            raise ConfigError(f"watchdog must not be negative, not {self.watchdog}")
        if not 0 <= self.stall_injection <= 99:
            raise ConfigError(f"stall_injection must be 0..99, not {self.stall_injection}")

    @property
    def queue_writers(self) -> int:
        """Bin writers: one a lane (hier) or one shared (flat)."""
        return self.lanes if self.queues == "hier" else 1

    @property
    def thresholds(self) -> tuple[int, int, int]:
        return (self.middle_degree, self.large_degree, self.extreme_degree)

    def golden_options(self) -> dict:
        """The golden model's options for this configuration."""
        return {"lanes": self.lanes, "direction": self.direction, "tau": self.tau,
                "gamma_percent": self.gamma_percent, "tail_beta": self.tail_beta,
                "hub_cache": self.hub_cache, "hub_cache_entries": self.hub_cache_entries,
                "middle_degree": self.middle_degree, "large_degree": self.large_degree,
                "extreme_degree": self.extreme_degree}
