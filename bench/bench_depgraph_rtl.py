"""DepGraph in RTL simulation: cycles to converge with the hub index on and off, against the
Graphicionado pipeline on the same graph and memory model (issue 17 item 3).

SSSP (uint32 weights 1..255, from the vertex of highest out-degree) and PageRank (to
``--tolerance``) on a Kronecker graph (or ``--graph``: item 2's other graph kinds, such as a
grid), DRAM latency 100 and 64 B/cycle on one channel for both designs. DepGraph runs
``--engines`` engines (4: the paper's 4 cores) with ``--walks`` walks in flight each; the
Graphicionado pipeline as many source and destination streams as DepGraph has engines (one
memory channel: DepGraph has one memory port). Graphicionado's PageRank runs a fixed number of
iterations: as many as the synchronous baseline (``golden.depgraph``) needs to bring every
|delta| under the tolerance, so both reach the same accuracy. Every run is checked against its
golden model. Prints a table and writes the JSON report.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from golden.depgraph import run_sync_baseline  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.lib.config import ConfigError  # noqa: E402
from hw.depgraph.config import DepGraphConfig  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.depgraph import run as depgraph_run  # noqa: E402
from sim.graphicionado import run as graphicionado_run  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "depgraph_rtl.json"
MEMORY = SimMemoryConfig(latency=100, jitter=0, outstanding=128, depth_lines=1 << 19)


def depgraph(graph, algo, root, tolerance, **settings):
    config = DepGraphConfig(algo=algo, **settings)
    start = time.perf_counter()
    report = depgraph_run.simulate(graph, config, MEMORY,
                                   RunSettings(algo=algo, root=root, tolerance=tolerance))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"depgraph {algo}: RTL differs from golden at {report.first_mismatch}")
    f = report.figures
    return {"design": "depgraph", "algo": algo, "hub_index": config.hub_index,
            "cycles": f["cycles"], "run_cycles": f["phase_cycles"]["run"],
            "phase_cycles": f["phase_cycles"],
            "vertex_updates": f["vertex_updates"], "edges": f["edges_fetched"],
            "scanned_edges": f["scanned_edges"], "scan_read_edges": f["scan_read_edges"],
            "stale_visits": f["stale_visits"], "walks": f["walks"],
            "memory_reads": f["memory"]["reads"], "memory_writes": f["memory"]["writes"],
            "sram": f["sram"], "golden_updates": f["golden"]["vertex_updates"],
            "hub": f["hub_index"], "wall_seconds": wall,
            "configuration": config.as_dict()}


def graphicionado(graph, algo, root, iters, streams):
    config = GraphicionadoConfig(algo=algo, max_vertices=pow2(graph.num_vertices),
                                 streams_src=streams, streams_dst=streams)
    start = time.perf_counter()
    report = graphicionado_run.simulate(graph, config, MEMORY,
                                        RunSettings(algo=algo, root=root, iters=iters))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"graphicionado {algo}: RTL differs from golden at "
                         f"{report.first_mismatch}")
    f = report.figures
    return {"design": "graphicionado", "algo": algo, "streams": streams,
            "iterations": f["iterations"],
            "cycles": f["cycles"], "vertex_updates": f["vertex_updates"],
            "edges": f["edges_traversed"], "wall_seconds": wall,
            "configuration": config.as_dict()}


def pow2(n: int) -> int:
    """The smallest power of two of at least n (and 2)."""
    return 1 << max(n - 1, 1).bit_length()


def pagerank_iterations(graph, tolerance) -> int:
    """Graphicionado's PageRank iterations: as many as the synchronous baseline needs to
    bring every |delta| under the tolerance."""
    return run_sync_baseline("pagerank", graph, tolerance=tolerance).counters.rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--graph", metavar="FILE|SPEC",
                        help="another graph instead of the Kronecker one (a generator spec "
                             "such as grid:rows=48,cols=48,seed=1,weights=uniform:1:255, or a "
                             "file); SSSP weights come from it")
    parser.add_argument("--engines", type=int, default=4)
    parser.add_argument("--walks", type=int, default=DepGraphConfig().walks)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--hub", choices=("both", "off", "on"), default="both",
                        help="DepGraph's runs: with and without the hub index, or one "
                             "(a graph without hubs, such as a grid, learns no entry)")
    parser.add_argument("--algos", default="sssp,pagerank",
                        help="comma-separated, of sssp and pagerank")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="another DepGraph parameter for its runs (repeatable), such as "
                             "stack_lines=on")
    parser.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON))
    args = parser.parse_args()
    if any("=" not in pair for pair in args.set):
        parser.error(f"--set expects KEY=VALUE, not {args.set!r}")
    try:
        pairs = dict(pair.split("=", 1) for pair in args.set)
        settings = DepGraphConfig.from_overrides(pairs).as_dict()
        settings = {key: settings[key] for key in pairs}
    except ConfigError as error:
        parser.error(f"--set: {error}")
    algos = [a for a in args.algos.split(",") if a]
    if not algos or any(a not in ("sssp", "pagerank") for a in algos):
        parser.error(f"--algos: sssp and/or pagerank, not {args.algos!r}")
    spec = args.graph or f"kron:scale={args.scale},ef={args.edge_factor},seed=1,weights=1:255"
    graph = golden.load_graph(spec)
    root = int(np.argmax(graph.out_degree))
    bank = pow2(graph.num_vertices)       # any partition fits

    hubs = {"both": (False, True), "off": (False,), "on": (True,)}[args.hub]
    rows = []
    for algo in algos:
        algo_root = root if algo == "sssp" else None
        for hub in hubs:
            rows.append(depgraph(graph, algo, algo_root, args.tolerance, engines=args.engines,
                                 walks=args.walks, hub_index=hub, bank_vertices=bank,
                                 **settings))
            _print(rows[-1])
        iters = None
        if algo == "pagerank":
            iters = pagerank_iterations(graph, args.tolerance)
        rows.append(graphicionado(graph, algo, algo_root, iters, args.engines))
        for row in rows[-1 - len(hubs):-1]:
            row["graphicionado_over_depgraph_cycles"] = rows[-1]["cycles"] / row["cycles"]
            print(f"{algo:<9} Graphicionado {args.engines}x{args.engines} / DepGraph hub "
                  f"{'on' if row['hub_index'] else 'off'}: "
                  f"{row['graphicionado_over_depgraph_cycles']:.2f}x the cycles", flush=True)
        _print(rows[-1])

    report = base_report("bench", "depgraph-rtl", None)
    report.update({"graph": spec, "engines": args.engines, "walks": args.walks,
                   "hub": args.hub, "settings": settings,
                   "tolerance": args.tolerance,
                   "memory": MEMORY.as_dict(), "runs": rows})
    write_json(Path(args.json), report)


def _print(row):
    what = row["design"] + (f" hub {'on' if row['hub_index'] else 'off'}"
                            if row["design"] == "depgraph" else
                            f" {row['streams']}x{row['streams']} "
                            f"({row['iterations']} iterations)")
    hub = row.get("hub")
    extra = (f", {hub['shortcut_uses']} shortcuts, {hub['entries_learnt']}/{hub['entries']} "
             f"entries learnt" if hub else "")
    print(f"{row['algo']:<9} {what:<34} {row['cycles']:>11,} cycles "
          f"{row['vertex_updates']:>9,} updates {row['edges']:>10,} edges"
          f"{extra}  ({row['wall_seconds']:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
