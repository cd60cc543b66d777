"""``graphgen golden --updates``: the dynamic graph's golden model from the command line.

    graphgen golden --graph G --updates FILE|SPEC [--batch N] [--set key=value ...]
                    [--algo bfs|pagerank [--root N]] [-o FINAL.txt] [--answers FILE] [--json FILE]

The graph is built into slab-hash tables, the operations applied in batches, and the report
gives what they did (operations by kind, slab reads, allocations, chain lengths, memory
efficiency).  ``-o`` writes the final graph as ``u v w`` lines sorted by u then v,
``--answers`` the searches' answers one a line (the weight, or ``-``).
"""

from __future__ import annotations

import time
from pathlib import Path

from .reports import atomic_write, base_report, write_json

__all__ = ["SETTINGS", "slab_options", "golden_dyngraph", "edge_list_text", "answers_text",
           "summary_lines"]

SETTINGS = ("load_factor_percent", "pool_slabs", "max_vertices", "sweep_group", "max_buckets")
ANALYTICS = ("bfs", "pagerank")


def slab_options(overrides: dict[str, str], error: type[Exception]):
    """The golden model's :class:`SlabOptions` from ``--set`` pairs (integers)."""
    from golden.dyngraph import SlabOptions
    values = {}
    for key, text in overrides.items():
        if key not in SETTINGS:
            raise error(f"--set {key}: not a parameter of the slab-hash graph "
                        f"({', '.join(SETTINGS)})")
        try:
            values[key] = int(text, 0)
        except ValueError:
            raise error(f"--set {key}={text}: not an integer") from None
    return SlabOptions(**values)


def edge_list_text(src, dst, weight) -> str:
    return "".join(f"{u} {v} {w}\n" for u, v, w in zip(src.tolist(), dst.tolist(),
                                                        weight.tolist()))


def answers_text(answers) -> str:
    return "".join(line + "\n" for line in answers.lines())


def summary_lines(figures: dict) -> list[str]:
    """What the operations did and the graph now held, from a run's figures (golden model or
    RTL: the same names)."""
    f = figures
    return [
        f"edges: {f['inserted']} inserted, {f['replaced']} replaced, {f['deleted']} deleted "
        f"({f['delete_misses']} absent), searches {f['search_hits']} found / "
        f"{f['search_misses']} absent, {f['skipped']} skipped (vertex absent)",
        f"vertices: {f['vertices_inserted']} inserted ({f['vertex_insert_present']} present "
        f"already), {f['vertices_deleted']} deleted ({f['vertex_delete_absent']} absent), "
        f"{f['in_edges_removed']} in-edges removed by {f['sweeps']} sweep(s)",
        f"slabs: {f['walk_slab_reads']} read by walks, {f['free_slab_reads']} by frees, "
        f"{f['sweep_slab_reads']} by sweeps; {f['allocations']} allocated, "
        f"{f['slabs_freed']} freed, {f['allocation_failures']} allocations refused (pool full)",
        f"now: {f['vertices']} vertices, {f['edges']} edges in {f['slabs_in_use']} of "
        f"{f['pool_slabs']} slabs, memory efficiency {100 * f['memory_efficiency']:.1f}%, "
        f"chains of {f['buckets']} buckets max {f['chain_length_max']} mean "
        f"{f['chain_length_mean']:.3f} slabs",
    ]


def golden_dyngraph(args, overrides: dict[str, str], error: type[Exception]) -> int:
    import numpy as np
    import golden
    from golden.dyngraph import SlabGraph, load_updates
    if args.algo not in (None, *ANALYTICS):
        raise error(f"--updates runs bfs or pagerank on the updated graph, not {args.algo}")
    if args.model is not None or args.parents is not None or args.iters is not None:
        raise error("--updates does not take --model, --parents or --iters")
    options = slab_options(overrides, error)
    graph = golden.load_graph(args.graph)
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
