"""``graphgen sweep``: synthesis (and, if asked, RTL simulation) of every point of a grid of
configurations, fanned out on Dask, into one table (issue 20, item 3).

Each point runs as one Dask task (:func:`run_point`): the Verilog is emitted and hashed, and
each target's figures (and the simulation's, through the design's simulation hooks) are kept
in ``DIR/cache`` under that hash, so a rerun, or another sweep into the same folder, skips
what is done. A point that fails is recorded with its error and the sweep goes on. Finished
points are written to ``DIR/points/`` as they finish, so Ctrl-C leaves them saved; the table
(``table.csv`` and ``table.parquet``) is written from every saved point at the end, or at the
interruption.

Schedulers: a ``LocalCluster`` of one single-threaded worker process per core by default
(``--workers`` to change); ``--scheduler tcp://HOST:PORT`` an existing Dask scheduler;
``--scheduler slurm`` or ``pbs`` a cluster of batch jobs through dask-jobqueue (its settings,
cores and memory a job at least, from dask's configuration: ``jobqueue.slurm.cores`` and so on,
in a YAML file or ``DASK_JOBQUEUE__SLURM__CORES``); ``--workers`` jobs.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import os
import sys
import time
import traceback
from pathlib import Path

from synth.reports import overflow_text, stopped_text

from .reports import atomic_write, write_json
from .throughput import per_second


__all__ = ["parse_grid", "run_point", "run_sweep", "load_points", "write_table",
           "SWEEP_TARGETS"]

SWEEP_TARGETS = ("ecp5", "gw5a-138", "asic", "generic")
TABLE_COLUMNS = ("point", "design", "settings", "verilog_sha256", "error", "cached",
                 "ecp5_lut4", "ecp5_ff", "ecp5_ebr", "ecp5_dsp", "ecp5_lutram",
                 "ecp5_overflow", "fmax_mhz", "gw5a_lut4", "gw5a_ff", "gw5a_bsram",
                 "gw5a_dsp", "gw5a_overflow", "gw5a_fmax_mhz", "asic_area_mm2", "asic_logic_mm2",
                 "asic_memory_mm2_model", "asic_fmax_mhz", "generic_cells",
                 "algo", "graph", "graph_symmetric", "cycles", "edges", "edges_per_cycle",
                 "edges_per_second_at_fmax", "edges_per_second_at_asic_fmax",
                 "edges_per_second_per_mm2", "updates", "operations", "operations_per_cycle",
                 "operations_per_second_at_fmax", "operations_per_second_at_asic_fmax",
                 "bytes_per_edge", "bytes_per_operation", "bandwidth_share",
                 "bound_edges_per_cycle", "bound_operations_per_cycle",
                 "seconds")


class SweepError(ValueError):
    """Bad sweep input (one line, exit status 2)."""


def parse_grid(text: str) -> list[dict[str, str]]:
    """``"key=v1,v2;key2=a"`` as the cartesian product of the values, in the order given
    (the last key varies fastest)."""
    axes = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, sep, values = part.partition("=")
        key = key.strip()
        choices = [v.strip() for v in values.split(",")]
        if not sep or not key or not all(choices):
            raise SweepError(f"--grid: {part!r} is not key=value1,value2,...")
        if key in (k for k, _ in axes):
            raise SweepError(f"--grid: {key} given twice")
        axes.append((key, choices))
    if not axes:
        raise SweepError("--grid names no parameter")
    return [dict(zip((k for k, _ in axes), combo))
            for combo in itertools.product(*(v for _, v in axes))]


def _cache_path(out_dir: Path, *parts) -> Path:
    name = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]
    return out_dir / "cache" / f"{name}.json"


def _cached(path: Path, make):
    """``make()``'s JSON result, kept at ``path``; (result, whether it was kept). A synthesis
    that the time limit stopped (``stopped``) is not kept: a rerun, perhaps with a longer
    limit, runs it again."""
    if path.is_file():
        return json.loads(path.read_text()), True
    result = make()
    if not result.get("stopped"):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, result)
    return result, False


def _synth(design, config, verilog: str, sha: str, target: str, out_dir: Path,
           time_limit: float | None) -> dict:
    from synth import synthesize
    top = design.top(config)
    build_dir = out_dir / "build" / f"{design.name}-{sha[:16]}-{target}"
    build_dir.mkdir(parents=True, exist_ok=True)
    path = build_dir / f"{top}.v"
    atomic_write(path, verilog)
    figures = synthesize(path, top, target, build_dir, per_unit=target in ("asic", "ecp5"),
                         jobs=1, time_limit_s=time_limit)
    figures.pop("cells", None)
    return figures


def _simulate(design, config, point: dict) -> dict:
    """The point's run through the design's simulation hooks, on as many memory channels as
    the configuration has ports."""
    import golden
    from sim.gateware.sim_memory import SimMemoryConfig
    from .simulation import SimRequest
    if design.simulation is None:
        raise SweepError(f"{design.name} has no simulation to sweep")
    memory = SimMemoryConfig(channels=getattr(config, "memory_channels", 1))
    graph = golden.load_graph(point["graph"])
    request = SimRequest(graph=graph, graph_name=point["graph"],
                         config=config, memory=memory, algo=point.get("algo"),
                         root=point.get("root"), updates=point.get("updates"),
                         batch=point.get("batch"))
    return {**design.simulation.simulate(request).summary(memory), "memory": memory.as_dict(),
            "graph_symmetric": graph.symmetric}


def run_point(point: dict, out_dir: str) -> dict:
    """One point (a Dask task): ``point`` holds ``index``, ``design``, ``settings``,
    ``targets``, ``algo``, ``graph``, ``root``, ``updates``, ``batch`` and optionally
    ``time_limit`` (seconds for each target's synthesis). Never raises: a failure is the row's
    ``error``."""
    from .designs import get_design
    started = time.perf_counter()
    out = Path(out_dir)
    row = {"point": point["index"], "design": point["design"], "settings": point["settings"],
           "error": None, "cached": True, "results": {}}
    try:
        design = get_design(point["design"])
        config = design.config(point["settings"])
        verilog = design.verilog(config)
        sha = hashlib.sha256(verilog.encode()).hexdigest()
        row["verilog_sha256"] = sha
        row["configuration"] = config.as_dict()
        for target in point["targets"]:
            figures, kept = _cached(_cache_path(out, sha, target),
                                    lambda: _synth(design, config, verilog, sha, target, out,
                                                   point.get("time_limit")))
            row["results"][target] = figures
            row["cached"] &= kept
        if point.get("algo") or point.get("updates"):
            # The operations join the key only when given: the edge designs' keys as before.
            operations = (point["updates"], point.get("batch")) if point.get("updates") else ()
            sim, kept = _cached(
                _cache_path(out, sha, "sim", point.get("algo"), point["graph"],
                            point.get("root"), *operations),
                lambda: _simulate(design, config, point))
            row["results"]["sim"] = sim
            row["cached"] &= kept
            if not sim["matches_golden"]:
                row["error"] = "the simulation differs from the golden model"
    except Exception as error:       # recorded, and the sweep goes on
        row["error"] = f"{type(error).__name__}: {error}".splitlines()[0]
        row["traceback"] = traceback.format_exc()
        row["cached"] = False
    row["seconds"] = time.perf_counter() - started
    return row


def flat_row(row: dict) -> dict:
    """A saved point as one line of the table."""
    results = row.get("results", {})
    ecp5, asic = results.get("ecp5", {}), results.get("asic", {})
    generic, sim = results.get("generic", {}), results.get("sim", {})
    flat = {"point": row["point"], "design": row["design"],
            "settings": json.dumps(row["settings"], sort_keys=True),
            "verilog_sha256": row.get("verilog_sha256"), "error": row.get("error"),
            "cached": row.get("cached"), "seconds": round(row.get("seconds", 0.0), 2)}
    flat.update({f"ecp5_{key}": ecp5.get(key) for key in ("lut4", "ff", "ebr", "dsp",
                                                           "lutram")})
    # What a design needs beyond the device when it does not fit (then there is no Fmax).
    flat["ecp5_overflow"] = overflow_text(ecp5.get("overflow", {})) or None
    # How far nextpnr got when the time limit stopped it (then too there is no Fmax).
    flat["ecp5_stopped"] = stopped_text(ecp5["stopped"]) if ecp5.get("stopped") else None
    flat["fmax_mhz"] = ecp5.get("fmax_mhz")
    # The Gowin GW5AST-138C's figures, the same way (its own Fmax: fmax_mhz is the ECP5's).
    gw5a = results.get("gw5a-138", {})
    flat.update({f"gw5a_{key}": gw5a.get(key) for key in ("lut4", "ff", "bsram", "dsp",
                                                           "fmax_mhz")})
    flat["gw5a_overflow"] = overflow_text(gw5a.get("overflow", {})) or None
    flat["gw5a_stopped"] = stopped_text(gw5a["stopped"]) if gw5a.get("stopped") else None
    area = asic.get("area_total_um2_with_model", asic.get("area_um2"))
    flat["asic_area_mm2"] = area / 1e6 if area is not None else None
    flat["asic_logic_mm2"] = asic["area_um2"] / 1e6 if "area_um2" in asic else None
    memory = asic.get("area_memory_um2_model")
    flat["asic_memory_mm2_model"] = memory / 1e6 if memory is not None else None
    # OpenSTA's, pre-layout (inside units for a per-unit run); none without OpenSTA.
    flat["asic_fmax_mhz"] = (asic.get("asic_timing") or {}).get("fmax_mhz")
    flat["generic_cells"] = generic.get("num_cells")
    flat["algo"], flat["graph"] = row.get("algo"), row.get("graph")
    flat["cycles"], flat["edges"] = sim.get("cycles"), sim.get("edges")
    flat["edges_per_cycle"] = sim.get("edges_per_cycle")
    flat["updates"], flat["operations"] = row.get("updates"), sim.get("operations")
    flat["operations_per_cycle"] = sim.get("operations_per_cycle")
    flat["graph_symmetric"] = sim.get("graph_symmetric")
    # The roofline (issue 53): the memory's bytes per unit of work, the share of its peak
    # the run used and the work per cycle that peak allows at that traffic.
    for key in ("bytes_per_edge", "bytes_per_operation", "bandwidth_share",
                "bound_edges_per_cycle", "bound_operations_per_cycle"):
        flat[key] = sim.get(key)
    # At the point's own measured ECP5 Fmax (the same Verilog's): the work per cycle times
    # the clock (graphgen.throughput.per_second); edges on a symmetric graph (BFS: TEPS,
    # Graph500's count) once per undirected edge.
    rate, ops = _at(flat, flat["fmax_mhz"])
    flat["edges_per_second_at_fmax"] = rate
    flat["operations_per_second_at_fmax"] = ops
    flat["edges_per_second_at_asic_fmax"], flat["operations_per_second_at_asic_fmax"] = \
        _at(flat, flat["asic_fmax_mhz"])
    flat["edges_per_second_per_mm2"] = rate / flat["asic_area_mm2"] \
        if rate is not None and flat["asic_area_mm2"] else None
    for key, value in row["settings"].items():
        flat[f"set.{key}"] = value
    return flat


def _at(flat: dict, fmax_mhz: float | None) -> tuple[float | None, float | None]:
    """Edges and operations per second at ``fmax_mhz`` from the row's work per cycle."""
    if not fmax_mhz:
        return None, None
    return tuple(per_second(flat[key], fmax_mhz) if flat[key] is not None else None
                 for key in ("edges_per_cycle", "operations_per_cycle"))


def load_points(out_dir: Path) -> list[dict]:
    rows = []
    for path in sorted((out_dir / "points").glob("*.json")):
        rows.append(json.loads(path.read_text()))
    return sorted(rows, key=lambda r: r["point"])


def write_table(out_dir: Path) -> list[dict]:
    """``table.csv`` and ``table.parquet`` from every saved point; the flat rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = [flat_row(row) for row in load_points(out_dir)]
    settings = sorted({k for r in rows for k in r if k.startswith("set.")})
    columns = list(TABLE_COLUMNS[:3]) + settings + list(TABLE_COLUMNS[3:])
    atomic_write(out_dir / "table.csv", _csv_text(rows, columns))
    table = pa.table({c: [r.get(c) for r in rows] for c in columns})
    temporary = out_dir / "table.parquet.tmp"
    pq.write_table(table, temporary)
    os.replace(temporary, out_dir / "table.parquet")
    return rows


def _csv_text(rows, columns) -> str:
    """The header and the rows as CSV (an empty field for None)."""
    import io
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for r in rows:
        writer.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
    return buffer.getvalue()


def _client(scheduler: str | None, workers: int | None):
    from dask.distributed import Client, LocalCluster
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        return Client(cluster), cluster
    if scheduler in ("slurm", "pbs"):
        import dask_jobqueue
        kind = dask_jobqueue.SLURMCluster if scheduler == "slurm" else dask_jobqueue.PBSCluster
        try:
            cluster = kind()
        except ValueError as error:     # a setting the job needs is missing
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise SweepError(f"--scheduler {scheduler}: {first.rstrip(' :,')}; set the job's "
                             f"settings in dask's configuration (jobqueue.{scheduler}.cores, "
                             f".memory, ...)") from None
        try:
            cluster.scale(jobs=workers or 1)
            return Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    return Client(scheduler, timeout="30s"), None


def _close(client, cluster) -> None:
    client.close()
    if cluster is not None:
        cluster.close()


def _progress(done: int, total: int, cached: int, failed: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} points "
                     f"({cached} cached, {failed} failed)")
    sys.stderr.flush()


def run_sweep(points: list[dict], out_dir: Path, *, scheduler: str | None = None,
              workers: int | None = None, meta: dict | None = None) -> tuple[list[dict], bool]:
    """Run ``points`` on Dask; returns (the table's rows, whether every point ran)."""
    from dask.distributed import as_completed
    client, cluster = _client(scheduler, workers)     # first: a refused setting writes nothing
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "points").mkdir(exist_ok=True)
        for stale in (out_dir / "points").glob("*.json"):    # a previous sweep's (cache stays)
            stale.unlink()
        write_json(out_dir / "sweep.json", {**(meta or {}), "points": len(points)})
    except BaseException:
        _close(client, cluster)
        raise
    finished = cached = failed = 0
    complete = False
    try:
        futures = [client.submit(run_point, point, str(out_dir.resolve()), pure=False,
                                 key=f"point-{point['index']}-{time.time_ns()}")
                   for point in points]
        by_key = {future.key: point for future, point in zip(futures, points)}
        _progress(0, len(points), 0, 0)
        for future in as_completed(futures):
            point = by_key[future.key]
            try:
                row = future.result()
            except Exception as error:      # the worker itself died
                row = {"point": point["index"], "design": point["design"],
                       "settings": point["settings"], "error": f"worker: {error}",
                       "cached": False, "results": {}}
            row.update({"algo": point.get("algo"), "graph": point.get("graph"),
                        "updates": point.get("updates")})
            write_json(out_dir / "points" / f"{point['index']:05d}.json", row)
            finished += 1
            cached += bool(row.get("cached"))
            failed += row.get("error") is not None
            _progress(finished, len(points), cached, failed)
        complete = True
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: the finished points are saved\n")
    finally:
        sys.stderr.write("\n")
        _close(client, cluster)
        rows = write_table(out_dir)
    return rows, complete
