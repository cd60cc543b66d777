"""``graphgen sweep`` and ``graphgen report``: checks of the command line, then
:mod:`graphgen.sweep` and :mod:`graphgen.html_report`."""

import os
from pathlib import Path

from .sweep import SIM_DESIGNS, SWEEP_TARGETS, SweepError, parse_grid, run_sweep


__all__ = ["cmd_sweep", "cmd_report", "add_commands"]


def _points(args, usage_error) -> list[dict]:
    from .designs import get_design
    design = get_design(args.design)
    try:
        grid = parse_grid(args.grid)
    except SweepError as error:
        raise usage_error(str(error)) from None
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in SWEEP_TARGETS]
    if unknown or len(set(targets)) != len(targets):
        raise usage_error(f"--targets {args.targets}: each of {', '.join(SWEEP_TARGETS)} "
                          f"at most once")
    if not targets and not args.algo:
        raise usage_error("nothing to do: give --targets or --algo with --graph")
    if args.algo:
        if design.name not in SIM_DESIGNS:
            raise usage_error(f"the sweep simulates {', '.join(SIM_DESIGNS)}, not "
                              f"{design.name}")
        if not args.graph:
            raise usage_error("--algo needs --graph")
        import golden
        golden.load_graph(args.graph)           # a bad graph fails here, before any work
    elif args.graph or args.root is not None:
        raise usage_error("--graph and --root are for a sweep with --algo")
    if "asic" in targets:
        from synth.flow import _find_liberty
        _find_liberty(None)
    if args.time_limit is not None and not args.time_limit > 0:
        raise usage_error(f"--time-limit must be a positive number of seconds, not "
                          f"{args.time_limit}")
    points = []
    for index, settings in enumerate(grid):
        if args.algo:
            settings = {"algo": args.algo, **settings} if design.name != "bfs" else settings
        design.config(settings)                 # every point valid before any runs
        points.append({"index": index, "design": design.name, "settings": settings,
                       "targets": targets, "algo": args.algo, "graph": args.graph,
                       "root": args.root, "time_limit": args.time_limit})
    return points


def cmd_sweep(args) -> int:
    from .cli import UsageError
    from .reports import base_report
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}")
    points = _points(args, UsageError)
    out_dir = Path(args.out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"-o {out_dir}: not a folder")
    meta = base_report("sweep", args.design, None)
    meta.update({"grid": args.grid, "targets": points[0]["targets"], "algo": args.algo,
                 "graph": args.graph, "root": args.root,
                 "scheduler": args.scheduler or f"local ({args.workers or os.cpu_count()} "
                                                 f"workers)"})
    rows, complete = run_sweep(points, out_dir, scheduler=args.scheduler,
                               workers=args.workers, meta=meta)
    failed = [row for row in rows if row["error"]]
    print(f"sweep of {args.design}: {len(rows)} of {len(points)} points in {out_dir}/ "
          f"(table.csv, table.parquet), {sum(bool(r['cached']) for r in rows)} from the "
          f"cache, {len(failed)} failed")
    for row in failed:
        print(f"  point {row['point']} {row['settings']}: {row['error']}")
    if not complete:
        return 130
    return 1 if failed else 0


def cmd_report(args) -> int:
    """A sweep's page (the folder holds sweep.json) or a run's page (it holds a graphgen sim
    --json report and graphgen synth --json reports: graphgen.run_page)."""
    from .cli import UsageError
    source = Path(args.folder)
    if not source.is_dir():
        raise UsageError(f"{source}: no such folder")
    if (source / "sweep.json").is_file() and not args.run_folder:
        from .html_report import write_report
        summary = write_report(source, Path(args.output))
        print(f"report of {summary['points']} points written to {args.output} "
              f"({summary['plots']} plots, {summary['tables']} tables)")
        return 0
    from .run_page import RunFolderError, is_run_folder, write_run_page
    if not args.run_folder and not is_run_folder(source):
        raise UsageError(f"{source} holds no sweep (no sweep.json) and no run (no graphgen "
                         f"sim --json report): run graphgen sweep -o {source}, or graphgen "
                         f"sim --json {source}/sim.json, first")
    try:
        summary = write_run_page(source, Path(args.output))
    except RunFolderError as error:
        raise UsageError(str(error)) from None
    verdict = {True: "matches the golden model", False: "DIFFERS from the golden model",
               None: "check not recorded"}[summary["matches"]]
    print(f"report of a {summary['design']} run ({summary['reports']} reports; {verdict}) "
          f"written to {args.output} ({summary['plots']} plots, {summary['tables']} tables)")
    return 0


def add_commands(commands, designs):
    sweep = commands.add_parser("sweep", help="synthesize (and simulate) a grid of "
                                              "configurations on Dask")
    sweep.add_argument("--design", required=True, help=f"one of {', '.join(designs)}")
    sweep.add_argument("--grid", required=True, metavar="KEY=V1,V2;KEY2=...",
                       help="the parameters to sweep; every combination is a point")
    sweep.add_argument("--targets", default="ecp5,asic",
                       help=f"comma-separated, of {', '.join(SWEEP_TARGETS)} (default "
                            f"ecp5,asic; empty: simulation only)")
    sweep.add_argument("--algo", choices=("bfs", "sssp", "pagerank", "cc"),
                       help="also simulate each point on --graph")
    sweep.add_argument("--graph", metavar="FILE|SPEC")
    sweep.add_argument("--root", type=int)
    sweep.add_argument("--scheduler", metavar="tcp://HOST:PORT|slurm|pbs",
                       help="default: a local Dask cluster on this machine's cores")
    sweep.add_argument("--workers", type=int, metavar="N",
                       help="local workers (default: one per core); slurm/pbs: jobs")
    sweep.add_argument("--time-limit", type=float, metavar="SECONDS",
                       help="stop a point's synthesis for a target after this long (the "
                            "point is recorded with that error, and retried on a rerun)")
    sweep.add_argument("-o", dest="out_dir", required=True, metavar="DIR")
    sweep.set_defaults(run=cmd_sweep)

    report = commands.add_parser(
        "report", help="an HTML page of a sweep's results, or of one accelerator run",
        description="One self-contained HTML page. DIR is either a sweep's folder (graphgen "
                    "sweep -o DIR; it holds sweep.json): the table of the points and, when "
                    "two or more points have the figure, plots of area, Fmax and throughput; "
                    "or a run's folder, as make run's build/run: one graphgen sim --json "
                    "report and any graphgen synth --json reports of the same design and "
                    "configuration (*.json, recognised by their contents): the design and "
                    "its configuration, the check against the golden model, cycles, edges "
                    "per cycle, memory channels, stalls, ASIC area by unit and ECP5 Fmax "
                    "when those reports hold them. Tool versions are in the page's footer.")
    report.add_argument("folder", metavar="DIR",
                        help="a sweep's folder (holds sweep.json) or a run's folder (holds a "
                             "graphgen sim --json report)")
    report.add_argument("--run", dest="run_folder", action="store_true",
                        help="DIR is a run's folder: make the run's page even if DIR also "
                             "holds a sweep.json (otherwise recognised by its contents)")
    report.add_argument("-o", "--output", required=True, metavar="FILE.html",
                        help="the page to write (whole or not at all)")
    report.set_defaults(run=cmd_report)
