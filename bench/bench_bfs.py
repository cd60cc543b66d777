"""The BFS engine's figures (issue 18): what direction optimisation and the hub cache save, in
the golden model at Graph500 scales and in RTL simulation against the Graphicionado pipeline.

1. Golden model, Kronecker graphs (Graph500 generator, undirected, edge factor 16) of
   ``--golden-scales``, ``--golden-roots`` roots each: edges checked by direction-optimising
   BFS as a share of top-down BFS's (Enterprise reports about 37%), the levels' directions,
   the hub cache's hit rate and the status reads it saves.
2. RTL, a Kronecker graph of ``--rtl-scale`` on the same memory (latency 100, 64 B/cycle, one
   channel) from ``--rtl-roots`` roots: the BFS engine (direction-optimising with and without
   the hub cache, and top-down only) against the Graphicionado pipeline's BFS with one
   stream; cycles, edges per cycle, frontier-generation share, hub-cache hit rate and memory
   reads saved.
3. RTL, the same graph with ``--lanes`` lanes: the flat queue against the hierarchical one
   (lane-cycles lost to queue contention, frontier-generation cycles, cycles).
4. RTL, the same graph and roots on a memory of ``--channels`` channels: ``--channels``
   expand lanes with degree-classified dispatch against the vertex-per-lane baseline and
   against one expand lane, top-down only and direction-optimising (the top-down levels'
   expand cycles and the total), and the Graphicionado pipeline with as many source and
   destination streams on the same memory.

Every RTL run is checked (levels, Graphicionado's values, Graph500 parents, level logs).
Prints tables and writes the JSON report.
"""

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from golden.bfs import run_bfs  # noqa: E402
from graphgen.simulations.bfs import pick_roots  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.bfs.config import BfsConfig  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.graphicionado import run as graphicionado_run  # noqa: E402
from sim.bfs import run as bfs_run  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "bfs.json"
MEMORY = SimMemoryConfig(latency=100, jitter=0, outstanding=128, depth_lines=1 << 19)


def kronecker(scale: int):
    return golden.load_graph(f"kron:scale={scale},ef=16,seed=1,undirected=1")


def golden_part(scales, roots_per_scale, tau):
    rows = []
    for scale in scales:
        graph = kronecker(scale)
        for root in pick_roots(graph, roots_per_scale, seed=scale):
            start = time.perf_counter()
            top = run_bfs(graph, root, direction="topdown", tau=tau, hub_cache=False)
            auto = run_bfs(graph, root, direction="auto", tau=tau)
            bare = run_bfs(graph, root, direction="auto", tau=tau, hub_cache=False)
            checks = auto.total("status_reads") + auto.total("hub_cache_hits")
            rows.append({
                "scale": scale, "root": root, "edges": graph.num_edges, "hubs": auto.num_hubs,
                "topdown_checked": top.total("edges_checked"),
                "auto_checked": auto.total("edges_checked"),
                "share": auto.total("edges_checked") / top.total("edges_checked"),
                "directions": "".join(d[0].upper() for d in auto.directions()),
                "hit_rate": auto.total("hub_cache_hits") / checks if checks else 0.0,
                "status_reads": auto.total("status_reads"),
                "status_reads_without_cache": bare.total("status_reads"),
                "seconds": time.perf_counter() - start,
            })
            print(f"  kron {scale} root {root}: {rows[-1]['share']:.1%} of top-down's "
                  f"{rows[-1]['topdown_checked']} edges checked ({rows[-1]['directions']}), "
                  f"hub cache {rows[-1]['hit_rate']:.1%} of checks, status reads "
                  f"{rows[-1]['status_reads']} against {rows[-1]['status_reads_without_cache']}"
                  f" without it", flush=True)
    return rows


def simulate_checked(graph, root, **settings):
    """The engine with ``settings`` (and a hub bitmap that covers the graph) from ``root`` on
    :data:`MEMORY`, checked: levels, Graph500 parents, level logs; a mismatch ends the
    bench. Returns the report and the configuration."""
    config = BfsConfig(max_vertices=max(16, 1 << (graph.num_vertices - 1).bit_length()),
                       **settings)
    report = bfs_run.simulate(graph, config,
                              dataclasses.replace(MEMORY, channels=config.memory_channels),
                              RunSettings(root=root))
    if not report.matches:
        raise SystemExit(f"bfs {settings} root {root}: {report.first_mismatch} "
                         f"{report.parents_error} {report.log_mismatch}")
    return report, config


