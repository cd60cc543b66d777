"""Graph slicing (Graphicionado §VI.A): a graph whose destination vertices do not fit the
scratchpad, run one slice of destinations at a time.

The vertices are cut into ``slices`` consecutive id ranges of ``slice_vertices`` each (the
last may be shorter); slice s holds the edges whose destination lies in range s, in their
edge-id order. Each iteration runs, for s = 0, 1, ...: the processing phase over slice s's
edges of the active vertices (VTempProperty holds range s only), then the apply phase over
range s. The active vertices of an iteration are those of the iteration before, whichever
slice changed them.

What a source vertex's property is when a later slice reads it, after an earlier slice's
apply has already written its new value, the paper does not say. Here:

* frontier algorithms (BFS, SSSP, CC) read it from the ActiveVertex list, which holds the
  (id, property) pairs the previous iteration wrote, so the value is the one the iteration
  started with;
* full-edge algorithms (PageRank, CF) would read VProperty itself, so the hardware keeps two
  VProperty arrays when sliced (apply writes the other one, they swap each iteration) and
  the value is again the one the iteration started with.

Sliced and unsliced runs therefore give the same values; for PageRank even the same bits,
because each destination's contributions still arrive in ascending source order. What
slicing changes is the work: every slice walks all active vertices again (the paper's "same
source vertex properties read multiple times"), which :func:`execute_sliced` counts.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, GraphError
from ..vertex_program import (Result, Setup, VertexProgram, active_edge_ids,
                              iteration_counters)


__all__ = ["slices_needed", "slice_bounds", "slice_of", "sliced_edges", "execute_sliced"]


def slices_needed(num_vertices: int, slice_vertices: int) -> int:
    """Slices of ``slice_vertices`` destinations each that cover ``num_vertices``."""
    if slice_vertices < 1:
        raise GraphError(f"slice_vertices must be at least 1, got {slice_vertices}")
    return max(1, -(-num_vertices // slice_vertices))


def slice_bounds(num_vertices: int, slice_vertices: int) -> np.ndarray:
    """First vertex id of each slice, then ``num_vertices``."""
    count = slices_needed(num_vertices, slice_vertices)
    return np.minimum(np.arange(count + 1, dtype=np.int64) * slice_vertices, num_vertices)


def slice_of(vertex: np.ndarray, slice_vertices: int) -> np.ndarray:
    """The slice of each vertex id."""
    return np.asarray(vertex, dtype=np.int64) // slice_vertices


def sliced_edges(graph: Graph, slice_vertices: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per slice: the ids of its edges (destination in the slice's range, in edge-id order)
    and its EdgeIDTable (``table[u]`` the position in that list of u's first edge,
    ``num_vertices + 1`` entries)."""
    n = graph.num_vertices
    which = slice_of(graph.dst, slice_vertices)
    order = np.argsort(which, kind="stable")          # edge-id order kept within a slice
    starts = np.searchsorted(which[order], np.arange(slices_needed(n, slice_vertices) + 1))
    out = []
    for s in range(len(starts) - 1):
        ids = order[starts[s]:starts[s + 1]]
        table = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(graph.src[ids], minlength=n), out=table[1:])
        out.append((ids, table))
    return out


def execute_sliced(program: VertexProgram, graph: Graph, setup: Setup, slice_vertices: int,
                   max_iterations: int | None = None) -> Result:
    """Run ``program`` slice by slice (see the module docstring).

    Besides :func:`golden.execute`'s counters: ``slices``, ``vertex_visits`` (active vertices
    walked, summed over slices and iterations: ``slices`` times the unsliced count) and
    ``visits_per_iteration``."""
    n = graph.num_vertices
    shape = (n, *program.property_shape)
    if setup.vprop.shape != shape:
        raise GraphError(f"{program.name}: VProperty has shape {setup.vprop.shape}, "
                         f"expected {shape}")
    bounds = slice_bounds(n, slice_vertices)
    slices = sliced_edges(graph, slice_vertices)
    vprop = np.array(setup.vprop, dtype=program.dtype, copy=True)
    active_mask = np.asarray(setup.active, dtype=bool)
    counts: dict[str, list[int]] = {"active": [], "edges": [], "updates": [], "visits": []}
    iterations = 0
    changed_any = True
    while max_iterations is None or iterations < max_iterations:
        active = np.arange(n) if program.all_active else np.flatnonzero(active_mask)
        if active.size == 0:
            break
        iterations += 1
        start = vprop                    # the ActiveVertex list's values / the read VProperty
        new = vprop.copy()               # the VProperty apply writes
        changed = np.zeros(n, dtype=bool)
        edges = 0
        for (ids, table), low, high in zip(slices, bounds[:-1], bounds[1:]):
            temp = np.full((high - low, *program.property_shape), program.identity,
                           dtype=program.dtype)
            chosen = ids[active_edge_ids(table, active)]
            edges += int(chosen.size)
            src, dst = graph.src[chosen], graph.dst[chosen]
            res = program.process_edge(
                None if setup.weight is None else setup.weight[chosen], start[src],
                None if setup.vconst is None else setup.vconst[src],
                start[dst] if program.uses_dst_property else None)
            program.reduce.at(temp, dst - low, res)
            const = None if setup.vconst is None else setup.vconst[low:high]
            applied = np.asarray(program.apply(start[low:high], temp, const), dtype=program.dtype)
            differs = applied != start[low:high]
            changed[low:high] = differs.reshape(high - low, -1).any(axis=1) if \
                differs.ndim > 1 else differs
            new[low:high] = applied
        vprop, active_mask = new, changed
        updates = int(np.count_nonzero(changed))
        changed_any = updates > 0
        counts["active"].append(int(active.size))
        counts["visits"].append(int(active.size) * len(slices))
        counts["edges"].append(edges)
        counts["updates"].append(updates)
    counters = {
        **iteration_counters(counts, not changed_any),
        "slices": len(slices),
        "vertex_visits": int(sum(counts["visits"])),
        "visits_per_iteration": counts["visits"],
    }
    return Result(values=vprop, iterations=iterations, counters=counters)
