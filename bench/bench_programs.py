"""Edges per cycle of each example program on Kronecker 16 at one stream and at 4 x 4 streams.

Issue 50's programs of ``examples/programs/`` (widest, spmv, ppr, labelprop; bounded_hops on
request) built into Graphicionado's pipeline and run in RTL simulation (Verilator), each
checked against the golden model, on ``kron:scale=16,ef=16,seed=1`` (with ``weights=1:255``
for a program that reads edge weights). The memory and the pipeline are those of
``bench_graphicionado_streams.py``'s comparison of stream counts: 8 memory channels, latency
100, 128 requests outstanding, 8·n B/cycle per channel at n x n streams, two edge readers per
source stream, the scratchpad sized to the graph. A rooted program starts at the vertex of the
largest out-degree; ppr runs ``--ppr-iters`` iterations (3), spmv its one, the others until
no vertex changes.

Per run: cycles, edges processed, edges per total and per processing cycle, iterations,
whether the values matched the golden model, and wall seconds (build apart). Every run of one
program and stream count is its own Verilator build (cached under build/sim).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import golden  # noqa: E402
from bench_graphicionado_streams import CHANNELS, memory  # noqa: E402
from graphgen.programs import load_program  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.graphicionado.run import simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "programs"

#: each example program's name and its ``file.py:ClassName`` in examples/programs/
PROGRAM_FILES = {"widest": "widest.py:WidestPath", "spmv": "spmv.py:SpMV",
                 "ppr": "ppr.py:PersonalizedPageRank",
                 "labelprop": "labelprop.py:LabelPropagation",
                 "bounded_hops": "bounded_hops.py:BoundedHops"}
DEFAULT_PROGRAMS = "widest,spmv,ppr,labelprop"
EDGE_READERS = 2
WEIGHTS = "1:255"


def program_spec(name: str) -> str:
    """The absolute ``path:ClassName`` of example program ``name``."""
    return str(EXAMPLES / PROGRAM_FILES[name])


def names_of(text: str, valid, option: str, parser) -> list:
    """The comma-separated items of ``text``, each one of ``valid``; else a usage error."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in items if item not in valid]
    if not items or unknown:
        parser.error(f"{option}: {', '.join(unknown) or 'none given'}; valid: "
                     f"{', '.join(map(str, valid))}")
    return items


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16,
                        help="Kronecker scale of the graph (default 16)")
    parser.add_argument("--programs", default=DEFAULT_PROGRAMS,
                        help=f"comma-separated, of {', '.join(PROGRAM_FILES)} "
                             f"(default {DEFAULT_PROGRAMS})")
    parser.add_argument("--streams", default="1,4",
                        help="comma-separated n of n x n streams: 1, 2, 4 or 8 (default 1,4)")
    parser.add_argument("--ppr-iters", type=int, default=3,
                        help="iterations of ppr (default 3)")
    parser.add_argument("--max-vertices", type=int,
                        help="scratchpad size (default: the graph's vertices rounded up to a "
                             "power of two, at least 1024); a smaller graph with the same "
                             "size reuses a larger one's builds")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    args.programs = names_of(args.programs, PROGRAM_FILES, "--programs", parser)
    try:
        args.streams = [int(n) for n in names_of(args.streams, ("1", "2", "4", "8"),
                                                  "--streams", parser)]
    except ValueError:
        parser.error("--streams: integers")
    if args.ppr_iters < 1:
        parser.error("--ppr-iters: at least 1")
    return args


def graph_spec(scale: int, weighted: bool) -> str:
    return f"kron:scale={scale},ef=16,seed=1" + (f",weights={WEIGHTS}" if weighted else "")


def run(name, graph, streams, *, root, iters, max_vertices) -> dict:
    """One program at ``streams`` x ``streams``: the report's figures with the wall time."""
    spec = program_spec(name)
    config = GraphicionadoConfig(algo=spec, streams_src=streams, streams_dst=streams,
                                 memory_channels=CHANNELS, max_vertices=max_vertices,
                                 edge_readers=EDGE_READERS)
    mem = memory(8.0 * streams)
    start = time.perf_counter()
    report = simulate(graph, config, mem, RunSettings(algo=spec, root=root, iters=iters))
    figures = report.figures
    figures["total_wall_seconds"] = time.perf_counter() - start
    figures["first_mismatch"] = report.first_mismatch
    figures["run_graph_edges"] = report.num_edges   # labelprop runs on both directions
    figures["root"] = root
    figures["configuration"] = config.as_dict()
    figures["memory_configuration"] = mem.as_dict()
    return figures


HEADER = (f"{'program':<13} {'streams':>7} {'cycles':>10} {'edges':>9} {'e/cyc':>6} "
          f"{'e/proc cyc':>10} {'iters':>5} {'golden':>7} {'wall s':>7} {'build s':>8}")


def row(name: str, streams: int, f: dict) -> str:
    """One line of the table: a run's figures (``run``'s dict)."""
    build = "cached" if f["build_cached"] else f"{f['wall_seconds']['build']:.1f}"
    return (f"{name:<13} {f'{streams}x{streams}':>7} {f['cycles']:>10} "
            f"{f['edges_traversed']:>9} {f['edges_per_cycle']:>6.3f} "
            f"{f['edges_per_process_cycle']:>10.3f} {f['iterations']:>5} "
            f"{'match' if f['matches_golden'] else 'DIFFER':>7} "
            f"{f['total_wall_seconds']:>7.1f} {build:>8}")


def main(argv=None):
    args = parse_args(argv)
    graphs = {}
    rows = {}
    print(f"{CHANNELS} memory channels, latency 100, 8·n B/cycle each at n x n streams; "
          f"{EDGE_READERS} edge readers per source stream; ppr {args.ppr_iters} iterations")
    print(HEADER, flush=True)
    for name in args.programs:
        program = load_program(program_spec(name))
        spec = graph_spec(args.scale, program.weight is not None)
        if spec not in graphs:
            graphs[spec] = golden.from_spec(spec)
        graph = graphs[spec]
        max_vertices = args.max_vertices or 1 << max(10, (graph.num_vertices - 1).bit_length())
        root = int(np.argmax(graph.out_degree)) if program.uses_root else None
        iters = args.ppr_iters if name == "ppr" else None
        for streams in args.streams:
            key = f"{name}_{streams}x{streams}"
            figures = run(name, graph, streams, root=root, iters=iters,
                          max_vertices=max_vertices)
            figures["graph"] = {"spec": spec, "num_vertices": graph.num_vertices,
                                "num_edges": graph.num_edges}
            rows[key] = figures
            print(row(name, streams, figures), flush=True)   # each as it comes: runs are long
            if args.json:                                    # and kept, should a later fail
                report = base_report("bench", "graphicionado", None)
                report["ppr_iterations"] = args.ppr_iters
                report["figures"] = rows
                write_json(Path(args.json), report)
    if not all(f["matches_golden"] for f in rows.values()):
        raise SystemExit("some runs differ from the golden model (DIFFER above)")


if __name__ == "__main__":
    main()
