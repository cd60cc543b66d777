"""What a Graphicionado run's result must equal: the golden model's, in the order of
operations the configuration fixes.

Integers (BFS, SSSP, CC) are exact in any order. PageRank sums float32 contributions, so its
bits depend on the order each destination's contributions arrive in:

* one source stream and one destination stream: edge-id order, the golden model's own;
* one source stream and m > 1 destination streams: the source stream walks its partitions
  one after another (vertices 0, L, 2L, ..., then 1, L + 1, ...), and the crossbar keeps
  each source's order per destination. The golden model run on the graph with its vertices
  renumbered in that order gives the same sums bit for bit;
* n > 1 source streams: the streams' edges interleave at each destination in an order set
  by timing. The result must then lie within :func:`pagerank_bound` of the golden model.
"""

import dataclasses

import numpy as np

import golden


__all__ = ["Expected", "expected_values", "pagerank_bound"]

UNIT_ROUNDOFF = 2.0 ** -24


@dataclasses.dataclass
class Expected:
    values: np.ndarray              # the golden model's VProperty, in vertex order
    iterations: int
    edges_processed: int
    comparison: str                 # "exact" or "within <relative bound>"
    relative_bound: float = 0.0


def pagerank_bound(graph: golden.Graph, iterations: int) -> float:
    """Relative distance allowed between two PageRank runs that sum each vertex's
    contributions in different orders.

    Summing k positive float32 terms in any order errs by at most (k - 1)·u·Σ|terms|
    (u = 2⁻²⁴), so two orders differ by at most 2(k - 1)·u relative to the sum; each rank's
    own relative error carries into its contributions unchanged (multiplying by 1/outdeg),
    and Apply, 0.15 + 0.85·temp with both terms positive, does not magnify a relative
    error. Two more roundings per iteration (the multiplications and Apply's add, each up
    to u on either side) give, after T iterations and with k the largest in-degree,
    T·(2(k - 1) + 4)·u."""
    k = int(graph.in_degree.max()) if graph.num_edges else 1
    return iterations * (2 * (k - 1) + 4) * UNIT_ROUNDOFF


def _partition_order(num_vertices: int, partitions: int) -> np.ndarray:
    """The new id of each vertex when numbered partition by partition."""
    v = np.arange(num_vertices)
    sizes = np.array([len(range(p, num_vertices, partitions)) for p in range(partitions)])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return starts[v % partitions] + v // partitions


def expected_values(graph: golden.Graph, algo: str, *, root, iters, streams_src: int,
                    streams_dst: int) -> Expected:
    """The golden model's result for ``graph`` (as given: CC symmetrizes it itself)."""
    reference = golden.run(algo, graph, root=root, iters=iters)
    values = np.asarray(reference.values)
    edges = reference.counters["edges_processed"]
    partitions = max(streams_src, streams_dst)
    if algo != "pagerank" or partitions == 1:
        return Expected(values, reference.iterations, edges, "exact")
    if streams_src == 1:
        new_id = _partition_order(graph.num_vertices, partitions)
        renumbered = golden.Graph.from_edges(graph.num_vertices, new_id[graph.src],
                                             new_id[graph.dst], graph.weight)
        values = np.asarray(golden.run(algo, renumbered, iters=iters).values)[new_id]
        return Expected(values, reference.iterations, edges, "exact (partition order)")
    bound = pagerank_bound(graph, reference.iterations)
    return Expected(values, reference.iterations, edges, f"within {bound:.3g} relative",
                    bound)
