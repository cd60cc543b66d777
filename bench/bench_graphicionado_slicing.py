"""Graphicionado graph slicing (§VI.A), measured in RTL simulation: a Kronecker graph with
4x the vertices the scratchpad holds, run in 4 slices, against the same graph unsliced on
a scratchpad big enough, in one invocation, on the same memory (latency 100, 64 B/cycle per
stream, one channel per stream). Both runs coarsen the EdgeIDTable by 4 (the sliced one
needs it to index the whole graph in the space of its scratchpad's table), so that only the
slicing differs.

For each algorithm and stream count: cycles (total, and by phase: load includes the
per-slice EdgeIDTable loads of frontier algorithms), edges traversed, edges per total and
per processing cycle, memory lines read and written, and the ratios sliced / unsliced. The
paper's cost of slicing is re-reading the source side once per slice: the ActiveVertex
lists (frontier algorithms) or VProperty and VConst (PageRank) and, for frontier
algorithms, the EdgeIDTable.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.graphicionado.run import simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402


def run(graph, algo, streams, *, scratchpad, max_slices, root, iters):
    n = graph.num_vertices
    config = GraphicionadoConfig(algo=algo, streams_src=streams, streams_dst=streams,
                                 memory_channels=streams, max_vertices=scratchpad,
                                 table_vertices=n, coarsening=4,
                                 max_slices=max_slices)
    memory = SimMemoryConfig(latency=100, outstanding=128, depth_lines=1 << 21,
                             channels=streams, bytes_per_cycle=64.0)
    start = time.perf_counter()
    report = simulate(graph, config, memory, RunSettings(algo=algo, root=root, iters=iters))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"{algo} {streams} streams, scratchpad {scratchpad}: RTL differs "
                         f"from golden at {report.first_mismatch}")
    f = report.figures
    f["total_wall_seconds"] = wall
    f["configuration"] = config.as_dict()
    f["memory_configuration"] = memory.as_dict()
    return f


def line(name, f):
    phases = f["phase_cycles"]
    return (f"{name:<28} {f['slices']:>6} {f['cycles']:>10} {phases['load']:>8} "
            f"{phases['process']:>10} {phases['apply']:>9} {f['edges_traversed']:>10} "
            f"{f['edges_per_cycle']:>7.3f} {f['edges_per_process_cycle']:>7.3f} "
            f"{f['memory']['reads']:>10} {f['memory']['writes']:>8}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=14)
    parser.add_argument("--streams", default="1,4")
    parser.add_argument("--algos", default="bfs,pagerank")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    graph = golden.from_spec(f"kron:scale={args.scale},ef=16,seed=1")
    n = graph.num_vertices
    root = int(graph.out_degree.argmax())
    rows = {}
    print(f"Kronecker {args.scale}: {n} vertices, {graph.num_edges} edges; scratchpad "
          f"{n} (unsliced) against {n // 4} (4 slices)")
    print(f"{'run':<28} {'slices':>6} {'cycles':>10} {'load':>8} {'process':>10} "
          f"{'apply':>9} {'edges':>10} {'e/cyc':>7} {'e/proc':>7} {'reads':>10} "
          f"{'writes':>8}")
    for algo in args.algos.split(","):
        iters = 1 if algo == "pagerank" else None
        for streams in map(int, args.streams.split(",")):
            pair = {}
            for label, scratchpad, max_slices in (("unsliced", n, 1), ("sliced", n // 4, 4)):
                f = run(graph, algo, streams, scratchpad=scratchpad, max_slices=max_slices,
                        root=root if algo != "pagerank" else None, iters=iters)
                pair[label] = f
                print(line(f"{algo} {streams}x{streams} {label}", f), flush=True)
            ratio = {key: pair["sliced"][key] / pair["unsliced"][key]
                     for key in ("cycles",)}
            ratio["mem_reads"] = (pair["sliced"]["memory"]["reads"] /
                                  pair["unsliced"]["memory"]["reads"])
            ratio["mem_writes"] = (pair["sliced"]["memory"]["writes"] /
                                   pair["unsliced"]["memory"]["writes"])
            print(f"  sliced / unsliced: cycles {ratio['cycles']:.3f}, line reads "
                  f"{ratio['mem_reads']:.3f}, line writes {ratio['mem_writes']:.3f}")
            rows[f"{algo}-{streams}x{streams}"] = {**pair, "ratio": ratio}
            report = base_report("bench-slicing", "graphicionado", GraphicionadoConfig())
            report.update({"graph": f"kron:scale={args.scale},ef=16,seed=1", "runs": rows})
            write_json(Path(args.json), report)


if __name__ == "__main__":
    main()
