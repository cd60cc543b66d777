"""The accelerators beside the CPU graph libraries they should beat, on one graph (issue 54
item 1).

BFS, SSSP, CC and PageRank run in SuiteSparse:GraphBLAS (python-graphblas) and NetworKit on
this machine (best wall time of ``--repeats`` after a warm-up; the graph built beforehand,
its threads stated), each answer checked against the golden model. The accelerators run in
RTL simulation on the same graph, checked against the golden model too, and their cycles
become times at three clocks: the ECP5 Fmax and the 0.18 um ASIC Fmax of a ``graphgen synth
--json`` report given with ``--ecp5 ROW=FILE`` and ``--asic ROW=FILE`` (the report's
configuration named; none given, none shown), and the papers' 1 GHz. The speed-up is the
fastest library's time over the accelerator's.

The dynamic graph unit (its defaults, the paper's memory) applies a batch of ``--inserts``
random edge inserts to the graph; GraphBLAS merges the same batch into the graph's matrix
(:func:`graphgen.cpu_baseline.run_cpu_inserts`); both end with the golden model's edges. The
unit's time counts its cycles after the presence bitmap's load (the library's matrices are
built beforehand too), its total beside them.

Rows: Graphicionado 1 x 1 and 8 x 8 streams on the paper's memory (68 B/cycle as 4 channels
of 17, latency 100); DepGraph at its defaults (4 engines; one memory port: 64 B/cycle,
latency 100); the BFS engine at its defaults (BFS only, on the paper's memory; TEPS the
Graph500 way: the root's component's edges, an undirected edge once, for every BFS row).
PageRank runs as many
iterations as the synchronous baseline needs to bring every change under ``--tolerance``,
in every row.

Energy beside time (item 6): a row with an ``--asic`` report that holds OpenSTA's power gets
an energy estimate per term (``graphgen.energy``: logic from the power report, the SRAM
accesses the RTL run counted at the SRAM model's energy, DRAM bytes at
``--dram-pj-per-byte``), labelled an estimate with its sources.
The CPU's energy is ``--cpu-watts`` times its time when that power is stated: this bench
reads no package counter (the VMs it ran on expose no RAPL).

Prints the tables and writes the JSON report (``graphgen report`` draws it).
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import golden  # noqa: E402
from golden.bfs import component_edges  # noqa: E402
from bench_depgraph_rtl import MEMORY, depgraph, pagerank_iterations, pow2  # noqa: E402
from graphgen.common import UsageError  # noqa: E402
from graphgen.energy import (DRAM_PJ_PER_BYTE, DRAM_SOURCE, cpu_energy,  # noqa: E402
                             energy_model_from_report, estimate, sram_of)
from graphgen.cpu_baseline import (LIBRARIES, BaselineUnavailable, check_against_golden,  # noqa
                                   cpu_description, run_cpu, run_cpu_inserts)
from graphgen.reports import base_report, write_json  # noqa: E402
from graphgen.throughput import clock_from_report  # noqa: E402
from golden.dyngraph import SlabGraph, SlabOptions, generate_updates  # noqa: E402
from hw.bfs.config import BfsConfig  # noqa: E402
from hw.depgraph.config import DepGraphConfig  # noqa: E402
from hw.dyngraph.config import DynGraphConfig  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.bfs import run as bfs_run  # noqa: E402
from sim.dyngraph import run as dyngraph_run  # noqa: E402
from sim.gateware.sim_memory import SimMemoryConfig  # noqa: E402
from sim.graphicionado import run as graphicionado_run  # noqa: E402
from sim.dram_image import LINE_BYTES  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "cpu-baseline.json"
PAPER_MEMORY = SimMemoryConfig.from_overrides({"preset": "paper", "outstanding": "128",
                                               "depth_lines": str(1 << 20)})
ROWS = ("graphicionado-1x1", "graphicionado-8x8", "depgraph", "bfs", "dyngraph")
DESIGN_OF_ROW = {"graphicionado-1x1": "graphicionado", "graphicionado-8x8": "graphicionado",
                 "depgraph": "depgraph", "bfs": "bfs", "dyngraph": "dyngraph"}
PAPER_GHZ = 1.0


def graphicionado_row(graph, algo, root, iters, streams):
    config = GraphicionadoConfig(algo=algo, max_vertices=pow2(graph.num_vertices),
                                 streams_src=streams, streams_dst=streams,
                                 memory_channels=PAPER_MEMORY.channels)
    report = graphicionado_run.simulate(graph, config, PAPER_MEMORY,
                                        RunSettings(algo=algo, root=root, iters=iters))
    if not report.matches:
        raise SystemExit(f"graphicionado {algo}: RTL differs from golden at "
                         f"{report.first_mismatch}")
    f = report.figures
    return {"cycles": f["cycles"], "edges": f["edges_traversed"],
            "dram_bytes": _bytes(f["memory"]), "sram": f["sram"],
            "memory": PAPER_MEMORY.as_dict(), "configuration": config.as_dict()}


def _bytes(memory: dict) -> int:
    return (memory["reads"] + memory["writes"]) * LINE_BYTES


def depgraph_row(graph, algo, root, tolerance):
    row = depgraph(graph, algo, root, tolerance, bank_vertices=max(
        DepGraphConfig().bank_vertices, pow2(graph.num_vertices)))
    return {"cycles": row["cycles"], "edges": row["edges"], "memory": MEMORY.as_dict(),
            "dram_bytes": _bytes({"reads": row["memory_reads"],
                                  "writes": row["memory_writes"]}), "sram": row["sram"],
            "configuration": row["configuration"]}


def bfs_row(graph, root):
    config = BfsConfig(max_vertices=max(16, pow2(graph.num_vertices)),
                       memory_channels=PAPER_MEMORY.channels)
    report = bfs_run.simulate(graph, config, PAPER_MEMORY, RunSettings(root=root))
    if not report.matches:
        raise SystemExit(f"bfs root {root}: {report.first_mismatch}")
    f = report.figures
    return {"cycles": f["cycles"], "edges": f["component_edges"],
            "dram_bytes": _bytes(f["memory"]), "sram": f["sram"],
            "memory": PAPER_MEMORY.as_dict(), "configuration": config.as_dict()}


def inserts_entry(graph, count, repeats):
    """The dynamic graph unit's batch of edge inserts beside GraphBLAS's, both checked."""
    config = DynGraphConfig(max_vertices=max(16, pow2(graph.num_vertices)),
                            memory_channels=PAPER_MEMORY.channels)
    updates = generate_updates(f"mix:ops={count},insert=100,hit=0,seed=1", graph,
                               graph.num_vertices)
    entry = {"root": None, "iterations": None, "teps_edges": None, "operations": count}
    try:
        run, edges = run_cpu_inserts(graph, updates.u, updates.v, updates.w, repeats)
    except BaselineUnavailable as why:
        entry["cpu"] = {"graphblas": {"unavailable": str(why)}}
    else:
        state = SlabGraph.build(graph, SlabOptions(**config.golden_options()))
        state.apply(updates)
        if any(not np.array_equal(a, b) for a, b in zip(edges, state.edges())):
            raise SystemExit("graphblas inserts: the edges after differ from the golden model's")
        entry["cpu"] = {"graphblas": {"seconds": run.seconds, "threads": run.threads,
                                      "rounds": 1}}
        print(f"  inserts  graphblas          {run.seconds * 1e3:>11.3f} ms", flush=True)
    start = time.perf_counter()
    report = dyngraph_run.simulate(graph, config, PAPER_MEMORY, RunSettings(updates=updates))
    if not report.matches:
        raise SystemExit("dyngraph inserts: RTL differs from the golden model")
    f = report.figures
    entry["accelerators"] = {"dyngraph": {
        "cycles": f["run_cycles"], "total_cycles": f["cycles"], "edges": count,
        "dram_bytes": _bytes(f["memory"]), "sram": f["sram"],
        "memory": PAPER_MEMORY.as_dict(), "configuration": config.as_dict(),
        "wall_seconds": time.perf_counter() - start}}
    print(f"  inserts  dyngraph           {f['run_cycles']:>11,} cycles after the load "
          f"({f['cycles']:,} in all)", flush=True)
    return entry


def accelerator_rows(graph, algo, root, iters, tolerance, rows):
    """Each accelerator row of ``rows`` that runs ``algo``, as measured."""
    out = {}
    for name in rows:
        start = time.perf_counter()
        if name.startswith("graphicionado"):
            out[name] = graphicionado_row(graph, algo, root, iters, int(name[-1]))
        elif name == "depgraph":
            out[name] = depgraph_row(graph, algo, root, tolerance)
        elif algo == "bfs" and name == "bfs":
            out[name] = bfs_row(graph, root)
        else:
            continue
        out[name]["wall_seconds"] = time.perf_counter() - start
        print(f"  {algo:<9}{name:<19}{out[name]['cycles']:>11,} cycles", flush=True)
    return out


def cpu_rows(graph, algo, root, iters, expected, repeats):
    out = {}
    for library in LIBRARIES:
        try:
            run = run_cpu(library, algo, graph, root, iters=iters, repeats=repeats)
        except BaselineUnavailable as why:
            out[library] = {"unavailable": str(why)}
            continue
        fault = check_against_golden(run, expected)
        if fault:
            raise SystemExit(f"{library} {algo}: {fault}")
        out[library] = {"seconds": run.seconds, "threads": run.threads,
                        "rounds": run.iterations}
        print(f"  {algo:<9}{library:<19}{run.seconds * 1e3:>11.3f} ms "
              f"({run.threads} thread{'s' if run.threads > 1 else ''})", flush=True)
    return out


def clocks(ecp5, asic):
    """Each row's clocks in MHz with their sources: ECP5 and ASIC Fmax from reports, 1 GHz."""
    out = {row: {"paper": {"mhz": PAPER_GHZ * 1e3, "source": "the papers' 1 GHz"}}
           for row in ROWS}
    for kind, given in (("ecp5", ecp5), ("asic", asic)):
        for row, path in given.items():
            clock = clock_from_report(Path(path), DESIGN_OF_ROW[row])
            out[row][kind] = {"mhz": clock.mhz, "source": clock.source}
    return out


