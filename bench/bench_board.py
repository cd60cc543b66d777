"""The board build (issue 52's third benchmark): the ULX3S-85F SoC with the smallest design
(Graphicionado, ``max_vertices=64``) built to a bitstream (``graphgen board``: wall time,
Yosys's LUT4, flip-flops, DP16KD and multipliers, nextpnr's utilisation and Fmax at one seed),
and the simulated end-to-end run (``graphgen run --sim``: the SoC in Verilator with LiteDRAM's
SDRAM model, a small graph, checked against the golden model: wall time, Verilator build and
simulation times, simulated time).

Prints both and writes the JSON report.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from graphgen.cli import main  # noqa: E402
from graphgen.designs import get_design  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402

DESIGN = ["--design", "graphicionado", "--set", "max_vertices=64"]


def small_graph(seed=3, n=16, m=40):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    order = np.lexsort((dst, src))
    return golden.Graph.from_edges(n, src[order], dst[order], rng.integers(1, 9, m)[order])


def _command(argv: list[str], report: Path) -> tuple[dict, float]:
    start = time.perf_counter()
    status = main([*argv, "--json", str(report)])
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"graphgen {' '.join(argv)} exited with {status}")
    return json.loads(report.read_text()), wall


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", required=True, metavar="FILE")
    parser.add_argument("--seed", type=int, default=1, help="nextpnr's seed")
    parser.add_argument("--output", default="build/bench/board", metavar="DIR",
                        help="the board build's folder")
    args = parser.parse_args()
    design = get_design("graphicionado")
    report = base_report("bench_board", design.name,
                         design.config({"max_vertices": "64"}).design_only())
    with tempfile.TemporaryDirectory(prefix="bench-board-") as folder:
        folder = Path(folder)
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        build, build_wall = _command(["board", "--board", "ulx3s-85f", *DESIGN, "-o",
                                      args.output, "--seed", str(args.seed)],
                                     folder / "board.json")
        graph_file = folder / "g.el"
        golden.write_graph(small_graph(), graph_file)
        run, run_wall = _command(["run", "--board", "ulx3s-85f", "--sim", *DESIGN, "--algo",
                                  "bfs", "--graph", str(graph_file), "--poll", "256"],
                                 folder / "run.json")
    report["bitstream"] = {**build, "wall_seconds": round(build_wall, 1)}
    report["simulated_run"] = {**run, "wall_seconds": round(run_wall, 1)}
    write_json(Path(args.json), report)
    print(f"bitstream build: {build_wall:.0f} s wall; simulated end-to-end run: "
          f"{run_wall:.0f} s wall, {'passed' if run['passed'] else 'FAILED'}")
    return 0 if run["passed"] else 1


if __name__ == "__main__":
    sys.exit(main_bench())
