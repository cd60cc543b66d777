"""Extended graph slicing for symmetric graphs (Graphicionado §VI.B) against plain graph
slicing (§VI.A), measured in RTL simulation in one run: CF with K = 32 features on an
undirected Kronecker graph (ratings 1..5) whose vertices are ``--ratios`` times the
scratchpad (four by default), on the same memory and streams.

Plain slicing reads every directed edge, slice by destination slice; extended slicing stores
each undirected edge once, splits the scratchpad in two regions (partitions of half its
size, so twice as many), and runs the N(N+1)/2 slices with region B written back and loaded
between them. Extended slicing runs three times: as it was first built (``before``: the
write-back, then the load, reading 256 lines ahead as VProperty's reads do for K = 32, then
processing), with the write-back and the load together, the load 128 lines ahead
(``spill-ovl``), and at the defaults (``extended``: besides, each slice's processing starts
with its region's load or clear, its edges held at P3 until the regions are ready).
Reported: edges read, memory lines read and written, cycles (total and processing), updates,
and directed edges served per total and per processing cycle. Every run is checked against
the golden model (extended slicing bit for bit against the golden extended schedule with one
stream).
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from bench.bench_graphicionado_cf import write_report  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.graphicionado.run import simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402


# The extended-slicing variants: (name, design parameters changed from the defaults).
VARIANTS = (("before", {"spill_overlap": False, "spill_prefetch_lines": 256,
                        "process_overlap": False}),
            ("spill-ovl", {"process_overlap": False}),
            ("extended", {}))


def run(graph, *, streams, max_vertices, iters, mode, variant):
    """One run: plain slicing (``variant`` None) or extended slicing with ``variant``'s
    design parameters."""
    n = graph.num_vertices
    extended = variant is not None
    if extended:
        partitions = -(-n // (max_vertices // 2))
        slices = partitions * (partitions + 1) // 2
    else:
        slices = -(-n // max_vertices)
    config = GraphicionadoConfig(algo="cf", property_bytes=128, streams_src=streams,
                                 streams_dst=streams, memory_channels=streams,
                                 max_vertices=max_vertices, max_slices=slices,
                                 symmetric=extended, **(variant or {}))
    memory = SimMemoryConfig(latency=100, outstanding=128, depth_lines=1 << 21,
                             channels=streams, bytes_per_cycle=64.0)
    start = time.perf_counter()
    report = simulate(graph, config, memory, RunSettings(algo="cf", iters=iters))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"cf {mode}: RTL differs from golden at "
                         f"{report.first_mismatch}")
    f = report.figures
    served = iters * graph.num_edges
    f["directed_edges_per_cycle"] = served / f["cycles"]
    f["directed_edges_per_process_cycle"] = served / f["phase_cycles"]["process"]
    f["total_wall_seconds"] = wall
    f["configuration"] = config.as_dict()
    f["memory_configuration"] = memory.as_dict()
    return f


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=9)
    parser.add_argument("--ef", type=int, default=4)
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--iters", type=int, default=1)
    parser.add_argument("--ratios", default="4",
                        help="comma-separated graph-to-scratchpad ratios (powers of two), "
                             "each run plain and extended (default 4)")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    try:
        ratios = [int(ratio) for ratio in args.ratios.split(",")]
    except ValueError:
        parser.error(f"--ratios: integers, not {args.ratios!r}")
    if not ratios or any(ratio < 2 or ratio & (ratio - 1) for ratio in ratios):
        parser.error(f"--ratios: powers of two from 2, not {args.ratios!r}")
    spec = f"kron:scale={args.scale},ef={args.ef},seed=1,weights=1:5,undirected=1"
    graph = golden.from_spec(spec)
    n = graph.num_vertices
    print(f"{spec}: {n} vertices, {graph.num_edges} directed edges; K = 32; "
          f"{args.streams} x {args.streams} streams; {args.iters} iteration(s); latency 100, "
          f"64 B/cycle per stream")
    print(f"{'ratio':>5} {'mode':>9} {'slices':>6} {'edges read':>10} {'lines read':>10} "
          f"{'written':>8} {'cycles':>9} {'load':>8} {'process':>9} {'dir.e/cyc':>9} "
          f"{'dir.e/proc':>10} {'wall s':>7}")
    rows = {}
    for ratio in ratios:
        max_vertices = n // ratio
        for mode, variant in (("plain", None),) + VARIANTS:
            f = run(graph, streams=args.streams, max_vertices=max_vertices,
                    iters=args.iters, mode=mode, variant=variant)
            f["scratchpad_vertices"] = max_vertices
            rows[mode if ratios == [4] else f"{mode}-{ratio}x"] = f
            print(f"{ratio:>4}x {mode:>9} {f['slices']:>6} {f['edges_traversed']:>10} "
                  f"{f['memory']['reads']:>10} {f['memory']['writes']:>8} {f['cycles']:>9} "
                  f"{f['phase_cycles']['load']:>8} {f['phase_cycles']['process']:>9} "
                  f"{f['directed_edges_per_cycle']:>9.4f} "
                  f"{f['directed_edges_per_process_cycle']:>10.4f} "
                  f"{f['total_wall_seconds']:>7.1f}", flush=True)
    write_report(args.json, spec, graph, rows, scratchpad_vertices=n // ratios[0])


if __name__ == "__main__":
    main()
