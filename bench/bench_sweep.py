"""Issue 20's sweep figure: the same 16-point sweep (the CAM: entries 8, 16, 32, 64 x ways 1,
2, 4, 8; ECP5 place and route and ASIC per unit) on a local Dask cluster of 2 workers and of 1
worker (the points one after another), each into an empty folder (nothing cached), in one
run; the wall time of each and the speed-up. Then the report page of the 2-worker sweep.

Prints a table and writes the JSON report.
"""

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphgen.cli import main as graphgen  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from graphgen.sweep import load_points  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "build" / "bench" / "sweep.json"
GRID = "entries=8,16,32,64;ways=1,2,4,8"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default=GRID)
    parser.add_argument("--targets", default="ecp5,asic")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    report = base_report("bench", "cam", None)
    report.update({"grid": args.grid, "targets": args.targets, "runs": []})
    for workers in (2, 1):
        folder = ROOT / "build" / "bench" / f"sweep-{workers}w"
        shutil.rmtree(folder, ignore_errors=True)
        start = time.perf_counter()
        status = graphgen(["sweep", "--design", "cam", "--grid", args.grid, "--targets",
                           args.targets, "--workers", str(workers), "-o", str(folder)])
        wall = time.perf_counter() - start
        points = load_points(folder)
        report["runs"].append({"workers": workers, "wall_seconds": wall, "status": status,
                               "points": len(points),
                               "point_seconds": [p["seconds"] for p in points],
                               "failed": sum(1 for p in points if p.get("error"))})
        print(f"{workers} worker(s): {len(points)} points in {wall:.0f} s (exit {status}); "
              f"points took {sum(p['seconds'] for p in points):.0f} s between them", flush=True)
    two, one = report["runs"]
    report["speedup"] = one["wall_seconds"] / two["wall_seconds"]
    print(f"speed-up of 2 workers over 1: {report['speedup']:.2f}x")
    graphgen(["report", str(ROOT / "build" / "bench" / "sweep-2w"), "-o",
              str(ROOT / "build" / "bench" / "sweep-report.html")])
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.json, report)
    return 0 if all(run["status"] == 0 for run in report["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
