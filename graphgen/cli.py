"""The ``graphgen`` command line.

    graphgen verilog --design NAME [--set key=value ...] -o FILE.v
    graphgen test    --design NAME [--set ...] [--simulator verilator|icarus] [--json FILE]
    graphgen synth   --design NAME --target {ecp5,generic,asic} [--set ...] [--liberty FILE] [--json FILE]
    graphgen synth   --design NAME --board ulx3s-85f|ecpix5-85|versa-ecp5|... [--set ...] [--json FILE]
    graphgen golden  --algo {bfs,sssp,pagerank,cc,cf} --graph FILE|SPEC [--root N] [--iters N]
                     [--model depgraph|sync|ligra|bfs [--set key=value ...]] [-o values.npy]
                     [--parents FILE.npy] [--json FILE]
    graphgen golden  --graph FILE|SPEC --updates FILE|SPEC [--batch N] [--set key=value ...]
                     [--algo bfs|pagerank] [-o FINAL.txt] [--answers FILE] [--json FILE]
    graphgen sim     --design graphicionado|depgraph|bfs --algo {bfs,sssp,pagerank,cc}
                     --graph FILE|SPEC [--root N] [--iters N] [--set ...] [--mem key=value ...]
                     [--simulator verilator|icarus] [--json FILE] [-o values.npy]
                     (bfs: [--root N | --roots K] [--parents FILE.npy] [--clock-mhz F])
    graphgen sim     --design dyngraph --graph FILE|SPEC --updates FILE|SPEC [--batch N]
                     [--algo bfs|sssp|pagerank [--root N] [--iters N]] [--set ...] [--mem ...]
                     [-o FINAL.txt] [--answers FILE] [--json FILE]
    graphgen sweep   --design NAME --grid "KEY=V1,V2;KEY2=..." [--targets ecp5,asic]
                     [--algo A --graph G [--root N]] [--scheduler tcp://...|slurm|pbs]
                     [--workers N] -o DIR
    graphgen report  DIR -o report.html

Bad input of any kind gives one line on standard error and exit status 2; a failing RTL test,
a result that differs from the golden model, a hung run (the watchdog) or the design's error
flag gives exit status 1. Files are written whole or not at all.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

from .designs import DESIGNS, get_design
from .golden_models import MODELS, model_figures, model_settings, run_model, settings_help
from .reports import atomic_write, base_report, write_json


__all__ = ["main"]


class UsageError(Exception):
    """Bad input from the user: reported on one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parse_sets(pairs: list[str]) -> dict[str, str]:
    overrides = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--set expects key=value, got {pair!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def _elaborate(args):
    design = get_design(args.design)
    config = design.config(_parse_sets(args.set))
    return design, config


def cmd_verilog(args) -> int:
    design, config = _elaborate(args)
    text = design.verilog(config)
    header = f"// graphgen design {design.name}: {json.dumps(config.as_dict())}\n"
    atomic_write(Path(args.output), header + text)
    print(f"wrote {args.output}: module {design.top(config)}, {text.count(chr(10))} lines")
    return 0


def cmd_test(args) -> int:
    design, config = _elaborate(args)
    if design.needs_graph:
        raise UsageError(f"{design.name} runs graphs: use graphgen sim --design {design.name}")
    result = design.run_test(config, simulator=args.simulator, seed=args.seed,
                             trace=_trace_path(args), keep=args.keep)
    cycles = sum(test.sim_time_ns for test in result.tests) / 10
    wall = sum(test.wall_seconds for test in result.tests)
    print(f"RTL test of {design.name} {config.as_dict()}")
    print(result.summary())
    print(f"{cycles:.0f} simulated cycles in {wall:.2f} s of test time: "
          f"{cycles / wall if wall else 0:.0f} cycles/s")
    if args.json:
        report = base_report("test", design.name, config)
        report["figures"] = {
            "simulator": result.simulator, "passed": result.passed, "cached_build": result.cached,
            "build_seconds": result.build_seconds, "run_seconds": result.run_seconds,
            "simulated_cycles": cycles, "cycles_per_second": cycles / wall if wall else None,
            "tests": [vars(test) for test in result.tests],
        }
        write_json(Path(args.json), report)
    if result.run_dir:
        print(f"kept {result.run_dir}")
    return 0 if result.passed else 1


def cmd_synth(args) -> int:
    from synth import format_table, synthesize
    if (args.target is None) == (args.board is None):
        raise UsageError("synth needs --target or --board (one of them)")
    if args.board is not None:
        return _synth_board(args)
    design, config = _elaborate(args)
    # Checked here as well as in synthesize(): before the design is emitted and its build
    # folder made.
    if not (math.isfinite(args.clock_mhz) and args.clock_mhz > 0):
        raise UsageError(f"--clock-mhz must be a positive number, not {args.clock_mhz}")
    if args.seeds < 1:
        raise UsageError(f"--seeds must be at least 1, not {args.seeds}")
    if args.liberty and not Path(args.liberty).is_file():
        raise UsageError(f"--liberty {args.liberty}: no such file")
    if args.per_unit and args.target not in ("asic", "ecp5"):
        raise UsageError("--per-unit is built for --target asic and ecp5")
    if args.scale_to is not None and (args.target != "asic" or not
                                      (math.isfinite(args.scale_to) and args.scale_to > 0)):
        raise UsageError("--scale-to takes a positive node in nm, with --target asic")
    if args.jobs is not None and not ((args.per_unit and args.target == "asic") or
                                      (args.seeds > 1 and args.target == "ecp5")):
        raise UsageError("--jobs is for --per-unit asic synthesis and ecp5 --seeds")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    if args.time_limit is not None and not (math.isfinite(args.time_limit)
                                            and args.time_limit > 0):
        raise UsageError(f"--time-limit must be a positive number of seconds, not "
                         f"{args.time_limit}")
    top = design.top(config)
    build_dir = Path("build") / "synth" / (f"{design.name}-{config.digest()}-{args.target}"
                                         + ("-units" if args.per_unit else ""))
    build_dir.mkdir(parents=True, exist_ok=True)
    verilog_path = build_dir / f"{top}.v"
    atomic_write(verilog_path, design.verilog(config))
    figures = synthesize(verilog_path, top, args.target, build_dir,
                         liberty=Path(args.liberty) if args.liberty else None,
                         clock_mhz=args.clock_mhz, seeds=args.seeds,
                         per_unit=args.per_unit, jobs=args.jobs,
                         time_limit_s=args.time_limit)
    if args.scale_to is not None:
        from synth.flow import ASIC_NODE_NM
        from synth.sram_model import scale_area
        total = figures.get("area_total_um2_with_model", figures["area_um2"])
        figures["scaled"] = {"node_nm": args.scale_to, "from_nm": ASIC_NODE_NM,
                             "factor": scale_area(1.0, ASIC_NODE_NM, args.scale_to),
                             "area_um2": scale_area(total, ASIC_NODE_NM, args.scale_to),
                             "rule": "classical (node ratio)^2 scaling: a lower bound below "
                                     "about 45 nm (synth/sram_model.py scale_area)"}
    report = base_report("synth", design.name, config)
    report["figures"] = figures
    print(f"synthesis of {design.name} {config.as_dict()} for {args.target}")
    print(format_table(figures))
    if "scaled" in figures:
        scaled = figures["scaled"]
        print(f"scaled to {scaled['node_nm']:g} nm: {scaled['area_um2'] / 1e6:.4f} mm² "
              f"(x{scaled['factor']:.4f}, {scaled['rule']})")
    if args.json:
        write_json(Path(args.json), report)
    return 0


def _synth_board(args) -> int:
    from synth.board import BOARDS, build_for_board
    if args.board not in BOARDS:
        raise UsageError(f"unknown board {args.board!r}: expected one of {', '.join(BOARDS)}")
    for option in ("liberty", "per_unit", "jobs", "scale_to"):
        if getattr(args, option):
            raise UsageError(f"--{option.replace('_', '-')} is not for --board")
    design, config = _elaborate(args)
    build_dir = Path("build") / "synth" / f"{design.name}-{config.digest()}-{args.board}"
    figures = build_for_board(design.build(config), args.board, build_dir)
    used = {bel: u for bel, u in figures["utilisation"].items() if u["used"]}
    print(f"{design.name} {config.as_dict()} on {args.board} ({figures['device']}, "
          f"{figures['package']}), clock {figures['clock_mhz']:g} MHz")
    print(f"Fmax {figures['fmax_mhz']:.1f} MHz (timing "
          f"{'met' if figures['timing_met'] else 'NOT met'}); bitstream "
          f"{figures['bitstream']} ({figures['bitstream_bytes']:,} bytes)")
    print("utilisation " + ", ".join(f"{bel} {u['used']:,}/{u['available']:,}"
                                      for bel, u in used.items()))
    print(figures["notes"][0])
    if args.json:
        report = base_report("synth", design.name, config)
        report["figures"] = figures
        write_json(Path(args.json), report)
    return 0


def cmd_golden(args) -> int:
    import numpy as np
    import golden
    if args.updates is not None:
        from .dyngraph_commands import golden_dyngraph
        return golden_dyngraph(args, _parse_sets(args.set), UsageError)
    if args.algo is None:
        raise UsageError("golden needs --algo (or --updates for the dynamic graph)")
    if args.batch is not None or args.answers is not None:
        raise UsageError("--batch and --answers go with --updates")
    if args.parents is not None:
        if args.algo != "bfs":
            raise UsageError(f"--parents is a BFS output, not one of {args.algo}")
        if args.model not in (None, "bfs"):
            raise UsageError(f"--parents comes from --model bfs, not --model {args.model}")
        args.model = "bfs"
    if args.model is None:
        if args.set:
            raise UsageError("--set takes a golden model's parameters: give --model "
                             "depgraph, sync, ligra or bfs")
    else:
        try:
            settings = model_settings(args.model, args.algo, _parse_sets(args.set))
        except ValueError as error:
            raise UsageError(str(error)) from None
        if args.iters is not None:
            raise UsageError("--iters is for the plain golden model; --model runs to "
                             "convergence")
    graph = golden.load_graph(args.graph)
    if args.model == "bfs":
        return _golden_bfs(args, graph, settings)
    if args.model is not None:
        return _golden_model(args, graph, settings)
    params = {}
    if args.root is not None:
        params["root"] = args.root
    if args.iters is not None:
        params["iters"] = args.iters
    start = time.perf_counter()
    result = golden.run(args.algo, graph, **params)
    seconds = time.perf_counter() - start
    values = np.asarray(result.values)
    print(f"{args.algo} on {args.graph}: {graph.num_vertices} vertices, {graph.num_edges} edges, "
          f"{result.iterations} iterations, {seconds:.3f} s")
    _golden_outputs(args, graph, values, params,
                    {"iterations": result.iterations, "seconds": seconds,
                     "counters": _jsonable(result.counters)})
    return 0


def _golden_outputs(args, graph, values, configuration: dict, figures: dict) -> None:
    """A golden run's summary line, ``-o`` values and ``--json`` report."""
    import numpy as np
    summary = _golden_summary(args.algo, values)
    print(summary)
    if args.output:
        atomic_write(Path(args.output), lambda handle: np.save(handle, values), binary=True)
    if args.json:
        report = base_report("golden", None, None)
        report["configuration"] = {"algo": args.algo, "graph": args.graph, **configuration,
                                   "num_vertices": graph.num_vertices,
                                   "num_edges": graph.num_edges}
        report["figures"] = {**figures, "summary": summary}
        write_json(Path(args.json), report)


def _golden_model(args, graph, settings) -> int:
    import numpy as np
    from golden import GraphError
    start = time.perf_counter()
    try:
        result = run_model(args.model, args.algo, graph, args.root, settings)
    except ValueError as error:
        raise GraphError(str(error)) from None
    seconds = time.perf_counter() - start
    figures = model_figures(args.model, result)
    values = np.asarray(result.states)
    print(f"{args.algo} on {args.graph} ({args.model} model): {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {seconds:.3f} s")
    shown = {key: value for key, value in figures.items() if key != "parameters"}
    print(", ".join(f"{key.replace('_', ' ')} {value}" for key, value in shown.items()))
    _golden_outputs(args, graph, values,
                    {"model": args.model, "root": args.root, **settings},
                    {**_jsonable(figures), "seconds": seconds,
                     "counters": _jsonable(result.counters.as_dict())})
    return 0


def _golden_bfs(args, graph, settings) -> int:
    """``--model bfs``: the BFS engine's model, its counters per level, Graph500's check."""
    import numpy as np
    from golden.bfs import BfsOptions, component_edges, run_bfs, validate_parents
    options = BfsOptions(**settings)
    root = 0 if args.root is None else args.root
    start = time.perf_counter()
    result = run_bfs(graph, root, options)
    seconds = time.perf_counter() - start
    validate_parents(graph, root, result.parents, result.levels)
    figures = result.figures()
    edges = component_edges(graph, result.parents >= 0)
    print(f"bfs on {args.graph} (bfs model, root {root}): {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {seconds:.3f} s; parents pass Graph500's validation")
    print(f"{figures['levels']} levels ({' '.join(d[0].upper() for d in figures['directions'])}"
          f"; T top-down, B bottom-up), {figures['edges_checked']} edges checked, "
          f"{figures['status_reads']} status reads, {figures['hub_cache_hits']} hub-cache hits "
          f"({100 * figures['hub_cache_hit_rate']:.1f}%), {figures['hubs']} hubs, "
          f"{edges} edges in the root's component")
    if args.parents:
        atomic_write(Path(args.parents), lambda handle: np.save(handle, result.parents),
                     binary=True)
    _golden_outputs(args, graph, result.levels,
                    {"model": "bfs", "root": root, **options.__dict__},
                    {**_jsonable(figures), "component_edges": edges, "seconds": seconds})
    return 0


def _match_memory_channels(overrides: dict, mem_overrides: dict):
    """The pipeline has one memory port per channel of the simulated memory: ``--mem
    channels=N`` (or a preset's) sets ``memory_channels``, ``--set memory_channels=N`` alone
    sets the memory's channels; both, differing, are refused."""
    from sim.gateware.sim_memory import PRESETS
    given = mem_overrides.get("channels",
                              PRESETS.get(mem_overrides.get("preset", ""), {}).get("channels"))
    if "memory_channels" not in overrides:
        if given is not None:
            overrides["memory_channels"] = str(given)
        return
    if given is None:
        mem_overrides["channels"] = overrides["memory_channels"]
    elif str(given).strip() != str(overrides["memory_channels"]).strip():
        raise UsageError(f"--set memory_channels={overrides['memory_channels']} contradicts "
                         f"the memory's channels={given} (--mem): the pipeline needs one "
                         f"memory port per channel")


def cmd_sim(args) -> int:
    import numpy as np
    import golden
    from sim.graphicionado.top import SimMemoryConfig
    design = get_design(args.design)
    if not design.needs_graph:
        raise UsageError(f"graphgen sim runs graphs on graphicionado, depgraph, bfs or "
                         f"dyngraph, not {design.name!r}")
    if design.name == "dyngraph":
        from .dyngraph_sim import sim_dyngraph
        mem_overrides = _parse_sets(args.mem)
        overrides = _parse_sets(args.set)
        _match_memory_channels(overrides, mem_overrides)
        config = design.config(overrides)
        memory = SimMemoryConfig.from_overrides(mem_overrides)
        return sim_dyngraph(args, config, memory, golden.load_graph(args.graph), UsageError)
    if args.updates is not None or args.batch is not None or args.answers is not None:
        raise UsageError("--updates, --batch and --answers are for --design dyngraph")
    if args.algo is None:
        raise UsageError(f"--design {design.name} needs --algo")
    if design.name != "bfs":
        for option in ("roots", "parents", "clock_mhz"):
            if getattr(args, option) is not None:
                raise UsageError(f"--{option.replace('_', '-')} is for --design bfs")
    overrides = _parse_sets(args.set)
    if design.name == "bfs":
        from .bfs_sim import sim_bfs
        mem_overrides = _parse_sets(args.mem)
        _match_memory_channels(overrides, mem_overrides)
        config = design.config(overrides)
        memory = SimMemoryConfig.from_overrides(mem_overrides)
        return sim_bfs(args, config, memory, golden.load_graph(args.graph), UsageError)
    if overrides.setdefault("algo", args.algo) != args.algo:
        raise UsageError(f"--set algo={overrides['algo']} contradicts --algo {args.algo}")
    mem_overrides = _parse_sets(args.mem)
    if design.name == "graphicionado":
        _match_memory_channels(overrides, mem_overrides)
    config = design.config(overrides)
    memory = SimMemoryConfig.from_overrides(mem_overrides)
    if design.name != "graphicionado" and memory.channels != 1:
        raise UsageError(f"{design.name} has one memory port: the simulated memory needs "
                         f"channels=1, not {memory.channels}")
    graph = golden.load_graph(args.graph)
    run = {"root": args.root}
    within = ""
    if design.name == "depgraph":
        from sim.depgraph.run import PAGERANK_ATOL, PAGERANK_RTOL, simulate
        if args.iters is not None:
            raise UsageError("depgraph runs to convergence: --iters does not apply")
        if args.slices is not None:
            raise UsageError("--slices is graph slicing of graphicionado; depgraph has none")
        report = simulate(graph, args.algo, config, root=args.root, simulator=args.simulator,
                          memory=memory, graph_name=args.graph, seed=args.seed,
                          trace=_trace_path(args), keep=args.keep)
        table = _depgraph_table(report.figures)
        if not config.is_min:
            within = f" (within {PAGERANK_ATOL:g} + {PAGERANK_RTOL:g}·|golden| per vertex)"
    else:
        from sim.graphicionado.run import simulate
        report = simulate(graph, args.algo, config, root=args.root, iters=args.iters,
                          simulator=args.simulator, memory=memory, graph_name=args.graph,
                          seed=args.seed, trace=_trace_path(args), keep=args.keep,
                          slices=args.slices)
        table = _sim_table(report.figures)
        run["iters"] = args.iters
        run["slices"] = report.slices
        if report.comparison != "exact":
            within = f" ({report.comparison})"
    figures = report.figures
    print(f"{design.name} {args.algo} on {args.graph}: {report.num_vertices} vertices, "
          f"{report.num_edges} edges")
    print(f"configuration {config.as_dict()}")
    print(f"memory {memory.as_dict()}")
    print(table)
    if report.run_dir:
        print(f"kept {report.run_dir}")
    if args.output:
        atomic_write(Path(args.output), lambda handle: np.save(handle, report.values),
                     binary=True)
    if args.json:
        out = base_report("sim", design.name, config)
        out["memory"] = memory.as_dict()
        out["graph"] = {"source": args.graph, "num_vertices": report.num_vertices,
                        "num_edges": report.num_edges, **run}
        out["figures"] = figures
        out["first_mismatch"] = report.first_mismatch
        write_json(Path(args.json), out)
    if not report.matches:
        bad = report.first_mismatch
        print(f"graphgen: MISMATCH with the golden model at vertex {bad['vertex']}: "
              f"RTL {bad['rtl']}, golden {bad['golden']}", file=sys.stderr)
        return 1
    print(f"result: matches the golden model{within}")
    return 0


TRACE_HELP = ("dump every signal of the run, under the design's block names, to an FST "
              "waveform (GTKWave, Surfer); Verilator only, a build of its own")


def _trace_path(args):
    if not args.trace:
        return None
    path = Path(args.trace)
    if path.suffix != ".fst":
        raise UsageError(f"--trace writes an FST waveform: give a FILE.fst, not {args.trace!r}")
    if args.simulator != "verilator":
        raise UsageError("--trace needs --simulator verilator")
    return path.resolve()


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


def _depgraph_table(figures: dict) -> str:
    phases = figures["phase_cycles"]
    wall = figures["wall_seconds"]
    rate = figures["simulated_cycles_per_second"] or 0.0
    build = "cached" if figures["build_cached"] else f"{wall['build']:.1f} s"
    gold = figures["golden"]
    rows = [
        ("cycles", f"{figures['cycles']} (load {phases['load']}, run {phases['run']}, "
                   f"write-back {phases['write']})"),
        ("updates", f"{figures['vertex_updates']} vertex updates in {figures['walks']} walks, "
                    f"{figures['stale_visits']} stale visits; golden model "
                    f"{gold['vertex_updates']}"),
        ("edges", f"{figures['edges_fetched']} fetched ({figures['edges_per_run_cycle']:.3f} "
                  f"per run cycle), {figures['scanned_edges']} re-read by the walk's scan; "
                  f"golden model {gold['edges_fetched']}"),
        ("stack", f"{figures['stack_overflows']} overflows; golden model "
                  f"{gold['stack_overflows']}"),
        ("banks", f"{figures['bank']['ops']} ops (updates and visits), "
                  f"{figures['bank']['hazard_waits']} bank-cycles waiting on a hazard, "
                  f"{figures['bank']['updates_passed']} updates sent past an older one "
                  f"(summed over the engines)"),
        ("shortcuts", _hub_line(figures["hub_index"], gold)),
        ("queues", f"{figures['queue']['pushes']} pushes, {figures['queue']['line_writes']} "
                   f"line writes, {figures['queue']['line_reads']} line reads"),
        ("memory", f"{figures['memory']['reads']} line reads, "
                   f"{figures['memory']['writes']} line writes"),
        ("simulation", f"{rate:,.0f} cycles/s; build {build}, "
                       f"run {wall['run']:.2f} s, image {wall['image']:.2f} s, "
                       f"read-back {wall['readback']:.2f} s"),
    ]
    return "\n".join(f"{name:<11} {value}" for name, value in rows)


def _sim_table(figures: dict) -> str:
    phases = figures["phase_cycles"]
    stalls = ", ".join(f"{name} {value}" for name, value in figures["stalls"].items())
    wall = figures["wall_seconds"]
    rate = figures["simulated_cycles_per_second"] or 0.0
    build = "cached" if figures["build_cached"] else f"{wall['build']:.1f} s"
    slices = figures.get("slices", 1)
    partitions = figures.get("extended_partitions", 0)
    sliced = ""
    if partitions:
        sliced = (f", extended slicing: {slices} slices of {partitions} partitions of "
                  f"{figures['slice_vertices']} vertices")
    elif slices > 1:
        sliced = f", {slices} graph slices of {figures['slice_vertices']} vertices"
    rows = [
        ("cycles", f"{figures['cycles']} over {figures['iterations']} iterations" + sliced),
        ("phases", f"load {phases['load']}, process {phases['process']}, "
                   f"apply {phases['apply']}"),
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
        ("crossbar", f"{figures['crossbar']['stalls']} input stalls "
                     f"({100 * figures['crossbar']['stall_share']:.1f}% of input-cycles "
                     f"processing), mean occupancy {figures['crossbar']['mean_occupancy']:.2f} "
                     f"words"),
        ("memory", f"{figures['memory']['reads']} line reads, "
                   f"{figures['memory']['writes']} line writes"),
        *[(f"channel {c}", f"{ch['reads']} reads, {ch['writes']} writes, "
                           f"utilisation {ch['utilisation'] or 0:.1%}, "
                           f"refused {ch['refused_share']:.1%} of cycles")
          for c, ch in enumerate(figures["memory"].get("channels", []))],
        ("simulation", f"{rate:,.0f} cycles/s; build {build}, "
                       f"run {wall['run']:.2f} s, image {wall['image']:.2f} s, "
                       f"read-back {wall['readback']:.2f} s"),
    ]
    return "\n".join(f"{name:<11} {value}" for name, value in rows)


def _golden_summary(algo: str, values) -> str:
    import numpy as np
    if algo in ("bfs", "sssp"):
        reached = values != np.iinfo(np.uint32).max
        top = int(values[reached].max()) if reached.any() else 0
        return f"reached {int(reached.sum())} of {values.size} vertices, largest {top}"
    if algo == "cc":
        return f"{np.unique(values).size} components"
    if algo == "pagerank":
        return f"sum {float(values.sum(dtype=np.float64)):.6g}, max {float(values.max()):.6g}"
    return f"values of shape {values.shape}, mean {float(values.mean(dtype=np.float64)):.6g}"


def _jsonable(value):
    import numpy as np
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="graphgen", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def design_command(name, help_text):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--design", required=True, help=f"one of {', '.join(DESIGNS)}")
        command.add_argument("--set", action="append", metavar="KEY=VALUE",
                             help="override a design parameter")
        return command

    verilog = design_command("verilog", "emit the Verilog of a design")
    verilog.add_argument("-o", "--output", required=True, metavar="FILE.v")
    verilog.set_defaults(run=cmd_verilog)

    test = design_command("test", "run a design's cocotb test on its Verilog")
    test.add_argument("--simulator", default="verilator", choices=("verilator", "icarus"))
    test.add_argument("--seed", type=int, default=1)
    test.add_argument("--json", metavar="FILE")
    test.add_argument("--trace", metavar="FILE.fst", help=TRACE_HELP)
    test.add_argument("--keep", action="store_true", help="keep the run's folder")
    test.set_defaults(run=cmd_test)

    synth = design_command("synth", "synthesize a design for area and clock figures")
    synth.add_argument("--target", choices=("ecp5", "generic", "asic"))
    synth.add_argument("--board", metavar="NAME",
                       help="build up to a bitstream for an amaranth-boards board (ulx3s-85f, "
                            "ecpix5-85, versa-ecp5, ...) instead of a --target")
    synth.add_argument("--liberty", metavar="FILE", help="Liberty file for --target asic")
    synth.add_argument("--clock-mhz", type=float, default=100.0,
                       help="clock constraint given to nextpnr (ecp5)")
    synth.add_argument("--seeds", type=int, default=1, metavar="N",
                       help="ecp5: place and route with seeds 1..N, report the best")
    synth.add_argument("--per-unit", action="store_true",
                       help="asic: synthesize each submodule of the top apart and report "
                            "each one's area (needed for designs a flat run cannot hold); "
                            "ecp5: also each top-level unit's cells")
    synth.add_argument("--scale-to", type=float, metavar="NM",
                       help="asic: also give the area scaled to this node (classical scaling)")
    synth.add_argument("--jobs", type=int, metavar="N",
                       help="asic --per-unit: Yosys runs at a time; ecp5 --seeds: seeds "
                            "placed and routed at a time (default: one per core)")
    synth.add_argument("--time-limit", type=float, metavar="SECONDS",
                       help="stop the tools after this long in all (an error saying so; "
                            "nextpnr stopped: the counts and how far it got, no Fmax)")
    synth.add_argument("--json", metavar="FILE")
    synth.set_defaults(run=cmd_synth)

    simulate = design_command("sim", "run a graph through a design in RTL simulation")
    simulate.add_argument("--algo", choices=("bfs", "sssp", "pagerank", "cc", "cf"),
                          help="the algorithm (every design but dyngraph)")
    simulate.add_argument("--graph", required=True, metavar="FILE|SPEC")
    simulate.add_argument("--root", type=int)
    simulate.add_argument("--iters", type=int)
    simulate.add_argument("--slices", type=int, metavar="N",
                          help="graphicionado: run in N graph slices (default: as many as "
                               "the scratchpad needs, one if the graph fits); with "
                               "symmetric=1 and max_slices > 1, N partitions of extended "
                               "slicing (N(N+1)/2 slices)")
    simulate.add_argument("--mem", action="append", metavar="KEY=VALUE",
                          help="simulated DRAM: preset (paper, paper_stream), latency, "
                               "latency_dist (fixed|uniform|tail), jitter, tail_percent, tail, "
                               "outstanding, pushback, reorder, bytes_per_cycle (per channel), "
                               "depth_lines, channels (graphicionado: sets memory_channels)")
    simulate.add_argument("--simulator", default="verilator", choices=("verilator", "icarus"))
    simulate.add_argument("--seed", type=int, default=1,
                          help="seeds the DRAM's randomness and the stall throttles")
    simulate.add_argument("-o", "--output", metavar="values.npy",
                          help="the values (bfs: levels, uint32; with --roots one row a root)")
    simulate.add_argument("--roots", type=int, metavar="K",
                          help="bfs: K roots drawn the Graph500 way (--seed), each run and "
                               "checked; TEPS per root and their harmonic mean")
    simulate.add_argument("--parents", metavar="FILE.npy",
                          help="bfs: the parent array (int64, the root its own parent, -1 "
                               "unreached; with --roots one row a root)")
    simulate.add_argument("--clock-mhz", type=float, metavar="F",
                          help="bfs: the clock for TEPS (default: the Fmax graphgen synth "
                               "--target ecp5 measured for this configuration)")
    simulate.add_argument("--updates", metavar="FILE|SPEC",
                          help="dyngraph: the operations (a file of + u v w / - u v / ? u v / "
                               "+v u / -v u lines, or mix:ops=N,insert=P,...); -o writes the "
                               "final graph as u v w lines")
    simulate.add_argument("--batch", type=int, metavar="N",
                          help="dyngraph: operations a batch (default: all in one)")
    simulate.add_argument("--answers", metavar="FILE",
                          help="dyngraph: the searches' answers, one a line")
    simulate.add_argument("--trace", metavar="FILE.fst", help=TRACE_HELP)
    simulate.add_argument("--json", metavar="FILE")
    simulate.add_argument("--keep", action="store_true",
                          help="keep the run's folder (memory images, simulator log)")
    simulate.set_defaults(run=cmd_sim)

    gold = commands.add_parser("golden", help="run the NumPy golden model")
    gold.add_argument("--algo", choices=("bfs", "sssp", "pagerank", "cc", "cf"),
                      help="the algorithm (with --updates: bfs or pagerank on the updated "
                           "graph, optional)")
    gold.add_argument("--graph", required=True, metavar="FILE|SPEC",
                      help="a .mtx/.npz/edge-list file or a generator such as "
                           "kron:scale=16,ef=16,seed=1")
    gold.add_argument("--root", type=int)
    gold.add_argument("--iters", type=int)
    gold.add_argument("--model", choices=MODELS,
                      help="one of DepGraph's execution models (its engines, the synchronous "
                           "frontier baseline or Ligra-o; reports their vertex updates), or "
                           "bfs: the BFS engine's direction-optimising model")
    gold.add_argument("--set", action="append", metavar="KEY=VALUE",
                      help=f"a parameter of --model ({settings_help()})")
    gold.add_argument("-o", "--output", metavar="values.npy")
    gold.add_argument("--parents", metavar="FILE.npy",
                      help="bfs: write the parent array (int64, the root its own parent, -1 "
                           "unreached) of the BFS engine's model (--model bfs)")
    gold.add_argument("--updates", metavar="FILE|SPEC",
                      help="the dynamic graph (slab hash): apply these operations (a file of "
                           "+ u v w / - u v / ? u v / +v u / -v u lines, or a generator such "
                           "as mix:ops=4096,insert=50,delete=25,search=25) to --graph; -o "
                           "writes the final graph as u v w lines")
    gold.add_argument("--batch", type=int, metavar="N",
                      help="with --updates: operations a batch (default: all in one)")
    gold.add_argument("--answers", metavar="FILE",
                      help="with --updates: the searches' answers, one a line (the weight, "
                           "or - when absent)")
    gold.add_argument("--json", metavar="FILE")
    gold.set_defaults(run=cmd_golden)

    from .sweep_commands import add_commands
    add_commands(commands, DESIGNS)
    return parser


def _user_errors() -> tuple[type[BaseException], ...]:
    from hw.lib.config import ConfigError
    errors = [UsageError, ConfigError, OSError]
    try:
        from golden import GraphError
        errors.append(GraphError)
    except ImportError:
        pass
    try:
        from synth import SynthError
        errors.append(SynthError)
    except ImportError:
        pass
    from sim.harness import SimulationError
    errors.append(SimulationError)
    from .sweep import SweepError
    errors.append(SweepError)
    return tuple(errors)


def _check_outputs(args):
    """Refuse output paths that cannot be written before any work: a run writes ``-o`` and
    then ``--json``, and the first must not stay behind when the second fails."""
    for option in ("output", "parents", "answers", "json"):
        value = getattr(args, option, None)
        if value is None:
            continue
        path = Path(value)
        if not value or path.is_dir():
            raise UsageError(f"--{option} {value!r} is not a file name")
        if not path.parent.is_dir():
            raise UsageError(f"--{option} {value}: folder {path.parent} does not exist")


def main(argv: list[str] | None = None) -> int:
    from sim.dram_run import RunFailure
    user_errors = _user_errors()
    try:
        args = _parser().parse_args(argv)
        _check_outputs(args)
        return args.run(args)
    except RunFailure as failure:
        lines = str(failure).strip().splitlines() or [type(failure).__name__]
        print(f"graphgen: RUN FAILED: {lines[0]}", file=sys.stderr)
        for line in lines[1:]:
            print(line, file=sys.stderr)
        return 1
    except user_errors as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"graphgen: error: {message}", file=sys.stderr)
        return 2
    except MemoryError as error:      # a graph or design too large for this machine
        print(f"graphgen: error: out of memory: {str(error).strip() or 'MemoryError'}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
