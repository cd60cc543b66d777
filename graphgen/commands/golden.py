"""``graphgen golden``: the NumPy golden model of an algorithm on a graph, one of DepGraph's
execution models (``--model``), the BFS engine's model (``--model bfs``), or the dynamic graph
under updates (``--updates``, :mod:`graphgen.commands.golden_updates`)."""

import time
from pathlib import Path

from ..algo_option import add_algo_option, add_param_option, program_params
from ..common import UsageError, jsonable, parse_sets
from ..graph_option import add_symmetry_options, load_graph, symmetry_line
from ..golden_models import MODELS, model_figures, model_settings, run_model, settings_help
from ..reports import atomic_write, base_report, write_json
from . import golden_updates


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    command = commands.add_parser("golden", help="run the NumPy golden model")
    add_algo_option(command, "the vertex program (with --updates: bfs or pagerank on the "
                             "updated graph, optional)")
    command.add_argument("--graph", required=True, metavar="FILE|SPEC",
                         help="a .mtx/.npz/edge-list file or a generator such as "
                              "kron:scale=16,ef=16,seed=1")
    add_symmetry_options(command)
    add_param_option(command, " (the plain golden model)")
    command.add_argument("--root", type=int)
    command.add_argument("--iters", type=int)
    command.add_argument("--model", choices=MODELS,
                         help="one of DepGraph's execution models (its engines, the "
                              "synchronous frontier baseline or Ligra-o; reports their vertex "
                              "updates), or bfs: the BFS engine's direction-optimising model")
    command.add_argument("--set", action="append", metavar="KEY=VALUE",
                         help=f"a parameter of --model ({settings_help()}); with --updates, "
                              f"of the slab-hash graph ({', '.join(golden_updates.SETTINGS)})")
    command.add_argument("-o", "--output", metavar="values.npy",
                         help="the values (with --updates: the final graph as u v w lines, "
                              "sorted by u then v)")
    command.add_argument("--parents", metavar="FILE.npy",
                         help="bfs: write the parent array (int64, the root its own parent, "
                              "-1 unreached) of the BFS engine's model (--model bfs)")
    command.add_argument("--updates", metavar="FILE|SPEC",
                         help="the dynamic graph (slab hash): apply these operations (a file "
                              "of + u v w / - u v / ? u v / +v u / -v u lines, or a generator "
                              "such as mix:ops=4096,insert=50,delete=25,search=25) to --graph")
    command.add_argument("--batch", type=int, metavar="N",
                         help="with --updates: operations a batch (default: all in one)")
    command.add_argument("--answers", metavar="FILE",
                         help="with --updates: the searches' answers, one a line (the "
                              "weight, or - when absent)")
    command.add_argument("--json", metavar="FILE")
    command.set_defaults(run=run)


def run(args) -> int:
    import numpy as np
    import golden
    if args.updates is not None:
        return golden_updates.run(args, parse_sets(args.set))
    if args.algo is None:
        raise UsageError("golden needs --algo (or --updates for the dynamic graph)")
    if args.batch is not None or args.answers is not None:
        raise UsageError("--batch and --answers go with --updates")
    if args.parents is not None:
        if args.algo != "bfs":
            raise UsageError(f"--parents is a BFS output, not one of {args.algo}")
        if args.model not in (None, "bfs"):
            raise UsageError(f"--parents comes from --model bfs, not --model {args.model}")
        args.model = "bfs"
    program_params_given = program_params(args.algo, args.param)
    if program_params_given and args.model is not None:
        raise UsageError("--param sets the program's parameters for the plain golden model, "
                         "not --model")
    if args.model is None:
        if args.set:
            raise UsageError("--set takes a golden model's parameters: give --model "
                             "depgraph, sync, ligra or bfs")
    else:
        try:
            settings = model_settings(args.model, args.algo, parse_sets(args.set))
        except ValueError as error:
            raise UsageError(str(error)) from None
        if args.iters is not None:
            raise UsageError("--iters is for the plain golden model; --model runs to "
                             "convergence")
    graph, args.symmetry = load_graph(args.graph, args.undirected, args.directed)
    if args.model == "bfs":
        return _golden_bfs(args, graph, settings)
    if args.model is not None:
        return _golden_model(args, graph, settings)
    params = {}
    if args.root is not None:
        params["root"] = args.root
    if args.iters is not None:
        params["iters"] = args.iters
    start = time.perf_counter()
    if args.algo in golden.ALGORITHMS and not program_params_given:
        result = golden.run(args.algo, graph, **params)
    else:
        params.update(program_params_given or {})
        from golden.programs import run_program
        from ..programs import load_program
        result = run_program(load_program(args.algo), graph, **params)
    seconds = time.perf_counter() - start
    values = np.asarray(result.values)
    print(f"{args.algo} on {args.graph}: {graph.num_vertices} vertices, {graph.num_edges} edges, "
          f"{result.iterations} iterations, {seconds:.3f} s")
    _golden_outputs(args, graph, values, params,
                    {"iterations": result.iterations, "seconds": seconds,
                     "counters": jsonable(result.counters)})
    return 0


