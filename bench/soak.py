"""Long random runs (``make soak``): random graphs through the Graphicionado pipeline, the
DepGraph engines, the BFS engine and the dynamic graph unit (random update batches) in RTL,
in turn, each algorithm with stalls injected between blocks and a
DRAM drawn per run (push-back, reordering by tag, uniform or long-tailed latency, a binding
bandwidth), every result checked against the golden model. Runs for ``--minutes``, prints
the one command that reruns each failing run, and ends with the runs, mismatches and hangs
per design and algorithm (exit 1 if any run failed)."""

import argparse
import collections
import dataclasses
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import golden  # noqa: E402
from hw.graphicionado.config import GraphicionadoConfig  # noqa: E402
from sim.graphicionado.top import SimMemoryConfig  # noqa: E402
from hw.bfs.config import BfsConfig  # noqa: E402
from hw.depgraph.config import DepGraphConfig  # noqa: E402
from hw.dyngraph.config import DynGraphConfig  # noqa: E402
from golden.dyngraph import SlabGraph, SlabOptions, generate_updates  # noqa: E402
from sim.dyngraph import run as dyngraph_run  # noqa: E402
from sim.depgraph import run as depgraph_run  # noqa: E402
from sim.bfs import run as bfs_run  # noqa: E402
from sim.dram_run import RunFailure  # noqa: E402
from sim.graphicionado.run import simulate  # noqa: E402
from sim.run_settings import RunSettings  # noqa: E402

def random_memory(rng: random.Random, channels: int = 1) -> SimMemoryConfig:
    """A memory drawn for one run: push-back, reordering, latency spread and bandwidth vary
    (all run-time settings of the DRAM model, so no run needs a build of its own)."""
    return SimMemoryConfig(
        latency=rng.choice([20, 80, 150]), latency_dist=rng.choice(["uniform", "tail"]),
        jitter=rng.choice([0, 40]), tail_percent=rng.choice([2, 10]), tail=rng.choice([300, 2000]),
        outstanding=rng.choice([4, 16, 128]), pushback=rng.choice([0, 20, 60]),
        reorder=rng.random() < 0.7, bytes_per_cycle=rng.choice([64.0, 16.0, 8.5]),
        depth_lines=1 << 16, channels=channels)
ALGOS = ("bfs", "sssp", "cc", "pagerank")
# Graphicionado's shapes (source streams, destination streams, edge readers, memory
# channels): a few, so that the runs share their builds.
SHAPES = ((1, 1, 1, 1), (2, 2, 1, 2), (4, 2, 2, 4), (2, 4, 3, 2), (8, 8, 1, 4), (1, 8, 2, 8))
# Collaborative filtering's (large properties as flits, §IV.E): fewer and smaller shapes (its
# datapath is eight FP32 lanes wide), with K = 32, 8 or 4 features.
CF_SHAPES = ((1, 1, 1, 1), (2, 2, 1, 2), (4, 4, 1, 4), (1, 2, 2, 2))


def random_rating_graph(rng: random.Random) -> tuple[str, golden.Graph]:
    items = rng.randint(4, 300)
    spec = (f"bipartite:users={rng.randint(4, 1000)},items={items},"
            f"ratings={rng.randint(1, min(items, 12))},seed={rng.randrange(1 << 30)}")
    return spec, golden.from_spec(spec)


def random_graph(rng: random.Random) -> tuple[str, golden.Graph]:
    seed = rng.randrange(1 << 30)
    kind = rng.choice(["kron", "rmat", "uniform", "grid", "scalefree"])
    vertices = rng.randint(16, 2048)
    # A simple directed graph on n vertices has at most n (n - 1) edges.
    edges = min(rng.randint(16, 20000), vertices * (vertices - 1))
    spec = {
        "kron": f"kron:scale={rng.randint(6, 11)},ef={rng.choice([2, 8, 16])},seed={seed}",
        "rmat": f"rmat:scale={rng.randint(6, 11)},ef={rng.choice([2, 8, 16])},seed={seed}",
        "uniform": f"uniform:n={vertices},m={edges},seed={seed}",
        "grid": f"grid:rows={rng.randint(2, 40)},cols={rng.randint(2, 40)},seed={seed}",
        "scalefree": f"scalefree:n={rng.randint(1000, 2048)},seed={seed}",
    }[kind] + ",weights=1:1000"
    return spec, golden.from_spec(spec)


