"""Graphicionado's register map and status counters: the registers the host writes through
the register file's port before ``start`` (the paper's memory-mapped registers), in address
order, and the ``counters`` (one output a counter) it reads after ``done``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hw.lib.axi.rdl_map import RDLSource

if TYPE_CHECKING:
    from hw.graphicionado.algorithms import Algorithm
    from hw.graphicionado.config import GraphicionadoConfig


__all__ = ["BASE_REGISTERS", "CF_REGISTERS", "ROOT_REGISTERS", "EXTENDED_REGISTERS",
           "param_registers", "BASE_COUNTERS", "EXTENDED_COUNTERS",
           "CHANNEL_COUNTERS", "STATUS", "ITERATION_COUNTER", "registers", "counter_names",
           "register_description"]

# Bases are 64-byte line addresses.
BASE_REGISTERS = ("num_vertices", "num_edges", "part_lines", "vprop_base", "vconst_base",
                  "edge_base", "table_base", "table_count", "active_base_a", "active_base_b",
                  "max_iterations", "num_slices", "slice_vertices", "vprop_next_base")

# CF's Apply constants, gamma and lambda (binary32).
CF_REGISTERS = ("cf_gamma", "cf_lam")

# A program whose Apply reads is_root (personalized PageRank): the root's vertex id.
ROOT_REGISTERS = ("root",)


def param_registers(algorithm: Algorithm) -> dict[str, str]:
    """Register name -> the program's run-time parameter it holds: ``param_<k>`` for the k-th
    of :attr:`~hw.graphicionado.algorithms.Algorithm.params` (binary32 for a Float32
    parameter, else the unsigned value)."""
    return {f"param_{k}": name for k, name in enumerate(algorithm.params)}


# Extended slicing (§VI.B): the partitions N (of ``slice_vertices`` ids each) and the line
# address of the VTempProperty partitions written back between slices.
EXTENDED_REGISTERS = ("ext_partitions", "temp_base")

# Event counts over a run, from the cycle after ``start``.
BASE_COUNTERS = ("cycles", "cycles_load", "cycles_process", "cycles_apply", "edges",
                 "updates", "vertex_updates", "cam_stalls", "memory_reads", "memory_writes",
                 "stall_p1", "stall_p2", "stall_p3", "stall_p4", "stall_p5", "stall_apply",
                 "xbar_stalls", "xbar_occupancy")
# Per memory channel c: requests taken (``memory{c}_reads``, ``memory{c}_writes``) and
# cycles a request waited at the channel, not taken (``memory{c}_refused``).
CHANNEL_COUNTERS = ("reads", "writes", "refused")
# Extended slicing (§VI.B): cycles an edge waited at P3 for its region's load or clear.
EXTENDED_COUNTERS = ("stall_region",)
# The run's state rather than counts: iterations run, and the active vertices left after the
# last one.
STATUS = ("iterations", "active_count")
# The counter that steps at each iteration's end: a simulation snapshots the counters there.
ITERATION_COUNTER = "iterations"


def registers(cfg: GraphicionadoConfig) -> tuple[str, ...]:
    """The registers of a configuration, register ``k`` at address ``k``:
    :data:`BASE_REGISTERS`, and per partition l the initial ActiveVertex count
    ``active_count_<l>`` (frontier algorithms) or, for full edge access, the first edge id
    ``edge_part_<(s * L + l) * r + k>`` of reader k's edges in partition l of slice s (r edge
    readers; the last, ``edge_part_<max_slices * L * r>``, is the edge count).

    Graph slicing (§VI.A): ``num_slices`` slices (1 to ``max_slices``) of ``slice_vertices``
    destinations each (a multiple of 16 L). Full edge access reads VProperty at
    ``vprop_base`` in even iterations and at ``vprop_next_base`` in odd ones, and apply
    writes the other: with slices, a later slice must still read the values the iteration
    started with (the host sets both bases equal when unsliced). CF adds
    :data:`CF_REGISTERS`, a program whose Apply reads ``is_root`` :data:`ROOT_REGISTERS`,
    a program with run-time parameters :func:`param_registers`, extended slicing
    :data:`EXTENDED_REGISTERS`."""
    if cfg.algorithm.full_edge_access:
        groups = cfg.max_slices * cfg.partitions * cfg.edge_readers
        extra = tuple(f"edge_part_{i}" for i in range(groups + 1))
    else:
        extra = tuple(f"active_count_{l}" for l in range(cfg.partitions))
    if cfg.algorithm.large_property:
        extra += CF_REGISTERS
    if cfg.algorithm.apply_reads_root:
        extra += ROOT_REGISTERS
    extra += tuple(param_registers(cfg.algorithm))
    if cfg.extended_slicing:
        extra += EXTENDED_REGISTERS
    return BASE_REGISTERS + extra


def counter_names(cfg: GraphicionadoConfig) -> tuple[str, ...]:
    """:data:`BASE_COUNTERS`, the edges each stream handed on (``edges_src<s>``) and took
    (``edges_dst<d>``), ``memory<c>_<name>`` for each memory channel and name of
    :data:`CHANNEL_COUNTERS`, with extended slicing :data:`EXTENDED_COUNTERS`, then
    :data:`STATUS`."""
    return (BASE_COUNTERS + tuple(f"edges_src{s}" for s in range(cfg.streams_src)) +
            tuple(f"edges_dst{d}" for d in range(cfg.streams_dst)) +
            tuple(f"memory{c}_{name}" for c in range(cfg.memory_channels)
                  for name in CHANNEL_COUNTERS) +
            (EXTENDED_COUNTERS if cfg.extended_slicing else ()) + STATUS)


def register_description(cfg: GraphicionadoConfig) -> RDLSource:
    """``registers.rdl`` (beside this file) elaborated for ``cfg``: the map of
    :func:`registers` and :func:`counter_names` (a test keeps them equal)."""
    defines = {"FULL_EDGE_ACCESS": cfg.algorithm.full_edge_access,
               "LARGE_PROPERTY": cfg.algorithm.large_property,
               "APPLY_ROOT": cfg.algorithm.apply_reads_root,
               "PROGRAM_PARAMS": bool(cfg.algorithm.params),
               "EXTENDED_SLICING": cfg.extended_slicing}
    return RDLSource(Path(__file__).with_name("registers.rdl"), "graphicionado",
                     {"PARTITIONS": cfg.partitions, "MAX_SLICES": cfg.max_slices,
                      "EDGE_READERS": cfg.edge_readers, "STREAMS_SRC": cfg.streams_src,
                      "STREAMS_DST": cfg.streams_dst, "MEMORY_CHANNELS": cfg.memory_channels,
                      "PARAMS": max(1, len(cfg.algorithm.params))},
                     tuple(name for name, on in defines.items() if on))
