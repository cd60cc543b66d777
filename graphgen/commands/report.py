"""``graphgen report``: the HTML page of a sweep's folder (:mod:`graphgen.html_report`)."""

from pathlib import Path

from ..common import UsageError


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    report = commands.add_parser("report", help="an HTML page of a sweep's results")
    report.add_argument("folder", metavar="DIR")
    report.add_argument("-o", "--output", required=True, metavar="FILE.html")
    report.set_defaults(run=run)


def run(args) -> int:
    from ..html_report import write_report
    source = Path(args.folder)
    if not (source / "sweep.json").is_file():
        raise UsageError(f"{source} holds no sweep (no sweep.json): run graphgen sweep -o "
                         f"{source} first")
    summary = write_report(source, Path(args.output))
    print(f"report of {summary['points']} points written to {args.output} "
          f"({summary['plots']} plots, {summary['tables']} tables)")
    return 0
