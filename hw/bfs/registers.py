"""The BFS engine's register map and status counters: the registers the host writes through
the register file's port before ``start``, in address order, and the ``counters``
(one output a counter) it reads after ``done``."""

from pathlib import Path

from hw.lib.axi.rdl_map import RDLSource


__all__ = ["REGISTERS", "COUNTERS", "REGISTER_DESCRIPTION", "ITERATION_COUNTER"]

# The host's registers: line addresses of the arrays, then the run's numbers.
REGISTERS = ("out_offsets_base", "out_edges_base", "in_offsets_base", "in_edges_base",
             "levels_base", "parents_base", "queue_base", "bin_shift", "block_shift",
             "log_base", "max_levels", "num_vertices", "root", "tail_limit")

# ``memory_reads`` and ``memory_writes`` (the requests the memory took) count from the cycle
# after ``start``, as in every design.
COUNTERS = ("cycles", "levels", "hubs", "edges_checked", "status_reads", "cache_hits",
            "discoveries", "hubs_found", "bu_edge_lines", "queue_stalls", "memory_reads",
            "memory_writes", "generate_cycles")
# The counter that steps at each level's end: a simulation snapshots the counters there.
ITERATION_COUNTER = "levels"

# The AXI4-Lite map of REGISTERS and COUNTERS (a test keeps them equal).
REGISTER_DESCRIPTION = RDLSource(Path(__file__).with_name("registers.rdl"), "bfs")
