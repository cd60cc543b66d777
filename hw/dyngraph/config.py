"""Parameters of the dynamic graph unit (Awad et al., "Dynamic Graphs on the GPU", on
Ashkiani et al.'s slab hash)."""

import dataclasses

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two


__all__ = ["DynGraphConfig", "COMPACT_EDGE_WORDS"]

# Words of a compacted edge: Graphicionado's coo records, or its csr edges with and without
# a weight.
COMPACT_EDGE_WORDS = (4, 2, 1)


@dataclasses.dataclass(frozen=True)
class DynGraphConfig(DesignConfig):
    """Parameters of :class:`hw.dyngraph.top.UpdateUnit`; the golden model
    (:class:`golden.dyngraph.SlabOptions`) takes the host-side ones by the same names.

    Parameters
    ----------
    max_vertices : int
        Vertex ids are below this (a power of two, 16..2**24): the on-chip presence bitmap.
    slots : int
        Edge operations in flight past the lock, each on a different bucket (a power of
        two, 2..256); up to ``2 * slots`` more may be reading their vertex's word before it.
        An operation holds its slot about a memory latency a slab of its walk, so
        ``ops per cycle ~ slots / latency`` until a port or the memory binds.
    lock_ways : int
        Associativity of the lock CAM (Graphicionado's atomic-update CAM: 4 ways of 16
        entries); it has ``4 * slots`` entries, so a set is seldom full (a full set stops
        the in-order issue until one of its operations ends).
    slab_ports : int
        Memory clients for the slab pool (1, 2 or 4), a vertex's slabs always through the
        same one: each takes a line request a cycle and an edge operation needs about three.
    memory_channels : int
        Memory channels (a power of two, 1..16), lines interleaved across them by address;
        the simulated memory must have as many.
    sweep_group : int
        Consecutive vertex deletions that share one sweep of the pool (1..16).
    slab_index_bits : int
        Bits of a base-slab index in a vertex word (the pool holds at most 2**bits slabs);
        the other 32 - bits hold the vertex's bucket count.
    load_factor_percent : int
        The host's bulk build: base buckets filled to this share (1..100).
    pool_slabs : int
        The host's pool size in slabs; 0: twice the build's slabs plus 64.
    addr_width : int
        Width of a 64-byte line address.
    memory_outstanding : int
        Reads in flight at the memory port (the arbiter's limit); at least ``2 * slots``.
    read_window : int
        Lines the operation reader requests ahead; the presence bitmap's reader requests
        ``max(read_window, max_vertices // 512)`` (the whole bitmap), at most 256.
    compact_edge_words : int
        The compactor's edge layout, a Graphicionado build's ``edge_words``: 4, the
        paper's records (srcid, dstid, weight, 0; ``edge_format`` coo); 2, (dstid, weight),
        or 1, the dstid alone (``edge_format`` csr, for programs with a weight and without
        one): the EdgeIDTable says whose edges they are.
    watchdog : int
        Cycles without a link moving before a simulation run is called hung (0: off).
    stall_injection : int
        Percentage of cycles each stream link stalls at random (verification; 0: none).

    Presets (``--set preset=NAME``)
    -------------------------------
    ecp5
        The ECP5-85k build (the default, 16 slots and 65,536 vertices, does not fit it):
        4 slots, 4,096 vertices, 8 reads in flight, a read window of 4 lines (about 68% of
        the chip's logic cells, no block RAM).
    """

    RUN_SETTINGS = ("stall_injection", "watchdog")
    PRESETS = {"ecp5": {"slots": "4", "max_vertices": "4096", "memory_outstanding": "8",
                        "read_window": "4"}}

    max_vertices: int = 1 << 16
    slots: int = 16
    lock_ways: int = 8
    slab_ports: int = 1
    memory_channels: int = 1
    sweep_group: int = 8
    slab_index_bits: int = 20
    load_factor_percent: int = 70
    pool_slabs: int = 0
    addr_width: int = 26
    memory_outstanding: int = 64
    read_window: int = 16
    compact_edge_words: int = 4
    watchdog: int = 100_000
    stall_injection: int = 0

    def validate(self):
        if not (is_power_of_two(self.max_vertices) and 16 <= self.max_vertices <= 1 << 24):
            raise ConfigError(f"max_vertices must be a power of two from 16 to 2**24, "
                              f"not {self.max_vertices}")
        if not (is_power_of_two(self.slots) and 2 <= self.slots <= 256):
            raise ConfigError(f"slots must be a power of two from 2 to 256, not {self.slots}")
        if not (is_power_of_two(self.lock_ways) and self.lock_ways <= 4 * self.slots):
            raise ConfigError(f"lock_ways must be a power of two up to 4 * slots "
                              f"({4 * self.slots}), not {self.lock_ways}")
        if self.slab_ports not in (1, 2, 4):
            raise ConfigError(f"slab_ports must be 1, 2 or 4, not {self.slab_ports}")
        if not (is_power_of_two(self.memory_channels) and self.memory_channels <= 16):
            raise ConfigError(f"memory_channels must be a power of two from 1 to 16, "
                              f"not {self.memory_channels}")
        if not 1 <= self.sweep_group <= 16:
            raise ConfigError(f"sweep_group must be 1..16, not {self.sweep_group}")
        if not 12 <= self.slab_index_bits <= 24:
            raise ConfigError(f"slab_index_bits must be 12..24, not {self.slab_index_bits}")
        if not 1 <= self.load_factor_percent <= 100:
            raise ConfigError(f"load_factor_percent must be 1..100, not "
                              f"{self.load_factor_percent}")
        if not 0 <= self.pool_slabs <= 1 << self.slab_index_bits:
            raise ConfigError(f"pool_slabs must be 0..2**slab_index_bits "
                              f"({1 << self.slab_index_bits}), not {self.pool_slabs}")
        if not 8 <= self.addr_width <= 32:
            raise ConfigError(f"addr_width must be 8..32, not {self.addr_width}")
        if not 2 * self.slots <= self.memory_outstanding <= 512:
            raise ConfigError(f"memory_outstanding must be 2 * slots ({2 * self.slots}) .. "
                              f"512, not {self.memory_outstanding}")
        if not 2 <= self.read_window <= 256:
            raise ConfigError(f"read_window must be 2..256, not {self.read_window}")
        if self.compact_edge_words not in COMPACT_EDGE_WORDS:
            raise ConfigError(f"compact_edge_words must be 4 (coo), 2 or 1 (csr), not "
                              f"{self.compact_edge_words}")
        if self.watchdog < 0:
            raise ConfigError(f"watchdog must not be negative, not {self.watchdog}")
        if not 0 <= self.stall_injection <= 99:
            raise ConfigError(f"stall_injection must be 0..99, not {self.stall_injection}")

    @property
    def max_buckets(self) -> int:
        return (1 << (32 - self.slab_index_bits)) - 1

    def golden_options(self, max_vertices: int | None = None) -> dict:
        """The golden model's :class:`SlabOptions` fields for this configuration."""
        return {"load_factor_percent": self.load_factor_percent,
                "pool_slabs": self.pool_slabs, "sweep_group": self.sweep_group,
                "max_vertices": self.max_vertices if max_vertices is None else max_vertices,
                "max_buckets": self.max_buckets}
