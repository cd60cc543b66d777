"""Speed of the NumPy golden models on a Graph500-sized input.

Times (time.perf_counter, wall clock) the generation of a Kronecker graph (scale 20,
edge factor 16 by default), one full BFS from the vertex of highest out-degree, one
PageRank iteration, and writing and reading the graph as an edge-list file.  Goals on the
2-core development machine: BFS within 5 s and one PageRank iteration within 2 s.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402

GOALS = {"bfs": 5.0, "pagerank_iteration": 2.0}


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-io", action="store_true", help="skip the file write/read timing")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()

    rows = []
    graph, seconds = timed(lambda: golden.kronecker(args.scale, args.edge_factor, seed=args.seed))
    rows.append({"step": "generate", "seconds": seconds, "edges": graph.num_edges,
                 "detail": f"kron scale {args.scale} ef {args.edge_factor}: "
                           f"{graph.num_vertices} vertices, {graph.num_edges} edges"})

    _, seconds = timed(lambda: graph.offsets)
    rows.append({"step": "csr offsets", "seconds": seconds, "edges": graph.num_edges,
                 "detail": "EdgeIDTable / CSR built once per graph"})

    root = int(np.argmax(graph.out_degree))
    bfs, seconds = timed(lambda: golden.run("bfs", graph, root=root))
    reached = int(np.count_nonzero(bfs.values != golden.UNREACHED))
    edges = bfs.counters["edges_processed"]
    rows.append({"step": "bfs", "seconds": seconds, "edges": edges,
                 "detail": f"root {root}: {bfs.iterations} iterations, {reached} reached, "
                           f"{edges / seconds / 1e6:.1f} M edges/s"})

    pagerank, seconds = timed(lambda: golden.run("pagerank", graph, iters=1))
    rows.append({"step": "pagerank_iteration", "seconds": seconds, "edges": graph.num_edges,
                 "detail": f"{graph.num_edges / seconds / 1e6:.1f} M edges/s"})

    if not args.no_io:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "kron.txt"
            _, seconds = timed(lambda: golden.write_graph(graph, path))
            size = path.stat().st_size
            rows.append({"step": "write edge list", "seconds": seconds, "edges": graph.num_edges,
                         "detail": f"{size / 1e6:.0f} MB"})
            back, seconds = timed(lambda: golden.read_graph(path))
            assert back == graph, "edge list did not read back identically"
            rows.append({"step": "read edge list", "seconds": seconds, "edges": graph.num_edges,
                         "detail": f"{size / 1e6 / seconds:.0f} MB/s"})

    print(f"{'step':<20} {'seconds':>8} {'goal':>6}  detail")
    for row in rows:
        goal = GOALS.get(row["step"])
        row["goal_seconds"] = goal
        row["meets_goal"] = None if goal is None else row["seconds"] <= goal
        mark = "" if goal is None else f"{goal:>5.1f}{'' if row['meets_goal'] else '!'}"
        print(f"{row['step']:<20} {row['seconds']:>8.3f} {mark:>6}  {row['detail']}")
    if args.json:
        report = base_report("bench", "golden", None)
        report["configuration"] = {"generator": "kron", "scale": args.scale,
                                   "edge_factor": args.edge_factor, "seed": args.seed}
        report["figures"] = rows
        write_json(Path(args.json), report)


if __name__ == "__main__":
    main()