KINDS = ("ecp5", "asic", "paper")


def add_times(results, row_clocks):
    """Each accelerator row's time and speed-up over the fastest library at each clock."""
    for entry in results.values():
        cpu = [r["seconds"] for r in entry["cpu"].values() if "seconds" in r]
        best = min(cpu) if cpu else None
        for row, acc in entry["accelerators"].items():
            acc["seconds"], acc["speedup"] = {}, {}
            for kind, clock in row_clocks[row].items():
                acc["seconds"][kind] = acc["cycles"] / (clock["mhz"] * 1e6)
                acc["speedup"][kind] = best / acc["seconds"][kind] if best else None


def energy_models(asic):
    """Each ``--asic`` row's :class:`graphgen.energy.EnergyModel`, or why it has none."""
    out = {}
    for row, path in asic.items():
        try:
            out[row] = energy_model_from_report(Path(path), DESIGN_OF_ROW[row])
        except UsageError as why:
            out[row] = str(why)
    return out


def add_energy(results, models, dram_pj_per_byte, dram_source, cpu_watts):
    """Each accelerator row's energy estimate (its whole run: the dynamic graph unit's load
    included, as its bytes are) and each CPU run's, beside their times."""
    cpu_source = ("stated with --cpu-watts; no package power counter read (none exposed "
                  "here)")
    for entry in results.values():
        for run in entry["cpu"].values():
            if "seconds" in run:
                run["energy"] = cpu_energy(run["seconds"], cpu_watts, cpu_source)
        for row, acc in entry["accelerators"].items():
            model = models.get(row)
            if model is None or isinstance(model, str):
                acc["energy"] = {"unavailable": model or "no --asic report for this row"}
                continue
            if "dram_bytes" not in acc:
                acc["energy"] = {"unavailable": "measured before the bench counted DRAM "
                                                "bytes: run it again"}
                continue
            acc["energy"] = estimate(model, acc.get("total_cycles", acc["cycles"]),
                                     acc["dram_bytes"], acc["edges"], dram_pj_per_byte,
                                     dram_source, sram=acc.get("sram"))


