"""The dynamic graph unit on a batch of updates in RTL simulation, checked against the golden
model (the slab hash's invariants on the state read back, the final edge set and weights,
every search's answer, every counter), with the operations per cycle. With an algorithm, the
unit's compactor then writes the updated graph out as Graphicionado's edge list (checked word
for word), and Graphicionado's RTL (one stream, one memory channel of the same model) runs
the algorithm on those words, checked against the golden model on the updated graph."""

import dataclasses

from ..common import UsageError, settings_lines
from ..dyngraph_text import answers_text, edge_list_text, summary_lines
from ..simulation import SimRequest, SimRun, Simulation


__all__ = ["SIMULATION"]


def _check_program(algo: str) -> None:
    """The programs of the Graphicionado run on the compacted graph."""
    from sim.dyngraph.analytics import ANALYTICS
    if algo not in ANALYTICS:
        raise UsageError(f"analytics on the dynamic graph run {', '.join(ANALYTICS)}, not "
                         f"{algo}")


def _check(request: SimRequest) -> None:
    if request.algo is not None:
        _check_program(request.algo)
    for option in ("root", "iters"):
        if request.algo is None and getattr(request, option) is not None:
            raise UsageError(f"--{option} does not apply to --design dyngraph without --algo")


def _simulate(request: SimRequest) -> SimRun:
    from golden.dyngraph import Answers, load_updates
    from sim.dyngraph.run import MEMORY_KINDS, simulate
    graph, algo = request.graph, request.algo
    updates = load_updates(request.updates, graph, request.config.max_vertices)
    batches = updates.batches(request.batch)
    # The compacted graph's vertices: every id the graph or the operations name.
    ids = [graph.num_vertices] + ([int(updates.u.max()) + 1, int(updates.v.max()) + 1]
                                  if len(updates) else [])
    compact_vertices = max(ids) if algo else 0
    if request.root is not None and not 0 <= request.root < max(compact_vertices, 1):
        raise UsageError(f"--root {request.root} is not a vertex of the updated graph "
                         f"(0..{compact_vertices - 1})")
    report = simulate(graph, request.config, request.memory,
                      request.run_settings(updates=updates, batch=request.batch,
                                           compact_vertices=compact_vertices))
    analytics = _analytics(request, report) if report.compaction and report.matches else None
    outputs = {}
    if report.matches:
        outputs = {"output": (edge_list_text(*report.state.edges()), False),
                   "answers": (answers_text(Answers(report.found, report.weights)), False)}
    json = {"graph": {"source": request.graph_name, "num_vertices": report.num_vertices,
                      "num_edges": report.num_edges},
            "updates": {"source": request.updates, "operations": len(updates),
                        "batch": request.batch, "batches": len(batches)},
            "figures": {**report.figures, "golden": report.golden_counters}}
    if analytics is not None:
        result, config = analytics
        json["analytics"] = {"algo": algo, "root": request.root,
                             "configuration": config.as_dict(), "figures": result.figures,
                             "matches": result.matches,
                             "first_mismatch": result.first_mismatch}
    json["matches"] = report.matches
    json["mismatch"] = {"structure": report.structure_error,
                        "counter": report.counter_mismatch, "first": report.first_mismatch}
    analytics_differ = analytics is not None and not analytics[0].matches
    return SimRun(
        heading=f"dyngraph on {request.graph_name} with {request.updates}: "
                f"{graph.num_vertices} vertices, {graph.num_edges} edges, {len(updates)} "
                f"operations in {len(batches)} batch{'es' if len(batches) != 1 else ''}",
        matches=report.matches and not analytics_differ, cycles=report.cycles,
        work={"operations": len(updates)},
        verdict="result: the state keeps the slab hash's invariants; edges, weights, answers "
                "and every counter match the golden model",
        mismatch=(f": {algo} on the compacted graph: {analytics[0].first_mismatch}"
                  if analytics_differ else _mismatch(report)),
        reports=[report] + ([analytics] if analytics else []), json=json, outputs=outputs,
        run_dirs=[report.run_dir] if report.run_dir else [],
        traffic=report.traffic, memory_kinds=MEMORY_KINDS)


def _mismatch(report) -> str:
    if report.matches:
        return ""
    counter = report.counter_mismatch
    return ": " + (report.structure_error or
                   (f"counter {counter['counter']}: RTL {counter['rtl']}, golden "
                    f"{counter['golden']}" if counter else f"{report.first_mismatch}"))


def _analytics(request: SimRequest, report):
    """The algorithm in Graphicionado's RTL on the compactor's words."""
    from sim.dyngraph.analytics import analytics_config, run_analytics
    from sim.run_settings import RunSettings
    config = analytics_config(request.algo, report.compaction["vertices"],
                              edge_words=report.compaction["edge_words"])
    one_channel = dataclasses.replace(request.memory, channels=1)
    result = run_analytics(report, config, one_channel,
                           RunSettings(algo=request.algo, root=request.root,
                                       iters=request.iters, simulator=request.simulator,
                                       seed=request.seed))
    return result, config


def _report(run: SimRun) -> list[str]:
    report = run.reports[0]
    f = report.figures
    lines = [f"cycles {f['cycles']} ({f['load_cycles']} loading the presence bitmap), "
             f"{f['ops_per_cycle']:.3f} operations per cycle ({f['ops_per_run_cycle']:.3f} "
             f"per cycle after the load)",
             *summary_lines(f),
             f"lock: {f['lock_waits']} cycles waiting, {report.counters['deferred']} "
             f"operations queued behind their bucket"]
    if report.compaction:
        c = report.compaction
        lines.append(f"compaction: {c['vertices']} vertices, {c['edges']} edges in "
                     f"{c['cycles']} cycles ({c['edges_per_cycle']:.3f} edges per cycle), "
                     f"{c['slab_reads']} slab reads ({c['chain_reads']} down chains); "
                     f"{'matches' if c['matches_golden'] else 'DIFFERS from'} the golden walk")
    if len(run.reports) > 1:
        result, config = run.reports[1]
        lines.append(f"{run.json['analytics']['algo']} on the compacted graph in "
                     f"Graphicionado's RTL: {result.iterations} iterations, "
                     f"{result.figures['cycles']} cycles; "
                     f"{'matches' if result.matches else 'DIFFERS from'} the golden model "
                     f"({result.comparison})")
        lines += settings_lines({"Graphicionado's configuration": config.as_dict()})
    return lines


SIMULATION = Simulation(options=("algo", "root", "iters", "updates", "batch", "answers"),
                        requires=("updates",), check_program=_check_program, check=_check,
                        simulate=_simulate, report=_report)
