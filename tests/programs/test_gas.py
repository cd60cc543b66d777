"""DepGraph's GAS form of vertex programs (graphgen.programs.gas): the built-ins' forms against
their hand-written definitions (DepGraph §II), the symbolic linearity against the numeric
check on graphs, the refusals, and the golden DepGraph run of the programs new to it against
the program's own golden model."""

import numpy as np
import pytest

import golden
from golden.depgraph import check_linear, get_algorithm, run_depgraph
from golden.programs import evaluate, run_program
from graphgen.programs import (PROGRAMS, Float32, ProgramError, UInt, VertexProgram, build,
                               f32, fadd, fmul, maximum, minimum, sat_add, select, shl, uint)
from graphgen.programs.gas import gas_form, linearity
from tests.support.examples import program_of, spec_of

U32 = 2**32 - 1
ALPHA = np.float32(0.85)
RNG = np.random.default_rng(7)
X = np.concatenate([[0, 1, U32 - 3, U32], RNG.integers(0, U32, 60)]).astype(np.uint32)
W = RNG.integers(0, 1 << 20, X.size).astype(np.uint32)
DEGREE = np.concatenate([[0, 1, 3], RNG.integers(1, 1000, X.size - 3)]).astype(np.uint32)

# DepGraph's EdgeCompute of each built-in, written out from §II / golden.algorithms.
HAND_WRITTEN = {
    "bfs": lambda x, w: np.minimum(x.astype(np.uint64) + 1, U32).astype(np.uint32),
    "sssp": lambda x, w: np.minimum(x.astype(np.uint64) + w, U32).astype(np.uint32),
    "cc": lambda x, w: x,
}


def edge_compute(form, x, weight, const=None):
    return evaluate(form.edge_compute, {"x": x, "weight": weight, "src_const": const})


@pytest.mark.parametrize("name", ["bfs", "sssp", "cc"])
def test_min_builtins_match_their_edge_compute(name):
    form = gas_form(PROGRAMS[name])
    assert form.accum == "min" and form.identity == U32 and form.const is None
    got = np.broadcast_to(edge_compute(form, X, W), X.shape)
    np.testing.assert_array_equal(got, HAND_WRITTEN[name](X, W))
    host = {"vertex_id": np.arange(5, dtype=np.uint32),
            "is_root": np.array([0, 0, 1, 0, 0], np.uint32)}
    delta = np.broadcast_to(evaluate(form.delta, host), 5)
    expected = np.arange(5) if name == "cc" else np.where(host["is_root"], 0, U32)
    np.testing.assert_array_equal(delta, expected)
    assert int(evaluate(form.state, host)) == U32


def test_pagerank_is_the_delta_form_with_alpha_in_the_constant():
    form = gas_form(PROGRAMS["pagerank"])
    assert form.accum == "sum" and form.identity == 0.0 and not form.uses_root
    const = evaluate(form.const, {"out_degree": DEGREE})
    inverse = np.float32(1) / np.maximum(DEGREE, 1).astype(np.float32) * (DEGREE != 0)
    np.testing.assert_array_equal(const, ALPHA * inverse)
    x = RNG.random(X.size).astype(np.float32)
    np.testing.assert_array_equal(edge_compute(form, x, None, const), x * const)
    assert evaluate(form.delta, {}) == np.float32(0.15) and evaluate(form.state, {}) == 0.0
    ppr = gas_form(program_of("ppr"))
    assert ppr.uses_root and ppr.edge_compute == form.edge_compute
    np.testing.assert_array_equal(evaluate(ppr.delta, {"is_root": np.array([0, 1], np.uint32)}),
                                  [0.0, np.float32(0.15)])


def test_max_programs():
    widest, labels = gas_form(program_of("widest")), gas_form(program_of("labelprop"))
    assert widest.accum == labels.accum == "max" and widest.identity == 0
    np.testing.assert_array_equal(edge_compute(widest, X, W), np.minimum(X, W))
    assert labels.edge_compute.role == "x"


@pytest.mark.parametrize("name, mu, eps", [
    ("bfs", uint(1), uint(1)), ("cc", uint(1), uint(0)), ("labelprop", uint(1), uint(0))])
def test_linear_builtins(name, mu, eps):
    result = linearity(gas_form(program_of(name)))
    assert result.linear and (result.mu, result.eps) == (mu, eps)


def test_linearity_of_sssp_and_pagerank_reads_the_operands():
    sssp = linearity(gas_form(PROGRAMS["sssp"]))
    assert sssp.mu == uint(1) and sssp.eps.role == "weight"
    pagerank = linearity(gas_form(PROGRAMS["pagerank"]))
    assert pagerank.mu.role == "src_const" and pagerank.eps == f32(0.0)