def print_energy(results):
    print(f"\nenergy (estimates; terms and sources in the JSON report)\n{'algo':<9}{'row':<19}"
          f"{'logic':>11}{'SRAM':>12}{'DRAM':>11}{'total':>11}{'per edge':>12}")
    for algo, entry in results.items():
        work = entry.get("teps_edges") or entry.get("operations")
        for lib, run in entry["cpu"].items():
            energy = run.get("energy")
            if energy:
                per = f"{energy['joules'] / work * 1e9:>10.2f}nJ" if work else ""
                print(f"{algo:<9}{lib:<19}{'':>34}{energy['joules'] * 1e3:>9.3f}mJ{per}")
        for row, acc in entry["accelerators"].items():
            energy = acc.get("energy", {})
            if "terms" not in energy:
                print(f"{algo:<9}{row:<19}  {energy.get('unavailable', '-')}")
                continue
            terms = energy["terms"]
            sram, counted = sram_of(terms)
            print(f"{algo:<9}{row:<19}{terms['logic']['joules'] * 1e3:>9.3f}mJ"
                  f"{sram['joules'] * 1e3:>9.3f}mJ{'  ' if counted else '<='}"
                  f"{terms['dram']['joules'] * 1e3:>9.3f}mJ{energy['joules'] * 1e3:>9.3f}mJ"
                  f"{energy['joules_per_edge'] * 1e9:>10.2f}nJ")


