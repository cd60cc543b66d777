"""``graphgen sim --design bfs``: the BFS engine on one root or on Graph500's many, each run
checked (levels against the golden model, parents by Graph500's rules, every level's record
against the golden model's), and TEPS the Graph500 way: the root's component's edges over
the run's time at a clock, harmonic mean over the roots.

The clock is ``--clock-mhz``, or else the Fmax that ``graphgen synth --design bfs --target
ecp5`` measured for this very configuration (its report in the build folder); with neither,
edges per cycle are reported and TEPS are not.
"""

import sys
from pathlib import Path

import numpy as np

from golden.bfs import harmonic_mean
from .reports import atomic_write, base_report, write_json


__all__ = ["sim_bfs", "pick_roots", "synthesized_fmax"]


def pick_roots(graph, count: int, seed: int) -> list[int]:
    """Graph500's roots: distinct vertices with at least one edge out, drawn with ``seed``."""
    candidates = np.flatnonzero(np.diff(graph.offsets) > 0)
    if candidates.size == 0:
        raise ValueError("the graph has no vertex with an edge out to start a search from")
    rng = np.random.default_rng(seed)
    chosen = rng.choice(candidates, size=min(count, candidates.size), replace=False)
    return [int(v) for v in chosen]


def synthesized_fmax(config) -> tuple[float | None, str | None]:
    """The ECP5 Fmax of this configuration's last ``graphgen synth`` run, and its report."""
    from synth.reports import nextpnr_report
    report = Path("build") / "synth" / f"bfs-{config.digest()}-ecp5" / "report.json"
    if not report.exists():
        return None, None
    fmax_by_clock, _ = nextpnr_report(report)
    values = [v for v in fmax_by_clock.values() if v]
    return (min(values), str(report)) if values else (None, None)


def _level_line(report) -> str:
    return " ".join("B" if d == "bottomup" else "T" for d in report.figures["directions"])


def sim_bfs(args, config, memory, graph, usage_error) -> int:
    from sim.bfs.run import simulate
    if args.algo != "bfs":
        raise usage_error(f"the bfs design runs --algo bfs, not {args.algo}")
    for option in ("iters", "slices"):
        if getattr(args, option) is not None:
            raise usage_error(f"--{option} does not apply to the bfs design")
    if args.roots is not None and args.root is not None:
        raise usage_error("give --root N or --roots K, not both")
    if args.roots is not None and args.roots < 1:
        raise usage_error(f"--roots must be at least 1, not {args.roots}")
    if args.clock_mhz is not None and not args.clock_mhz > 0:
        raise usage_error(f"--clock-mhz must be positive, not {args.clock_mhz}")
    roots = pick_roots(graph, args.roots, args.seed) if args.roots else [args.root or 0]
    clock, clock_source = args.clock_mhz, "--clock-mhz"
    if clock is None:
        clock, clock_source = synthesized_fmax(config)
    runs, teps_all = [], []
    print(f"bfs on {args.graph}: {graph.num_vertices} vertices, {graph.num_edges} edges")
    print(f"configuration {config.as_dict()}")
    print(f"memory {memory.as_dict()}")
    for root in roots:
        report = simulate(graph, config, root=root, simulator=args.simulator, memory=memory,
                          seed=args.seed, graph_name=args.graph,
                          trace=_trace(args) if len(roots) == 1 else None, keep=args.keep)
        runs.append(report)
        f = report.figures
        reads = f["status_reads"] + f["hub_cache_hits"]
        teps = f["component_edges"] / (f["cycles"] / (clock * 1e6)) if clock else None
        if teps is not None:
            teps_all.append(teps)
        share = f["frontier_generation_cycles"] / f["cycles"] if f["cycles"] else 0.0
        print(f"root {root}: {f['levels']} levels ({_level_line(report)}), {f['cycles']} "
              f"cycles, {f['edges_checked']} edges checked, hub cache "
              f"{f['hub_cache_hits']}/{reads} ({100 * f['hub_cache_hit_rate']:.1f}%), "
              f"frontier generation {f['frontier_generation_cycles']} cycles "
              f"({100 * share:.1f}%), {f['component_edges']} edges in the component, "
              f"{f['edges_per_cycle']:.3f} per cycle"
              + (f", {teps / 1e9:.4f} GTEPS" if teps else "")
              + ("" if report.matches else "  MISMATCH"))
    if clock:
        print(f"TEPS at {clock:g} MHz ({clock_source}): harmonic mean "
              f"{harmonic_mean(teps_all) / 1e9:.4f} GTEPS over {len(runs)} root(s)")
    else:
        print("TEPS: no clock (give --clock-mhz, or run graphgen synth --design bfs --target "
              "ecp5 with this configuration for its Fmax)")
    _outputs(args, runs, roots, config, memory, clock, clock_source, teps_all)
    bad = [r for r in runs if not r.matches]
    if bad:
        r = bad[0]
        what = (f"levels differ at vertex {r.first_mismatch['vertex']}: RTL "
                f"{r.first_mismatch['rtl']}, golden {r.first_mismatch['golden']}"
                if not r.levels_match else r.parents_error if not r.parents_valid else
                f"level {r.log_mismatch['level']} {r.log_mismatch['field']}: RTL "
                f"{r.log_mismatch['rtl']}, golden {r.log_mismatch['golden']}")
        print(f"graphgen: MISMATCH with the golden model (root {r.root}): {what}",
              file=sys.stderr)
        return 1
    print("result: levels match the golden model, parents pass Graph500's validation, every "
          "level's record matches the golden model's")
    return 0


def _trace(args):
    from .cli import _trace_path
    return _trace_path(args)


def _outputs(args, runs, roots, config, memory, clock, clock_source, teps_all):
    single = len(runs) == 1
    if args.output:
        levels = runs[0].levels if single else np.stack([r.levels for r in runs])
        atomic_write(Path(args.output), lambda h: np.save(h, levels), binary=True)
    if args.parents:
        parents = runs[0].parents if single else np.stack([r.parents for r in runs])
        atomic_write(Path(args.parents), lambda h: np.save(h, parents), binary=True)
    if args.json:
        out = base_report("sim", "bfs", config)
        out["memory"] = memory.as_dict()
        out["graph"] = {"source": args.graph, "num_vertices": runs[0].num_vertices,
                        "num_edges": runs[0].num_edges, "roots": roots}
        out["clock_mhz"] = clock
        out["clock_source"] = clock_source
        out["runs"] = [{"root": r.root, "figures": r.figures, "matches": r.matches,
                        "first_mismatch": r.first_mismatch, "parents_error": r.parents_error,
                        "log_mismatch": r.log_mismatch, "golden_per_level": r.golden_levels_log}
                       for r in runs]
        out["figures"] = {"teps": teps_all, "harmonic_mean_teps": harmonic_mean(teps_all)
                          if teps_all else None}
        write_json(Path(args.json), out)
