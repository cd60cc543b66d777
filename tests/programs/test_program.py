"""Program definitions: refusals with one message naming the program and the reason, and
user programs written here from scratch (not built-ins) run through the NumPy back end."""

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import golden
from golden.programs import run_program
from graphgen.programs import (PROGRAMS, Float32, Op, Operand, Param, Program, ProgramError,
                               UInt, VertexProgram, build, f32, fadd, fmul, lt, minimum,
                               reciprocal, sat_add, select, uint)
from tests.support import REPO_ROOT
from tests.support.examples import example


class Hops(VertexProgram):
    """Hop counts from the root in 8 bits."""

    prop = UInt(8)
    reduce = "min"
    weight = None

    def init(self, h):
        return select(h.is_root, uint(0, 8), uint(255, 8))

    def process_edge(self, e):
        return sat_add(e.src_prop, 1)

    def apply(self, v):
        return minimum(v.vprop, v.temp)


def variant(base, **members):
    return type("Variant", (base,), members)


@pytest.mark.parametrize("members, message", [
    ({"reduce": "fmul"}, "program hops: reduce 'fmul': Reduce must be commutative and "
                         "associative, one of the reductions the hardware builds (min, max, "
                         "sat_add, fadd)"),
    ({"reduce": "fadd"}, "program hops: reduce fadd works on Float32 or Float32Vector, not on "
                         "the property type UInt(8)"),
    ({"process_edge": lambda self, e: lt(e.src_prop, 3)},
     "program hops: process_edge gives UInt(1), expected the property type UInt(8)"),
    ({"process_edge": lambda self, e: e.temp},
     "program hops: process_edge cannot read temp (it reads weight, src_prop, src_const, "
     "dst_prop)"),
    ({"process_edge": lambda self, e: Operand("temp", UInt(8))},
     "program hops: process_edge reads temp, which only apply and active can"),
    ({"process_edge": lambda self, e: sat_add(e.src_prop, e.src_const)},
     "program hops: process_edge reads src_const, but the program has no vertex constant"),
    ({"process_edge": lambda self, e: sat_add(e.src_prop, e.weight)},
     "program hops: process_edge reads weight, but the program has no weight"),
    ({"process_edge": lambda self, e: sat_add(e.src_prop, 1.0)},
     "program hops: process_edge: sat_add: 1.0 is not an integer for a UInt(8) operand"),
    ({"apply": lambda self, v: v.random()},
     "program hops: apply cannot use random (only init can)"),
    ({"apply": lambda self, v: 3}, "program hops: apply must return an expression, got 3"),
    ({"init": lambda self, h: None},
     "program hops: init must return an expression, got None"),
    ({"apply": lambda self, v: v.vprop + 1},
     "program hops: apply raises TypeError: unsupported operand type(s) for +"),
    ({"apply": lambda self, v: Op("popcount", (v.vprop,), UInt(8))},
     "program hops: apply: 'popcount' is an operation the hardware cannot build"),
    ({"apply": lambda self, v: Op("fadd", (v.vprop, v.temp), UInt(8))},
     "program hops: apply: fadd: operands must be Float32 scalars, got UInt(8) and UInt(8)"),
    ({"apply": lambda self, v: Op("lt", (v.vprop, v.temp), UInt(8))},
     "program hops: apply: lt: built with type UInt(8), its operands give UInt(1)"),
    ({"apply": lambda self, v: Op("min", (v.vprop,), UInt(8))},
     "program hops: apply: minimum() missing 1 required positional argument"),
    ({"active": lambda self, v: v.new}, "program hops: active gives UInt(8), expected a BOOL"),
    ({"mode": "all"}, "program hops: mode 'all' runs every vertex every iteration, so it needs "
                      "iterations or a tolerance to stop"),
    ({"mode": "sometimes"}, "program hops: mode must be one of frontier, all"),
    ({"tolerance": 0.5}, "program hops: a tolerance needs a Float32 or Float32Vector property"),
    ({"iterations": -1}, "program hops: iterations must be an integer >= 0 or None, got -1"),
    ({"prop": "uint8"}, "program hops: prop must be UInt(width), Float32 or Float32Vector"),
    ({"init": lambda self, h: uint(0)},
     "program hops: init gives UInt(32), expected the property type UInt(8)"),
    ({"apply": lambda self, v: minimum(v.vprop, Param("cap", UInt(8), 9)),
      "process_edge": lambda self, e: minimum(e.src_prop, Param("cap", UInt(8), 7))},
     "program hops: apply: parameter cap is declared twice, as UInt(8) = 7 and UInt(8) = 9"),
])
def test_refusals_name_the_program_and_the_reason(members, message):
    with pytest.raises(ProgramError) as error:
        build(variant(Hops, name="hops", **members))
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_a_missing_function_is_refused():
    class NoApply(VertexProgram):
        prop = UInt(32)
        reduce = "min"

        def init(self, h):
            return h.vertex_id

        def process_edge(self, e):
            return e.src_prop

    with pytest.raises(ProgramError, match="^program noapply: apply is not defined$"):
        build(NoApply)


