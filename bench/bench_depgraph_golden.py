"""DepGraph golden model against the synchronous baseline: vertex updates, edges, shortcuts.

Runs PageRank and SSSP on a Kronecker and an R-MAT graph (scale 16, edge factor 16 by
default) with the synchronous frontier baseline (Ligra-o style) and with DepGraph's engines
(4 by default) with the hub index on and off; for SSSP also with walks restricted to
in-degree-1 vertices (``walk_max_indegree=1``, PageRank's default).  SSSP uses uint32 weights
drawn from 1..255 (``--weights``): on an unweighted graph SSSP is BFS, where the synchronous
frontier already updates every vertex exactly once.  SSSP starts at the vertex of highest
out-degree; PageRank runs to ``--tolerance``.  Prints a table and writes the JSON report
(``build/bench/depgraph_golden.json`` by default).  The paper (Zhang et al., HPCA 2021,
figure 10) reports 61.4-82.2% fewer updates than Ligra-o on 64 cores and real graphs.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from golden.depgraph import run_depgraph, run_sync_baseline  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "depgraph_golden.json"


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engines", type=int, default=4)
    parser.add_argument("--stack-depth", type=int, default=10)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--weights", default="uniform:1:255")
    parser.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON))
    args = parser.parse_args()

    graphs = {
        "kron": golden.kronecker(args.scale, args.edge_factor, seed=args.seed,
                                 weights=args.weights),
        "rmat": golden.rmat(args.scale, args.edge_factor, seed=args.seed, weights=args.weights),
    }
    rows = []
    for gname, graph in graphs.items():
        root = int(np.argmax(graph.out_degree))
        for algo in ("pagerank", "sssp"):
            kw = {"root": root} if algo == "sssp" else {"tolerance": args.tolerance}
            sync, seconds = timed(lambda: run_sync_baseline(algo, graph, **kw))
            base = sync.counters.vertex_updates
            rows.append(_row(gname, graph, algo, "sync baseline", sync, seconds, base, None))
            variants = [("depgraph hub index", {"hub_index": True}),
                        ("depgraph no hub index", {"hub_index": False})]
            if algo == "sssp":
                variants.append(("depgraph chain walks", {"walk_max_indegree": 1}))
            for label, extra in variants:
                dep, seconds = timed(lambda: run_depgraph(
                    algo, graph, engines=args.engines, stack_depth=args.stack_depth,
                    seed=args.seed, **kw, **extra))
                rows.append(_row(gname, graph, algo, label, dep, seconds, base, sync))

    header = (f"{'graph':<6} {'algo':<9} {'run':<22} {'updates':>10} {'reduct':>7} "
              f"{'edges':>11} {'shortcut':>8} {'overflow':>8} {'index%':>7} {'agree':>8} "
              f"{'seconds':>8}")
    print(f"scale {args.scale}, edge factor {args.edge_factor}, seed {args.seed}, "
          f"{args.engines} engines, stack depth {args.stack_depth}, "
          f"PageRank tolerance {args.tolerance:g}, SSSP weights {args.weights}")
    print(header)
    for r in rows:
        reduct = "" if r["reduction_pct"] is None else f"{r['reduction_pct']:.1f}%"
        index = "" if r["index_share_pct"] is None else f"{r['index_share_pct']:.2f}"
        print(f"{r['graph']:<6} {r['algo']:<9} {r['run']:<22} {r['vertex_updates']:>10} "
              f"{reduct:>7} {r['edges_fetched']:>11} {r['shortcut_uses']:>8} "
              f"{r['stack_overflows']:>8} {index:>7} {r['agreement']:>8} {r['seconds']:>8.2f}")
    report = base_report("bench", "depgraph-golden", None)
    report["configuration"] = {"scale": args.scale, "edge_factor": args.edge_factor,
                               "seed": args.seed, "engines": args.engines,
                               "stack_depth": args.stack_depth, "tolerance": args.tolerance,
                               "weights": args.weights, "lam": 0.005, "beta": 0.001}
    report["figures"] = rows
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, report)
    print(f"report: {path}")


def _row(gname, graph, algo, label, result, seconds, base, sync) -> dict:
    c = result.counters
    row = {"graph": gname, "graph_name": graph.name, "vertices": graph.num_vertices,
           "edges": graph.num_edges, "algo": algo, "run": label,
           "vertex_updates": c.vertex_updates,
           "reduction_pct": None if sync is None else 100.0 * (1 - c.vertex_updates / base),
           "edges_fetched": c.edges_fetched, "shortcut_uses": c.shortcut_uses,
           "stack_overflows": c.stack_overflows, "queue_pushes": c.queue_pushes,
           "pseudo_edges": c.pseudo_edges, "rounds": c.rounds, "converged": result.converged,
           "index_share_pct": None, "seconds": seconds, "agreement": "-"}
    if sync is not None:
        stats = result.hub_stats
        row.update(index_share_pct=100.0 * stats.index_share, index_bytes=stats.index_bytes,
                   graph_bytes=stats.graph_bytes, hubs=stats.num_hubs,
                   hpp_vertices=stats.hpp_vertices, core_paths=stats.core_paths,
                   index_entries=stats.index_entries,
                   entries_available=stats.entries_available)
        if algo == "pagerank":
            diff = float(np.abs(result.states - sync.states).max())
            row["max_abs_diff"] = diff
            row["agreement"] = f"{diff:.1e}"
        else:
            row["agreement"] = "equal" if np.array_equal(result.states, sync.states) else "DIFFER"
    return row


if __name__ == "__main__":
    main()
