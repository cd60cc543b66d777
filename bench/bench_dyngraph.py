"""The dynamic graph unit's figures (issue 19).

1. Golden model: memory efficiency of the slab-hash graph against the load factor (the
   paper's figure: 15 pairs of 8 bytes in a 128-byte slab, at best 93.75%), for a Kronecker
   graph of ``--scale`` as built and after a batch of random inserts.
2. RTL: insert, delete and search rates, operations per cycle (per total cycle and per cycle
   after the presence bitmap's load), for batches of ``--batches`` random edges into a
   Kronecker graph of ``--scale`` (edge factor 16), on a memory of latency 100, 64 B/cycle
   per channel, ``--channels`` channels; inserts of new edges, deletes of edges of the graph,
   searches half of them for edges of the graph. Every run is checked against the golden
   model (state, edges, answers, counters). The configuration: ``--slots`` operations in
   flight, ``--ports`` slab ports. Then the small batches in a row: ``--in-a-row`` batches of
   each size below 16,384 in one run (the unit's state stays in memory and the presence
   bitmap on chip, loaded once; each batch still waits for its last operation before the
   next starts), operations per cycle over the run.
3. RTL: analytics on the updated graph (Kronecker ``--analytics-scale``, a batch of
   ``--analytics-ops`` mixed operations): the compactor's cycles and edges per cycle, then BFS
   and PageRank in Graphicionado's RTL (one stream) on the compactor's words, each against
   the golden model on the updated graph, beside the same algorithm on the graph as built.

Prints tables and writes the JSON report.
"""

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from golden.dyngraph import SlabGraph, SlabOptions, generate_updates  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.dyngraph.config import DynGraphConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.dyngraph.analytics import analytics_config, run_analytics  # noqa: E402
from sim.dyngraph.run import simulate  # noqa: E402
from sim.graphicionado.run import simulate as simulate_graphicionado  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "dyngraph.json"
KINDS = {"insert": "insert=100,hit=0", "delete": "delete=100,hit=100",
         "search": "search=100,hit=50"}


def efficiency_part(graph, load_factors, inserts):
    rows = []
    for load in load_factors:
        state = SlabGraph.build(graph, SlabOptions(load_factor_percent=load))
        built = state.figures()
        state.apply(generate_updates(f"mix:ops={inserts},insert=100,hit=0,seed=1", graph,
                                     graph.num_vertices))
        after = state.figures()
        rows.append({"load_factor_percent": load, "built": built, "after_inserts": after})
        print(f"  load factor {load:3d}%: efficiency {100 * built['memory_efficiency']:5.1f}% "
              f"built ({built['slabs_in_use']} slabs, chains max {built['chain_length_max']}),"
              f" {100 * after['memory_efficiency']:5.1f}% after {inserts} inserts "
              f"(mean chain {after['chain_length_mean']:.3f})")
    return rows


def rtl_part(graph, args):
    config = DynGraphConfig(max_vertices=1 << args.scale, slots=args.slots,
                            slab_ports=args.ports, memory_channels=args.channels,
                            memory_outstanding=2 * args.slots, read_window=args.read_window)
    memory = SimMemoryConfig(latency=100, jitter=0, outstanding=128, channels=args.channels)
    rows = []
    print(f"  configuration {config.as_dict()}")
    print(f"  memory {memory.as_dict()}")
    print(f"  {'kind':<7} {'batch':>7} {'cycles':>8} {'ops/cycle':>9} {'after load':>10} "
          f"{'slab reads':>10} {'matches':>7} {'wall s':>7}")
    for kind, mix in KINDS.items():
        for batch in args.batches:
            updates = generate_updates(f"mix:ops={batch},{mix},seed={batch}", graph,
                                       config.max_vertices)
            start = time.perf_counter()
            report = simulate(graph, config, memory,
                              RunSettings(updates=updates, graph_name=f"kron{args.scale}"))
            wall = time.perf_counter() - start
            f = report.figures
            rows.append({"kind": kind, "batch": batch, "figures": f,
                         "matches": report.matches, "wall_seconds": wall})
            print(f"  {kind:<7} {batch:>7} {f['cycles']:>8} {f['ops_per_cycle']:>9.3f} "
                  f"{f['ops_per_run_cycle']:>10.3f} {f['walk_slab_reads']:>10} "
                  f"{str(report.matches):>7} {wall:>7.0f}", flush=True)
    return config, memory, rows


def in_a_row_part(graph, config, memory, args):
    rows = []
    print(f"  {args.in_a_row} batches a run: {'kind':<7} {'batch':>7} {'cycles':>8} "
          f"{'ops/cycle':>9} {'after load':>10} {'batches':>7} {'matches':>7}")
    for kind, mix in KINDS.items():
        for batch in (b for b in args.batches if b < 1 << 14):
            count = args.in_a_row * batch
            updates = generate_updates(f"mix:ops={count},{mix},seed={batch}", graph,
                                       config.max_vertices)
            report = simulate(graph, config, memory,
                              RunSettings(updates=updates, batch=batch,
                                          graph_name=f"kron{args.scale}"))
            f = report.figures
            rows.append({"kind": kind, "batch": batch, "batches": args.in_a_row,
                         "figures": f, "matches": report.matches})
            print(f"  {'':<16}{kind:<7} {batch:>7} {f['cycles']:>8} "
                  f"{f['ops_per_cycle']:>9.3f} {f['ops_per_run_cycle']:>10.3f} "
                  f"{report.counters['batches']:>7} {str(report.matches):>7}", flush=True)
    return rows