def print_table(results):
    print(f"\n{'algo':<9}{'row':<19}{'time':>12}  " +
          "".join(f"{k + ' time':>14}{'speed-up':>10}" for k in KINDS))
    for algo, entry in results.items():
        work = entry.get("teps_edges") or entry.get("operations")
        unit = "M TEPS" if entry.get("teps_edges") else "M updates/s"
        for lib, run in entry["cpu"].items():
            if "seconds" in run:
                rate = f"  {work / run['seconds'] / 1e6:,.1f} {unit}" if work else ""
                print(f"{algo:<9}{lib:<19}{run['seconds'] * 1e3:>10.3f}ms{rate}")
        for row, acc in entry["accelerators"].items():
            line = f"{algo:<9}{row:<19}{acc['cycles']:>10,}cy  "
            for kind in KINDS:
                seconds, speed = acc["seconds"].get(kind), acc["speedup"].get(kind)
                line += f"{'-':>14}{'-':>10}" if seconds is None else \
                    f"{seconds * 1e3:>12.3f}ms{speed or float('nan'):>9.2f}x"
            if work:
                line += f"  {work / acc['seconds']['paper'] / 1e6:,.1f} {unit} at 1 GHz"
            print(line)


def _row_files(pairs, option, parser):
    out = {}
    for pair in pairs:
        row, sep, path = pair.partition("=")
        if not sep or row not in ROWS:
            parser.error(f"{option}: ROW=FILE with ROW one of {', '.join(ROWS)}, not {pair!r}")
        out[row] = path
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="kron:scale=12,ef=16,seed=1,weights=1:255",
                        metavar="FILE|SPEC")
    parser.add_argument("--algos", default="bfs,sssp,cc,pagerank")
    parser.add_argument("--rows", default=",".join(ROWS),
                        help=f"comma-separated accelerator rows, of {', '.join(ROWS)}")
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--inserts", type=int, default=4096,
                        help="the dynamic graph unit's batch of edge inserts")
    parser.add_argument("--ecp5", action="append", default=[], metavar="ROW=SYNTH.json")
    parser.add_argument("--asic", action="append", default=[], metavar="ROW=SYNTH.json")
    parser.add_argument("--dram-pj-per-byte", type=float, default=DRAM_PJ_PER_BYTE,
                        help=f"DRAM energy a byte moved (default {DRAM_PJ_PER_BYTE:g}: "
                             f"{DRAM_SOURCE})")
    parser.add_argument("--cpu-watts", type=float, default=None,
                        help="the CPU's power while it runs (e.g. its rated power), for its "
                             "energy; none given, the CPU has no energy figure")
    parser.add_argument("--reprice", metavar="REPORT.json",
                        help="take the measured cycles, bytes, SRAM accesses and CPU times of "
                             "an earlier run of this bench (its --json report) and redo only "
                             "the clocks, speed-ups and energy with this call's --ecp5, "
                             "--asic, --cpu-watts and --dram-pj-per-byte: nothing is run")
    parser.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON))
    args = parser.parse_args()
    algos = [a for a in args.algos.split(",") if a]
    rows = [r for r in args.rows.split(",") if r]
    if not algos or any(a not in LIBRARIES["graphblas"] for a in algos):
        parser.error(f"--algos: of bfs, sssp, cc, pagerank, not {args.algos!r}")
    if any(r not in ROWS for r in rows):
        parser.error(f"--rows: of {', '.join(ROWS)}, not {args.rows!r}")
    if args.repeats < 1:
        parser.error("--repeats: at least 1")
    for option, value in (("--dram-pj-per-byte", args.dram_pj_per_byte),
                          ("--cpu-watts", args.cpu_watts)):
        if value is not None and not (0 < value < float("inf")):
            parser.error(f"{option}: a positive number, not {value:g}")
    try:
        asic = _row_files(args.asic, "--asic", parser)
        row_clocks = clocks(_row_files(args.ecp5, "--ecp5", parser), asic)
        graph = None if args.reprice else golden.load_graph(args.graph)
    except (UsageError, golden.GraphError) as error:
        parser.error(str(error))
    if args.reprice:
        measured = earlier_report(args.reprice, parser)
        results, cpu = measured["results"], measured["cpu"]
        graph_facts = {key: measured[key] for key in ("graph", "vertices", "edges")}
    else:
        results = measure(graph, algos, rows, args)
        cpu = cpu_description()
        graph_facts = {"graph": graph.name, "vertices": graph.num_vertices,
                       "edges": graph.num_edges}
    add_times(results, row_clocks)
    dram_source = DRAM_SOURCE if args.dram_pj_per_byte == DRAM_PJ_PER_BYTE else \
        "stated with --dram-pj-per-byte"
    add_energy(results, energy_models(asic), args.dram_pj_per_byte, dram_source,
               args.cpu_watts)
    print_table(results)
    print_energy(results)
    report = base_report("bench", "cpu-baseline", None)
    report.update({**graph_facts, "cpu": cpu, "clocks": row_clocks, "results": results})
    if args.reprice:
        report["repriced_from"] = {"report": args.reprice, "date": measured.get("date")}
    write_json(Path(args.json), report)
    print(f"\nCPU: {report['cpu']}; graph {report['graph']}, {report['vertices']:,} vertices, "
          f"{report['edges']:,} edges; report {args.json}"
          + (f" (measured by the run of {args.reprice})" if args.reprice else ""))


