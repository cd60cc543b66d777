"""``graphgen sim --design dyngraph``: a batch of updates through the dynamic graph unit in
RTL simulation, checked against the golden model (the slab hash's invariants on the state
read back, the final edge set and weights, every search's answer, every counter), with the
operations per cycle. With ``--algo``, the unit's compactor then writes the updated graph
out as Graphicionado's edge list (checked word for word), and Graphicionado's RTL (one stream,
one memory channel of the same model) runs the algorithm on those words, checked against the
golden model on the updated graph.

    graphgen sim --design dyngraph --graph G --updates FILE|SPEC [--batch N] [--set ...]
                 [--algo bfs|sssp|pagerank [--root N] [--iters N]]
                 [--mem ...] [-o FINAL.txt] [--answers FILE] [--json FILE]
"""

import dataclasses
import sys
from pathlib import Path

from .dyngraph_commands import answers_text, edge_list_text, summary_lines
from .reports import atomic_write, base_report, write_json


__all__ = ["sim_dyngraph"]


def sim_dyngraph(args, config, memory, graph, usage_error) -> int:
    from golden.dyngraph import load_updates
    from sim.dyngraph.run import simulate
    if args.updates is None:
        raise usage_error("--design dyngraph needs --updates FILE|SPEC")
    from sim.dyngraph.analytics import ANALYTICS
    if args.algo is not None and args.algo not in ANALYTICS:
        raise usage_error(f"analytics on the dynamic graph run {', '.join(ANALYTICS)}, not "
                          f"{args.algo}")
    for option in ("root", "iters", "slices", "roots", "parents", "clock_mhz"):
        if args.algo is not None and option in ("root", "iters"):
            continue
        if getattr(args, option) is not None:
            raise usage_error(f"--{option.replace('_', '-')} does not apply to --design "
                              f"dyngraph")
    updates = load_updates(args.updates, graph, config.max_vertices)
    batches = updates.batches(args.batch)
    # The compacted graph's vertices: every id the graph or the operations name.
    ids = [graph.num_vertices] + ([int(updates.u.max()) + 1, int(updates.v.max()) + 1]
                                  if len(updates) else [])
    compact_vertices = max(ids) if args.algo else 0
    if args.root is not None and not 0 <= args.root < max(compact_vertices, 1):
        raise usage_error(f"--root {args.root} is not a vertex of the updated graph "
                          f"(0..{compact_vertices - 1})")
    report = simulate(graph, updates, config, batch=args.batch, simulator=args.simulator,
                      memory=memory, seed=args.seed, graph_name=args.graph,
                      trace=_trace(args), keep=args.keep, compact_vertices=compact_vertices)
    f = report.figures
    print(f"dyngraph on {args.graph} with {args.updates}: {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {len(updates)} operations in {len(batches)} "
          f"batch{'es' if len(batches) != 1 else ''}")
    print(f"configuration {config.as_dict()}")
    print(f"memory {memory.as_dict()}")
    print(f"cycles {f['cycles']} ({f['load_cycles']} loading the presence bitmap), "
          f"{f['ops_per_cycle']:.3f} operations per cycle ({f['ops_per_run_cycle']:.3f} per "
          f"cycle after the load)")
    for line in summary_lines(f):
        print(line)
    print(f"lock: {f['lock_waits']} cycles waiting, {report.counters['deferred']} operations "
          f"queued behind their bucket")
    if report.run_dir:
        print(f"kept {report.run_dir}")
    analytics = None
    if report.compaction:
        c = report.compaction
        print(f"compaction: {c['vertices']} vertices, {c['edges']} edges in {c['cycles']} "
              f"cycles ({c['edges_per_cycle']:.3f} edges per cycle), {c['slab_reads']} slab "
              f"reads ({c['chain_reads']} down chains); "
              f"{'matches' if c['matches_golden'] else 'DIFFERS from'} the golden walk")
        if report.matches:
            analytics = _analytics(args, report, memory)
    if report.matches:
        if args.output:
            atomic_write(Path(args.output), edge_list_text(*report.state.edges()))
        if args.answers:
            from golden.dyngraph import Answers
            atomic_write(Path(args.answers),
                         answers_text(Answers(report.found, report.weights)))
    if args.json:
        out = base_report("sim", "dyngraph", config)
        out["memory"] = memory.as_dict()
        out["graph"] = {"source": args.graph, "num_vertices": report.num_vertices,
                        "num_edges": report.num_edges}
        out["updates"] = {"source": args.updates, "operations": len(updates),
                          "batch": args.batch, "batches": len(batches)}
        out["figures"] = {**f, "golden": report.golden_counters}
        if analytics is not None:
            out["analytics"] = {"algo": args.algo, "root": args.root,
                                "configuration": analytics[1].as_dict(),
                                "figures": analytics[0].figures,
                                "matches": analytics[0].matches,
                                "first_mismatch": analytics[0].first_mismatch}
        out["matches"] = report.matches
        out["mismatch"] = {"structure": report.structure_error,
                           "counter": report.counter_mismatch, "first": report.first_mismatch}
        write_json(Path(args.json), out)
    if analytics is not None and not analytics[0].matches:
        print(f"graphgen: MISMATCH with the golden model: {args.algo} on the compacted graph: "
              f"{analytics[0].first_mismatch}", file=sys.stderr)
        return 1
    if not report.matches:
        what = (report.structure_error or
                (f"counter {report.counter_mismatch['counter']}: RTL "
                 f"{report.counter_mismatch['rtl']}, golden "
                 f"{report.counter_mismatch['golden']}" if report.counter_mismatch else
                 f"{report.first_mismatch}"))
        print(f"graphgen: MISMATCH with the golden model: {what}", file=sys.stderr)
        return 1
    print("result: the state keeps the slab hash's invariants; edges, weights, answers and "
          "every counter match the golden model")
    return 0


def _analytics(args, report, memory):
    """The algorithm in Graphicionado's RTL on the compactor's words."""
    from sim.dyngraph.analytics import analytics_config, run_analytics
    config = analytics_config(args.algo, report.compaction["vertices"])
    one_channel = dataclasses.replace(memory, channels=1)
    result = run_analytics(report, args.algo, config, root=args.root, iters=args.iters,
                           simulator=args.simulator, memory=one_channel, seed=args.seed)
    f = result.figures
    print(f"{args.algo} on the compacted graph in Graphicionado's RTL "
          f"({config.as_dict()}): {result.iterations} iterations, {f['cycles']} cycles; "
          f"{'matches' if result.matches else 'DIFFERS from'} the golden model "
          f"({result.comparison})")
    return result, config


def _trace(args):
    from .cli import _trace_path
    return _trace_path(args)
