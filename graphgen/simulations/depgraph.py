"""DepGraph on a graph: :func:`sim.depgraph.run.simulate` for a request, and its figures
(walks, edges, stack, banks, the hub index's shortcuts, queues, memory) as terminal lines."""

from ..simulation import SimRequest, SimRun, Simulation
from .graphicionado import simulation_speed, vertex_mismatch


__all__ = ["SIMULATION"]


def _check_program(algo: str) -> None:
    """What DepGraph's configuration accepts as its ``algo``."""
    from hw.depgraph.config import DepGraphConfig
    DepGraphConfig(algo=algo)


def _check(request: SimRequest) -> None:
    if request.algo is not None:
        _check_program(request.algo)


def _simulate(request: SimRequest) -> SimRun:
    import numpy as np
    from sim.depgraph.run import MEMORY_KINDS, PAGERANK_ATOL, PAGERANK_RTOL, simulate
    report = simulate(request.graph, request.config, request.memory,
                      request.run_settings(algo=request.algo, root=request.root))
    within = "" if request.config.is_min else \
        f" (within {PAGERANK_ATOL:g} + {PAGERANK_RTOL:g}·|golden| per vertex)"
    return SimRun(
        heading=f"depgraph {request.algo} on {request.graph_name}: {report.num_vertices} "
                f"vertices, {report.num_edges} edges",
        matches=report.matches, cycles=report.cycles,
        work={"edges": report.figures["edges_fetched"]},
        verdict=f"result: matches the golden model{within}",
        mismatch=vertex_mismatch(report.first_mismatch), reports=[report],
        json={"graph": {"source": request.graph_name, "num_vertices": report.num_vertices,
                        "num_edges": report.num_edges, "root": request.root},
              "figures": report.figures, "first_mismatch": report.first_mismatch},
        outputs={"output": (lambda handle: np.save(handle, report.values), True)},
        run_dirs=[report.run_dir] if report.run_dir else [],
        traffic=report.traffic, memory_kinds=MEMORY_KINDS,
        rate={"unit": "edges fetched"})


def _hub_line(hub: dict | None, gold: dict) -> str:
    if hub is None:
        return "none: the hub index is off (hub_index=off)"
    if not hub["linear"]:
        return f"none: {hub['reason']}"
    return (f"{hub['shortcut_uses']} used in {hub['lookups']} lookups, "
            f"{hub['pseudo_edges']} pseudo-edges; {hub['entries_learnt']} of "
            f"{hub['entries']} entries learnt from {hub['learner_observations']} "
            f"observations ({hub['fits_rejected']} fits rejected); index "
            f"{hub['index_bytes']} bytes, {100 * hub['index_share']:.2f}% of the graph's; "
            f"golden model {gold['shortcut_uses']} used")


def _reads_per_edge(figures: dict) -> str:
    """Edges read from memory (for the processing elements and by the scan) per edge
    processed."""
    sent = figures["edges_fetched"]
    return f"{(sent + figures['scan_read_edges']) / sent:.2f}" if sent else "-"


def _report(run: SimRun) -> list[str]:
    figures = run.reports[0].figures
    phases = figures["phase_cycles"]
    gold = figures["golden"]
    bank, queue = figures["bank"], figures["queue"]
    rows = [
        ("cycles", f"{figures['cycles']} (load {phases['load']}, run {phases['run']}, "
                   f"write-back {phases['write']})"),
        ("updates", f"{figures['vertex_updates']} vertex updates in {figures['walks']} walks, "
                    f"{figures['stale_visits']} stale visits; golden model "
                    f"{gold['vertex_updates']}"),
        ("edges", f"{figures['edges_fetched']} fetched for the processing elements "
                  f"({figures['edges_per_run_cycle']:.3f} per run cycle); "
                  f"examined again by the walk's scan, {figures['scanned_edges']}, of them "
                  f"{figures['scan_read_edges']} read from memory again "
                  f"({_reads_per_edge(figures)} edge reads from memory an edge processed); "
                  f"golden model "
                  f"{gold['edges_fetched']}"),
        ("stack", f"{figures['stack_overflows']} overflows; golden model "
                  f"{gold['stack_overflows']}"),
        ("banks", f"{bank['ops']} ops (updates and visits), {bank['hazard_waits']} "
                  f"bank-cycles waiting on a hazard, {bank['updates_passed']} updates sent "
                  f"past an older one (summed over the engines)"),
        ("shortcuts", _hub_line(figures["hub_index"], gold)),
        ("queues", f"{queue['pushes']} pushes, {queue['line_writes']} line writes, "
                   f"{queue['line_reads']} line reads"),
        ("memory", f"{figures['memory']['reads']} line reads, "
                   f"{figures['memory']['writes']} line writes"),
        ("simulation", simulation_speed(figures)),
    ]
    return [f"{name:<11} {value}" for name, value in rows]


SIMULATION = Simulation(
    options=("algo", "root"), requires=("algo",), check_program=_check_program, check=_check,
    simulate=_simulate, report=_report,
    refusals={"iters": "depgraph runs to convergence: --iters does not apply",
              "slices": "--slices is graph slicing of graphicionado; depgraph has none"})
