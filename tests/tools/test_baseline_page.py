"""graphgen report of a folder holding the CPU baseline bench's report (graphgen.baseline_page).

tests/data/cpu-baseline/cpu-baseline.json is bench/bench_cpu_baseline.py's report of BFS on
kron:scale=8,ef=8, with the dynamic graph unit's 512 inserts from a second run of the same
graph (2026-12-01, this 2-core machine, no synthesis reports given: only the
papers' 1 GHz clock)."""

import json
import shutil

from graphgen.baseline_page import find_baseline_report
from graphgen.cli import main
from tests.support import REPO_ROOT

FIXTURE = REPO_ROOT / "tests" / "data" / "cpu-baseline" / "cpu-baseline.json"


def test_the_page_holds_every_row_its_speed_up_and_clock(tmp_path, capsys):
    folder = tmp_path / "bench"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "cpu-baseline.json")
    (folder / "other.json").write_text(json.dumps({"command": "bench", "design": "bfs"}))
    assert find_baseline_report(folder) == folder / "cpu-baseline.json"
    page = tmp_path / "page.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    assert "2 algorithms, 8 rows" in capsys.readouterr().out
    text = page.read_text()
    report = json.loads(FIXTURE.read_text())
    bfs = report["results"]["bfs"]
    for name, row in bfs["accelerators"].items():
        assert f"{row['cycles']:,} cycles" in text and name in text
        assert f"{row['speedup']['paper']:.2f}×" in text
    assert "graphblas, 2 thread(s)" in text and "networkit, 1 thread(s)" in text
    assert "M TEPS" in text and "the papers&#x27; 1 GHz" in text
    inserts = report["results"]["inserts"]["accelerators"]["dyngraph"]
    assert f"{inserts['cycles']:,} cycles" in text and "M updates/s" in text


def test_a_folder_without_it_is_not_taken_for_one(tmp_path):
    (tmp_path / "sim.json").write_text(json.dumps({"command": "sim", "design": "bfs"}))
    (tmp_path / "broken.json").write_text("{")
    assert find_baseline_report(tmp_path) is None
