"""The symmetric-graph optimisation (Graphicionado §IV.D) and extended graph slicing for
symmetric graphs (§VI.B).

Symmetric optimisation: an undirected graph is stored with each edge once, from the larger
id to the smaller, and one read of edge (u, v, w) updates both ends (the duplicated P5–P9 of
the paper's figure 6)::

    VTemp[v] = Reduce(VTemp[v], Process_Edge(w, VProperty[u], VConst[u], VProperty[v]))
    VTemp[u] = Reduce(VTemp[u], Process_Edge(w, VProperty[v], VConst[v], VProperty[u]))

A self-loop (u, u) is stored once and updates u once, as the edge list holds it once. The
paper applies it to full-edge algorithms (its example is collaborative filtering), so
:func:`execute_symmetric` takes PageRank and CF.

Extended slicing: the scratchpad now needs VTempProperty of both ends, so slicing by
destination alone no longer shrinks it. The vertices are cut into N partitions of
consecutive ids and the stored edges into the N(N+1)/2 slices (i, j), i >= j: sources in
partition i, destinations in partition j. :func:`extended_schedule` gives the precomputed
control: column by column (j = 0 .. N-1; for each, i = j .. N-1), so partition j stays in the
scratchpad through its column, partition i of each slice below the diagonal is loaded from
memory (or cleared, the first time) and written back after it, and partition j is applied
after slice (N-1, j), the last that touches it. For two partitions this gives the paper's
figure 11, slices (P1, P1), (P2, P1), (P2, P2). The paper's four-partition control table
(its figure 12) is not in the text this project has; the schedule here follows the rules the
text states, and a test checks them.

Paired source runs (``paired_runs``, the hardware's two update paths): edges are stored
source by source, so one source's u updates come one after another, and each waits for the
one before in the Reduce. With ``paired_runs`` the u updates of two consecutive edges of one
source are reduced with each other first and reach VTemp[u] as one update. Over a
processing phase's edges in order (a self-loop breaks a run and makes no u update)::

    after edge j's v update:
        j pairs with j - 1 (same source, j - 1 held):  VTemp[u] ⊕= (x[j-1] ⊕ x[j])
        j - 1 held and j does not pair:                 VTemp[u'] ⊕= x[j-1]; hold j
        nothing held:                                   hold j (not a self-loop)
    after the phase's last edge: a held x[j] is reduced alone.

With ``paired_runs`` = 2 the released u updates are paired again by the same rule, over the
u updates alone (and with 3 once more: the scalar programs' pipeline, whose edges come a
cycle apart, so that a pair every two cycles still waits for the Reduce): an edge that
releases none (one held, or a self-loop) neither pairs nor releases, so a held update waits for the next u update, which
it joins (same vertex) or goes before (another). A source's run then reaches VTemp[u] in
sums of four, ((x0 ⊕ x1) ⊕ (x2 ⊕ x3)), each after the edge that completes it; after the
phase's last edge the first level's held update passes the second level, then the second
level's held one is reduced alone.

As with plain slicing (:mod:`golden.graphicionado.slicing`), VProperty is read as the
iteration started (two arrays, swapped each iteration), so the values equal those of the
directed run on the symmetric graph, except for the order of a float sum's terms.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..graph import Graph, GraphError
from ..vertex_program import Result, Setup, VertexProgram
from .slicing import slice_bounds, slice_of


__all__ = ["SliceStep", "extended_schedule", "stored_edges", "execute_symmetric"]


@dataclasses.dataclass(frozen=True)
class SliceStep:
    """One sub-iteration of extended slicing: before processing slice (``src``, ``dst``),
    the partitions of ``clear`` are set to the Reduce identity and those of ``load`` read
    from memory into the scratchpad; after it, ``store`` are written back to memory and
    ``apply`` are applied (their VTempProperty is final)."""

    src: int
    dst: int
    clear: tuple[int, ...] = ()
    load: tuple[int, ...] = ()
    store: tuple[int, ...] = ()
    apply: tuple[int, ...] = ()


def extended_schedule(partitions: int) -> list[SliceStep]:
    """The control of one iteration over ``partitions`` partitions: N(N+1)/2 steps."""
    if partitions < 1:
        raise GraphError(f"extended slicing needs at least 1 partition, got {partitions}")
    steps = []
    last = partitions - 1
    for j in range(partitions):
        for i in range(j, partitions):
            first_touch = j == 0          # partition i (and j on the diagonal) is new here
            arrive = (j,) if i == j else (i,)
            steps.append(SliceStep(
                src=i, dst=j,
                clear=arrive if first_touch else (),
                load=() if first_touch else arrive,
                store=(i,) if i != j else (),
                apply=(j,) if i == last else ()))
    return steps


def stored_edges(graph: Graph) -> np.ndarray:
    """Ids of the edges a symmetric graph keeps: ``src >= dst`` (each undirected edge once,
    from the larger id to the smaller; self-loops once)."""
    if not graph.symmetric:
        raise GraphError("the symmetric-graph optimisation needs a symmetric graph "
                         "(Graph.symmetrized())")
    return np.flatnonzero(graph.src >= graph.dst)


def execute_symmetric(program: VertexProgram, graph: Graph, setup: Setup, partitions: int = 1,
                      max_iterations: int | None = None,
                      partition_vertices: int | None = None,
                      paired_runs: int = 0) -> Result:
    """Run a full-edge ``program`` on symmetric ``graph`` reading each edge once, slice by
    slice in :func:`extended_schedule` order (``partitions`` = 1: the optimisation alone);
    ``paired_runs``: a source's u updates reduced in pairs first (1 or True), in pairs of
    pairs (2; the module's docstring), and so on.
    Partitions hold ``partition_vertices`` consecutive ids each (the last fewer), by default
    ``ceil(num_vertices / partitions)``; they must cover the graph in ``partitions``.

    Counters: those of :func:`golden.execute`, with ``edges_processed`` counting edges read
    (each stored edge once per iteration), and ``partitions``, ``vtemp_loads`` and
    ``vtemp_stores`` (vertices moved between the scratchpad and memory, over the run), and
    ``updates_reduced`` (update packets reduced into VTempProperty)."""
    if not program.all_active:
        raise GraphError(f"the symmetric-graph optimisation is for full-edge algorithms "
                         f"(pagerank, cf), not {program.name}")
    n = graph.num_vertices
    size = partition_vertices or -(-n // partitions)
    if len(slice_bounds(n, size)) - 1 != partitions:
        raise GraphError(f"{partitions} partitions of {size} vertices do not cover the "
                         f"graph's {n} vertices exactly")
    bounds = slice_bounds(n, size)
    kept = stored_edges(graph)
    part_src = slice_of(graph.src[kept], size)
    part_dst = slice_of(graph.dst[kept], size)
    steps = extended_schedule(partitions)
    vprop = np.array(setup.vprop, dtype=program.dtype, copy=True)
    counts = {"edges": [], "updates": [], "loads": 0, "stores": 0, "reduced": 0}
    iterations = 0
    while max_iterations is None or iterations < max_iterations:
        iterations += 1
        start, new = vprop, vprop.copy()
        temp = np.empty((n, *program.property_shape), dtype=program.dtype)
        changed = np.zeros(n, dtype=bool)
        edges = 0
        for step in steps:
            for p in step.clear:
                temp[bounds[p]:bounds[p + 1]] = program.identity
            counts["loads"] += sum(int(bounds[p + 1] - bounds[p]) for p in step.load)
            chosen = kept[(part_src == step.src) & (part_dst == step.dst)]
            edges += int(chosen.size)
            counts["reduced"] += _both_ends(program, graph, setup, start, temp, chosen,
                                            paired_runs)
            counts["stores"] += sum(int(bounds[p + 1] - bounds[p]) for p in step.store)
            for p in step.apply:
                low, high = bounds[p], bounds[p + 1]
                const = None if setup.vconst is None else setup.vconst[low:high]
                applied = np.asarray(program.apply(start[low:high], temp[low:high], const),
                                     dtype=program.dtype)
                differs = (applied != start[low:high]).reshape(high - low, -1).any(axis=1)
                changed[low:high] = differs
                new[low:high] = applied
        vprop = new
        counts["edges"].append(edges)
        counts["updates"].append(int(np.count_nonzero(changed)))
    return Result(values=vprop, iterations=iterations, counters={
        "edges_processed": int(sum(counts["edges"])),
        "vertex_updates": int(sum(counts["updates"])),
        "edges_per_iteration": counts["edges"],
        "updates_per_iteration": counts["updates"],
        "partitions": partitions,
        "vtemp_loads": counts["loads"],
        "vtemp_stores": counts["stores"],
        "updates_reduced": counts["reduced"],
    })


def _both_ends(program: VertexProgram, graph: Graph, setup: Setup, vprop: np.ndarray,
               temp: np.ndarray, chosen: np.ndarray, paired_runs: int = 0) -> int:
    """Reduce edge e = (u, v) into VTemp[v] and, unless a self-loop, VTemp[u], edge by
    edge in ``chosen`` order (v's update first); ``paired_runs``: the u updates paired
    (:func:`_paired_source_updates`). Returns the updates reduced."""
    u, v = graph.src[chosen], graph.dst[chosen]
    weight = None if setup.weight is None else setup.weight[chosen]
    const = setup.vconst
    to_v = program.process_edge(weight, vprop[u], None if const is None else const[u],
                                vprop[v] if program.uses_dst_property else None)
    to_u = program.process_edge(weight, vprop[v], None if const is None else const[v],
                                vprop[u] if program.uses_dst_property else None)
    keep_u = u != v
    if paired_runs:
        u, to_u, keep_u = _paired_source_updates(program, u, v, to_u)
    for _ in range(1, paired_runs):
        u, to_u, keep_u = _paired_again(program, u, to_u, keep_u)
    # Interleave so that ufunc.at applies them in edge order: v of edge 0, u of edge 0, ...
    # (paired: one more slot at the end, for the last held u update).
    count = v.size
    both = np.stack([v, u[:count]], axis=1).reshape(-1)
    results = np.stack([to_v, to_u[:count]], axis=1).reshape(-1, *to_v.shape[1:])
    keep = np.ones(both.size, dtype=bool)
    keep[1::2] = keep_u[:count]
    both, results = both[keep], results[keep]
    after = keep_u[count:]                  # updates released after the last edge
    both = np.append(both, u[count:][after])
    results = np.concatenate([results, to_u[count:][after]])
    program.reduce.at(temp, both, results)
    return int(both.size)


def _paired_source_updates(program: VertexProgram, u: np.ndarray, v: np.ndarray,
                           to_u: np.ndarray):
    """The u updates of one processing phase with a source's runs paired (the module's
    docstring): for each edge j, the u update made after its v update (vertex, value,
    whether there is one), and one more entry for the update after the last edge."""
    count = u.size
    loop = u == v
    starts = np.ones(count, dtype=bool)
    starts[1:] = (u[1:] != u[:-1]) | loop[1:] | loop[:-1]
    kept = np.flatnonzero(~loop)                     # a self-loop makes no u update
    # A pair is reduced after its second edge, a lone update after the next edge.
    return _pair_runs(program, u[kept], to_u[kept], starts[kept], kept, kept + 1, count + 1)


def _paired_again(program: VertexProgram, u: np.ndarray, to_u: np.ndarray,
                  made: np.ndarray):
    """A level of ``paired_runs`` after the first (the module's docstring), over the level
    before's output slots (``u``, ``to_u``, ``made``: one per edge and one after each level):
    the same slots and one more after them."""
    slots = u.size
    at = np.flatnonzero(made)
    vertex = u[at]
    starts = np.ones(at.size, dtype=bool)
    starts[1:] = vertex[1:] != vertex[:-1]
    # A lone update is released by the next u update, or after everything.
    return _pair_runs(program, vertex, to_u[at], starts, at, np.append(at[1:], slots),
                      slots + 1)


def _pair_runs(program: VertexProgram, vertex: np.ndarray, value: np.ndarray,
               starts: np.ndarray, place: np.ndarray, release: np.ndarray, slots: int):
    """Updates ``(vertex, value)`` in runs (each beginning where ``starts``), reduced in
    pairs: the second of a pair at its ``place`` as the pair's sum, the last of a run left
    alone at its ``release``. Returns each of ``slots`` slots' (vertex, value, made)."""
    count = vertex.size
    index = np.arange(count)
    position = index - np.maximum.accumulate(np.where(starts, index, 0))
    continues = np.zeros(count, dtype=bool)          # entry i + 1 is in i's run
    continues[:-1] = ~starts[1:]
    pairs = index[position % 2 == 1]
    singles = index[(position % 2 == 0) & ~continues]
    out_vertex = np.zeros(slots, dtype=vertex.dtype)
    out_value = np.zeros((slots, *value.shape[1:]), dtype=value.dtype)
    made = np.zeros(slots, dtype=bool)
    out_vertex[place[pairs]] = vertex[pairs]
    out_value[place[pairs]] = program.reduce(value[pairs - 1], value[pairs])
    made[place[pairs]] = True
    out_vertex[release[singles]] = vertex[singles]
    out_value[release[singles]] = value[singles]
    made[release[singles]] = True
    return out_vertex, out_value, made
