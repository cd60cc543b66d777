"""graphgen sweep and graphgen report (issue 20): the grid, a two-point sweep on a local Dask
cluster and its rerun from the cache, a failing point recorded while the sweep goes on, the
table in CSV and Parquet, Ctrl-C keeping the finished points, and the HTML report rendered in
headless Chromium."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphgen.cli import main
from graphgen.html_report import _table, pareto_front
from graphgen.sweep import TABLE_COLUMNS, flat_row, parse_grid, run_point, run_sweep

CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")


def test_grid_is_the_product_in_order():
    assert parse_grid("a=1,2; b=x,y") == [{"a": "1", "b": "x"}, {"a": "1", "b": "y"},
                                          {"a": "2", "b": "x"}, {"a": "2", "b": "y"}]
    assert parse_grid("entries=16") == [{"entries": "16"}]


def test_pareto_front():
    # (area, throughput): 0 and 2 are beaten by 1; 3 is the fastest, 4 the smallest.
    points = [(2.0, 1.0), (1.0, 2.0), (3.0, 2.0), (4.0, 5.0), (0.5, 0.1)]
    assert pareto_front(points) == [1, 3, 4]


def test_a_point_that_does_not_fit_names_what_overflows():
    ecp5 = {"lut4": 900, "ebr": 392, "fmax_mhz": None, "fits": False,
            "overflow": {"DP16KD": {"used": 392, "available": 208}}}
    row = {"point": 0, "design": "graphicionado", "settings": {}, "results": {"ecp5": ecp5}}
    flat = flat_row(row)
    assert flat["ecp5_overflow"] == "DP16KD 392 of 208" and flat["fmax_mhz"] is None
    assert flat["ecp5_ebr"] == 392
    fitting = {**row, "results": {"ecp5": {**ecp5, "fits": True, "overflow": {}}}}
    assert flat_row(fitting)["ecp5_overflow"] is None


def test_a_gw5a_point_has_its_own_columns():
    """The GW5AST-138C's figures beside the ECP5's, its Fmax apart from the ECP5's."""
    gw5a = {"lut4": 2000, "ff": 500, "bsram": 384, "dsp": 0, "fmax_mhz": None, "fits": False,
            "overflow": {"BSRAM": {"used": 384, "available": 340}}, "stopped": {}}
    ecp5 = {"lut4": 900, "ebr": 4, "fmax_mhz": 80.0, "fits": True, "overflow": {}}
    row = {"point": 0, "design": "cam", "settings": {},
           "results": {"ecp5": ecp5, "gw5a-138": gw5a}}
    flat = flat_row(row)
    assert (flat["gw5a_lut4"], flat["gw5a_ff"], flat["gw5a_bsram"], flat["gw5a_dsp"]) == \
        (2000, 500, 384, 0)
    assert flat["gw5a_overflow"] == "BSRAM 384 of 340" and flat["gw5a_stopped"] is None
    assert flat["gw5a_fmax_mhz"] is None and flat["fmax_mhz"] == 80.0
    routed = {**row, "results": {"gw5a-138": {**gw5a, "fits": True, "overflow": {},
                                              "fmax_mhz": 120.5}}}
    assert flat_row(routed)["gw5a_fmax_mhz"] == 120.5 and flat_row(routed)["fmax_mhz"] is None
    assert all(f"gw5a_{key}" in TABLE_COLUMNS for key in ("lut4", "ff", "bsram", "dsp",
                                                          "overflow", "fmax_mhz"))


def test_a_point_with_an_asic_clock_gives_its_throughput_there():
    sim = {"edges_per_cycle": 2.0, "operations_per_cycle": None}
    asic = {"area_um2": 4e6, "asic_timing": {"fmax_mhz": 250.0}}
    flat = flat_row({"point": 0, "design": "bfs", "settings": {},
                     "results": {"asic": asic, "sim": sim}})
    assert flat["asic_fmax_mhz"] == 250.0 and flat["fmax_mhz"] is None
    assert flat["edges_per_second_at_asic_fmax"] == 2.0 * 250e6
    assert flat["edges_per_second_at_fmax"] is None
    assert flat["operations_per_second_at_asic_fmax"] is None
    untimed = flat_row({"point": 0, "design": "bfs", "settings": {},
                        "results": {"asic": {**asic, "asic_timing": None}, "sim": sim}})
    assert untimed["asic_fmax_mhz"] is None and untimed["edges_per_second_at_asic_fmax"] is None
    assert {"asic_fmax_mhz", "edges_per_second_at_asic_fmax",
            "operations_per_second_at_asic_fmax"} <= set(TABLE_COLUMNS)


