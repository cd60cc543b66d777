"""The symmetric-graph optimisation (Graphicionado §IV.D) measured in RTL simulation: CF with
K = 32 features on an undirected bipartite rating graph and on an undirected Kronecker
graph, read as every directed edge (the plain pipeline), as each undirected edge once with
both updates through one update path (``update_paths=1``), and with the paper's duplicated
P5–P9 (``update_paths=2``, the default), in one run, on the same graph, memory and streams;
then PageRank on the same graphs, directed against symmetric with both paths (its
destinations' VProperty and VConst kept on chip; one path is not built for it).

Reported per configuration: edges read, memory lines read, cycles (total and processing),
updates reduced, edges of the undirected graph's directed form served per total and per
processing cycle, and the cycles against the directed run's. Every run is checked against
the golden model (the symmetric ones against the golden symmetric executor, bit for bit
with one stream each).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from bench.bench_graphicionado_cf import rating_graph_arguments, run, write_report  # noqa: E402

MODES = {"directed": {}, "symmetric-1path": dict(symmetric=True, update_paths=1),
         "symmetric-2paths": dict(symmetric=True, update_paths=2)}
SCALAR_MODES = {"directed": {}, "symmetric-2paths": dict(symmetric=True, update_paths=2)}


def measure(graph, streams_list, iters, algo="cf") -> dict:
    """Every mode at every stream count on ``graph``, printed as they finish."""
    n, edges = graph.num_vertices, graph.num_edges
    what = "K = 32" if algo == "cf" else algo
    print(f"{graph.name}: {n} vertices, {edges} directed edges; {what}; {iters} "
          f"iteration(s); latency 100, 64 B/cycle per stream")
    print(f"{'streams':>7} {'mode':>16} {'edges read':>10} {'lines read':>10} "
          f"{'cycles':>9} {'process':>9} {'updates':>8} {'dir.e/cyc':>9} "
          f"{'dir.e/proc':>10} {'/directed':>9}")
    rows = {}
    for streams in streams_list:
        size = -(-n // (16 * streams)) * 16 * streams
        directed = None
        for mode, options in (MODES if algo == "cf" else SCALAR_MODES).items():
            f = run(graph, streams, iters=iters, max_vertices=size, algo=algo, **options)
            process = f["phase_cycles"]["process"]
            served = iters * edges         # directed edges' updates made
            f["directed_edges_per_cycle"] = served / f["cycles"]
            f["directed_edges_per_process_cycle"] = served / process
            directed = directed or f["cycles"]
            f["cycles_over_directed"] = f["cycles"] / directed
            rows[f"{streams}x{streams}-{mode}"] = f
            print(f"{streams:>7} {mode:>16} {f['edges_traversed']:>10} "
                  f"{f['memory']['reads']:>10} {f['cycles']:>9} {process:>9} "
                  f"{f['updates']:>8} {f['directed_edges_per_cycle']:>9.4f} "
                  f"{f['directed_edges_per_process_cycle']:>10.4f} "
                  f"{f['cycles_over_directed']:>9.3f}", flush=True)
    return rows


def main():
    args, spec, graph = rating_graph_arguments(__doc__.splitlines()[0], kron=True,
                                               algos=True)
    streams = list(map(int, args.streams.split(",")))
    kron = golden.from_spec(args.kron)
    graphs = (("ratings", graph), ("kronecker", kron))
    runs = {algo: {name: measure(g, streams, args.iters, algo) for name, g in graphs}
            for algo in args.algos.split(",")}
    write_report(args.json, spec, graph, runs.get("cf", {}).get("ratings", {}),
                 kronecker={"spec": args.kron, "num_vertices": kron.num_vertices,
                            "num_edges": kron.num_edges,
                            "runs": runs.get("cf", {}).get("kronecker", {})},
                 pagerank=runs.get("pagerank", {}))


if __name__ == "__main__":
    main()
