"""Graphicionado parallel streams (issue: n source and m destination streams), measured in
RTL simulation on one graph and one memory system per stream count:

* PageRank on Kronecker scale 18 (262,144 vertices, 3.9M edges), n = m = 1, 2, 4, 8, each
  source stream with ``--edge-readers`` parallel edge readers (§V.B; default 2), over 8
  memory channels (latency 100): first with the bandwidth scaled with the streams
  (64 B/cycle per stream, so 8·n B/cycle per channel), then with the paper's fixed 68 B/cycle
  (8.5 B/cycle per channel); edges per total and per processing cycle, and the share of
  channel-cycles in which the memory refused a waiting request. Beside them, the bound the
  partitioning sets: a destination stream takes at most one edge a cycle, so the processing
  phase lasts at least as many cycles as the busiest destination stream has edges
  (``balance`` = edges / (m x the busiest stream's edges); ``busiest`` = that stream's edges
  per processing cycle);
* BFS and SSSP on the same graph at n = m = 8, scaled memory: edges per cycle and the
  crossbar's stall share;
* simulation speed: one PageRank iteration of Kronecker scale 16 (about 1M edges) at
  n = m = 8 on the same accelerator (scratchpad sized for the main graph, so it reuses that
  build), wall seconds with the build cached (image and read-back included).

Every run of one stream count shares one Verilator build (memory settings are plusargs).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.graphicionado.run import simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

CHANNELS = 8


def memory(bytes_per_channel: float) -> SimMemoryConfig:
    return SimMemoryConfig(latency=100, outstanding=128, depth_lines=1 << 21,
                           channels=CHANNELS, bytes_per_cycle=bytes_per_channel)


def run(graph, algo, streams, mem, *, root=None, iters=None, max_vertices, edge_readers):
    config = GraphicionadoConfig(algo=algo, streams_src=streams, streams_dst=streams,
                                 memory_channels=CHANNELS, max_vertices=max_vertices,
                                 edge_readers=edge_readers)
    start = time.perf_counter()
    report = simulate(graph, config, mem, RunSettings(algo=algo, root=root, iters=iters))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"{algo} n=m={streams}: RTL differs from golden at "
                         f"{report.first_mismatch}")
    f = report.figures
    channels = f["memory"]["channels"]
    f["refused_share"] = sum(ch["refused_share"] for ch in channels) / len(channels)
    busiest = max(f["streams"]["edges_dst"])
    f["balance"] = f["edges_traversed"] / (streams * busiest) if busiest else 0.0
    f["busiest_per_process_cycle"] = busiest / f["phase_cycles"]["process"]
    f["total_wall_seconds"] = wall
    f["configuration"] = config.as_dict()
    f["memory_configuration"] = mem.as_dict()
    return f


def line(name, f):
    return (f"{name:<22} {f['cycles']:>10} {f['edges_per_cycle']:>9.3f} "
            f"{f['edges_per_process_cycle']:>10.3f} {100 * f['refused_share']:>8.1f}% "
            f"{100 * f['crossbar']['stall_share']:>8.1f}% {f['balance']:>7.3f} "
            f"{f['busiest_per_process_cycle']:>7.3f} "
            f"{f['simulated_cycles_per_second']:>10.0f} {f['total_wall_seconds']:>7.1f} "
            f"{'cached' if f['build_cached'] else round(f['wall_seconds']['build'], 1):>8}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--streams", default="1,2,4,8")
    parser.add_argument("--edge-readers", type=int, default=2)
    parser.add_argument("--parts", default="pagerank,bfs,sssp,speed",
                        help="which runs: pagerank (every stream count), bfs and sssp (the "
                             "largest), speed (1M edges at the largest); e.g. to spread "
                             "the builds over several invocations")
    parser.add_argument("--json")
    args = parser.parse_args()
    spec = f"kron:scale={args.scale},ef=16,seed=1,weights=1:255"
    graph = golden.from_spec(spec)
    max_vertices = 1 << max(10, (graph.num_vertices - 1).bit_length())
    root = int(np.argmax(graph.out_degree))
    streams = [int(s) for s in args.streams.split(",")]
    readers = args.edge_readers
    print(f"graph {spec}: {graph.num_vertices} vertices, {graph.num_edges} edges; "
          f"{CHANNELS} memory channels, latency 100; {readers} edge readers per source stream")
    print(f"{'run':<22} {'cycles':>10} {'edges/cyc':>9} {'e/proc cyc':>10} {'refused':>9} "
          f"{'xbar stall':>9} {'balance':>7} {'busiest':>7} {'sim cyc/s':>10} {'wall s':>7} "
          f"{'build s':>8}", flush=True)
    rows = {}

    def save():
        if args.json:
            report = base_report("bench", "graphicionado", None)
            report["graph"] = {"spec": spec, "num_vertices": graph.num_vertices,
                               "num_edges": graph.num_edges, "root": root}
            report["figures"] = rows
            write_json(Path(args.json), report)

    def record(name, *run_args, **run_kwargs):
        rows[name] = run(*run_args, max_vertices=max_vertices, edge_readers=readers,
                         **run_kwargs)
        print(line(name, rows[name]), flush=True)   # each row as it comes: runs are long
        save()                                      # and kept, should a later one fail

    top = max(streams)
    parts = set(args.parts.split(","))
    unknown = parts - {"pagerank", "bfs", "sssp", "speed"}
    if unknown:
        parser.error(f"--parts: unknown {', '.join(sorted(unknown))}")
    for n in sorted(streams, reverse=True):   # the largest first: its rows are the goal's
        if "pagerank" in parts:
            record(f"pagerank_{n}_scaled", graph, "pagerank", n, memory(8.0 * n), iters=1)
            record(f"pagerank_{n}_paper", graph, "pagerank", n, memory(68 / CHANNELS),
                   iters=1)
        if n != top:
            continue
        for algo in ("bfs", "sssp"):
            if algo in parts:
                record(f"{algo}_{top}_scaled", graph, algo, top, memory(8.0 * top),
                       root=root)
        if "speed" in parts:
            speed_graph = golden.from_spec("kron:scale=16,ef=16,seed=1,weights=1:255")
            # Same accelerator (scratchpad sized for the main graph): it shares the build.
            record(f"pagerank_{top}_1M_edges", speed_graph, "pagerank", top,
                   memory(8.0 * top), iters=1)
    for n in streams if "pagerank" in parts else ():
        f = rows[f"pagerank_{n}_scaled"]
        print(f"pagerank n=m={n}: edges per total cycle {f['edges_per_cycle']:.3f} "
              f"= {f['edges_per_cycle'] / n:.3f} x n; per destination stream "
              f"{f['streams']['edges_dst']}")


if __name__ == "__main__":
    main()
