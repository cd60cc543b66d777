"""DepGraph's update reduction per graph kind, against the paper's baseline and ours.

For each graph kind (``--graph`` adds any file or generator spec, a Matrix Market file
included) and for SSSP and PageRank, in one run on the same graph, the vertex updates of:

* ``sync`` -- the bulk-synchronous frontier push (:func:`golden.depgraph.run_sync_baseline`);
* ``ligra-o T`` -- the paper's baseline, asynchronous frontier push with T threads
  (:func:`golden.depgraph.run_ligra_baseline`; T = 1 is the paper's serial execution);
* ``depgraph`` -- the engines with and without the hub index, and with several walks in
  flight (:func:`golden.depgraph.run_depgraph`).

The reduction is DepGraph's against Ligra-o with as many threads as the paper's cores
(``--threads``, 64). The graph line gives vertices, edges, the hop levels from the SSSP root
(a lower bound of the diameter) and the hub figures. DepGraph (Zhang et al., HPCA 2021,
figure 10): 61.4-82.2% fewer updates than Ligra-o on 64 cores and real power-law graphs.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from golden.depgraph import run_depgraph, run_ligra_baseline, run_sync_baseline  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "depgraph-models.json"
KINDS = {
    "kronecker": "kron:scale=12,ef=16,seed=1,weights=uniform:1:255",
    "rmat": "rmat:scale=12,ef=16,seed=1,weights=uniform:1:255",
    "grid": "grid:rows=48,cols=48,seed=1,weights=uniform:1:255",
    "scalefree": "scalefree:n=4096,seed=1,weights=uniform:1:255",
}


def levels_from(graph, root: int) -> int:
    """Hop levels of a BFS from ``root`` (the golden BFS), a lower bound of the diameter."""
    depth = golden.run("bfs", graph, root=root).values
    reached = depth != np.iinfo(np.uint32).max
    return int(depth[reached].max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", metavar="NAME=FILE|SPEC",
                        help="a further graph kind (repeatable)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only these kinds (repeatable)")
    parser.add_argument("--engines", type=int, default=4)
    parser.add_argument("--walks", type=int, default=4)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON))
    args = parser.parse_args()
    kinds = dict(KINDS)
    for item in args.graph or []:
        name, _, spec = item.partition("=")
        kinds[name] = spec
    if args.only:
        kinds = {name: kinds[name] for name in args.only}

    rows, graphs = [], []
    for name, spec in kinds.items():
        graph = golden.load_graph(spec)
        root = int(np.argmax(graph.out_degree))
        # DepGraph's SSSP run gives the graph line its hub figures, and its own row below.
        start = time.perf_counter()
        probe = run_depgraph("sssp", graph, root=root, engines=args.engines)
        probe_seconds = time.perf_counter() - start
        h = probe.hub_stats
        graphs.append({"kind": name, "spec": spec, "vertices": graph.num_vertices,
                       "edges": graph.num_edges, "levels_from_root": levels_from(graph, root),
                       "hubs": h.num_hubs, "threshold": h.threshold,
                       "hpp_vertices": h.hpp_vertices, "core_paths": h.core_paths,
                       "index_entries": h.index_entries})
        print(f"{name}: {spec}: {graph.num_vertices} vertices, {graph.num_edges} edges, "
              f"{graphs[-1]['levels_from_root']} levels from root {root}, {h.num_hubs} hubs "
              f"(T = {h.threshold}), H'' {h.hpp_vertices}, {h.index_entries} index entries",
              flush=True)
        for algo in ("sssp", "pagerank"):
            kw = {"root": root} if algo == "sssp" else {"tolerance": args.tolerance}
            runs = [
                ("sync", lambda: run_sync_baseline(algo, graph, **kw)),
                ("ligra-o 1", lambda: run_ligra_baseline(algo, graph, threads=1, **kw)),
                (f"ligra-o {args.threads}",
                 lambda: run_ligra_baseline(algo, graph, threads=args.threads, **kw)),
                ("depgraph", lambda: probe if algo == "sssp" else run_depgraph(
                    algo, graph, engines=args.engines, **kw)),
                ("depgraph no index", lambda: run_depgraph(
                    algo, graph, engines=args.engines, hub_index=False, **kw)),
                (f"depgraph {args.walks} walks", lambda: run_depgraph(
                    algo, graph, engines=args.engines, walks=args.walks, **kw)),
            ]
            base = None
            for label, run in runs:
                start = time.perf_counter()
                result = run()
                seconds = time.perf_counter() - start
                if result is probe:
                    seconds = probe_seconds
                c = result.counters
                if label == f"ligra-o {args.threads}":
                    base = c.vertex_updates
                row = {"kind": name, "algo": algo, "model": label,
                       "vertex_updates": c.vertex_updates, "edges_fetched": c.edges_fetched,
                       "rounds": c.rounds, "shortcut_uses": c.shortcut_uses,
                       "converged": bool(result.converged), "seconds": seconds}
                if label.startswith("depgraph") and base:
                    row["reduction_vs_ligra_pct"] = 100.0 * (1 - c.vertex_updates / base)
                rows.append(row)
                reduction = row.get("reduction_vs_ligra_pct")
                shown = "" if reduction is None else f"{reduction:6.1f}%"
                print(f"  {algo:<9} {label:<20} {c.vertex_updates:>10} updates {shown:>7} "
                      f"{c.edges_fetched:>11} edges {c.rounds:>8} rounds "
                      f"{c.shortcut_uses:>6} shortcuts {seconds:7.1f} s", flush=True)

    hub_rows = hub_index_rows()
    report = base_report("bench", "depgraph-models", None)
    report["configuration"] = {"engines": args.engines, "walks": args.walks,
                               "threads": args.threads, "tolerance": args.tolerance,
                               **{key: probe.params[key] for key in (
                                   "stack_depth", "lam", "beta", "hub_sample_min")},
                               "graphs": graphs}
    report["figures"] = rows
    report["hub_index"] = hub_rows
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, report)
    print(f"report: {path}")


HUB_CHAINS = [  # (spec, engines): an engine per hub, the ring's tail in the next partition
    ("hubchain:hubs=64,length=8,fan=200,weights=1:255", 64),
    ("hubchain:hubs=64,length=8,fan=20,weights=1:255", 64),
    ("hubchain:hubs=64,length=4,fan=200,weights=1:255", 64),
    ("hubchain:hubs=64,length=12,fan=200,weights=1:255", 64),
    ("hubchain:hubs=64,length=8,fan=200,weights=1:255", 16),
]


def hub_index_rows() -> list[dict]:
    """Rounds (the engines' parallel time) and updates with and without the hub index on
    hub-chain graphs (directed min-label CC; SSSP from hub 0), where the paper's effect needs
    core paths whose tails another engine owns."""
    rows = []
    print("hub index on hub chains (hubs 0.48% of the vertices with fan 200, lam 0.5%):")
    for spec, engines in HUB_CHAINS:
        graph = golden.load_graph(spec)
        for algo, kw in (("cc", {"symmetrize": False}), ("sssp", {"root": 0})):
            on, off = (run_depgraph(algo, graph, engines=engines, hub_index=h, **kw)
                       for h in (True, False))
            saved = 100.0 * (1 - on.counters.rounds / off.counters.rounds)
            rows.append({"spec": spec, "engines": engines, "algo": algo,
                         "rounds_on": on.counters.rounds, "rounds_off": off.counters.rounds,
                         "updates_on": on.counters.vertex_updates,
                         "updates_off": off.counters.vertex_updates,
                         "shortcut_uses": on.counters.shortcut_uses,
                         "rounds_saved_pct": saved})
            print(f"  {spec:<48} {engines:>3} engines {algo:<5} rounds {on.counters.rounds:>6} "
                  f"/ {off.counters.rounds:<6} ({saved:5.1f}% saved), updates "
                  f"{on.counters.vertex_updates} / {off.counters.vertex_updates}, "
                  f"{on.counters.shortcut_uses} shortcuts", flush=True)
    return rows


if __name__ == "__main__":
    main()
