"""Graphicionado on a graph: :func:`sim.graphicionado.run.simulate` for a request, and its
figures (phases, edges, stalls, streams, crossbar, memory channels) as terminal lines."""

from ..simulation import SimRequest, SimRun, Simulation


__all__ = ["SIMULATION", "vertex_mismatch"]


def vertex_mismatch(first_mismatch: dict | None) -> str:
    if first_mismatch is None:
        return ""
    return (f" at vertex {first_mismatch['vertex']}: RTL {first_mismatch['rtl']}, golden "
            f"{first_mismatch['golden']}")


def _check_program(algo: str) -> None:
    """Any program the pipeline has a data path for
    (:func:`hw.graphicionado.algorithms.check_buildable`)."""
    from hw.graphicionado.algorithms import algorithm_of
    algorithm_of(algo)


def _check(request: SimRequest) -> None:
    """The program is :func:`_check_program`'s to refuse, the slices the configuration's."""
    if request.algo is not None:
        _check_program(request.algo)


def _simulate(request: SimRequest) -> SimRun:
    import numpy as np
    from sim.graphicionado.run import MEMORY_KINDS, simulate
    report = simulate(request.graph, request.config, request.memory,
                      request.run_settings(algo=request.algo, root=request.root,
                                           iters=request.iters, slices=request.slices,
                                           params=request.params,
                                           vertex_order=request.vertex_order))
    within = "" if report.comparison == "exact" else f" ({report.comparison})"
    return SimRun(
        heading=f"graphicionado {request.algo} on {request.graph_name}: "
                f"{report.num_vertices} vertices, {report.num_edges} edges",
        matches=report.matches, cycles=report.cycles,
        work={"edges": report.counters["edges"]},
        verdict=f"result: matches the golden model{within}",
        mismatch=vertex_mismatch(report.first_mismatch), reports=[report],
        json={"graph": {"source": request.graph_name, "num_vertices": report.num_vertices,
                        "num_edges": report.num_edges, "root": request.root,
                        "iters": request.iters, "slices": report.slices},
              "figures": report.figures, "first_mismatch": report.first_mismatch},
        outputs={"output": (lambda handle: np.save(handle, report.values), True)},
        run_dirs=[report.run_dir] if report.run_dir else [],
        traffic=report.traffic, memory_kinds=MEMORY_KINDS)


def _report(run: SimRun) -> list[str]:
    figures = run.reports[0].figures
    phases = figures["phase_cycles"]
    stalls = ", ".join(f"{name} {value}" for name, value in figures["stalls"].items())
    slices = figures.get("slices", 1)
    partitions = figures.get("extended_partitions", 0)
    sliced = ""
    if partitions:
        sliced = (f", extended slicing: {slices} slices of {partitions} partitions of "
                  f"{figures['slice_vertices']} vertices")
    elif slices > 1:
        sliced = f", {slices} graph slices of {figures['slice_vertices']} vertices"
    crossbar = figures["crossbar"]
    rows = [
        ("cycles", f"{figures['cycles']} over {figures['iterations']} iterations" + sliced),
        ("phases", f"load {phases['load']}, process {phases['process']}, "
                   f"apply {phases['apply']}"),
        *_order_row(figures.get("vertex_order") or {}),
        *([("reset", f"{figures['ready_cycles']} cycles after reset clearing VTempProperty "
                     f"before the start (once per reset, not in the run's cycles)")]
          if figures.get("ready_cycles") else []),
        ("edges", f"{figures['edges_traversed']} traversed, "
                  f"{figures['edges_per_cycle']:.3f} per cycle, "
                  f"{figures['edges_per_process_cycle']:.3f} per processing cycle"),
        ("apply", f"{figures['vertices_per_apply_cycle']:.3f} vertices per apply cycle, "
                  f"{figures['vertex_updates']} vertex updates"),
        ("stalls", stalls),
        ("streams", "edges per source stream " +
                    "/".join(str(e) for e in figures["streams"]["edges_src"]) +
                    ", per destination stream " +
                    "/".join(str(e) for e in figures["streams"]["edges_dst"])),
        ("crossbar", f"{crossbar['stalls']} input stalls ({100 * crossbar['stall_share']:.1f}% "
                     f"of input-cycles processing), mean occupancy "
                     f"{crossbar['mean_occupancy']:.2f} words"),
        ("memory", f"{figures['memory']['reads']} line reads, "
                   f"{figures['memory']['writes']} line writes"),
        *[(f"channel {c}", f"{ch['reads']} reads, {ch['writes']} writes, "
                           f"utilisation {ch['utilisation'] or 0:.1%}, "
                           f"refused {ch['refused_share']:.1%} of cycles")
          for c, ch in enumerate(figures["memory"].get("channels", []))],
    ]
    return ([f"{name:<11} {value}" for name, value in rows]
            + iteration_lines(figures.get("per_iteration") or {})
            + [f"{'simulation':<11} {simulation_speed(figures)}"])


def _order_row(order: dict) -> list[tuple[str, str]]:
    """The host's vertex order, when it renumbered the graph."""
    if order.get("order") != "spread":
        return []
    return [("order", f"hubs spread over {order['streams']} destination streams by the host "
                      f"({order['host_seconds']:.2f} s): the busiest owns "
                      f"{order['busiest_share']:.2%} of the edges, "
                      f"{order['busiest_share_ids']:.2%} with the graph's ids")]


def iteration_lines(per_iteration: dict, unit: str = "iteration") -> list[str]:
    """The per-iteration figures (:func:`sim.iterations.per_iteration`) as a small table:
    cycles, edges, edges per cycle and line reads and writes of each iteration (``unit``:
    what the design's iteration is) and of the finish after the last one."""
    if not per_iteration.get("rows"):
        return []
    lines = [f"{unit:<11} {'cycles':>9} {'edges':>9} {'edges/cyc':>9} "
             f"{'reads':>8} {'writes':>8}"]
    for label, row in [*((str(r["iteration"]), r) for r in per_iteration["rows"]),
                       ("finish", per_iteration["finish"])]:
        rate = "" if row["edges_per_cycle"] is None else f"{row['edges_per_cycle']:.3f}"
        edges = "" if row["edges"] is None else row["edges"]
        lines.append(f"  {label:<9} {row['cycles']:>9} {edges:>9} {rate:>9} "
                     f"{row['memory_reads']:>8} {row['memory_writes']:>8}")
    return lines


def simulation_speed(figures: dict) -> str:
    """The simulator's speed and the run's wall-clock phases."""
    wall = figures["wall_seconds"]
    rate = figures["simulated_cycles_per_second"] or 0.0
    build = "cached" if figures["build_cached"] else f"{wall['build']:.1f} s"
    return (f"{rate:,.0f} cycles/s; build {build}, run {wall['run']:.2f} s, "
            f"image {wall['image']:.2f} s, read-back {wall['readback']:.2f} s")


SIMULATION = Simulation(options=("algo", "param", "root", "iters", "slices", "vertex_order"),
                        requires=("algo",),
                        check_program=_check_program, check=_check, simulate=_simulate,
                        report=_report)
