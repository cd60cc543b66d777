"""The memory roofline of Graphicionado (issue 53), measured in RTL simulation, COO against
CSR in one run:

* PageRank (one iteration), BFS and SSSP (from the vertex of most out-edges; SSSP with
  weights 1-255) on Kronecker graphs (``--scales``, default 16 and 18, edge factor 16);
* 1 x 1 streams on the paper's memory for one stream (``--mem preset=paper_stream``: 8.5
  bytes a cycle, latency 100) and 8 x 8 on the paper's memory (``preset=paper``: 68 bytes a
  cycle over four channels);
* each at ``edge_format`` coo (the paper's 16-byte edges) and csr (4 bytes, the destination
  id alone, for PageRank and BFS, which read no weight; 8 bytes with the weight for SSSP);
* with ``--orders ids,spread``, each also with the host's hub-spreading vertex order
  (:mod:`golden.vertex_order`; the default, ``ids``, is the graph's own, the paper's).

Per run: edges per total and per processing cycle, bytes of memory traffic per edge (and how
many of them were edges), the share of the memory's peak bandwidth used and the bound that
bandwidth sets on edges per cycle at that traffic (:mod:`sim.traffic`). The configurations
are the defaults but for the streams, the memory channels and a scratchpad that holds the
graph.
"""

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from golden.vertex_order import busiest_share  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.graphicionado.run import MEMORY_KINDS, simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402
from sim.traffic import roofline  # noqa: E402

SHAPES = {"1x1": (1, "paper_stream"), "8x8": (8, "paper")}


def run_one(graph, algo, shape, edge_format, *, root, order="ids"):
    streams, preset = SHAPES[shape]
    memory = SimMemoryConfig.from_overrides({"preset": preset, "depth_lines": str(1 << 21)})
    vertices = 1 << max(10, (graph.num_vertices - 1).bit_length())
    config = GraphicionadoConfig(algo=algo, streams_src=streams, streams_dst=streams,
                                 memory_channels=memory.channels, max_vertices=vertices,
                                 edge_format=edge_format)
    start = time.perf_counter()
    report = simulate(graph, config, memory,
                      RunSettings(algo=algo, root=root, iters=1 if algo == "pagerank" else None,
                                vertex_order=order))
    wall = time.perf_counter() - start
    if not report.matches:
        raise SystemExit(f"{algo} {shape} {edge_format}: RTL differs from the golden model at "
                         f"{report.first_mismatch}")
    f = report.figures
    roof = roofline(report.traffic, MEMORY_KINDS, f["edges_traversed"], f["cycles"],
                    memory.bytes_per_cycle)
    per_edge = roof["bytes_per_edge"]
    return {"algo": algo, "shape": shape, "memory": preset, "edge_format": edge_format,
            "vertex_order": order,
            "busiest_dst_share": busiest_share(f["streams"]["edges_dst"]),
            "edge_words": config.edge_words, "cycles": f["cycles"],
            "edges": f["edges_traversed"], "edges_per_cycle": f["edges_per_cycle"],
            "edges_per_process_cycle": f["edges_per_process_cycle"],
            "bytes_per_edge": per_edge["total"],
            "edge_bytes_per_edge": per_edge["by_kind"].get("edges", {}).get("read"),
            "share": roof["share"], "bound_edges_per_cycle": roof["bound_edges_per_cycle"],
            "roofline": roof, "wall_seconds": wall}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="16,18")
    parser.add_argument("--algos", default="pagerank,bfs,sssp")
    parser.add_argument("--shapes", default="1x1,8x8")
    parser.add_argument("--formats", default="coo,csr")
    parser.add_argument("--orders", default="ids")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    print(f"{'graph':<8} {'algo':<9} {'shape':<5} {'format':<6} {'order':<6} {'cycles':>10} "
          f"{'e/cyc':>6} {'e/proc':>6} {'B/edge':>7} {'edge B':>6} {'share':>6} {'bound':>6} "
          f"{'busiest':>7}")
    for scale in (int(s) for s in args.scales.split(",")):
        plain = golden.from_spec(f"kron:scale={scale},ef=16,seed=1")
        weighted = golden.from_spec(f"kron:scale={scale},ef=16,seed=1,weights=1:255")
        root = int(np.argmax(plain.out_degree))
        for algo in args.algos.split(","):
            graph = weighted if algo == "sssp" else plain
            for shape in args.shapes.split(","):
                for edge_format, order in itertools.product(args.formats.split(","),
                                                            args.orders.split(",")):
                    row = run_one(graph, algo, shape, edge_format, root=root, order=order)
                    row["graph"] = f"kron{scale}"
                    rows.append(row)
                    print(f"{row['graph']:<8} {algo:<9} {shape:<5} {edge_format:<6} "
                          f"{order:<6} {row['cycles']:>10,} {row['edges_per_cycle']:>6.3f} "
                          f"{row['edges_per_process_cycle']:>6.3f} "
                          f"{row['bytes_per_edge']:>7.2f} {row['edge_bytes_per_edge']:>6.2f} "
                          f"{row['share']:>6.1%} {row['bound_edges_per_cycle']:>6.3f} "
                          f"{row['busiest_dst_share']:>7.2%}", flush=True)
    if args.json:
        report = base_report("bench", "graphicionado", None)
        report["rows"] = rows
        write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