def test_a_point_that_nextpnr_did_not_finish_says_how_far_it_got(tmp_path):
    from graphgen.sweep import _cached
    stopped = {"stage": "routing", "placed_fmax_mhz": 14.91, "arcs": 296446,
               "arcs_left": 223505}
    ecp5 = {"lut4": 900, "ebr": 49, "fmax_mhz": None, "fits": True, "overflow": {},
            "stopped": stopped}
    row = {"point": 0, "design": "bfs", "settings": {}, "results": {"ecp5": ecp5}}
    flat = flat_row(row)
    assert flat["ecp5_stopped"] == ("stopped at the time limit while routing (placement's "
                                    "estimate 14.9 MHz; 223,505 of 296,446 arcs left)")
    assert flat["fmax_mhz"] is None and flat["ecp5_lut4"] == 900
    finished = {**row, "results": {"ecp5": {**ecp5, "stopped": {}, "fmax_mhz": 50.0}}}
    assert flat_row(finished)["ecp5_stopped"] is None
    # A stopped synthesis is not kept: the next sweep runs it again.
    path = tmp_path / "cache" / "point.json"
    assert _cached(path, lambda: ecp5) == (ecp5, False) and not path.exists()
    done = {**ecp5, "stopped": {}}
    assert _cached(path, lambda: done) == (done, False) and path.exists()
    assert _cached(path, lambda: pytest.fail("made again")) == (done, True)