def _golden_outputs(args, graph, values, configuration: dict, figures: dict) -> None:
    """A golden run's summary line, ``-o`` values and ``--json`` report."""
    import numpy as np
    summary = _golden_summary(args.algo, values)
    print(symmetry_line(args.symmetry))
    print(summary)
    if args.output:
        atomic_write(Path(args.output), lambda handle: np.save(handle, values), binary=True)
    if args.json:
        report = base_report("golden", None, None)
        report["configuration"] = {"algo": args.algo, "graph": args.graph, **configuration,
                                   "num_vertices": graph.num_vertices,
                                   "num_edges": graph.num_edges, **args.symmetry}
        report["figures"] = {**figures, "summary": summary}
        write_json(Path(args.json), report)


def _golden_model(args, graph, settings) -> int:
    import numpy as np
    from golden import GraphError
    start = time.perf_counter()
    try:
        result = run_model(args.model, args.algo, graph, args.root, settings)
    except ValueError as error:
        raise GraphError(str(error)) from None
    seconds = time.perf_counter() - start
    figures = model_figures(args.model, result)
    values = np.asarray(result.states)
    print(f"{args.algo} on {args.graph} ({args.model} model): {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {seconds:.3f} s")
    shown = {key: value for key, value in figures.items() if key != "parameters"}
    print(", ".join(f"{key.replace('_', ' ')} {value}" for key, value in shown.items()))
    _golden_outputs(args, graph, values,
                    {"model": args.model, "root": args.root, **settings},
                    {**jsonable(figures), "seconds": seconds,
                     "counters": jsonable(result.counters.as_dict())})
    return 0


def _golden_bfs(args, graph, settings) -> int:
    """``--model bfs``: the BFS engine's model, its counters per level, Graph500's check."""
    import numpy as np
    from golden.bfs import BfsOptions, component_edges, run_bfs, validate_parents
    options = BfsOptions(**settings)
    root = 0 if args.root is None else args.root
    start = time.perf_counter()
    result = run_bfs(graph, root, options)
    seconds = time.perf_counter() - start
    validate_parents(graph, root, result.parents, result.levels)
    figures = result.figures()
    edges = component_edges(graph, result.parents >= 0)
    print(f"bfs on {args.graph} (bfs model, root {root}): {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges, {seconds:.3f} s; parents pass Graph500's validation")
    print(f"{figures['levels']} levels ({' '.join(d[0].upper() for d in figures['directions'])}"
          f"; T top-down, B bottom-up), {figures['edges_checked']} edges checked, "
          f"{figures['status_reads']} status reads, {figures['hub_cache_hits']} hub-cache hits "
          f"({100 * figures['hub_cache_hit_rate']:.1f}%), {figures['hubs']} hubs, "
          f"{edges} edges in the root's component")
    if args.parents:
        atomic_write(Path(args.parents), lambda handle: np.save(handle, result.parents),
                     binary=True)
    _golden_outputs(args, graph, result.levels,
                    {"model": "bfs", "root": root, **options.__dict__},
                    {**jsonable(figures), "component_edges": edges, "seconds": seconds})
    return 0



def _golden_summary(algo: str, values) -> str:
    """The built-ins' summaries by their meaning, any other program's by its values' type."""
    import numpy as np
    if algo in ("bfs", "sssp"):
        reached = values != np.iinfo(np.uint32).max
        top = int(values[reached].max()) if reached.any() else 0
        return f"reached {int(reached.sum())} of {values.size} vertices, largest {top}"
    if algo == "cc":
        return f"{np.unique(values).size} components"
    if algo == "pagerank" or values.ndim == 1 and values.dtype == np.float32:
        return f"sum {float(values.sum(dtype=np.float64)):.6g}, max {float(values.max()):.6g}"
    if values.ndim == 1 and values.size:
        return (f"{np.unique(values).size} distinct values from {int(values.min())} to "
                f"{int(values.max())}")
    return f"values of shape {values.shape}, mean {float(values.mean(dtype=np.float64)):.6g}"
