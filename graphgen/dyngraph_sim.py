"""``graphgen sim --design dyngraph``: a batch of updates through the dynamic graph unit in
RTL simulation, checked against the golden model (the slab hash's invariants on the state
read back, the final edge set and weights, every search's answer, every counter), with the
operations per cycle.

    graphgen sim --design dyngraph --graph G --updates FILE|SPEC [--batch N] [--set ...]
                 [--mem ...] [-o FINAL.txt] [--answers FILE] [--json FILE]
"""

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
    if args.algo is not None:
        raise usage_error("the dynamic graph unit does not run analytics on the updated graph "
                          "in RTL yet; graphgen golden --updates ... --algo does")
    for option in ("root", "iters", "slices", "roots", "parents", "clock_mhz"):
        if getattr(args, option) is not None:
            raise usage_error(f"--{option.replace('_', '-')} does not apply to --design "
                              f"dyngraph")
    updates = load_updates(args.updates, graph, config.max_vertices)
    batches = updates.batches(args.batch)
    report = simulate(graph, updates, config, batch=args.batch, simulator=args.simulator,
                      memory=memory, seed=args.seed, graph_name=args.graph,
                      trace=_trace(args), keep=args.keep)
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
          f"queued behind their vertex")
    if report.run_dir:
        print(f"kept {report.run_dir}")
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
        out["matches"] = report.matches
        out["mismatch"] = {"structure": report.structure_error,
                           "counter": report.counter_mismatch, "first": report.first_mismatch}
        write_json(Path(args.json), out)
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


def _trace(args):
    from .cli import _trace_path
    return _trace_path(args)