@pytest.mark.parametrize("argv, fragment", [
    (["--grid", "entries"], "is not key=value1,value2"),
    (["--grid", "entries=8;entries=16"], "entries given twice"),
    (["--grid", "entries=8,7"], "entries"),
    (["--grid", "entries=8", "--targets", "ecp5,fpga"], "--targets ecp5,fpga"),
    (["--grid", "entries=8", "--algo", "bfs", "--graph", "kron:scale=4"],
     "the sweep simulates graphicionado, depgraph, bfs, dyngraph, not cam"),
    (["--grid", "entries=8", "--targets", ""], "nothing to do"),
    (["--grid", "entries=8", "--time-limit", "0"], "--time-limit must be a positive"),
])
def test_bad_sweeps_are_one_line(tmp_path, capsys, argv, fragment):
    out = tmp_path / "sweep"
    assert main(["sweep", "--design", "cam", *argv, "-o", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], lines
    assert not out.exists()


def test_sweep_caches_records_failures_and_reports(tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = ["sweep", "--design", "cam", "--grid", "entries=8,16;ways=2", "--targets",
            "generic", "--workers", "2", "-o", str(out)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "2 of 2 points" in first and "0 from the cache, 0 failed" in first
    table = pq.read_table(out / "table.parquet").to_pylist()
    assert [row["set.entries"] for row in table] == ["8", "16"]
    assert all(row["generic_cells"] > 0 and row["error"] is None for row in table)
    assert table[1]["generic_cells"] > table[0]["generic_cells"]
    csv = (out / "table.csv").read_text().splitlines()
    assert len(csv) == 3 and csv[0].startswith("point,design,settings")

    # The rerun takes both points from the cache (same Verilog hash).
    assert main(argv) == 0
    assert "2 from the cache, 0 failed" in capsys.readouterr().out

    # A point whose task fails is recorded; the others finish.
    points = [{"index": 0, "design": "cam", "settings": {"entries": "8", "ways": "2"},
               "targets": ["generic"]},
              {"index": 1, "design": "no-such-design", "settings": {}, "targets": ["generic"]},
              {"index": 2, "design": "cam", "settings": {"entries": "32"},
               "targets": ["generic"], "time_limit": 1e-9}]
    rows, complete = run_sweep(points, tmp_path / "failing", workers=2)
    assert complete and rows[0]["error"] is None and rows[0]["cached"] is False
    assert "unknown design 'no-such-design'" in rows[1]["error"]
    assert "time limit" in rows[2]["error"]
    saved = json.loads((tmp_path / "failing" / "points" / "00001.json").read_text())
    assert "traceback" in saved

    page = tmp_path / "report.html"
    assert main(["report", str(out), "-o", str(page)]) == 0
    assert "(1 plots, 1 tables)" in capsys.readouterr().out     # cells against entries
    text = page.read_text()
    assert text.count("<figure>") == 1 and "<table>" in text
    if CHROMIUM is None:
        pytest.skip("no headless Chromium (make system-deps installs Debian's "
                    "chromium-headless-shell)")
    dom = subprocess.run([CHROMIUM, "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    rendered = json.loads(dom.split('data-rendered="', 1)[1].split('"', 1)[0]
                          .replace("&quot;", '"'))
    assert rendered == {"plots": text.count("<figure>"), "tables": 1}


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_leaves_the_finished_points_saved(tmp_path):
    """SIGINT (Ctrl-C) during a sweep: the points finished so far stay saved, with the table
    written from them, and the exit status says it was interrupted."""
    out = tmp_path / "sweep"
    command = [str(Path(sys.executable).with_name("graphgen")), "sweep", "--design", "cam",
               "--grid", "entries=8,16,32,64,128,256", "--targets", "generic", "--workers",
               "1", "-o", str(out)]
    # SIGINT's default action restored in the child: a pytest-xdist worker ignores SIGINT, a
    # child inherits that, and Python then installs no KeyboardInterrupt handler.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=_default_sigint)
    deadline = time.monotonic() + 300
    while not list((out / "points").glob("*.json")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no point finished in 300 s"
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, (stdout, stderr)
    assert "interrupted: the finished points are saved" in stderr
    saved = sorted((out / "points").glob("*.json"))
    assert 1 <= len(saved) < 6
    assert all(json.loads(path.read_text())["error"] is None for path in saved)
    assert len((out / "table.csv").read_text().splitlines()) == len(saved) + 1


# Stand-ins for a batch system's submit and cancel commands: the job script runs here as the
# leader of its own process group (so cancelling it ends the worker and its nanny), and is
# kept for the test. The job id is the group's id.
FAKE_SUBMIT = """#!/bin/sh
copy="{jobs}/job-$$.sh"
cp "$1" "$copy"
"{python}" -c 'import os, sys; os.setpgid(0, 0); os.execvp("sh", ["sh", sys.argv[1]])' \
    "$copy" > "$copy.log" 2>&1 &
echo "$!" > "$copy.id"
echo "{answer}"
"""
FAKE_CANCEL = """#!/bin/sh
echo "$@" >> "{jobs}/cancelled"
for id in "$@"; do kill -TERM "-${{id%%.*}}"; done
"""
QUEUES = {"slurm": ("sbatch", "scancel", "Submitted batch job $!", "#SBATCH"),
          "pbs": ("qsub", "qdel", "$!.fake-server", "#PBS")}


@pytest.mark.parametrize("queue", QUEUES)
def test_sweep_runs_on_a_batch_queue(tmp_path, capsys, monkeypatch, queue):
    """``--scheduler slurm|pbs``: dask-jobqueue submits worker jobs with the queue's submit
    command (here a stand-in that runs the job script on this machine), the points run on
    those workers, and the jobs are cancelled at the end."""
    import dask
    import dask_jobqueue  # noqa: F401 (its defaults in dask's configuration, before the set)
    submit, cancel, answer, directive = QUEUES[queue]
    bin_dir, jobs = tmp_path / "bin", tmp_path / "jobs"
    bin_dir.mkdir()
    jobs.mkdir()
    (bin_dir / submit).write_text(FAKE_SUBMIT.format(jobs=jobs, answer=answer,
                                                     python=sys.executable))
    (bin_dir / cancel).write_text(FAKE_CANCEL.format(jobs=jobs))
    for path in bin_dir.iterdir():
        path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}")
    out = tmp_path / "sweep"
    settings = {f"jobqueue.{queue}.cores": 1, f"jobqueue.{queue}.memory": "1GB",
                f"jobqueue.{queue}.python": sys.executable,
                f"jobqueue.{queue}.local-directory": str(tmp_path / "worker")}
    with dask.config.set(settings), _deadline(300):
        assert main(["sweep", "--design", "cam", "--grid", "entries=8,16;ways=2", "--targets",
                     "generic", "--scheduler", queue, "-o", str(out)]) == 0
    assert "2 of 2 points" in capsys.readouterr().out
    table = pq.read_table(out / "table.parquet").to_pylist()
    assert all(row["generic_cells"] > 0 and row["error"] is None for row in table)
    scripts = sorted(jobs.glob("job-*.sh"))
    assert len(scripts) == 1, scripts
    text = scripts[0].read_text()
    assert directive in text and "distributed.cli.dask_worker" in text
    assert "Starting Worker" in (jobs / f"{scripts[0].name}.log").read_text()
    # Cancelled with its id, and the job's process group is gone.
    group = int((jobs / f"{scripts[0].name}.id").read_text())
    assert str(group) in (jobs / "cancelled").read_text().split()[0]
    deadline = time.monotonic() + 30
    while _group_alive(group):
        assert time.monotonic() < deadline, "the job was not cancelled"
        time.sleep(0.2)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@contextlib.contextmanager
def _deadline(seconds: int):
    """Fail instead of hanging (a worker that never joins leaves the sweep waiting)."""
    def expire(signum, frame):
        raise TimeoutError(f"no result in {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_batch_queue_without_its_settings_is_one_line(tmp_path, capsys):
    import dask
    import dask_jobqueue  # noqa: F401
    out = tmp_path / "sweep"
    with dask.config.set({"jobqueue.slurm.cores": None, "jobqueue.slurm.memory": None}):
        assert main(["sweep", "--design", "cam", "--grid", "entries=8", "--targets", "generic",
                     "--scheduler", "slurm", "-o", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "--scheduler slurm" in lines[0] and "jobqueue.slurm" in lines[0]
    assert not out.exists()


def test_the_sweep_simulates_through_the_design_hooks(tmp_path, monkeypatch):
    """A point's simulation goes through the design's hooks in the registry, whatever the
    design: here the dynamic graph's, its work counted in operations."""
    import dataclasses
    from graphgen import designs
    from graphgen.simulation import SimRun
    seen = []

    def simulate(request):
        seen.append(request)
        return SimRun(heading="", matches=True, cycles=200, work={"operations": 50},
                      verdict="", mismatch="", reports=[], json={})

    design = designs.DESIGNS["dyngraph"]
    hooked = dataclasses.replace(design, simulation=dataclasses.replace(
        design.simulation, simulate=simulate))
    monkeypatch.setitem(designs.DESIGNS, "dyngraph", hooked)
    point = {"index": 0, "design": "dyngraph", "settings": {"max_vertices": "64"},
             "targets": [], "graph": "kron:scale=4", "updates": "mix:ops=50", "batch": 10}
    row = run_point(point, str(tmp_path))
    assert row["error"] is None, row.get("traceback")
    assert seen[0].updates == "mix:ops=50" and seen[0].batch == 10 and seen[0].algo is None
    flat = flat_row({**row, "updates": point["updates"]})
    assert flat["operations"] == 50 and flat["operations_per_cycle"] == 0.25
    assert flat["cycles"] == 200 and flat["edges"] is None


def test_a_simulated_point_has_its_roofline_columns():
    """A point's simulation gives the table its roofline (issue 53): bytes per edge, the
    share of the memory's peak used and the bound that peak sets at that traffic, from the
    lines the run's clients moved; a run whose traffic was not counted leaves them empty."""
    from graphgen.simulation import SimRun
    from sim.gateware.sim_memory import SimMemoryConfig
    from sim.traffic import MemoryTraffic
    traffic = MemoryTraffic(("src0.edge_read", "dst0.apply"), 2,
                            {(0, 0): (10, 0), (1, 1): (3, 3)})
    run = SimRun(heading="", matches=True, cycles=100, work={"edges": 32}, verdict="",
                 mismatch="", reports=[], json={}, traffic=traffic,
                 memory_kinds={"src.edge_read": "edges", "dst.apply": "write-back"})
    memory = SimMemoryConfig(channels=2, bytes_per_cycle=16)
    summary = run.summary(memory)
    row = {"point": 0, "design": "graphicionado", "settings": {}, "results": {"sim": summary}}
    flat = flat_row(row)
    assert flat["bytes_per_edge"] == 16 * 64 / 32
    assert flat["bandwidth_share"] == 16 * 64 / (2 * 16 * 100)
    assert flat["bound_edges_per_cycle"] == 16 * 32 / (10 * 64)     # the busiest channel's
    assert flat["bytes_per_operation"] is None
    uncounted = SimRun(heading="", matches=True, cycles=100, work={"edges": 32}, verdict="",
                       mismatch="", reports=[], json={}).summary(memory)
    assert "bandwidth_share" not in uncounted
    assert set(TABLE_COLUMNS) >= {"bytes_per_edge", "bandwidth_share", "bound_edges_per_cycle"}
    page = _table([flat], [row])
    assert "bytes/edge</th>" in page and ">32<" in page and ">0.32<" in page   # 32 B, 32%