def test_widest_is_not_linear():
    result = linearity(gas_form(program_of("widest")))
    assert not result.linear and result.mu is None
    assert result.reason == "EdgeCompute of widest: min(x, weight) is not of the form mu*x + eps"


def program(edge, reduce="min", prop=UInt(32), apply=None, **attributes):
    class Made(VertexProgram):
        name = "made"

        def init(self, h):
            if isinstance(prop, UInt):
                return select(h.is_root, uint(0, prop.width), uint(prop.max, prop.width))
            return f32(1.0)

        def process_edge(self, e):
            return edge(e)

        def apply(self, v):
            if apply is not None:
                return apply(v)
            return (minimum if reduce == "min" else maximum)(v.vprop, v.temp)

    Made.prop, Made.reduce = prop, reduce
    for key, value in attributes.items():
        setattr(Made, key, value)
    return build(Made)


def test_linearity_of_user_programs():
    twice = gas_form(program(lambda e: sat_add(sat_add(e.src_prop, e.weight), 3)))
    assert linearity(twice).linear and linearity(twice).eps == sat_add(e_weight(), uint(3))
    doubled = gas_form(program(lambda e: sat_add(e.src_prop, e.src_prop)))
    assert "adds the propagated value to itself" in linearity(doubled).reason
    shifted = gas_form(program(lambda e: shl(e.src_prop, 1)))
    assert linearity(shifted).reason == "EdgeCompute of made: shl(x) is not of the form " \
                                        "mu*x + eps"


def e_weight():
    return gas_form(PROGRAMS["sssp"]).edge_compute.args[1]


def test_affine_sum_needs_a_homogeneous_process_edge():
    with pytest.raises(ProgramError, match="^program made has no DepGraph GAS form: the delta "
                                           "form needs Process_Edge linear in src_prop with no "
                                           "constant term$"):
        gas_form(program(lambda e: fadd(e.src_prop, 1.0), "fadd", Float32, lambda v: v.temp,
                         mode="all", iterations=3))
    scaled = gas_form(program(lambda e: fmul(e.src_prop, 3.0), "fadd", Float32,
                              lambda v: fadd(fmul(v.temp, 0.5), 0.25), mode="all",
                              iterations=3))
    assert scaled.edge_compute == fmul(f32(0.5), fmul(scaled.edge_compute.args[1].args[0],
                                                      f32(3.0)))
    result = linearity(scaled)
    assert result.linear and result.mu == fmul(f32(3.0), f32(0.5)) and result.eps == f32(0)


@pytest.mark.parametrize("make, reason", [
    (lambda: PROGRAMS["cf"], "the state is one 32-bit word, not Float32Vector"),
    (lambda: program(lambda e: e.src_prop, "sat_add", apply=lambda v: v.temp),
     "its Reduce sat_add is not min, max or fadd"),
    (lambda: program(lambda e: e.src_prop, apply=lambda v: v.temp),
     r"Apply must be min\(vprop, temp\)"),
    (lambda: program(lambda e: minimum(e.src_prop, e.dst_prop)), "reads dst_prop"),
    (lambda: program(lambda e: e.src_prop, prop=UInt(16)), "not UInt"),
    (lambda: program(lambda e: e.src_prop, "fadd", Float32,
                     lambda v: fmul(v.temp, v.vprop), mode="all", iterations=2),
     r"Apply must be a·temp \+ b"),
])
def test_refusals_name_the_program_on_one_line(make, reason):
    with pytest.raises(ProgramError, match=f"^program \\w+ has no DepGraph GAS form: .*{reason}"):
        gas_form(make())


GRAPHS = ["kron:scale=7,ef=8,seed=1", "grid:rows=8,cols=9,weights=1:9",
          "rmat:scale=6,ef=6,seed=3,weights=1:20"]


@pytest.mark.parametrize("spec", GRAPHS)
def test_symbolic_linearity_agrees_with_the_numeric_check(spec):
    graph = golden.from_spec(spec)
    weights = graph.require_nonnegative_integer_weights()
    for name in ("bfs", "sssp", "cc", "pagerank", "widest", "labelprop", "ppr"):
        algo = get_algorithm(spec_of(name))
        assert linearity(algo.form).linear == check_linear(algo, graph, weights)[0], name


@pytest.mark.parametrize("spec", GRAPHS)
@pytest.mark.parametrize("name", ["widest", "labelprop"])
def test_max_programs_reach_the_program_fixpoint_in_golden_depgraph(name, spec):
    graph = golden.from_spec(spec)
    root = int(np.argmax(graph.out_degree)) if name == "widest" else None
    result = run_depgraph(spec_of(name), graph, root=root, engines=2)
    assert result.converged and not result.shortcuts
    assert ("not of the form" if name == "widest" else "accumulates with max") in \
        result.shortcut_reason
    expected = run_program(program_of(name), graph, root=root).values
    np.testing.assert_array_equal(result.states, expected)