def test_derived_facts():
    program = build(Hops)
    assert program.name == "hops" and program.description == "Hop counts from the root in 8 bits."
    assert program.identity == 255 and program.uses_root and not program.uses_dst_prop
    assert PROGRAMS["cf"].uses_dst_prop and PROGRAMS["cf"].identity == 0.0
    assert example("widest").identity == 0 and not PROGRAMS["cc"].uses_root
    assert set(PROGRAMS["cf"].params) == {"seed", "init_scale", "gamma", "lam"}
    assert build(Hops) == program and hash(build(Hops)) == hash(program)


def test_a_user_program_runs_and_saturates_at_its_width():
    graph = golden.from_spec("grid:rows=20,cols=20")
    result = run_program(build(Hops), graph, root=0)
    levels = golden.run("bfs", graph, root=0).values
    assert result.values.dtype == np.uint32
    assert result.values.tolist() == np.minimum(levels, 255).tolist()


class InDegree(VertexProgram):
    """In-degrees counted by the Reduce, saturating at 4 bits."""

    prop = UInt(4)
    reduce = "sat_add"
    weight = None
    mode = "all"
    iterations = 1

    def init(self, h):
        return uint(0, 4)

    def process_edge(self, e):
        return uint(1, 4)

    def apply(self, v):
        return v.temp


def test_a_saturating_add_reduce():
    graph = golden.from_spec("kron:scale=7,ef=8,seed=1")
    result = run_program(build(InDegree), graph)
    assert result.values.tolist() == np.minimum(graph.in_degree, 15).tolist()
    assert result.values.max() == 15 and result.iterations == 1


class ShallowBFS(Hops):
    """Levels up to 3 only: a vertex at level 3 or deeper does not become active."""

    prop = UInt(32)

    def init(self, h):
        return select(h.is_root, uint(0), uint(2**32 - 1))

    def active(self, v):
        return select(lt(v.new, 3), lt(v.new, v.vprop), uint(0, 1))


def test_an_active_rule_other_than_changed():
    graph = golden.from_spec("grid:rows=12,cols=12")
    result = run_program(build(ShallowBFS), graph, root=0)
    levels = golden.run("bfs", graph, root=0).values
    expected = np.where(levels <= 3, levels, 2**32 - 1)
    assert result.values.tolist() == expected.tolist()
    assert result.iterations == 3       # level-3 vertices are reached but not expanded


class DampedRank(VertexProgram):
    """PageRank run until the largest change is at most 1e-3."""

    prop = Float32
    reduce = "fadd"
    weight = None
    mode = "all"
    tolerance = 1e-3
    iterations = 200

    def vconst(self, h):
        return reciprocal(h.out_degree)

    def init(self, h):
        return f32(1.0)

    def process_edge(self, e):
        return fmul(e.src_prop, e.src_const)

    def apply(self, v):
        return fadd(fmul(0.85, v.temp), f32(0.15))


def test_a_tolerance_stops_the_run():
    graph = golden.from_spec("kron:scale=6,ef=4,seed=2")
    result = run_program(build(DampedRank), graph)
    assert 2 < result.iterations < 200
    before = run_program(build(DampedRank), graph, iters=result.iterations - 1).values
    after = golden.run("pagerank", graph, iters=result.iterations).values
    assert np.array_equal(result.values.view(np.uint32), after.view(np.uint32))
    assert np.max(np.abs(result.values - before)) <= np.float32(1e-3)
    previous = run_program(build(DampedRank), graph, iters=result.iterations - 2).values
    assert np.max(np.abs(before - previous)) > np.float32(1e-3)


def test_run_refusals():
    graph = golden.from_spec("grid:rows=3,cols=3")
    with pytest.raises(golden.GraphError, match="cc takes no root"):
        run_program(PROGRAMS["cc"], graph, root=1)
    with pytest.raises(golden.GraphError, match="root must be a vertex id in 0..8, got 9"):
        run_program(PROGRAMS["bfs"], graph, root=9)
    with pytest.raises(golden.GraphError, match="pagerank has no parameter 'beta'"):
        run_program(PROGRAMS["pagerank"], graph, beta=0.5)
    with pytest.raises(golden.GraphError, match="cf needs a float32 weight on every edge"):
        run_program(PROGRAMS["cf"], graph)
    with pytest.raises(golden.GraphError, match="run_program needs a graphgen.programs Program"):
        run_program("bfs", graph)
    assert isinstance(PROGRAMS["bfs"], Program)


def test_the_package_imports_only_numpy_and_the_standard_library():
    code = ("import sys, graphgen.programs; print(' '.join(sorted({m.split('.')[0] for m in "
            "sys.modules if m.split('.')[0] in ('hw', 'golden', 'amaranth', 'sim', 'scipy')})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO_ROOT, check=True)
    assert out.stdout.strip() == ""


def test_the_package_docstring_example_runs():
    import graphgen.programs
    example = re.search(r"::\n\n(.*?)\n\n(?=\S)", graphgen.programs.__doc__, re.DOTALL)
    namespace = {}
    exec(textwrap.dedent(example.group(1)), namespace)
    assert namespace["result"].values[0] == 2**32 - 1
    assert namespace["result"].iterations > 1
