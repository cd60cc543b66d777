"""``graphgen golden --updates``: the dynamic graph's golden model.

The graph is built into slab-hash tables, the operations applied in batches, and the report
gives what they did (operations by kind, slab reads, allocations, chain lengths, memory
efficiency).  ``-o`` writes the final graph as ``u v w`` lines sorted by u then v,
``--answers`` the searches' answers one a line (the weight, or ``-``).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..common import UsageError
from ..dyngraph_text import answers_text, edge_list_text, summary_lines
from ..graph_option import load_graph
from ..reports import atomic_write, base_report, write_json

__all__ = ["SETTINGS", "slab_options", "run"]

SETTINGS = ("load_factor_percent", "pool_slabs", "max_vertices", "sweep_group", "max_buckets")
ANALYTICS = ("bfs", "pagerank")


def slab_options(overrides: dict[str, str]):
    """The golden model's :class:`SlabOptions` from ``--set`` pairs (integers)."""
    from golden.dyngraph import SlabOptions
    values = {}
    for key, text in overrides.items():
        if key not in SETTINGS:
            raise UsageError(f"--set {key}: not a parameter of the slab-hash graph "
                             f"({', '.join(SETTINGS)})")
        try:
            values[key] = int(text, 0)
        except ValueError:
            raise UsageError(f"--set {key}={text}: not an integer") from None
    return SlabOptions(**values)


def run(args, overrides: dict[str, str]) -> int:
    import numpy as np
    import golden
    from golden.dyngraph import SlabGraph, load_updates
    if args.algo not in (None, *ANALYTICS):
        raise UsageError(f"--updates runs bfs or pagerank on the updated graph, not "
                         f"{args.algo}")
    if args.model is not None or args.parents is not None or args.iters is not None:
        raise UsageError("--updates does not take --model, --parents or --iters")
    options = slab_options(overrides)
    graph, _ = load_graph(args.graph, args.undirected, args.directed)
    start = time.perf_counter()
    state = SlabGraph.build(graph, options)
    updates = load_updates(args.updates, graph, state.max_vertices)
    answers, counters, batches = state.apply_batches(updates, args.batch)
    seconds = time.perf_counter() - start
    figures = {"batches": batches, **counters.as_dict(), **state.figures()}
    print(f"dyngraph on {args.graph} with {args.updates}: {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {len(updates)} operations, {seconds:.3f} s (golden model)")
    print("operations: " + ", ".join(f"{count} {kind.replace('_', ' ')}"
                                     for kind, count in figures["operations"].items())
          + f" in {batches} batch{'es' if batches != 1 else ''}")
    for line in summary_lines(figures):
        print(line)
    analytics = None
    if args.algo is not None:
        params = {"root": args.root} if args.root is not None and args.algo == "bfs" else {}
        result = golden.run(args.algo, state.to_graph(), **params)
        values = np.asarray(result.values)
        analytics = {"algo": args.algo, **params, "iterations": result.iterations}
        if args.algo == "bfs":
            reached = int((values != golden.UNREACHED).sum())
            analytics["reached"] = reached
            print(f"bfs on the updated graph: {reached} vertices reached, "
                  f"{result.iterations} iterations")
        else:
            analytics["sum"] = float(values.sum())
            print(f"pagerank on the updated graph: {result.iterations} iterations, "
                  f"sum {float(values.sum()):.6f}")
    if args.output:
        atomic_write(Path(args.output), edge_list_text(*state.edges()))
    if args.answers:
        atomic_write(Path(args.answers), answers_text(answers))
    if args.json:
        report = base_report("golden", None, None)
        report["configuration"] = {"design": "dyngraph", "graph": args.graph,
                                   "updates": args.updates, "batch": args.batch,
                                   **options.__dict__, "max_vertices": state.max_vertices,
                                   "pool_slabs": len(state.pool)}
        report["figures"] = {**figures, "seconds": seconds, "analytics": analytics}
        write_json(Path(args.json), report)
    return 0
