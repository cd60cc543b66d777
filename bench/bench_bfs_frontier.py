"""The BFS engine's frontier generation and queues (issue 54, items 4 and 5), before and after
in one run, each run checked against the golden model (levels, Graph500 parents, level logs).

1. Frontier generation's share (Enterprise: about 11% of direction-optimising BFS): the
   engine at its defaults on ``--scan-graph`` (Kronecker 16) from ``--scan-roots`` Graph500
   roots: the lanes taking one hit a cycle, the offsets of every status line read, the scan's
   readers 32 lines ahead (the design before issue 54); then a quad's hits of one class a
   cycle (``scan_hits=4``); the offsets of only the lines with a hit
   (``ranges_on_demand``); 128 lines ahead (``scan_window=128``: the defaults); and each of
   ``--windows``. Every level's direction, frontier, scanned vertices, generation and
   expand cycles, and the last scan's (it finds no frontier, so no level records it).
2. Queue contention (Luo et al.): the flat (shared) queue against the hierarchical one with
   each of ``--lanes`` lanes on ``--queue-graphs`` (dense frontiers: grid, road-like,
   Luo's scale-free, beside Kronecker), from the highest-degree vertex, in each of
   ``--directions`` (top-down only scans every level's frontier, the densest); lane-cycles
   a hit waited for its queue, generation cycles per level and in all, cycles.

Memory: latency 100, 64 B/cycle, one channel (``bench_bfs.MEMORY``). Prints the tables and
writes the JSON report.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from bench_bfs import MEMORY, simulate_checked  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from graphgen.simulations.bfs import pick_roots  # noqa: E402
from hw.bfs.layouts import Direction  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "bfs-frontier.json"
QUEUE_GRAPHS = {
    "grid64": "grid:rows=64,cols=64,seed=1",
    "road4k": "road:n=4096,seed=1",
    "scalefree4k": "scalefree:n=4096,seed=1",
    "kron12": "kron:scale=12,ef=16,seed=1,undirected=1",
}


def run(graph, root, **settings):
    """One checked run: its cycles, queue stalls and level log."""
    start = time.perf_counter()
    report, config = simulate_checked(graph, root, **settings)
    levels = [{"level": r["level"],
               "direction": "BU" if r["direction"] == Direction.BOTTOM_UP.value else "TD",
               "frontier": r["frontier"], "scanned": r["scanned"],
               "generate_cycles": r["generate_cycles"], "expand_cycles": r["expand_cycles"]}
              for r in report.levels_log]
    generate = report.counters["generate_cycles"]
    return {"root": root, "settings": settings, "cycles": report.counters["cycles"],
            "generate_cycles": generate, "share": generate / report.counters["cycles"],
            "last_scan_cycles": generate - sum(level["generate_cycles"] for level in levels),
            "queue_stalls": report.counters["queue_stalls"], "levels": levels,
            "wall_seconds": time.perf_counter() - start, "configuration": config.as_dict()}


def print_levels(name, result):
    print(f"  {name}: {result['cycles']:,} cycles, generation {result['generate_cycles']:,} "
          f"({result['share']:.1%}), {result['queue_stalls']:,} lane-cycles waiting")
    for level in result["levels"]:
        print(f"    level {level['level']} {level['direction']}: frontier "
              f"{level['frontier']:,}, scanned {level['scanned']:,}, generation "
              f"{level['generate_cycles']:,}, expand {level['expand_cycles']:,}")
    print(f"    the last scan: generation {result['last_scan_cycles']:,}")


def scan_part(spec, roots, windows, defaults_only):
    graph = golden.load_graph(spec)
    variants = {
        "before: one hit a cycle, every line's ranges, window 32":
            dict(scan_hits=1, ranges_on_demand=False, scan_window=32),
        "a quad's hits a cycle": dict(ranges_on_demand=False, scan_window=32),
        "and ranges on demand": dict(scan_window=32),
        "defaults: and window 128": {},
    }
    variants.update({f"defaults but window {w}": dict(scan_window=w) for w in windows})
    if defaults_only:
        variants = {"defaults: and window 128": {}}
    rows = []
    for root in pick_roots(graph, roots, seed=16):
        row = {"root": root}
        for name, settings in variants.items():
            row[name] = run(graph, root, **settings)
            print_levels(f"root {root}, {name}", row[name])
        rows.append(row)
    for name in variants:
        cycles = sum(r[name]["cycles"] for r in rows)
        generate = sum(r[name]["generate_cycles"] for r in rows)
        print(f"{name}: generation {generate / cycles:.1%} of {cycles:,} cycles over "
              f"{len(rows)} roots (Enterprise: about 11%)")
    return {"graph": spec, "num_vertices": graph.num_vertices, "num_edges": graph.num_edges,
            "runs": rows}


def queue_part(names, lanes_list, directions):
    rows = []
    for name in names:
        graph = golden.load_graph(QUEUE_GRAPHS[name])
        root = int(np.argmax(graph.out_degree))
        for direction in directions:
            for lanes in lanes_list:
                row = {"graph": name, "spec": QUEUE_GRAPHS[name], "lanes": lanes,
                       "direction": direction, "root": root}
                for queues in ("flat", "hier"):
                    row[queues] = run(graph, root, lanes=lanes, queues=queues,
                                      direction=direction)
                print_contention(row)
                rows.append(row)
    return rows


def print_contention(row):
    """A line per run pair: the flat queue's stalls and extra generation cycles, the levels
    where it lost most."""
    flat, hier = row["flat"], row["hier"]
    extra = sorted(((f["generate_cycles"] - h["generate_cycles"], f["level"], f["frontier"],
                     h["generate_cycles"])
                    for f, h in zip(flat["levels"], hier["levels"]) if f["generate_cycles"]),
                   reverse=True)
    worst = ", ".join(f"level {level} (frontier {frontier:,}) {delta:+,} on {base:,}"
                      for delta, level, frontier, base in extra[:3] if delta > 0)
    print(f"  {row['graph']}, {row['direction']}, {row['lanes']} lanes: flat "
          f"{flat['cycles']:,} cycles ({flat['queue_stalls']:,} lane-cycles waiting, "
          f"generation {flat['generate_cycles']:,}), hier {hier['cycles']:,} "
          f"({hier['queue_stalls']:,}, {hier['generate_cycles']:,}); flat's dearest levels: "
          f"{worst or 'none'}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scan-graph", default="kron:scale=16,ef=16,seed=1,undirected=1")
    parser.add_argument("--scan-roots", type=int, default=2)
    parser.add_argument("--windows", default="", help="more scan windows to try")
    parser.add_argument("--defaults-only", action="store_true",
                        help="the scan part at the defaults only (more roots for the time)")
    parser.add_argument("--skip-queues", action="store_true")
    parser.add_argument("--queue-graphs", default=",".join(QUEUE_GRAPHS))
    parser.add_argument("--lanes", default="8,16")
    parser.add_argument("--directions", default="auto,topdown")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    windows = [int(w) for w in args.windows.split(",") if w]
    names = [n for n in args.queue_graphs.split(",") if n]
    unknown = [n for n in names if n not in QUEUE_GRAPHS]
    if unknown:
        parser.exit(2, f"bench_bfs_frontier: unknown graph {unknown[0]!r} "
                       f"(one of {', '.join(QUEUE_GRAPHS)})\n")
    report = base_report("bench_bfs_frontier", "bfs", None)
    report["memory"] = MEMORY.as_dict()
    print(f"frontier generation, {args.scan_graph}, latency 100, one channel:")
    report["scan"] = scan_part(args.scan_graph, args.scan_roots, windows, args.defaults_only)
    if not args.skip_queues:
        print("queue contention, flat against hierarchical:")
        report["queues"] = queue_part(names, [int(x) for x in args.lanes.split(",") if x],
                                      [d for d in args.directions.split(",") if d])
    write_json(args.json, report)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
