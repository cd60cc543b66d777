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
           "dyngraph_figures"]

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


def dyngraph_figures(counters, state, batches: int) -> dict:
    figures = {"batches": batches, **counters.as_dict(), **state.figures()}
    return figures


def _summary(figures: dict) -> list[str]:
    ops = figures["operations"]
    return [
        "operations: " + ", ".join(f"{count} {kind.replace('_', ' ')}"
                                   for kind, count in ops.items())
        + f" in {figures['batches']} batch{'es' if figures['batches'] != 1 else ''}",
        f"edges: {figures['inserted']} inserted, {figures['replaced']} replaced, "
        f"{figures['deleted']} deleted ({figures['delete_misses']} absent), searches "
        f"{figures['search_hits']} found / {figures['search_misses']} absent, "
        f"{figures['skipped']} skipped (vertex absent)",
        f"vertices: {figures['vertices_inserted']} inserted "
        f"({figures['vertex_insert_present']} present already), {figures['vertices_deleted']} "
        f"deleted ({figures['vertex_delete_absent']} absent), {figures['in_edges_removed']} "
        f"in-edges removed by {figures['sweeps']} sweep(s)",
        f"slabs: {figures['walk_slab_reads']} read by walks, {figures['free_slab_reads']} by "
        f"frees, {figures['sweep_slab_reads']} by sweeps; {figures['allocations']} allocated, "
        f"{figures['slabs_freed']} freed, {figures['allocation_failures']} inserts refused "
        f"(pool full)",
        f"now: {figures['vertices']} vertices, {figures['edges']} edges in "
        f"{figures['slabs_in_use']} of {figures['pool_slabs']} slabs, memory efficiency "
        f"{100 * figures['memory_efficiency']:.1f}%, chains of {figures['buckets']} buckets "
        f"max {figures['chain_length_max']} mean {figures['chain_length_mean']:.3f} slabs",
    ]


def golden_dyngraph(args, overrides: dict[str, str], error: type[Exception]) -> int:
    import numpy as np
    import golden
    from golden.dyngraph import DynCounters, SlabGraph, load_updates
    if args.algo not in (None, *ANALYTICS):
        raise error(f"--updates runs bfs or pagerank on the updated graph, not {args.algo}")
    if args.model is not None or args.parents is not None or args.iters is not None:
        raise error("--updates does not take --model, --parents or --iters")
    options = slab_options(overrides, error)
    graph = golden.load_graph(args.graph)
    start = time.perf_counter()
    state = SlabGraph.build(graph, options)
    updates = load_updates(args.updates, graph, state.max_vertices)
    updates.check_ids(state.max_vertices)
    batches = updates.batches(args.batch)
    counters = DynCounters()
    found, weights = [], []
    for batch in batches:
        answers, part = state.apply(updates.slice(batch))
        counters.add(part)
        found.append(answers.found)
        weights.append(answers.weight)
    from golden.dyngraph import Answers
    answers = Answers(np.concatenate(found) if found else np.zeros(0, bool),
                      np.concatenate(weights) if weights else np.zeros(0, np.uint32))
    seconds = time.perf_counter() - start
    figures = dyngraph_figures(counters, state, len(batches))
    print(f"dyngraph on {args.graph} with {args.updates}: {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {len(updates)} operations, {seconds:.3f} s (golden model)")
    for line in _summary(figures):
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