def bfs_rtl(graph, root, **settings):
    start = time.perf_counter()
    report, config = simulate_checked(graph, root, **settings)
    f = report.figures
    return {"design": "bfs", "settings": settings, "root": root, "cycles": f["cycles"],
            "edges_checked": f["edges_checked"], "hub_cache_hits": f["hub_cache_hits"],
            "hit_rate": f["hub_cache_hit_rate"], "component_edges": f["component_edges"],
            "frontier_generation_cycles": f["frontier_generation_cycles"],
            "directions": "".join(d[0].upper() for d in f["directions"]),
            "memory_reads": f["memory"]["reads"], "queue_stalls": report.counters["queue_stalls"],
            "topdown_expand_cycles": sum(level["expand_cycles"] for level in report.levels_log
                                         if level["direction"] == 0),
            "wall_seconds": time.perf_counter() - start, "configuration": config.as_dict()}


def graphicionado_rtl(graph, root, streams=1):
    config = GraphicionadoConfig(algo="bfs", streams_src=streams, streams_dst=streams,
                                 memory_channels=streams)
    report = graphicionado_run.simulate(graph, config,
                                        dataclasses.replace(MEMORY, channels=streams),
                                        RunSettings(algo="bfs", root=root))
    if not report.matches:
        raise SystemExit(f"graphicionado bfs root {root}: {report.first_mismatch}")
    f = report.figures
    return {"design": "graphicionado", "root": root, "cycles": f["cycles"],
            "edges": f["edges_traversed"], "memory_reads": f["memory"]["reads"],
            "configuration": config.as_dict()}


def rtl_part(scale, roots, tau, lanes):
    graph = kronecker(scale)
    variants = {"auto": dict(tau=tau), "auto, no hub cache": dict(tau=tau, hub_cache=False),
                "top-down only": dict(tau=tau, direction="topdown")}
    rows = []
    for root in pick_roots(graph, roots, seed=scale):
        base = graphicionado_rtl(graph, root)
        row = {"root": root, "graphicionado": base}
        for name, settings in variants.items():
            row[name] = bfs_rtl(graph, root, **settings)
        row["flat"] = bfs_rtl(graph, root, tau=tau, lanes=lanes, queues="flat")
        row["hier"] = bfs_rtl(graph, root, tau=tau, lanes=lanes, queues="hier")
        rows.append(row)
        auto = row["auto"]
        print(f"  root {root}: graphicionado {base['cycles']} cycles; bfs auto "
              f"{auto['cycles']} ({base['cycles'] / auto['cycles']:.2f}x fewer, "
              f"{auto['directions']}), no hub cache {row['auto, no hub cache']['cycles']}, "
              f"top-down {row['top-down only']['cycles']}; frontier generation "
              f"{auto['frontier_generation_cycles'] / auto['cycles']:.1%}; hub cache "
              f"{auto['hit_rate']:.1%} of checks, memory reads {auto['memory_reads']} against "
              f"{row['auto, no hub cache']['memory_reads']}; {lanes} lanes flat "
              f"{row['flat']['cycles']} cycles ({row['flat']['queue_stalls']} lane-cycles "
              f"waiting), hier {row['hier']['cycles']} ({row['hier']['queue_stalls']})",
              flush=True)
    return graph, rows


