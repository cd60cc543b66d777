"""The dynamic graph unit's register map and status counters: the registers the host writes
through the register file's port before ``start``, in address order, and the
``counters`` (one output a counter) it reads after ``done``."""

from pathlib import Path

from hw.dyngraph.layouts import OUTCOMES
from hw.lib.axi.rdl_map import RDLSource


__all__ = ["REGISTERS", "COUNTERS", "REGISTER_DESCRIPTION", "ITERATION_COUNTER"]

REGISTERS = ("ops_base", "ops_count", "batch_size", "vertices_base", "present_base",
             "present_lines", "pool_base", "pool_slabs", "stack_base", "stack_top",
             "answers_base", "compact_vertices", "edges_base", "table_base", "vconst_base")

# ``memory_reads`` and ``memory_writes`` (the requests the memory took) count from the cycle
# after ``start``, as in every design.
COUNTERS = ("cycles", "load_cycles", "issued", "batches", *OUTCOMES,
            "vertices_inserted", "vertex_insert_present", "vertices_deleted",
            "vertex_delete_absent", "in_edges_removed", "walk_slab_reads", "free_slab_reads",
            "sweeps", "sweep_slab_reads", "allocations", "allocation_failures", "slabs_freed",
            "stack_top", "lock_waits", "port_waits", "slot_waits",
            "deferred", "slab_reads", "slab_writes",
            "memory_reads", "memory_writes", "compact_cycles", "compacted_edges",
            "compact_slab_reads", "compact_chain_reads")
# The counter that steps at each batch's end: a simulation snapshots the counters there.
ITERATION_COUNTER = "batches"

# The AXI4-Lite map of REGISTERS and COUNTERS (a test keeps them equal).
REGISTER_DESCRIPTION = RDLSource(Path(__file__).with_name("registers.rdl"), "dyngraph")
