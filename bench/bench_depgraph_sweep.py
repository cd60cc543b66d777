"""DepGraph in RTL simulation: the sweep its defaults are chosen from (issue 55 item 1).

Each named configuration (walks in flight, stack lines, kept lines; every other parameter at
its default; ``defaults``: the design's defaults) runs every algorithm on every graph kind at
DRAM latency 100 and 64 B/cycle, with each of ``--engines`` n engines, beside the
Graphicionado pipeline with n source and n destination streams on the same graph and memory.
SSSP (and BFS, ``--algos``) starts at the vertex of highest out-degree; CC (``--algos``)
runs on the symmetrized graph; PageRank runs to ``--tolerance``
(Graphicionado as many iterations as the synchronous baseline needs for it). One Verilator
build serves every graph of a configuration, algorithm and n, so the builds go to
``--workers`` processes such a group at a time. ``--configs defaults --engines 2,4 --graphs
rmat12,rmat14-ef16,kron12,kron14-ef16,grid64`` is the table of item 2 (issue 55) at the
defaults. Every run is checked against its golden model. Prints one row a run and writes the
JSON report.
"""

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from bench_depgraph_rtl import (MEMORY, depgraph, graphicionado,  # noqa: E402
                                pagerank_iterations, pow2)
from golden.depgraph.hubs import partition_bounds  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.depgraph.config import DepGraphConfig  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / \
    "depgraph-sweep.json"
W = "weights=uniform:1:255"
GRAPHS = {
    "rmat12": f"rmat:scale=12,ef=8,seed=1,{W}",
    "kron12": f"kron:scale=12,ef=8,seed=1,{W}",
    "grid64": f"grid:rows=64,cols=64,seed=1,{W}",
    "scalefree4k": f"scalefree:n=4096,seed=1,{W}",
    "rmat12-narrow": "rmat:scale=12,ef=8,seed=1,weights=uniform:1:4",
    "rmat14-ef16": f"rmat:scale=14,ef=16,seed=1,{W}",
    "kron14-ef16": f"kron:scale=14,ef=16,seed=1,{W}",
    "road4k": f"road:n=4096,seed=1,{W}",
    **{name: f"networkx:name={name},{W}" for name in golden.NETWORKX_GRAPHS},
}
# The sweep's graphs by default; the others for the table at the defaults (issue 55 item 2)
# and the real graphs networkx ships (tens of vertices: a run is mostly its fixed costs).
SWEEP_GRAPHS = ("rmat12", "kron12", "grid64", "scalefree4k", "road4k", "rmat12-narrow")
CONFIGS = {
    "defaults": {},
    "w16-stack-k4": {"walks": 16, "stack_lines": True, "kept_lines": 4},
    "w16-k4": {"walks": 16, "stack_lines": False, "kept_lines": 4},
    "w16-stack-k2": {"walks": 16, "stack_lines": True, "kept_lines": 2},
    "w8-stack-k4": {"walks": 8, "stack_lines": True, "kept_lines": 4},
    "leave0": {"leave_max_edges": 0},
    "window0": {"update_window": 0},
    "window8": {"update_window": 8},
    "fifo16": {"edge_fifo_depth": 16},
    "fifo64": {"edge_fifo_depth": 64},
    # The smallest bank that holds the largest partition (and a circular queue of a
    # sixteenth of it), against the default's 8,192 records.
    "bank-fit": {"bank_vertices": "fit"},
}


def graphs_of(algo, graphs, large_pagerank):
    """The graphs an algorithm runs on: weights only matter to SSSP, and PageRank on the
    scale-14 graphs (3-15 minutes of simulation a run) only with ``--pagerank-large``."""
    return {k: spec for k, spec in graphs.items()
            if algo == "sssp" or not (k.endswith("-narrow") or
                                      (k.endswith("14-ef16") and not large_pagerank))}


def _root(algo, graph):
    return int(np.argmax(graph.out_degree)) if algo in ("sssp", "bfs") else None


def depgraph_group(name, settings, algo, engines, graphs, tolerance):
    """Every graph on one configuration and algorithm (one build)."""
    rows = []
    for kind, spec in graphs.items():
        graph = golden.load_graph(spec)
        # A bank holds the largest partition (balanced by edges, so it can pass n / engines).
        largest = int(np.diff(partition_bounds(graph, engines)).max())
        bank = max(DepGraphConfig().bank_vertices, pow2(largest))
        if settings.get("bank_vertices") == "fit":
            bank = max(16, pow2(largest))
        row = depgraph(graph, algo, _root(algo, graph), tolerance, engines=engines,
                       **{**settings, "bank_vertices": bank})
        rows.append({**row, "config": name, "engines": engines, "graph": kind})
        _print(rows[-1])
    return rows


