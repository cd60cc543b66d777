"""Each design through its AXI top against its internal line port, on the same graph and the
same simulated DRAM (issue 52's first benchmark).

For each design, two RTL runs, each checked against the golden model as ``graphgen sim``
checks it: the design's internal port beside the DRAM model (``--bus native``), and its
AXI top with the AXI slave adapters in front of the same model (``--bus axi``), once for
each ``--axi`` set of the top's parameters (default: 512-bit data, a line a beat, the other
parameters the top's defaults). The DRAM: latency ``--latency`` (100), a line a cycle per channel,
in order. The graph (``--graph``) is one the designs were not tuned for: R-MAT scale 10 by
default. The configurations: each design's defaults, but Graphicionado's is ``make run``'s
(BFS, 4,096 vertices, 2 x 2 streams, 2 memory channels: the default's 65,536-vertex
scratchpad takes too long to build), and the dynamic graph unit runs ``--updates`` on the
graph (operations, not edges, per cycle).

Prints cycles, work per cycle and each AXI run's share of the native port's rate (the
goal: 95% or more) and writes the JSON report.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from graphgen.designs import get_design  # noqa: E402
from graphgen.reports import write_json  # noqa: E402
from graphgen.simulation import SimRequest, sim_settings  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "axi.json"
DESIGNS = {
    "graphicionado": ({"algo": "bfs", "max_vertices": "4096", "streams_src": "2",
                       "streams_dst": "2", "memory_channels": "2"}, {"algo": "bfs"}),
    "bfs": ({}, {"algo": "bfs"}),
    "depgraph": ({}, {"algo": "bfs"}),
    "dyngraph": ({}, {}),
}


def run_design(name, graph_spec, graph, args):
    design = get_design(name)
    overrides, options = DESIGNS[name]
    memory_overrides = {"latency": str(args.latency), "depth_lines": str(1 << 20)}
    config, memory = sim_settings(design, dict(overrides), memory_overrides,
                                  options.get("algo"))
    if name == "dyngraph":
        options = {**options, "updates": args.updates}
    else:
        options = {**options, "root": args.root}
    row = {"design": name, "configuration": config.as_dict(), "memory": memory.as_dict(),
           "axi": []}
    runs = [("native", None)] + [("axi", axi) for axi in args.axi]
    for bus, axi in runs:
        request = SimRequest(graph=graph, graph_name=graph_spec, config=config, memory=memory,
                             bus=bus, axi=axi, **options)
        design.simulation.check(request)
        start = time.perf_counter()
        result = design.simulation.simulate(request)
        if not result.matches:
            raise SystemExit(f"{name} over the {bus} bus {axi or ''}: MISMATCH with the "
                             f"golden model{result.mismatch}")
        figures = result.summary()
        figures["wall_seconds"] = time.perf_counter() - start
        # Lines a cycle: what the read path must sustain (a single-line read burst holds one
        # of the master's read_outstanding slots for the memory's latency).
        counters = [report.counters for report in result.reports]
        for kind in ("reads", "writes"):
            lines = sum(c.get(f"memory_{kind}", 0) for c in counters)
            figures[f"memory_{kind}"] = lines
            figures[f"memory_{kind}_per_cycle"] = lines / figures["cycles"]
        work = next(iter(result.work))
        label = "native" if axi is None else \
            "axi " + ",".join(f"{key}={value}" for key, value in axi.items())
        if axi is None:
            row["native"] = figures
        else:
            figures["parameters"] = axi
            figures["share"] = row["native"]["cycles"] / figures["cycles"]
            row["axi"].append(figures)
        print(f"  {name:<14} {label:<50} {figures['cycles']:>9} cycles  "
              f"{figures[f'{work}_per_cycle']:.4f} {work} a cycle"
              + f"  {figures['memory_reads_per_cycle']:.3f} reads a cycle"
              + (f"  {figures['share']:6.1%} of the native port's rate" if axi else "")
              + f"  ({figures['wall_seconds']:.0f} s)", flush=True)
    row["work"] = work
    return row


def axi_parameters(text: str) -> dict[str, int]:
    """``key=value,key=value``: AXI top parameters."""
    pairs = (pair.partition("=") for pair in text.split(",") if pair)
    return {key.strip(): int(value, 0) for key, _, value in pairs}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="rmat:scale=10,ef=8,seed=7,undirected=1")
    parser.add_argument("--root", type=int, help="default: the vertex of most out-edges")
    parser.add_argument("--updates", default="mix:ops=2000,insert=40,delete=20,search=40,"
                                             "hit=50,seed=3")
    parser.add_argument("--latency", type=int, default=100)
    parser.add_argument("--axi", type=axi_parameters, action="append", metavar="K=V,...",
                        help="an AXI run's top parameters (one run each time given; "
                             "default: data_width=512)")
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    args.axi = args.axi or [{"data_width": 512}]
    graph = golden.load_graph(args.graph)
    if args.root is None:
        args.root = int(graph.out_degree.argmax())
    print(f"{args.graph}: {graph.num_vertices} vertices, {graph.num_edges} edges; DRAM latency "
          f"{args.latency}", flush=True)
    rows = [run_design(name, args.graph, graph, args) for name in args.designs.split(",")]
    write_json(args.json, {"benchmark": "axi", "graph": args.graph, "root": args.root,
                           "updates": args.updates, "latency": args.latency,
                           "axi": args.axi, "designs": rows})
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
