"""Graphicionado pipeline figures (issue: one stream end to end), measured in RTL simulation:

* PageRank on Kronecker scale 16 (about 1M edges), DRAM latency 100, 64 B/cycle: edges per
  processing cycle (limit 1.0) and vertices per apply cycle;
* BFS and SSSP on the same graph: edges per cycle and the stall breakdown;
* PageRank and BFS again with the memory of ``--mem preset=paper_stream`` (one stream's share
  of Graphicionado's 68 GB/s: 8.5 B/cycle, one channel, latency 100), edges per processing
  cycle and per cycle beside those with the default memory (same build: the memory is set by
  plusargs; ``preset=paper`` is the whole accelerator's 68 B/cycle over 4 channels);
* wall time of a 1M-edge PageRank iteration with the build cached (image load and read-back
  included), and the uncached build time apart.
"""

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.graphicionado.top import SimMemoryConfig  # noqa: E402
from sim.graphicionado.run import simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402


def run(graph, algo, memory, *, root=None, iters=None, build_root=None, **overrides):
    config = GraphicionadoConfig(algo=algo, **overrides)
    settings = RunSettings(algo=algo, root=root, iters=iters,
                           **({"build_root": build_root} if build_root else {}))
    start = time.perf_counter()
    report = simulate(graph, config, memory, settings)
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"{algo}: RTL differs from golden at {report.first_mismatch}")
    figures = report.figures
    figures["total_wall_seconds"] = wall
    figures["configuration"] = config.as_dict()
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--json")
    parser.add_argument("--no-uncached", action="store_true",
                        help="skip the build in a fresh folder (for a quick check)")
    args = parser.parse_args()
    spec = f"kron:scale={args.scale},ef=16,seed=1,weights=1:255"
    graph = golden.from_spec(spec)
    root = int(np.argmax(graph.out_degree))
    memory = SimMemoryConfig(latency=100, outstanding=128, depth_lines=1 << 19)
    paper = SimMemoryConfig.from_overrides({"preset": "paper_stream", "outstanding": "128",
                                            "depth_lines": str(1 << 19)})
    rows = {}

    if not args.no_uncached:
        # The uncached build, measured apart in a fresh build folder.
        fresh = Path(tempfile.mkdtemp(prefix="graphgen-bench-build-"))
        try:
            rows["pagerank_uncached"] = run(graph, "pagerank", memory, iters=1,
                                            build_root=fresh)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
    run(graph, "pagerank", memory, iters=1)    # builds into the shared cache if needed
    rows["pagerank"] = run(graph, "pagerank", memory, iters=1)
    rows["bfs"] = run(graph, "bfs", memory, root=root)
    rows["sssp"] = run(graph, "sssp", memory, root=root)
    rows["bfs_prefetch8"] = run(graph, "bfs", memory, root=root, prefetch_lines=8)
    rows["pagerank_paper"] = run(graph, "pagerank", paper, iters=1)
    rows["bfs_paper"] = run(graph, "bfs", paper, root=root)

    print(f"graph {spec}: {graph.num_vertices} vertices, {graph.num_edges} edges; "
          f"memory {memory.as_dict()}")
    print(f"{'run':<18} {'cycles':>10} {'edges/cyc':>9} {'e/proc cyc':>10} {'v/apply cyc':>11} "
          f"{'sim cyc/s':>10} {'wall s':>7} {'build s':>8}")
    for name, f in rows.items():
        print(f"{name:<18} {f['cycles']:>10} {f['edges_per_cycle']:>9.3f} "
              f"{f['edges_per_process_cycle']:>10.3f} {f['vertices_per_apply_cycle']:>11.3f} "
              f"{f['simulated_cycles_per_second']:>10.0f} {f['total_wall_seconds']:>7.1f} "
              f"{'cached' if f['build_cached'] else round(f['wall_seconds']['build'], 1):>8}")
    for name in ("bfs", "sssp"):
        print(f"{name} stalls: {rows[name]['stalls']}")
    print(f"memory preset=paper_stream: {paper.as_dict()}")
    print(f"{'edges per':<10} {'processing cycle':>27} {'cycle':>27}")
    print(f"{'':<10} {'default':>13} {'paper':>13} {'default':>13} {'paper':>13}")
    for name in ("pagerank", "bfs"):
        calm, share = rows[name], rows[f"{name}_paper"]
        print(f"{name:<10} {calm['edges_per_process_cycle']:>13.3f} "
              f"{share['edges_per_process_cycle']:>13.3f} {calm['edges_per_cycle']:>13.3f} "
              f"{share['edges_per_cycle']:>13.3f}")
    if args.json:
        report = base_report("bench", "graphicionado", None)
        report["graph"] = {"spec": spec, "num_vertices": graph.num_vertices,
                           "num_edges": graph.num_edges, "root": root}
        report["memory"] = memory.as_dict()
        report["memory_paper"] = paper.as_dict()
        report["figures"] = rows
        write_json(Path(args.json), report)


if __name__ == "__main__":
    main()
