"""The symmetric-graph optimisation (Graphicionado §IV.D) measured in RTL simulation: CF with
K = 32 features on an undirected bipartite rating graph, read as every directed edge
(the plain pipeline) and as each undirected edge once updating both ends, in one run, on the
same graph, memory and streams.

Reported per configuration: edges read, memory lines read, cycles (total and processing),
updates reduced, and edges of the undirected graph's directed form served per total and per
processing cycle. Both runs are checked against the golden model (the symmetric one against
the golden symmetric executor, bit for bit with one stream each).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_graphicionado_cf import rating_graph_arguments, run, write_report  # noqa: E402


def main():
    args, spec, graph = rating_graph_arguments(__doc__.splitlines()[0])
    n, edges = graph.num_vertices, graph.num_edges
    print(f"{spec}: {n} vertices, {edges} directed edges ({edges // 2} undirected); K = 32; "
          f"{args.iters} iteration(s); latency 100, 64 B/cycle per stream")
    print(f"{'streams':>7} {'mode':>9} {'edges read':>10} {'lines read':>10} "
          f"{'cycles':>9} {'process':>9} {'updates':>8} {'dir.e/cyc':>9} {'dir.e/proc':>10}")
    rows = {}
    for streams in map(int, args.streams.split(",")):
        size = -(-n // (16 * streams)) * 16 * streams
        for symmetric in (False, True):
            f = run(graph, streams, iters=args.iters, max_vertices=size, symmetric=symmetric)
            process = f["phase_cycles"]["process"]
            served = args.iters * edges         # directed edges' updates made
            f["directed_edges_per_cycle"] = served / f["cycles"]
            f["directed_edges_per_process_cycle"] = served / process
            mode = "symmetric" if symmetric else "directed"
            rows[f"{streams}x{streams}-{mode}"] = f
            print(f"{streams:>7} {mode:>9} {f['edges_traversed']:>10} "
                  f"{f['memory']['reads']:>10} {f['cycles']:>9} {process:>9} "
                  f"{f['updates']:>8} "
                  f"{f['directed_edges_per_cycle']:>9.4f} "
                  f"{f['directed_edges_per_process_cycle']:>10.4f}")
    write_report(args.json, spec, graph, rows)


if __name__ == "__main__":
    main()
