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

CF (float32 feature vectors) follows the same three cases; with several source streams its
bound is per feature, :func:`cf_bound`, since CF's sums mix signs and a relative bound
would not hold.
"""

import dataclasses

import numpy as np

import golden
from golden.programs import golden_program, run_program
from hw.graphicionado.algorithms import algorithm_of


__all__ = ["Expected", "expected_values", "pagerank_bound", "cf_bound"]

UNIT_ROUNDOFF = 2.0 ** -24


@dataclasses.dataclass
class Expected:
    values: np.ndarray              # the golden model's VProperty, in vertex order
    iterations: int
    edges_processed: int
    comparison: str                 # "exact" or "within <relative bound>"
    relative_bound: float = 0.0
    absolute_bound: np.ndarray | None = None    # CF: per vertex and feature
    updates: int | None = None      # updates reduced, where the golden model fixes them


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
                    streams_dst: int, cf: dict | None = None, symmetric: bool = False,
                    partition_vertices: int | None = None,
                    params: dict | None = None, paired_runs: bool = False,
                    edge_readers: int = 1) -> Expected:
    """The golden model's result for ``graph`` (as given: CC symmetrizes it itself);
    ``cf``: CF's parameters (``golden.cf_program``'s); ``symmetric``: the pipeline reads
    each undirected edge once (§IV.D), in extended slices of ``partition_vertices`` (§VI.B;
    None: unsliced), with ``paired_runs`` a source's u updates paired first (two update
    paths); ``params``: the program's parameters (others: their defaults); ``edge_readers``:
    a source stream's parallel edge readers (§V.B), which interleave a source's edges at a
    destination stream by timing."""
    if algo == "cf":
        if symmetric:
            return _expected_cf_symmetric(graph, iters, streams_src * edge_readers,
                                          streams_dst, cf or {}, partition_vertices,
                                          paired_runs)
        return _expected_cf(graph, iters, streams_src, streams_dst, cf or {})
    program = algorithm_of(algo).program
    params = params or {}
    if symmetric:
        return _expected_symmetric(program, graph, iters,
                                   max(streams_src, streams_dst) * edge_readers, params,
                                   paired_runs)
    reference = run_program(program, graph, root=root, iters=iters, **params)
    values = np.asarray(reference.values)
    edges = reference.counters["edges_processed"]
    partitions = max(streams_src, streams_dst)
    if not algorithm_of(algo).floating_point or partitions == 1:
        return Expected(values, reference.iterations, edges, "exact")
    if streams_src == 1:
        new_id = _partition_order(graph.num_vertices, partitions)
        renumbered = golden.Graph.from_edges(graph.num_vertices, new_id[graph.src],
                                             new_id[graph.dst], graph.weight)
        renumbered_root = None if root is None else int(new_id[root])
        values = np.asarray(run_program(program, renumbered, root=renumbered_root,
                                        iters=iters, **params).values)[new_id]
        return Expected(values, reference.iterations, edges, "exact (partition order)")
    bound = pagerank_bound(graph, reference.iterations)
    return Expected(values, reference.iterations, edges, f"within {bound:.3g} relative",
                    bound)


def _expected_symmetric(program, graph, iters, inputs, params, paired_runs) -> Expected:
    """The symmetric-graph optimisation (§IV.D) of a scalar full-edge program (PageRank):
    with one stream each and one edge reader (``inputs`` = 1),
    :func:`golden.graphicionado.execute_symmetric`'s order exactly; with more, the crossbar
    and the update network interleave the updates by timing, so each vertex's sum is the
    directed run's terms in another order, within :func:`pagerank_bound`."""
    from golden.graphicionado import execute_symmetric
    golden_form, setup = golden_program(program, graph, None, params)
    iters = program.iterations if iters is None else iters
    from hw.graphicionado.symmetric_process_edge import PAIRING_LEVELS
    result = execute_symmetric(golden_form, graph, setup, 1, iters,
                               paired_runs=PAIRING_LEVELS if paired_runs else 0)
    edges = result.counters["edges_processed"]
    if inputs == 1:
        return Expected(result.values, result.iterations, edges, "exact (symmetric)",
                        updates=result.counters["updates_reduced"])
    bound = pagerank_bound(graph, result.iterations)
    return Expected(result.values, result.iterations, edges, f"within {bound:.3g} relative",
                    bound)


def _expected_cf(graph, iters, streams_src, streams_dst, params) -> Expected:
    from golden.algorithms import CF_DEFAULTS
    params = {**CF_DEFAULTS, **params}
    iters = 10 if iters is None else iters
    program = golden.cf_program(**params)
    setup = program.init(graph)
    reference = golden.execute(program, graph, setup, iters)
    edges = reference.counters["edges_processed"]
    partitions = max(streams_src, streams_dst)
    if partitions == 1:
        return Expected(reference.values, reference.iterations, edges, "exact")
    if streams_src == 1:
        new_id = _partition_order(graph.num_vertices, partitions)
        renumbered = golden.Graph.from_edges(graph.num_vertices, new_id[graph.src],
                                             new_id[graph.dst], graph.weight)
        moved = program.init(renumbered)
        moved.vprop[new_id] = setup.vprop
        values = golden.execute(program, renumbered, moved, iters).values[new_id]
        return Expected(values, reference.iterations, edges, "exact (partition order)")
    bound = cf_bound(graph, program, setup, iters, params["gamma"], params["lam"])
    return Expected(reference.values, reference.iterations, edges,
                    f"within a per-feature bound (largest {bound.max():.3g})",
                    absolute_bound=bound)