def measure(graph, algos, rows, args) -> dict:
    """Every algorithm's CPU runs and accelerator rows on ``graph``, checked."""
    root = int(np.argmax(graph.out_degree))
    results = {}
    for algo in algos:
        algo_root = root if algo in ("bfs", "sssp") else None
        iters = pagerank_iterations(graph, args.tolerance) if algo == "pagerank" else None
        expected = golden.run(algo, graph, algo_root, iters=iters).values
        results[algo] = {"root": algo_root, "iterations": iters,
                         "teps_edges": component_edges(graph, expected != golden.UNREACHED)
                         if algo == "bfs" else None,
                         "cpu": cpu_rows(graph, algo, algo_root, iters, expected, args.repeats),
                         "accelerators": accelerator_rows(graph, algo, algo_root, iters,
                                                          args.tolerance, rows)}
    if "dyngraph" in rows:
        results["inserts"] = inserts_entry(graph, args.inserts, args.repeats)
    return results


def earlier_report(path, parser) -> dict:
    """The report of an earlier run of this bench at ``path``; one line when it is not."""
    try:
        report = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        parser.error(f"--reprice {path}: cannot read a JSON report ({error})")
    if not isinstance(report, dict) or report.get("command") != "bench" or \
            report.get("design") != "cpu-baseline" or "results" not in report:
        parser.error(f"--reprice {path}: not a report of bench/bench_cpu_baseline.py")
    return report


if __name__ == "__main__":
    main()
