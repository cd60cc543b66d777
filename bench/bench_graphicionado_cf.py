"""Collaborative filtering with large properties (Graphicionado §IV.E), measured in RTL
simulation: K = 32 float32 features (128-byte properties, four 32-byte flits) on a bipartite
rating graph, one and four streams, against the flit bound of a 32-byte datapath: a stream
takes one flit a cycle, so at most 1/4 edge per cycle (the issue's goal: 90% of it).

Each run is checked against the golden model (bit for bit with one source stream, within the
derived per-feature bound with several). Memory: latency 100, 64 B/cycle per channel, one
channel per stream. Reported per run: cycles by phase, edges per processing cycle per stream
and its share of the bound, edges per total cycle, the stalls that explain a shortfall.
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

FLIT_BOUND = 0.25       # edges per cycle per stream: four flits an edge, one flit a cycle


def run(graph, streams, *, iters, max_vertices, symmetric=False, algo="cf", **options):
    """One checked run of ``algo`` (CF with K = 32); ``symmetric``: the symmetric-graph
    optimisation (§IV.D); ``options``: other design parameters (``update_paths``)."""
    if algo == "cf":
        options = {"property_bytes": 128, **options}
    config = GraphicionadoConfig(algo=algo, streams_src=streams,
                                 streams_dst=streams, memory_channels=streams,
                                 max_vertices=max_vertices, symmetric=symmetric, **options)
    memory = SimMemoryConfig(latency=100, outstanding=128, depth_lines=1 << 21,
                             channels=streams, bytes_per_cycle=64.0)
    start = time.perf_counter()
    report = simulate(graph, config, memory, RunSettings(algo=algo, iters=iters))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"{algo} {streams} streams{' symmetric' * symmetric}: RTL differs from "
                         f"golden at {report.first_mismatch}")
    f = report.figures
    per_stream = f["edges_per_process_cycle"] / streams
    f["edges_per_process_cycle_per_stream"] = per_stream
    if algo == "cf":
        f["share_of_flit_bound"] = per_stream / FLIT_BOUND
    f["edges_per_cycle_per_stream"] = f["edges_per_cycle"] / streams
    f["total_wall_seconds"] = wall
    f["configuration"] = config.as_dict()
    f["memory_configuration"] = memory.as_dict()
    return f


def rating_graph_arguments(description: str, kron: bool = False, algos: bool = False):
    """The CF benches' command line: the rating graph, streams, iterations, JSON path (and,
    ``kron``, an undirected weighted graph's spec; ``algos``, the programs to run). Returns
    (args, spec, graph)."""
    parser = argparse.ArgumentParser(description=description)
    if algos:
        parser.add_argument("--algos", default="cf,pagerank",
                            choices=["cf", "pagerank", "cf,pagerank", "pagerank,cf"])
    if kron:
        parser.add_argument("--kron", default="kron:scale=10,ef=8,seed=2,weights=1:5,"
                                              "undirected=1")
    parser.add_argument("--users", type=int, default=1500)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--ratings", type=int, default=8)
    parser.add_argument("--streams", default="1,4")
    parser.add_argument("--iters", type=int, default=1)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    spec = f"bipartite:users={args.users},items={args.items},ratings={args.ratings},seed=1"
    return args, spec, golden.from_spec(spec)


def write_report(path: str, spec: str, graph, runs: dict, **extra):
    """The bench's JSON: tool versions, the graph, ``extra`` figures and the runs."""
    report = base_report("bench", "graphicionado", None)
    report["graph"] = {"spec": spec, "num_vertices": graph.num_vertices,
                       "num_edges": graph.num_edges}
    report.update(extra)
    report["runs"] = runs
    write_json(Path(path), report)


def main():
    args, spec, graph = rating_graph_arguments(__doc__.splitlines()[0])
    n = graph.num_vertices
    print(f"{spec}: {n} vertices, {graph.num_edges} edges; K = 32 (128-byte features); "
          f"{args.iters} iteration(s); latency 100, 64 B/cycle per stream")
    print(f"{'streams':>7} {'cycles':>9} {'load':>6} {'process':>9} {'apply':>8} "
          f"{'e/proc/str':>10} {'of 0.25':>8} {'e/cyc/str':>9} {'stall_p1':>9} "
          f"{'stall_p3':>9} {'stall_p4':>9} {'cam':>7} {'wall s':>7}")
    rows = {}
    for streams in map(int, args.streams.split(",")):
        # The scratchpad holds the whole graph: one slice.
        size = -(-n // (16 * streams)) * 16 * streams
        f = run(graph, streams, iters=args.iters, max_vertices=size)
        rows[f"{streams}x{streams}"] = f
        phases, stalls = f["phase_cycles"], f["stalls"]
        print(f"{streams:>7} {f['cycles']:>9} {phases['load']:>6} {phases['process']:>9} "
              f"{phases['apply']:>8} {f['edges_per_process_cycle_per_stream']:>10.4f} "
              f"{f['share_of_flit_bound']:>8.1%} {f['edges_per_cycle_per_stream']:>9.4f} "
              f"{stalls['stall_p1']:>9} {stalls['stall_p3']:>9} {stalls['stall_p4']:>9} "
              f"{stalls['cam_stalls']:>7} {f['total_wall_seconds']:>7.1f}")
    write_report(args.json, spec, graph, rows, flit_bound=FLIT_BOUND)


if __name__ == "__main__":
    main()