def _expected_cf_symmetric(graph, iters, streams_src, streams_dst, params,
                           partition_vertices=None, paired_runs=False) -> Expected:
    """The symmetric-graph optimisation (§IV.D): with one stream each, v's then u's update of
    each stored edge in edge order, slice by slice with extended slicing (§VI.B),
    :func:`golden.graphicionado.execute_symmetric`'s order.
    With more, the update network interleaves them by timing: the directed golden model on
    the same graph, within :func:`cf_bound` (each end's update has the same bits as the
    directed edge's, err and its products being symmetric in u and v, so only the Reduce
    order differs)."""
    from golden.algorithms import CF_DEFAULTS
    from golden.graphicionado import execute_symmetric
    params = {**CF_DEFAULTS, **params}
    iters = 10 if iters is None else iters
    program = golden.cf_program(**params)
    setup = program.init(graph)
    size = partition_vertices or graph.num_vertices
    partitions = max(1, -(-graph.num_vertices // size))
    symmetric = execute_symmetric(program, graph, setup, partitions, iters,
                                  partition_vertices=size, paired_runs=paired_runs)
    edges = symmetric.counters["edges_processed"]
    if max(streams_src, streams_dst) == 1:
        return Expected(symmetric.values, symmetric.iterations, edges, "exact (symmetric)",
                        updates=symmetric.counters["updates_reduced"])
    reference = golden.execute(program, graph, setup, iters)
    bound = cf_bound(graph, program, setup, iters, params["gamma"], params["lam"])
    return Expected(reference.values, reference.iterations, edges,
                    f"within a per-feature bound (largest {bound.max():.3g})",
                    absolute_bound=bound)


def cf_bound(graph: golden.Graph, program, setup, iterations: int, gamma: float,
             lam: float) -> np.ndarray:
    """How far a CF run whose destinations reduce their updates in another order may lie
    from the golden model, per vertex and feature, after ``iterations``.

    The two runs make the same operations in the same order except the Reduce sums, so
    their results differ by what those sums' orders change and what that difference does
    downstream. With u = 2⁻²⁴, E the bound on a feature's difference so far, and every
    magnitude taken with its own difference added (P = |p| + E, so products of two
    differences are counted, not dropped), along the golden model's trajectory:

    * products x_k = p[a]_k·p[b]_k: Δx = P[a] E[b] + P[b] E[a], and each run's rounding,
      u(2|x| + Δx);
    * the dot product, a tree of depth log2(K) over the same x in each run: Σ Δx plus each
      run's rounding, log2(K)·u·(2Σ|x| + ΣΔx);
    * err = rating − dot: Δdot + u(2|err| + Δdot);
    * res_k = err·p[a]_k: |err| E[a] + P[a] Δerr, plus u(2|res| + that);
    * temp[b] over b's d in-edges, each order's sum within (d − 1)u of the exact one:
      Σ Δres + d·u·(2Σ|res| + ΣΔres);
    * Apply p + γ(temp − λp), four roundings in each run: E + γ(Δtemp + λE), plus
      8u·(P + γ(|temp| + Δtemp) + γλP).

    Terms of order u² (the rounding of a rounding error) are left out; they are below the
    float64 arithmetic that evaluates the bound."""
    u = 2.0 ** -24
    n = graph.num_vertices
    K = setup.vprop.shape[1]
    depth = max(1, (K - 1).bit_length())
    gamma, lam = float(np.float32(gamma)), float(np.float32(lam))
    a, b = graph.src, graph.dst
    rating = setup.weight.astype(np.float64)
    degree = np.bincount(b, minlength=n).astype(np.float64)[:, None]
    p32 = np.array(setup.vprop, dtype=np.float32)
    bound = np.zeros((n, K))
    for _ in range(iterations):
        p = p32.astype(np.float64)
        big = np.abs(p) + bound
        x = p[a] * p[b]
        d_x = big[a] * bound[b] + big[b] * bound[a]
        d_x += u * (2 * np.abs(x) + d_x)
        dot_abs, d_sum = np.abs(x).sum(axis=1), d_x.sum(axis=1)
        d_dot = d_sum + depth * u * (2 * dot_abs + d_sum)
        err = rating - x.sum(axis=1)
        d_err = d_dot + u * (2 * np.abs(err) + d_dot)
        res = err[:, None] * p[a]
        d_res = np.abs(err)[:, None] * bound[a] + big[a] * d_err[:, None]
        d_res += u * (2 * np.abs(res) + d_res)
        temp, temp_abs, d_temp = np.zeros((n, K)), np.zeros((n, K)), np.zeros((n, K))
        np.add.at(temp, b, res)
        np.add.at(temp_abs, b, np.abs(res))
        np.add.at(d_temp, b, d_res)
        d_temp += degree * u * (2 * temp_abs + d_temp)
        bound = bound + gamma * (d_temp + lam * bound) + \
            8 * u * (big + gamma * (np.abs(temp) + d_temp) + gamma * lam * big)
        p32 = np.asarray(program.apply(p32, temp.astype(np.float32), None), np.float32)
    return bound
