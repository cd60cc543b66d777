"""``graphgen sweep``: the command line checked and turned into points, then
:func:`graphgen.sweep.run_sweep`. A sweep simulates each point too when given ``--algo`` (or,
for the dynamic graph, ``--updates``) with ``--graph``, through the design's simulation
hooks: any design that has them."""

import os
from pathlib import Path

from ..algo_option import add_algo_option
from ..common import UsageError
from ..designs import DESIGNS, check_sim_options, get_design, simulated_designs
from ..reports import base_report
from ..simulation import SimRequest
from ..sweep import SWEEP_TARGETS, SweepError, parse_grid, run_sweep


__all__ = ["add_parser", "run"]

# The simulation options a sweep passes on to every point.
SWEEP_SIM_OPTIONS = ("algo", "root", "updates", "batch")


def add_parser(commands) -> None:
    sweep = commands.add_parser("sweep", help="synthesize (and simulate) a grid of "
                                              "configurations on Dask")
    sweep.add_argument("--design", required=True, help=f"one of {', '.join(DESIGNS)}")
    sweep.add_argument("--grid", required=True, metavar="KEY=V1,V2;KEY2=...",
                       help="the parameters to sweep; every combination is a point")
    sweep.add_argument("--targets", default="ecp5,asic",
                       help=f"comma-separated, of {', '.join(SWEEP_TARGETS)} (default "
                            f"ecp5,asic; empty: simulation only)")
    add_algo_option(sweep, "also simulate each point running this vertex program on --graph")
    sweep.add_argument("--graph", metavar="FILE|SPEC")
    sweep.add_argument("--root", type=int)
    sweep.add_argument("--updates", metavar="FILE|SPEC",
                       help="dyngraph: also simulate each point applying these operations "
                            "to --graph")
    sweep.add_argument("--batch", type=int, metavar="N",
                       help="dyngraph: operations a batch (default: all in one)")
    sweep.add_argument("--scheduler", metavar="tcp://HOST:PORT|slurm|pbs",
                       help="default: a local Dask cluster on this machine's cores")
    sweep.add_argument("--workers", type=int, metavar="N",
                       help="local workers (default: one per core); slurm/pbs: jobs")
    sweep.add_argument("--time-limit", type=float, metavar="SECONDS",
                       help="stop a point's synthesis for a target after this long (the "
                            "point is recorded with that error, and retried on a rerun)")
    sweep.add_argument("-o", dest="out_dir", required=True, metavar="DIR")
    sweep.set_defaults(run=run)


def _targets(args) -> list[str]:
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in SWEEP_TARGETS]
    if unknown or len(set(targets)) != len(targets):
        raise UsageError(f"--targets {args.targets}: each of {', '.join(SWEEP_TARGETS)} "
                         f"at most once")
    return targets


def _check_simulation(args, design) -> None:
    """A sweep that simulates: a design with simulation hooks, a graph, options it takes."""
    if design.simulation is None:
        raise UsageError(f"the sweep simulates {', '.join(simulated_designs())}, not "
                         f"{design.name}")
    if not args.graph:
        raise UsageError(f"--{'algo' if args.algo else 'updates'} needs --graph")
    check_sim_options(design, {option for option in SWEEP_SIM_OPTIONS
                               if getattr(args, option) is not None}, SWEEP_SIM_OPTIONS)
    design.simulation.check(SimRequest(graph_name=args.graph, algo=args.algo, root=args.root,
                                       updates=args.updates, batch=args.batch))
    import golden
    golden.load_graph(args.graph)           # a bad graph fails here, before any work


def _points(args) -> list[dict]:
    design = get_design(args.design)
    try:
        grid = parse_grid(args.grid)
    except SweepError as error:
        raise UsageError(str(error)) from None
    targets = _targets(args)
    simulates = args.algo is not None or args.updates is not None
    if not targets and not simulates:
        raise UsageError("nothing to do: give --targets or --algo with --graph")
    if simulates:
        _check_simulation(args, design)
    elif args.graph or args.root is not None or args.batch is not None:
        raise UsageError("--graph, --root and --batch are for a sweep that simulates (--algo, "
                         "or --updates)")
    if "asic" in targets:
        from synth.flow import _find_liberty
        _find_liberty(None)
    if args.time_limit is not None and not args.time_limit > 0:
        raise UsageError(f"--time-limit must be a positive number of seconds, not "
                         f"{args.time_limit}")
    sets_algo = args.algo and "algo" in design.config_class.field_names()
    points = []
    for index, settings in enumerate(grid):
        if sets_algo:
            settings = {"algo": args.algo, **settings}
        design.config(settings)                 # every point valid before any runs
        points.append({"index": index, "design": design.name, "settings": settings,
                       "targets": targets, "algo": args.algo, "graph": args.graph,
                       "root": args.root, "updates": args.updates, "batch": args.batch,
                       "time_limit": args.time_limit})
    return points


def run(args) -> int:
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}")
    points = _points(args)
    out_dir = Path(args.out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"-o {out_dir}: not a folder")
    meta = base_report("sweep", args.design, None)
    meta.update({"grid": args.grid, "targets": points[0]["targets"], "algo": args.algo,
                 "graph": args.graph, "root": args.root, "updates": args.updates,
                 "batch": args.batch,
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