def draw_dyngraph(rng: random.Random, graph, channels: int, memory, seed: int):
    """The dynamic graph unit: a batch of random operations of every kind on the graph, every
    option drawn, the pool sometimes nearly full (allocations refused)."""
    slots = rng.choice([2, 4, 16])
    config = DynGraphConfig(slots=slots, lock_ways=rng.choice([w for w in (2, 4, 8)
                                                               if w <= 4 * slots]),
                            slab_ports=rng.choice([1, 2, 4]), memory_channels=channels,
                            sweep_group=rng.choice([1, 3, 8]), max_vertices=4096,
                            load_factor_percent=rng.choice([50, 70, 100]), stall_injection=30)
    if rng.random() < 0.3:
        built = SlabGraph.build(graph, SlabOptions(**config.golden_options()))
        config = dataclasses.replace(
            config, pool_slabs=built.slabs_in_use() + rng.choice([0, 2, 9]))
    shares = [rng.randrange(1, 10) for _ in range(5)]
    shares[3] = shares[3] if rng.random() < 0.6 else 0      # vertex operations in some runs
    shares[4] = shares[4] if rng.random() < 0.6 else 0
    percent = [100 * x // sum(shares) for x in shares]
    percent[0] += 100 - sum(percent)
    spec = (f"mix:ops={rng.choice([150, 400, 800])},insert={percent[0]},delete={percent[1]},"
            f"search={percent[2]},vinsert={percent[3]},vdelete={percent[4]},"
            f"hit={rng.choice([10, 50, 90])},seed={seed}")
    batch = rng.choice([None, 1, 17, 100])
    updates = generate_updates(spec, graph, config.max_vertices)
    run = lambda: dyngraph_run.simulate(  # noqa: E731
        graph, config, memory, RunSettings(updates=updates, batch=batch, seed=seed))
    label = (f"dyngraph s{slots} p{config.slab_ports} c{channels} g{config.sweep_group} "
             f"pool {config.pool_slabs or 'auto'}")
    return config, spec, batch, run, label


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    deadline = time.monotonic() + 60 * args.minutes
    runs = 0
    tally = collections.Counter()       # (design, algo, outcome) -> runs
    while time.monotonic() < deadline:
        turn = runs % 4                 # Graphicionado, DepGraph, BFS engine, dynamic graph
        algo = rng.choice(ALGOS)
        if turn == 0 and rng.random() < 0.25:
            algo = "cf"                 # Graphicionado only
        spec, graph = random_rating_graph(rng) if algo == "cf" else random_graph(rng)
        root = int(rng.randrange(graph.num_vertices)) if algo in ("bfs", "sssp") else None
        slices = None
        seed = rng.randrange(1, 1 << 16)
        n, m, readers, channels = rng.choice(CF_SHAPES if algo == "cf" else SHAPES)
        memory = random_memory(rng, 1 if turn == 1 else channels)
        updates_spec = batch = None
        if turn == 3:
            config, updates_spec, batch, run, label = draw_dyngraph(rng, graph, channels,
                                                                    memory, seed)
            design, algo, iters, root = "dyngraph", "updates", None, None
        elif turn == 2:
            # The BFS engine: BFS on the graph or on its undirected form, every option drawn.
            algo = "bfs"
            if rng.random() < 0.5:
                graph, spec = graph.symmetrized(), spec + ",undirected=1"
            root = int(rng.randrange(graph.num_vertices))
            config = BfsConfig(lanes=rng.choice([1, 2, 4, 8, 16]),
                               expand_lanes=rng.choice([1, 2, 4]),
                               dispatch=rng.choice(["classes", "vertex"]),
                               memory_channels=channels,
                               middle_degree=rng.choice([4, 32]), large_degree=64,
                               extreme_degree=rng.choice([128, 65536]),
                               direction=rng.choice(["auto", "auto", "topdown", "bottomup"]),
                               tau=rng.choice([2, 8, 32, 128]), queues=rng.choice(["hier", "flat"]),
                               hub_cache=rng.random() < 0.7,
                               hub_cache_entries=rng.choice([4, 64, 1024]),
                               bu_slots=rng.choice([2, 8, 64]), max_vertices=4096,
                               scan_hits=rng.choice([1, 4]), scan_window=rng.choice([2, 8, 128]),
                               ranges_on_demand=rng.random() < 0.7, stall_injection=30)
            run = lambda: bfs_run.simulate(  # noqa: E731
                graph, config, memory, RunSettings(root=root, seed=seed))
            design, iters = "bfs", None
            label = (f"bfs l{config.lanes} x{config.expand_lanes} {config.dispatch} "
                     f"c{channels} {config.direction} {config.queues} "
                     f"cache {config.hub_cache_entries if config.hub_cache else 'off'} "
                     f"scan {config.scan_hits} w{config.scan_window} "
                     f"{'demand' if config.ranges_on_demand else 'every'}")
        elif turn == 1:
            engines = rng.choice([1, 2, 4])
            depth = rng.choice([1, 2, 10, 16])
            hub = rng.random() < 0.5
            walks = rng.choice([1, 2, 4, 8, 16])
            onchip = rng.random() < 0.5
            window = rng.choice([0, 2, 4, 8])
            kept, lines = rng.choice([1, 2, 4]), rng.random() < 0.5
            leave = rng.choice([0, 8])
            config = DepGraphConfig(algo=algo, engines=engines, stack_depth=depth, walks=walks,
                                    hub_index=hub, bank_vertices=2048, stall_injection=30,
                                    offsets_on_chip=onchip, update_window=window,
                                    kept_lines=kept, stack_lines=lines, leave_max_edges=leave)
            run = lambda: depgraph_run.simulate(  # noqa: E731
                graph, config, memory, RunSettings(algo=algo, root=root, seed=seed))
            design, iters = "depgraph", None
            label = (f"depgraph e{engines} d{depth} w{walks} hub {'on' if hub else 'off'} "
                     f"offsets {'on chip' if onchip else 'in memory'} update window {window} "
                     f"kept lines {kept}{' per level' if lines else ''} leave {leave}")
        else:
            # CF in one run of two with the symmetric-graph optimisation (§IV.D), each
            # undirected rating stored once; sliced, that is extended slicing (§VI.B).
            # PageRank in one of three, on the graph's undirected form, unsliced.
            symmetric = algo == "cf" and rng.random() < 0.5
            scalar_symmetric = algo == "pagerank" and m <= 8 and rng.random() < 0.33
            if scalar_symmetric:
                graph, spec = graph.symmetrized(), spec + ",undirected=1"
            # The duplicated update path (§IV.D) in two symmetric runs of three, where the
            # update network has room for it (8 destination streams at most); PageRank's
            # is built with both.
            paths = 2 if m <= 8 and (scalar_symmetric or rng.random() < 0.67) else 1
            symmetric = symmetric or scalar_symmetric
            # Extended slicing's write-back and load overlapped (the default) in three runs
            # of four, in turn in the fourth; processing beside the load likewise.
            overlap = not symmetric or rng.random() < 0.75
            early = not symmetric or rng.random() < 0.75
            config = GraphicionadoConfig(algo=algo, max_vertices=2048, edge_prefetch_lines=16,
                                         stall_injection=30, streams_src=n, streams_dst=m,
                                         edge_readers=readers, memory_channels=channels,
                                         max_slices=1 if scalar_symmetric else 10,
                                         property_bytes=4 * rng.choice(
                                             [32, 8, 4]) if algo == "cf" else 0,
                                         symmetric=symmetric, update_paths=paths,
                                         spill_overlap=overlap, process_overlap=early)
            iters = rng.randint(1, 4) if algo in ("pagerank", "cf") else None
            # Graph slicing (§VI.A) in three runs of four: about 2, 3 or 8 slices, as many as
            # slices of a multiple of 16 x max(n, m) vertices make (a small graph: one).
            # Extended slicing: 2, 3 or 4 partitions (3, 6 or 10 slices of max_slices=10;
            # from 4 a load overlaps a write-back).
            asked = None if scalar_symmetric else \
                rng.choice([None, 2, 3, 4] if symmetric else [None, 2, 3, 8])
            if asked:
                align = 16 * max(n, m)
                size = -(-(-(-graph.num_vertices // asked)) // align) * align
                slices = -(-graph.num_vertices // size)
            run = lambda: simulate(  # noqa: E731
                graph, config, memory,
                RunSettings(algo=algo, root=root, iters=iters, seed=seed, slices=slices))
            design = "graphicionado"
            label = (f"graphicionado {n}x{m} r{readers} c{channels} s{slices or 1}"
                     f"{f' sym p{paths}' if symmetric else ''}{'' if overlap else ' in-turn'}")
        runs += 1
        try:
            report = run()
            outcome = "ok" if report.matches else "mismatch"
            what = report.first_mismatch
            if design == "bfs" and what is None:
                what = report.parents_error or report.log_mismatch
            if design == "dyngraph" and what is None:
                what = report.structure_error or report.counter_mismatch
            detail = f"cycles={report.counters['cycles']}" + \
                ("" if report.matches else f" MISMATCH {what}")
        except RunFailure as failure:
            outcome, detail = "failed", "RUN FAILED " + str(failure).splitlines()[0]
        tally[design, algo, outcome] += 1
        print(f"{runs:4d} {label:<26} {algo:<8} {spec:<58} root={root} iters={iters} "
              f"seed={seed} {detail}", flush=True)
        if outcome != "ok":
            sets = " ".join(f"--set {key}={value}" for key, value in config.as_dict().items()
                            if key != "algo")
            what_run = (f"--updates '{updates_spec}'" + (f" --batch {batch}" if batch else "")
                        if design == "dyngraph" else f"--algo {algo}")
            print(f"     rerun: graphgen sim --design {design} {what_run} --graph '{spec}'"
                  f"{f' --root {root}' if root is not None else ''}"
                  f"{f' --slices {slices}' if design == 'graphicionado' and slices else ''}"
                  f"{f' --iters {iters}' if iters else ''} {sets} --seed {seed} " +
                  " ".join(f"--mem {key}={value}" for key, value in memory.as_dict().items()
                           if value != ""),
                  flush=True)
    print(f"{runs} runs in {args.minutes:g} minutes (soak seed {args.seed}):")
    bad = 0
    for design in ("graphicionado", "depgraph", "bfs", "dyngraph"):
        algos = ALGOS + ("cf",) if design == "graphicionado" else \
            ("bfs",) if design == "bfs" else ("updates",) if design == "dyngraph" else ALGOS
        for algo in algos:
            counts = {outcome: tally[design, algo, outcome]
                      for outcome in ("ok", "mismatch", "failed")}
            bad += counts["mismatch"] + counts["failed"]
            print(f"  {design:<14} {algo:<9} {sum(counts.values()):4d} runs, "
                  f"{counts['mismatch']} mismatches, {counts['failed']} hangs or errors")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
