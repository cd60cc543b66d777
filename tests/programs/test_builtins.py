"""The built-in programs through the NumPy back end (golden.programs) against golden.algorithms
(exactly: values bit for bit, iterations and counters). The example programs' own tests are in
tests/examples/test_programs.py."""

import numpy as np
import pytest

import golden
from golden.programs import run_program
from graphgen.programs import PROGRAMS, cf_program

GRAPHS = ["kron:scale=7,ef=8,seed=1", "grid:rows=8,cols=9,weights=1:9",
          "rmat:scale=6,ef=6,seed=3,weights=1:20"]
RATINGS = ["bipartite:users=40,items=30,ratings=5,seed=2",
           "bipartite:users=25,items=50,ratings=7,seed=5"]


def busiest(graph) -> int:
    """A root with out-edges, so frontier programs run more than one iteration."""
    return int(np.argmax(graph.out_degree))


def assert_same(expected, actual):
    assert actual.values.dtype == expected.values.dtype
    assert actual.values.shape == expected.values.shape
    bits = np.uint32 if actual.values.dtype == np.float32 else actual.values.dtype
    assert np.array_equal(actual.values.view(bits), expected.values.view(bits))
    assert actual.iterations == expected.iterations
    assert actual.counters == expected.counters


@pytest.mark.parametrize("spec", GRAPHS)
@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc", "pagerank"])
def test_builtin_matches_golden_algorithms(algo, spec):
    graph = golden.from_spec(spec)
    root = busiest(graph) if algo in ("bfs", "sssp") else None
    expected = golden.run(algo, graph, root=root)
    actual = run_program(PROGRAMS[algo], graph, root=root)
    assert_same(expected, actual)
    if algo != "pagerank":
        assert actual.iterations > 1


@pytest.mark.parametrize("spec", RATINGS)
@pytest.mark.parametrize("K, params", [(8, {}), (5, {"gamma": 0.001, "lam": 0.1, "seed": 4}),
                                       (32, {"init_scale": 0.25})])
def test_cf_matches_golden_bit_for_bit(spec, K, params):
    graph = golden.from_spec(spec)
    expected = golden.run("cf", graph, K=K, iters=4, **params)
    actual = run_program(cf_program(K), graph, iters=4, **params)
    assert_same(expected, actual)


def test_pagerank_iterations_cap_matches():
    graph = golden.from_spec(GRAPHS[0])
    assert_same(golden.run("pagerank", graph, iters=3),
                run_program(PROGRAMS["pagerank"], graph, iters=3))
