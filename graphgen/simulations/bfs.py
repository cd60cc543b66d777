"""The BFS engine on one root or on Graph500's many, each run checked (levels against the
golden model, parents by Graph500's rules, every level's record against the golden model's),
and TEPS the Graph500 way: the root's component's edges over the run's time at a clock,
harmonic mean over the roots. On a symmetric graph (generated undirected, a file whose edges
mirror themselves, or ``--undirected``) an undirected edge counts once.

The clock is ``graphgen sim``'s (:mod:`graphgen.throughput`: ``--clock-mhz``, ``--fmax-from``
or the Fmax ``graphgen synth --design bfs --target ecp5`` left in the build folder); with
none, edges per cycle are reported and TEPS are not.
"""

import dataclasses

from ..common import UsageError
from ..simulation import SimRequest, SimRun, Simulation
from .graphicionado import iteration_lines


__all__ = ["SIMULATION", "pick_roots"]


def pick_roots(graph, count: int, seed: int) -> list[int]:
    """Graph500's roots: distinct vertices with at least one edge out, drawn with ``seed``."""
    import numpy as np
    candidates = np.flatnonzero(np.diff(graph.offsets) > 0)
    if candidates.size == 0:
        raise ValueError("the graph has no vertex with an edge out to start a search from")
    rng = np.random.default_rng(seed)
    chosen = rng.choice(candidates, size=min(count, candidates.size), replace=False)
    return [int(v) for v in chosen]


def _check_program(algo: str) -> None:
    if algo != "bfs":
        raise UsageError(f"the bfs design runs --algo bfs, not {algo}")


def _check(request: SimRequest) -> None:
    _check_program(request.algo)
    if request.roots is not None and request.root is not None:
        raise UsageError("give --root N or --roots K, not both")
    if request.roots is not None and request.roots < 1:
        raise UsageError(f"--roots must be at least 1, not {request.roots}")


def _simulate(request: SimRequest) -> SimRun:
    import numpy as np
    from golden.bfs import harmonic_mean
    from sim.bfs.run import MEMORY_KINDS, simulate
    graph = request.graph
    try:
        roots = pick_roots(graph, request.roots, request.seed) if request.roots else \
            [request.root or 0]
    except ValueError as error:
        raise UsageError(str(error)) from None
    from ..throughput import per_second
    clock = request.clock
    settings = request.run_settings(algo=request.algo)
    if len(roots) > 1:
        settings = dataclasses.replace(settings, trace=None)
    runs = [simulate(graph, request.config, request.memory,
                     dataclasses.replace(settings, root=root))
            for root in roots]
    teps = [per_second(r.figures["edges_per_cycle"], clock.mhz) for r in runs] if clock else []
    bad = [r for r in runs if not r.matches]
    single = len(runs) == 1
    levels = runs[0].levels if single else np.stack([r.levels for r in runs])
    parents = runs[0].parents if single else np.stack([r.parents for r in runs])
    return SimRun(
        heading=f"bfs on {request.graph_name}: {graph.num_vertices} vertices, "
                f"{graph.num_edges} edges",
        matches=not bad, cycles=sum(r.cycles for r in runs),
        work={"edges": sum(r.figures["component_edges"] for r in runs)},
        verdict="result: levels match the golden model, parents pass Graph500's validation, "
                "every level's record matches the golden model's",
        mismatch=_mismatch(bad[0]) if bad else "", reports=runs,
        json={"graph": {"source": request.graph_name, "num_vertices": runs[0].num_vertices,
                        "num_edges": runs[0].num_edges, "roots": roots},
              "clock_mhz": clock and clock.mhz, "clock_source": clock and clock.source,
              "runs": [{"root": r.root, "figures": r.figures, "matches": r.matches,
                        "first_mismatch": r.first_mismatch, "parents_error": r.parents_error,
                        "log_mismatch": r.log_mismatch, "golden_per_level": r.golden_levels_log}
                       for r in runs],
              "figures": {"teps": teps,
                          "harmonic_mean_teps": harmonic_mean(teps) if teps else None}},
        outputs={"output": (lambda handle: np.save(handle, levels), True),
                 "parents": (lambda handle: np.save(handle, parents), True)},
        run_dirs=[r.run_dir for r in runs if r.run_dir],
        traffic=None if runs[0].traffic is None else sum(
            (r.traffic for r in runs[1:]), runs[0].traffic),
        memory_kinds=MEMORY_KINDS,
        rate={"unit": "traversed edges (Graph500: the root's component, an undirected edge "
                      "once)",
              **({"per_second": harmonic_mean(teps), "per_second_is": "TEPS" if single else
                  f"TEPS, harmonic mean over {len(runs)} roots"} if teps else {})})


def _mismatch(r) -> str:
    if not r.levels_match:
        what = (f"levels differ at vertex {r.first_mismatch['vertex']}: RTL "
                f"{r.first_mismatch['rtl']}, golden {r.first_mismatch['golden']}")
    elif not r.parents_valid:
        what = r.parents_error
    else:
        what = (f"level {r.log_mismatch['level']} {r.log_mismatch['field']}: RTL "
                f"{r.log_mismatch['rtl']}, golden {r.log_mismatch['golden']}")
    return f" (root {r.root}): {what}"


def _report(run: SimRun) -> list[str]:
    from golden.bfs import harmonic_mean
    from ..throughput import NO_CLOCK
    clock, teps = run.json["clock_mhz"], run.json["figures"]["teps"]
    lines = []
    for index, report in enumerate(run.reports):
        f = report.figures
        reads = f["status_reads"] + f["hub_cache_hits"]
        share = f["frontier_generation_cycles"] / f["cycles"] if f["cycles"] else 0.0
        directions = " ".join("B" if d == "bottomup" else "T" for d in f["directions"])
        lines.append(
            f"root {report.root}: {f['levels']} levels ({directions}), {f['cycles']} cycles, "
            f"{f['edges_checked']} edges checked, hub cache {f['hub_cache_hits']}/{reads} "
            f"({100 * f['hub_cache_hit_rate']:.1f}%), frontier generation "
            f"{f['frontier_generation_cycles']} cycles ({100 * share:.1f}%), "
            f"{f['component_edges']} edges in the component, {f['edges_per_cycle']:.3f} per "
            f"cycle" + (f", {teps[index] / 1e9:.4f} GTEPS" if teps else "")
            + ("" if report.matches else "  MISMATCH"))
    if len(run.reports) == 1:
        lines += iteration_lines(run.reports[0].figures["per_iteration"], "level")
    if clock:
        lines.append(f"TEPS at {clock:g} MHz, {run.json['clock_source']}: harmonic mean "
                     f"{harmonic_mean(teps) / 1e9:.4f} GTEPS over {len(run.reports)} root(s)")
    else:
        lines.append(f"TEPS: {NO_CLOCK}")
    return lines


SIMULATION = Simulation(options=("algo", "root", "roots", "parents"),
                        requires=("algo",), check_program=_check_program, check=_check,
                        simulate=_simulate, report=_report, prints_throughput=True)