def analytics_part(args):
    graph = golden.load_graph(f"kron:scale={args.analytics_scale},ef=16,seed=1")
    n = graph.num_vertices
    config = DynGraphConfig(max_vertices=n, slots=64, slab_ports=2, memory_channels=2,
                            memory_outstanding=128)
    memory = SimMemoryConfig(latency=100, jitter=0, outstanding=128, channels=2)
    updates = generate_updates(f"mix:ops={args.analytics_ops},insert=55,delete=25,search=15,"
                               f"vinsert=4,vdelete=1,hit=50,seed=7", graph, n)
    print(f"  Kronecker scale {args.analytics_scale}: {n} vertices, {graph.num_edges} edges; "
          f"{len(updates)} operations")
    print(f"  configuration {config.as_dict()}")
    print(f"  memory {memory.as_dict()} (Graphicionado: one channel of it)")
    start = time.perf_counter()
    report = simulate(graph, config, memory,
                      RunSettings(updates=updates, compact_vertices=n,
                                  graph_name=f"kron{args.analytics_scale}"))
    c = report.compaction
    row = {"update_figures": report.figures, "compaction": c, "matches": report.matches,
           "wall_seconds": time.perf_counter() - start, "algorithms": []}
    print(f"  updates: {report.figures['cycles']} cycles; compaction: {c['edges']} edges of "
          f"{c['vertices']} vertices in {c['cycles']} cycles ({c['edges_per_cycle']:.3f} "
          f"edges/cycle), {c['slab_reads']} slab reads ({c['chain_reads']} down chains), "
          f"matches the golden walk: {c['matches_golden']}")
    if not report.matches:
        return row
    one = dataclasses.replace(memory, channels=1)
    built = golden.Graph.from_edges(n, graph.src, graph.dst, graph.weight)
    for algo in ("bfs", "pagerank"):
        pipeline = analytics_config(algo, n)
        root = int(report.compacted_reference.src[0]) if algo == "bfs" else None
        start = time.perf_counter()
        after = run_analytics(report, pipeline, one, RunSettings(algo=algo, root=root))
        before = simulate_graphicionado(built, pipeline, one,
                                        RunSettings(algo=algo, root=root,
                                                    graph_name="as built"))
        entry = {"algo": algo, "root": root, "configuration": pipeline.as_dict(),
                 "updated": after.figures, "built": before.figures,
                 "matches": after.matches and before.matches,
                 "wall_seconds": time.perf_counter() - start}
        row["algorithms"].append(entry)
        print(f"  {algo:<8} updated graph: {after.figures['cycles']:>9} cycles, "
              f"{after.figures['edges_per_cycle']:.3f} edges/cycle, matches "
              f"{after.matches}; as built: {before.figures['cycles']:>9} cycles, matches "
              f"{before.matches}", flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--batches", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1 << 10, 1 << 12, 1 << 14, 1 << 16])
    parser.add_argument("--slots", type=int, default=256)
    parser.add_argument("--ports", type=int, default=4)
    parser.add_argument("--channels", type=int, default=4)
    parser.add_argument("--load-factors", type=lambda s: [int(x) for x in s.split(",")],
                        default=[30, 50, 70, 90, 100])
    parser.add_argument("--read-window", type=int, default=64,
                        help="lines of operations read ahead (16 caps near 0.58 ops/cycle)")
    parser.add_argument("--in-a-row", type=int, default=16, metavar="N",
                        help="batches a run for the small batch sizes (0: none)")
    parser.add_argument("--no-analytics", action="store_true")
    parser.add_argument("--analytics-scale", type=int, default=12)
    parser.add_argument("--analytics-ops", type=int, default=4096)
    parser.add_argument("--no-rtl", action="store_true")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    graph = golden.load_graph(f"kron:scale={args.scale},ef=16,seed=1")
    print(f"Kronecker scale {args.scale}: {graph.num_vertices} vertices, {graph.num_edges} "
          f"edges")
    print("1. memory efficiency against load factor (golden model)")
    efficiency = efficiency_part(graph, args.load_factors, args.batches[-1])
    report = base_report("bench", "dyngraph", None)
    report["graph"] = {"scale": args.scale, "num_vertices": graph.num_vertices,
                       "num_edges": graph.num_edges}
    report["efficiency"] = efficiency
    if not args.no_rtl:
        print("2. operations per cycle (RTL, latency 100)")
        config, memory, rows = rtl_part(graph, args)
        report["configuration"] = config.as_dict()
        report["memory"] = memory.as_dict()
        report["rtl"] = rows
        if args.in_a_row:
            rows = rows + in_a_row_part(graph, config, memory, args)
            report["rtl_in_a_row"] = rows[len(report["rtl"]):]
        analytics_ok = True
        if not args.no_analytics:
            print("3. analytics on the updated graph (RTL: compactor, then Graphicionado)")
            analytics = analytics_part(args)
            report["analytics"] = analytics
            analytics_ok = analytics["matches"] and all(a["matches"] for a in
                                                         analytics["algorithms"])
        if not analytics_ok or not all(row["matches"] for row in rows):
            write_json(args.json, report)
            print("a run differs from the golden model", file=sys.stderr)
            return 1
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
