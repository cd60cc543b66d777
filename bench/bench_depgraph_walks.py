"""DepGraph in RTL simulation: edges processed per engine-cycle against the walks in flight
per engine and the memory latency (issue 17 item 1).

PageRank (to ``--tolerance``: work for every engine from the start) on a Kronecker graph and
on a uniform random graph of as many vertices and edges, ``--engines`` engines, DRAM latency
50, 100 and 200 cycles at 64 B/cycle; for each number of walks, one Verilator build serves
both graphs and the three latencies (run-time settings). Then the largest number of walks
with the offsets read from memory (``offsets_on_chip`` off) at latency 100, for the
difference. Every run is checked against the golden model. The figure is edges sent to the
processing elements over run cycles and engines (the load and write-back phases are not
counted; total cycles are reported beside). Prints a table and writes the JSON report.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.depgraph.config import DepGraphConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.depgraph import run as depgraph_run  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / \
    "depgraph-walks.json"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=9)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--engines", type=int, default=1)
    parser.add_argument("--walks", default="1,4,16")
    parser.add_argument("--latencies", default="50,100,200")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON))
    args = parser.parse_args()
    kron = f"kron:scale={args.scale},ef={args.edge_factor},seed=1"
    graphs = {kron: golden.from_spec(kron)}
    n, m = graphs[kron].num_vertices, graphs[kron].num_edges
    graphs[f"uniform:n={n},m={m},seed=1"] = golden.from_spec(f"uniform:n={n},m={m},seed=1")
    bank = 1 << max(n - 1, 1).bit_length()
    print(f"{', '.join(graphs)}: {n} vertices, {m} edges; PageRank to {args.tolerance:g}, "
          f"{args.engines} engine(s)", flush=True)
    walk_counts = [int(w) for w in args.walks.split(",")]
    latencies = [int(x) for x in args.latencies.split(",")]
    points = [(walks, True, latency) for walks in walk_counts for latency in latencies]
    points.append((max(walk_counts), False, 100))
    rows = []
    for walks, onchip, latency in points:
        config = DepGraphConfig(algo="pagerank", engines=args.engines, walks=walks,
                                bank_vertices=bank, offsets_on_chip=onchip)
        for spec, graph in graphs.items():
            memory = SimMemoryConfig(latency=latency, jitter=0, outstanding=128,
                                     depth_lines=1 << 19)
            start = time.perf_counter()
            report = depgraph_run.simulate(graph, config, memory,
                                           RunSettings(algo="pagerank",
                                                       tolerance=args.tolerance))
            wall = time.perf_counter() - start
            if not report.matches:
                raise SystemExit(f"{spec}, walks {walks}, latency {latency}: RTL differs from "
                                 f"golden at {report.first_mismatch}")
            f = report.figures
            run = f["phase_cycles"]["run"]
            row = {"graph": spec, "walks": walks, "offsets_on_chip": onchip,
                   "latency": latency, "cycles": f["cycles"],
                   "run_cycles": run, "edges": f["edges_fetched"],
                   "vertex_updates": f["vertex_updates"], "bank": f["bank"],
                   "edges_per_engine_run_cycle": f["edges_fetched"] / run / args.engines,
                   "edges_per_engine_cycle": f["edges_fetched"] / f["cycles"] / args.engines,
                   "wall_seconds": wall, "memory": memory.as_dict(),
                   "configuration": config.as_dict()}
            rows.append(row)
            print(f"{spec.split(':')[0]:<8} walks {walks:>2} offsets "
                  f"{'on chip' if onchip else 'memory '}  latency {latency:>3}: {run:>10,} run "
                  f"cycles ({f['cycles']:,} in all), {row['edges']:,} edges, "
                  f"{row['edges_per_engine_run_cycle']:.3f} edges per engine-cycle "
                  f"({row['edges_per_engine_cycle']:.3f} per total cycle)  ({wall:.0f} s)",
                  flush=True)
    report = base_report("bench", "depgraph-walks", None)
    report.update({"graphs": list(graphs), "engines": args.engines, "tolerance": args.tolerance,
                   "runs": rows})
    write_json(Path(args.json), report)


if __name__ == "__main__":
    main()
