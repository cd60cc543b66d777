"""``graphgen report``: one self-contained HTML page of a sweep's folder
(:mod:`graphgen.html_report`) or of one accelerator run's folder (:mod:`graphgen.run_page`)."""

from pathlib import Path

from ..common import UsageError


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
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
                    "when those reports hold them; or a folder holding "
                    "bench/bench_cpu_baseline.py's JSON report: the accelerators beside the "
                    "CPU graph libraries, times at "
                    "each clock and speed-ups. Tool versions are in the page's footer.")
    report.add_argument("folder", metavar="DIR",
                        help="a sweep's folder (holds sweep.json), a run's folder (holds a "
                             "graphgen sim --json report) or a folder holding a CPU baseline "
                             "report")
    report.add_argument("--run", dest="run_folder", action="store_true",
                        help="DIR is a run's folder: make the run's page even if DIR also "
                             "holds a sweep.json (otherwise recognised by its contents)")
    report.add_argument("-o", "--output", required=True, metavar="FILE.html",
                        help="the page to write (whole or not at all)")
    report.set_defaults(run=run)


def run(args) -> int:
    source = Path(args.folder)
    if not source.is_dir():
        raise UsageError(f"{source}: no such folder")
    from ..baseline_page import find_baseline_report, write_baseline_page
    baseline = None if args.run_folder else find_baseline_report(source)
    if baseline is not None and not (source / "sweep.json").is_file():
        summary = write_baseline_page(baseline, Path(args.output))
        print(f"report of the CPU baseline {baseline} written to {args.output} "
              f"({summary['algorithms']} algorithms, {summary['rows']} rows)")
        return 0
    if (source / "sweep.json").is_file() and not args.run_folder:
        from ..html_report import write_report
        summary = write_report(source, Path(args.output))
        print(f"report of {summary['points']} points written to {args.output} "
              f"({summary['plots']} plots, {summary['tables']} tables)")
        return 0
    from ..run_page import RunFolderError, is_run_folder, write_run_page
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