def graphicionado_group(algo, engines, graphs, tolerance):
    rows = []
    for kind, spec in graphs.items():
        graph = golden.load_graph(spec)
        iters = pagerank_iterations(graph, tolerance) if algo == "pagerank" else None
        row = graphicionado(graph, algo, _root(algo, graph), iters, engines)
        rows.append({**row, "config": f"{engines}x{engines}", "engines": engines,
                     "graph": kind})
        _print(rows[-1])
    return rows


def _print(row):
    extra = ""
    if row["design"] == "depgraph":
        sent = row["edges"]
        extra = (f" scan {row['scanned_edges']:>7,} (from memory {row['scan_read_edges']:>6,};"
                 f" {(sent + row['scan_read_edges']) / sent:.2f} reads an edge)"
                 f" stale {row['stale_visits']:>5,} load {row['phase_cycles']['load']:>6,}"
                 f" write {row['phase_cycles']['write']:>6,}")
    print(f"{row['design']:<13} {row['config']:<13} n={row['engines']} "
          f"{row['algo']:<8} {row['graph']:<13} "
          f"{row['cycles']:>10,} cycles {row['vertex_updates']:>8,} updates "
          f"{row['edges']:>9,} edges{extra} ({row['wall_seconds']:.0f} s)", flush=True)


def _table(rows):
    base = {(r["engines"], r["algo"], r["graph"]): r["cycles"] for r in rows
            if r["design"] == "graphicionado"}
    print("\nGraphicionado n x n cycles / DepGraph n engines' cycles:")
    configs = sorted({r["config"] for r in rows if r["design"] == "depgraph"})
    keys = sorted({(r["engines"], r["algo"], r["graph"]) for r in rows
                   if r["design"] == "depgraph"})
    print(f"{'n':<3}{'algo':<9}{'graph':<15}" + "".join(f"{c:>15}" for c in configs))
    cell = {(r["config"], r["engines"], r["algo"], r["graph"]): r["cycles"] for r in rows
            if r["design"] == "depgraph"}
    for n, algo, kind in keys:
        line = f"{n:<3}{algo:<9}{kind:<15}"
        for c in configs:
            cycles = cell.get((c, n, algo, kind))
            ratio = base.get((n, algo, kind))
            line += f"{ratio / cycles:>15.2f}" if cycles and ratio else f"{'-':>15}"
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="4", help="comma-separated engine counts n")
    parser.add_argument("--algos", default="sssp,pagerank")
    parser.add_argument("--configs", default=",".join(c for c in CONFIGS if c != "defaults"),
                        help=f"comma-separated, of {', '.join(CONFIGS)}")
    parser.add_argument("--graphs", default=",".join(SWEEP_GRAPHS),
                        help=f"comma-separated, of {', '.join(GRAPHS)}")
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pagerank-large", action="store_true",
                        help="PageRank on the scale-14 graphs too (minutes a run)")
    parser.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON))
    args = parser.parse_args()
    algos = [a for a in args.algos.split(",") if a]
    configs = [c for c in args.configs.split(",") if c]
    kinds = [g for g in args.graphs.split(",") if g]
    for what, chosen, known in (("--algos", algos, ("sssp", "pagerank", "bfs", "cc")),
                                ("--configs", configs, CONFIGS), ("--graphs", kinds, GRAPHS)):
        if not chosen or any(c not in known for c in chosen):
            parser.error(f"{what}: of {', '.join(known)}, not {chosen!r}")
    graphs = {k: GRAPHS[k] for k in kinds}
    try:
        counts = [int(n) for n in args.engines.split(",") if n]
    except ValueError:
        parser.error(f"--engines: comma-separated integers, not {args.engines!r}")
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        on = {algo: graphs_of(algo, graphs, args.pagerank_large) for algo in algos}
        jobs = [pool.submit(graphicionado_group, algo, n, on[algo], args.tolerance)
                for n in counts for algo in algos]
        jobs += [pool.submit(depgraph_group, c, CONFIGS[c], algo, n, on[algo], args.tolerance)
                 for c in configs for n in counts for algo in algos]
        rows = [row for job in jobs for row in job.result()]
    _table(rows)
    report = base_report("bench", "depgraph-sweep", None)
    report.update({"engines": counts, "graphs": graphs,
                   "configs": {c: CONFIGS[c] for c in configs}, "tolerance": args.tolerance,
                   "memory": MEMORY.as_dict(), "runs": rows})
    write_json(Path(args.json), report)


if __name__ == "__main__":
    main()
