"""Per-iteration figures from the testbench's counter snapshots (sim.iterations): the
differences between snapshots, the finish after the last one, and cycles that add up to
the run's."""

import numpy as np

import golden
from sim.iterations import per_iteration
from sim.run_settings import RunSettings


def _counters(cycles, edges, reads, writes, iterations):
    return {"cycles": cycles, "edges": edges, "memory_reads": reads, "memory_writes": writes,
            "iterations": iterations}


def test_differences_between_snapshots_and_the_finish():
    snapshots = [{"iteration": 1, "sim_cycle": 130, "counters": _counters(120, 40, 30, 5, 1)},
                 {"iteration": 2, "sim_cycle": 330, "counters": _counters(320, 440, 90, 9, 2)},
                 {"iteration": 3, "sim_cycle": 380, "counters": _counters(370, 440, 95, 12, 3)}]
    figures = per_iteration(snapshots, _counters(377, 440, 95, 13, 3))
    rows = figures["rows"]
    assert [r["iteration"] for r in rows] == [1, 2, 3]
    assert [r["cycles"] for r in rows] == [120, 200, 50]
    assert [r["end_cycle"] for r in rows] == [120, 320, 370]
    assert [r["edges"] for r in rows] == [40, 400, 0]
    assert [r["edges_per_cycle"] for r in rows] == [40 / 120, 2.0, 0.0]
    assert [r["memory_reads"] for r in rows] == [30, 60, 5]
    assert [r["memory_writes"] for r in rows] == [5, 4, 3]
    assert figures["finish"] == {"cycles": 7, "edges": 0, "edges_per_cycle": 0.0,
                                 "memory_reads": 0, "memory_writes": 1}
    assert sum(r["cycles"] for r in rows) + figures["finish"]["cycles"] == \
        figures["total_cycles"] == 377


def test_no_snapshots_leave_the_whole_run_as_its_finish():
    figures = per_iteration([], _counters(50, 0, 3, 0, 0))
    assert figures["rows"] == []
    assert figures["finish"]["cycles"] == 50 == figures["total_cycles"]


def test_a_design_without_an_edge_counter():
    snapshots = [{"iteration": 1, "sim_cycle": 11, "counters": _counters(10, 0, 2, 1, 1)}]
    figures = per_iteration(snapshots, _counters(12, 0, 2, 1, 1), edges=None,
                            also=("iterations",))
    assert figures["rows"][0]["edges"] is None and figures["rows"][0]["edges_per_cycle"] is None
    assert figures["rows"][0]["iterations"] == 1 and figures["finish"]["iterations"] == 0
    assert figures["finish"]["cycles"] == 2


def test_graphicionado_bfs_iterations_match_the_golden_levels():
    """A real run: Graphicionado's BFS iteration i reads the out-edges of the vertices at level
    i - 1, so its edges are their out-degrees' sum; the iterations' cycles and the finish add
    up to the run's, and the snapshots come in cycle order."""
    from sim.graphicionado.run import simulate
    from tests.hw.graphicionado.test_rtl import MEMORY, matrix_config
    graph = golden.from_spec("kron:scale=6,ef=8,seed=2")
    report = simulate(graph, matrix_config("bfs"), MEMORY, RunSettings(algo="bfs", root=0, seed=3))
    assert report.matches
    figures = report.figures["per_iteration"]
    rows = figures["rows"]
    assert [row["iteration"] for row in rows] == list(range(1, report.iterations + 1))
    levels = golden.run("bfs", graph, root=0).values.astype(np.int64)
    assert [row["edges"] for row in rows] == \
        [int(graph.out_degree[levels == level].sum()) for level in range(report.iterations)]
    assert sum(row["cycles"] for row in rows) + figures["finish"]["cycles"] == \
        report.counters["cycles"] == figures["total_cycles"]
    assert sum(row["memory_reads"] for row in rows) + figures["finish"]["memory_reads"] == \
        report.counters["memory_reads"]
    assert all(row["cycles"] > 0 for row in rows)
    cycles = [snapshot["sim_cycle"] for snapshot in report.snapshots]
    assert cycles == sorted(cycles) and len(set(cycles)) == len(cycles)


def test_dyngraph_batches_add_up_to_the_operations():
    """A real run of the dynamic graph unit, 200 operations in batches of 64: a batch's
    counters are read when its operations have ended, so the batches issue 64, 64, 64 and 8
    operations and their cycles and the finish add up to the run's."""
    from golden.dyngraph import generate_updates
    from hw.dyngraph.config import DynGraphConfig
    from sim.dyngraph.run import simulate
    from tests.hw.dyngraph.test_rtl import CASES, GRAPH, MIXED, _memory
    config = DynGraphConfig(max_vertices=256, load_factor_percent=90, **CASES[0].values[1])
    graph = golden.from_spec(GRAPH)
    updates = generate_updates(f"mix:ops=200,{MIXED},seed=3", graph, 256)
    report = simulate(graph, config, _memory("memory", config.memory_channels),
                      RunSettings(updates=updates, batch=64, seed=3))
    assert report.matches
    figures = report.figures["per_batch"]
    rows = figures["rows"]
    assert [row["iteration"] for row in rows] == [1, 2, 3, 4] and report.counters["batches"] == 4
    assert [row["issued"] for row in rows] == [64, 64, 64, 8]
    assert figures["finish"]["issued"] == 0
    assert sum(row["cycles"] for row in rows) + figures["finish"]["cycles"] == \
        report.counters["cycles"]
