"""``bench/bench_programs.py`` without simulation (its runs are minutes of Verilator each): its
options, the example programs it names and the line of its table."""

import sys

import pytest

from graphgen.programs import load_program
from tests.support import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

from bench_programs import (HEADER, PROGRAM_FILES, graph_spec, parse_args,  # noqa: E402
                            program_spec, row)


def test_defaults_are_the_four_programs_of_the_issue_at_one_and_four_streams():
    args = parse_args([])
    assert (args.scale, args.programs, args.streams, args.ppr_iters) == \
        (16, ["widest", "spmv", "ppr", "labelprop"], [1, 4], 3)
    assert args.max_vertices is None and args.json is None


def test_options_are_read():
    args = parse_args(["--scale", "8", "--programs", "spmv, bounded_hops", "--streams", "4",
                       "--ppr-iters", "2", "--max-vertices", "65536", "--json", "x.json"])
    assert (args.scale, args.programs, args.streams, args.ppr_iters, args.max_vertices,
            args.json) == (8, ["spmv", "bounded_hops"], [4], 2, 65536, "x.json")


@pytest.mark.parametrize("argv, message", [
    (["--programs", "widest,bfs"], "--programs: bfs"),
    (["--programs", ""], "--programs: none given"),
    (["--streams", "1,3"], "--streams: 3"),
    (["--ppr-iters", "0"], "--ppr-iters: at least 1"),
])
def test_bad_options_are_refused_by_name(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("name", PROGRAM_FILES)
def test_every_program_named_loads_from_examples(name):
    assert load_program(program_spec(name)).name == name


def test_weights_only_for_a_program_that_reads_them():
    assert graph_spec(16, True) == "kron:scale=16,ef=16,seed=1,weights=1:255"
    assert graph_spec(14, False) == "kron:scale=14,ef=16,seed=1"
    weighted = {name for name in PROGRAM_FILES
                if load_program(program_spec(name)).weight is not None}
    assert weighted == {"widest", "spmv", "bounded_hops"}


def figures(**changes):
    base = {"cycles": 1_234_567, "edges_traversed": 1_000_000, "edges_per_cycle": 0.81,
            "edges_per_process_cycle": 0.9512, "iterations": 7, "matches_golden": True,
            "total_wall_seconds": 95.25, "build_cached": False,
            "wall_seconds": {"build": 61.04}}
    return {**base, **changes}


def test_row_lines_up_with_the_header_and_shows_each_figure():
    line = row("labelprop", 4, figures())
    assert len(line) == len(HEADER)
    assert line.split() == ["labelprop", "4x4", "1234567", "1000000", "0.810", "0.951", "7",
                            "match", "95.2", "61.0"]


def test_row_says_a_cached_build_and_a_mismatch():
    line = row("spmv", 1, figures(build_cached=True, matches_golden=False))
    assert line.split()[-3:] == ["DIFFER", "95.2", "cached"]
