"""The CPU baselines (graphgen.cpu_baseline): each library's answer is the golden model's, on
graphs with repeated edges, unreached vertices and several components; a wrong answer is
caught. Skipped, with the reason, where a library is not installed (make installs both)."""

import dataclasses

import numpy as np
import pytest

import golden
from graphgen.cpu_baseline import (LIBRARIES, PAGERANK_RELATIVE_BOUND, BaselineUnavailable,
                                   check_against_golden, cpu_description, run_cpu)

GRAPHS = {
    "rmat": "rmat:scale=8,ef=6,seed=3,weights=1:30",
    "road": "road:n=300,seed=2,weights=1:255",
}


def _repeated_edges_and_islands():
    """Edge 0->1 twice (weights 7 and 2), a vertex nothing reaches, two components."""
    src = np.array([0, 0, 1, 2, 1, 4, 5], dtype=np.uint32)
    dst = np.array([1, 1, 2, 0, 3, 5, 4], dtype=np.uint32)
    weight = np.array([7, 2, 3, 4, 1, 9, 9], dtype=np.uint32)
    return golden.Graph.from_edges(7, src, dst, weight=weight)


def _cases():
    for library, algos in LIBRARIES.items():
        for algo in algos:
            yield library, algo


def _run(library, algo, graph, iters=25):
    root = int(np.argmax(graph.out_degree)) if algo in ("bfs", "sssp") else None
    try:
        run = run_cpu(library, algo, graph, root, iters=iters, repeats=1)
    except BaselineUnavailable as why:
        pytest.skip(str(why))
    expected = golden.run(algo, graph, root, iters=iters if algo == "pagerank" else None)
    return run, expected.values


@pytest.mark.parametrize("graph", [*GRAPHS, "repeated"])
@pytest.mark.parametrize("library, algo", list(_cases()))
def test_library_answer_is_the_golden_models(library, algo, graph):
    graph = _repeated_edges_and_islands() if graph == "repeated" else \
        golden.load_graph(GRAPHS[graph])
    run, expected = _run(library, algo, graph)
    assert check_against_golden(run, expected) is None
    assert run.seconds > 0 and run.threads >= 1


@pytest.mark.parametrize("library, algo", list(_cases()))
def test_a_wrong_answer_is_caught(library, algo):
    run, expected = _run(library, algo, golden.load_graph(GRAPHS["rmat"]))
    values = run.values.copy()
    if algo == "pagerank":
        values[3] *= np.float32(1 + 10 * PAGERANK_RELATIVE_BOUND)
    else:
        values[int(np.flatnonzero(values != golden.UNREACHED)[-1])] += 1
    fault = check_against_golden(dataclasses.replace(run, values=values), expected)
    assert fault and ("differ" in fault or "away" in fault)


def test_the_machine_is_described():
    cpu = cpu_description()
    assert cpu["logical_cpus"] >= 1 and cpu["model"]


def test_graphblas_inserts_end_with_the_slab_graphs_edges():
    from golden.dyngraph import SlabGraph, SlabOptions, generate_updates
    from graphgen.cpu_baseline import run_cpu_inserts
    graph = golden.load_graph(GRAPHS["rmat"])
    # Half the inserts land on edges of the graph: their weights are replaced.
    updates = generate_updates("mix:ops=600,insert=100,hit=50,seed=4", graph,
                               graph.num_vertices)
    try:
        run, edges = run_cpu_inserts(graph, updates.u, updates.v, updates.w, repeats=1)
    except BaselineUnavailable as why:
        pytest.skip(str(why))
    state = SlabGraph.build(graph, SlabOptions())
    state.apply(updates)
    expected = state.edges()
    assert int(run.values[0]) == expected[0].size < graph.num_edges + 600
    for got, want in zip(edges, expected):
        np.testing.assert_array_equal(got, want)
