"""Graphicionado's vertex-programming model as one generic, vectorised executor.

Implements the processing model of Graphicionado (Ham et al., MICRO 2016), section 3.1 and
figure 4.  An algorithm is a :class:`VertexProgram`: the element type and shape of a vertex
property, ``Process_Edge``, ``Reduce`` (a NumPy ufunc with its identity) and ``Apply``, a
function building the initial arrays, and whether all vertices are active in every
iteration.  :func:`execute` runs one such program exactly as the hardware pipeline does:

each iteration
  1. *processing phase*: VTempProperty is reset to the Reduce identity; then for every
     active vertex u in ascending id order (the ActiveVertex list, stage P1), for every
     edge e = (u, v, w) of u in edge-id order (EdgeIDTable and edge reads, P2-P3)::

         res = Process_Edge(w, VProperty[u], VConst[u], VProperty[v])      # P4-P5
         VTempProperty[v] = Reduce(VTempProperty[v], res)                   # P6-P9

  2. *apply phase*: for every vertex v (A1-A4)::

         VProperty[v] = Apply(VProperty[v], VTempProperty[v], VConst[v])

     and the vertices whose property changed form the next ActiveVertex list (A5).

The run stops when no vertex is active, after the iteration cap, or (given a tolerance)
after an iteration whose largest change is within it.  Edge processing is done
with array operations over the concatenated edge ranges of the active vertices (a CSR
gather), chunked to bound memory; the reduction uses ``ufunc.at``, which is unbuffered and
applies repeated indices one after another in index order, so every destination is reduced
in edge-id order as the single-pipeline hardware does (this matters for float addition).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .graph import Graph, GraphError

__all__ = ["VertexProgram", "Setup", "Result", "execute", "active_edge_ids",
           "iteration_counters"]

#: edges x property elements handled per processing chunk (bounds temporary memory)
CHUNK_ELEMENTS = 1 << 24

ProcessEdge = Callable[[np.ndarray | None, np.ndarray, np.ndarray | None, np.ndarray | None],
                       np.ndarray]
Apply = Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]


@dataclass(frozen=True)
class Setup:
    """Initial state of a run: VProperty, VConst, ActiveVertex mask, the per-edge weights."""

    vprop: np.ndarray
    vconst: np.ndarray | None
    active: np.ndarray
    weight: np.ndarray | None = None


@dataclass(frozen=True)
class VertexProgram:
    """One algorithm in Graphicionado's Process_Edge / Reduce / Apply form (table I).

    ``process_edge(weight, src_prop, src_const, dst_prop)`` and ``apply(vprop, vtemp,
    vconst)`` work on whole arrays (one row per edge or per vertex); ``dst_prop`` is only
    passed when ``uses_dst_property`` (the optional stage P4) and is None otherwise.
    ``reduce`` must be a binary ufunc (or any object with a ufunc's unbuffered ``at``) and
    ``identity`` its identity, the value VTempProperty is reset to.  ``init(graph, root,
    **params)`` returns the :class:`Setup`.  ``active(vprop, vtemp, vconst, new)``, when
    given, marks the vertices that become active (and count as updated); by default those
    whose property changed.
    """

    name: str
    dtype: type
    identity: Any
    reduce: np.ufunc
    process_edge: ProcessEdge
    apply: Apply
    init: Callable[..., Setup]
    all_active: bool = False
    uses_dst_property: bool = False
    property_shape: tuple[int, ...] = ()
    active: Callable[[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray], np.ndarray] \
        | None = None


@dataclass
class Result:
    """Final VProperty (``values``), iterations run and event counters.

    ``counters`` holds ``edges_processed`` and ``vertex_updates`` (totals), the lists
    ``active_per_iteration``, ``edges_per_iteration`` and ``updates_per_iteration``, and
    ``converged`` (no vertex changed in the last iteration run).
    """

    values: np.ndarray
    iterations: int
    counters: dict = field(default_factory=dict)


def iteration_counters(counts: dict[str, list[int]], converged: bool) -> dict:
    """The counters every executor reports, from its per-iteration ``active``, ``edges``
    and ``updates`` lists."""
    return {
        "edges_processed": int(sum(counts["edges"])),
        "vertex_updates": int(sum(counts["updates"])),
        "active_per_iteration": counts["active"],
        "edges_per_iteration": counts["edges"],
        "updates_per_iteration": counts["updates"],
        "converged": converged,
    }


def active_edge_ids(offsets: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Edge ids of the given (ascending) active vertices, in edge-id order.

    The concatenation of ``range(offsets[u], offsets[u + 1])`` for u in ``active``, built
    with one ``np.repeat`` and one ``np.arange`` instead of a loop.
    """
    starts = offsets[active]
    counts = offsets[active + 1] - starts
    total = int(counts.sum())
    shift = starts - (np.cumsum(counts) - counts)      # edge id minus output position
    return np.repeat(shift, counts) + np.arange(total, dtype=np.int64)


def _chunks(selection: np.ndarray | None, num_edges: int, size: int):
    """Consecutive pieces of the edges to process: slices of all edges, or id arrays."""
    total = num_edges if selection is None else selection.size
    for start in range(0, total, size):
        stop = min(start + size, total)
        yield slice(start, stop) if selection is None else selection[start:stop]


def _processing_phase(program: VertexProgram, graph: Graph, setup: Setup, vprop: np.ndarray,
                      active: np.ndarray | None, temp: np.ndarray) -> int:
    selection = None if active is None else active_edge_ids(graph.offsets, active)
    per_edge = int(np.prod(program.property_shape, dtype=np.int64)) or 1
    size = max(1, CHUNK_ELEMENTS // per_edge)
    vconst, weight = setup.vconst, setup.weight
    for part in _chunks(selection, graph.num_edges, size):
        src, dst = graph.src[part], graph.dst[part]
        res = program.process_edge(
            None if weight is None else weight[part],
            vprop[src],
            None if vconst is None else vconst[src],
            vprop[dst] if program.uses_dst_property else None)
        program.reduce.at(temp, dst, res)
    return graph.num_edges if selection is None else int(selection.size)


def _largest_change(new: np.ndarray, old: np.ndarray) -> float:
    if new.size == 0:
        return 0.0
    if new.dtype.kind in "iu":
        new, old = new.astype(np.int64), old.astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.max(np.abs(new - old)))


def execute(program: VertexProgram, graph: Graph, setup: Setup,
            max_iterations: int | None = None, tolerance: float | None = None) -> Result:
    """Run ``program`` on ``graph`` from ``setup`` until no vertex is active or the cap, or,
    with a ``tolerance``, after an iteration whose largest change ``|new - old|`` (computed
    in the property's float dtype, exactly for integers) is at most ``tolerance``."""
    n = graph.num_vertices
    shape = (n, *program.property_shape)
    if setup.vprop.shape != shape:
        raise GraphError(f"{program.name}: VProperty has shape {setup.vprop.shape}, "
                         f"expected {shape}")
    vprop = np.array(setup.vprop, dtype=program.dtype, copy=True)
    active_mask = np.asarray(setup.active, dtype=bool)
    counts: dict[str, list[int]] = {"active": [], "edges": [], "updates": []}
    iterations = 0
    changed_any = True
    while max_iterations is None or iterations < max_iterations:
        if program.all_active:
            active, num_active = None, n
        else:
            active = np.flatnonzero(active_mask)
            num_active = int(active.size)
            if num_active == 0:
                break
        iterations += 1
        temp = np.full(shape, program.identity, dtype=program.dtype)       # reset VTemp
        edges = _processing_phase(program, graph, setup, vprop, active, temp)
        new = np.asarray(program.apply(vprop, temp, setup.vconst), dtype=program.dtype)
        if program.active is None:
            changed = new != vprop
        else:
            changed = np.asarray(program.active(vprop, temp, setup.vconst, new), dtype=bool)
        if changed.ndim > 1:
            changed = changed.reshape(n, -1).any(axis=1)
        settled = tolerance is not None and _largest_change(new, vprop) <= tolerance
        active_mask, vprop = changed, new
        updates = int(np.count_nonzero(changed))
        changed_any = updates > 0
        counts["active"].append(num_active)
        counts["edges"].append(edges)
        counts["updates"].append(updates)
        if settled:
            break
    return Result(values=vprop, iterations=iterations,
                  counters=iteration_counters(counts, not changed_any))