def dispatch_part(graph, roots, tau, channels):
    variants = {
        "top-down, 1 lane": dict(direction="topdown", expand_lanes=1),
        "top-down, vertex per lane": dict(direction="topdown", expand_lanes=channels,
                                          dispatch="vertex"),
        "top-down, classified": dict(direction="topdown", expand_lanes=channels),
        "auto, 1 lane": dict(expand_lanes=1),
        "auto, vertex per lane": dict(expand_lanes=channels, dispatch="vertex"),
        "auto, classified": dict(expand_lanes=channels),
    }
    rows = []
    for root in roots:
        row = {"root": root,
               "graphicionado": graphicionado_rtl(graph, root, streams=channels)}
        for name, settings in variants.items():
            row[name] = bfs_rtl(graph, root, tau=tau, memory_channels=channels, **settings)
        rows.append(row)
        print(f"  root {root}: " + "; ".join(
            f"{name} {row[name]['topdown_expand_cycles']} top-down expand cycles, "
            f"{row[name]['cycles']} in all" for name in variants) +
            f"; graphicionado {channels}x{channels} {row['graphicionado']['cycles']}",
            flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden-scales", default="16,17,18")
    parser.add_argument("--golden-roots", type=int, default=8)
    parser.add_argument("--golden-tau", type=int, default=256)
    parser.add_argument("--rtl-scale", type=int, default=11)
    parser.add_argument("--rtl-roots", type=int, default=3)
    parser.add_argument("--rtl-tau", type=int, default=64)
    parser.add_argument("--lanes", type=int, default=8)
    parser.add_argument("--channels", type=int, default=4)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    scales = [int(s) for s in args.golden_scales.split(",") if s]
    print(f"golden model, Kronecker ef 16 undirected, tau {args.golden_tau}:")
    gold = golden_part(scales, args.golden_roots, args.golden_tau)
    for scale in scales:
        mine = [r for r in gold if r["scale"] == scale]
        checked = sum(r["auto_checked"] for r in mine) / sum(r["topdown_checked"] for r in mine)
        print(f"kron {scale}: edges checked {checked:.1%} of top-down's over {len(mine)} roots "
              f"(goal <= 50%); mean hub-cache hit rate "
              f"{np.mean([r['hit_rate'] for r in mine]):.1%}")
    print(f"RTL, Kronecker {args.rtl_scale} ef 16 undirected, latency 100, tau {args.rtl_tau}:")
    graph, rtl = rtl_part(args.rtl_scale, args.rtl_roots, args.rtl_tau, args.lanes)
    ratio = sum(r["graphicionado"]["cycles"] for r in rtl) / sum(r["auto"]["cycles"] for r in rtl)
    print(f"cycles, Graphicionado (1 stream) / BFS engine (auto): {ratio:.2f} over "
          f"{len(rtl)} roots (goal >= 2)")
    print(f"RTL, the same graph on {args.channels} memory channels, {args.channels} expand "
          f"lanes:")
    dispatch = dispatch_part(graph, [r["root"] for r in rtl], args.rtl_tau, args.channels)
    for name in ("top-down, vertex per lane", "top-down, classified", "auto, vertex per lane",
                 "auto, classified"):
        expand = sum(r[name]["topdown_expand_cycles"] for r in dispatch)
        single = sum(r[name.split(",")[0] + ", 1 lane"]["topdown_expand_cycles"]
                     for r in dispatch)
        edges = sum(r[name]["edges_checked"] - r[name]["hub_cache_hits"] for r in dispatch
                    ) if name.startswith("top-down") else None
        print(f"{name}: top-down levels {single / expand:.2f}x faster than 1 lane, "
              f"{expand} expand cycles" +
              (f", {edges / expand:.2f} edges per expand cycle" if edges else ""))
    ratio4 = (sum(r["graphicionado"]["cycles"] for r in dispatch) /
              sum(r["auto, classified"]["cycles"] for r in dispatch))
    print(f"cycles, Graphicionado ({args.channels} x {args.channels} streams) / BFS engine "
          f"(auto, {args.channels} expand lanes), {args.channels} channels: {ratio4:.2f}")
    report = base_report("bench_bfs", "bfs", None)
    report["memory"] = MEMORY.as_dict()
    report["golden"] = gold
    report["rtl"] = {"graph": {"scale": args.rtl_scale, "num_vertices": graph.num_vertices,
                               "num_edges": graph.num_edges}, "runs": rtl,
                     "cycle_ratio": ratio,
                     "dispatch": {"channels": args.channels, "runs": dispatch,
                                  "cycle_ratio": ratio4}}
    write_json(args.json, report)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
