"""``graphgen run --board``: a graph through a design on a board built by ``graphgen board``:
the host driver (:mod:`graphgen.driver`) over LiteX's UART bridge (or a running
``litex_server``) loads the graph into the SDRAM, programs the registers, starts, waits for
DONE and reads the answer back, which is checked against the golden model
(:mod:`graphgen.board.host`, docs/board.md)."""

import json
import time
from pathlib import Path

from ..algo_option import add_algo_option
from ..common import UsageError, add_design_options, parse_sets
from ..designs import DESIGNS
from ..reports import atomic_write


__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    command = commands.add_parser(
        "run", help="run a graph on a design built for a board (graphgen board), checked "
                    "against the golden model")
    command.add_argument("--board", required=True, metavar="NAME",
                         help="the board the design was built for (ulx3s-85f)")
    link = command.add_mutually_exclusive_group(required=True)
    link.add_argument("--port", metavar="DEVICE",
                      help="the board's UART (e.g. /dev/ttyUSB0), opened here")
    link.add_argument("--server", metavar="HOST:PORT",
                      help="a litex_server already connected to the board (e.g. "
                           "localhost:1234)")
    link.add_argument("--sim", action="store_true",
                      help="no board: the board's SoC simulated (LiteDRAM's SDRAM model, "
                           "Verilator), a Wishbone master in place of the UART bridge")
    command.add_argument("--baudrate", type=int, default=115200,
                         help="the UART bridge's rate (default 115200, LiteX's)")
    add_design_options(command, DESIGNS)
    add_algo_option(command, "the vertex program (graphicionado: one of one-word properties; "
                             "depgraph: bfs, sssp or cc; bfs: bfs; default bfs)")
    command.add_argument("--graph", required=True, metavar="FILE|SPEC")
    command.add_argument("--root", type=int, default=0)
    command.add_argument("--iters", type=int, help="graphicionado: iterations at most")
    command.add_argument("--build", metavar="DIR",
                         help="the folder graphgen board wrote (its board.json: the map, "
                              "the SDRAM's initialisation, the design's configuration; "
                              "default build/board/<design>-<board>)")
    command.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                         help="how long the design may run (default 60)")
    command.add_argument("--poll", type=int, default=50_000, metavar="CYCLES",
                         help="cycles between two reads of the control register (default "
                              "50000)")
    command.add_argument("--json", metavar="FILE")
    command.set_defaults(run=run)


def _config(args):
    from ..board.host import RUN_DESIGNS, check_board_program
    if args.design not in RUN_DESIGNS:
        raise UsageError(f"a board run takes --design {', '.join(RUN_DESIGNS)}, not "
                         f"{args.design!r}")
    algo = args.algo or RUN_DESIGNS[args.design]
    check_board_program(args.design, algo)
    overrides = parse_sets(args.set)
    design = DESIGNS[args.design]
    if "algo" in design.config().as_dict():
        if overrides.setdefault("algo", algo) != algo:
            raise UsageError(f"--algo {algo} and --set algo={overrides['algo']} disagree")
    return design, design.config(overrides).design_only(), algo


def _server(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise UsageError(f"--server expects HOST:PORT, got {text!r}")
    return host, int(port)


def _build(args, design, config) -> dict:
    """The build's board.json, refused unless it is this board's and this configuration's."""
    folder = Path(args.build or f"build/board/{design.name}-{args.board}")
    try:
        board = json.loads((folder / "board.json").read_text())
    except (OSError, ValueError):
        raise UsageError(f"{folder}: no board.json (build with graphgen board --board "
                         f"{args.board} --design {design.name} -o {folder})") from None
    wanted = json.loads(json.dumps(config.as_dict()))
    built = (board.get("board"), board.get("design"), board.get("config"))
    if built != (args.board, design.name, wanted):
        differ = sorted(key for key in wanted
                        if (board.get("config") or {}).get(key) != wanted[key])
        raise UsageError(f"{folder} holds {board.get('design')} for {board.get('board')}, "
                         f"built with another configuration"
                         f"{': ' + ', '.join(differ) if differ else ''}")
    return board


def run(args) -> int:
    from golden import load_graph
    from .board import check_board
    check_board(args.board)
    design, config, algo = _config(args)
    if args.timeout <= 0 or args.poll <= 0:
        raise UsageError("--timeout and --poll must be positive")
    server = _server(args.server) if args.server else None
    if args.sim:
        return _simulate(args, design, config, algo, load_graph(args.graph))
    board = _build(args, design, config)
    graph = load_graph(args.graph)
    from ..board import host
    clock_hz = board["clock_hz"]
    start = time.perf_counter()
    client = host.open_client(args.port, args.baudrate, server)
    bus = None
    try:
        host.init_sdram(client, board)
        bus = host.litex_bus(client, board)
        driver = host.board_driver(design, config, bus)
        result = host.run_graph(driver, design.name, config, graph, root=args.root,
                                iters=args.iters, timeout=int(args.timeout * clock_hz),
                                poll=args.poll)
    finally:
        (bus or client).close()
    wall = time.perf_counter() - start
    check = result.check
    return _report(args, design, config, algo, graph, check.passed, check.mismatches,
                   check.vertices, check.first, check.comparison, result.counters,
                   {**result.seconds, "wall": round(wall, 3)}, clock_hz)


def _report(args, design, config, algo, graph, passed, mismatches, vertices, first,
            comparison, counters, seconds, clock_hz, extra=None) -> int:
    verdict = (f"equal to the golden model ({comparison})" if passed else
               f"DIFFERS from the golden model in {mismatches} of {vertices} "
               f"vertices (first: vertex {first}; {comparison})")
    cycles = counters.get("cycles", 0)
    where = "the simulated SoC of " + args.board if args.sim else args.board
    print(f"{design.name} {algo} on {where}: {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges")
    print(f"answer: {verdict}")
    print(f"run time: {seconds['wall']:.2f} s in all; "
          f"{', '.join(f'{k} {v:.2f} s' for k, v in seconds.items() if k != 'wall')}; "
          f"the design counted {cycles} cycles ({cycles / clock_hz * 1e3:.3f} ms at "
          f"{clock_hz / 1e6:g} MHz)")
    if args.json:
        atomic_write(Path(args.json), json.dumps(
            {"board": args.board, "sim": bool(args.sim), "design": design.name, "algo": algo,
             "config": config.as_dict(), "passed": passed, "mismatches": mismatches,
             "comparison": comparison, "seconds": seconds, "counters": counters,
             **(extra or {})}, indent=1) + "\n")
    return 0 if passed else 1


def _simulate(args, design, config, algo, graph) -> int:
    """``--sim``: the board's SoC in Verilator (graphgen.board.simulation)."""
    import tempfile
    import golden
    from ..board import CLOCK_MHZ
    from ..board.simulation import simulate_board_run
    overrides = parse_sets(args.set)
    if "algo" in config.as_dict():
        overrides["algo"] = algo
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="graphgen-run-") as folder:
        graph_file = Path(folder) / "graph.npz"
        golden.write_graph(graph, graph_file)
        outcome = simulate_board_run(design, overrides, graph_file, root=args.root,
                                     iters=args.iters, poll=args.poll)
    seconds = {"build": outcome["build_seconds"], "simulation": outcome["run_seconds"],
               "host": outcome["host_seconds"],
               **{f"host {k}": v for k, v in outcome["seconds"].items()},
               "wall": round(time.perf_counter() - start, 3)}
    build = "cached" if outcome["cached"] else f"{outcome['build_seconds']:.0f} s"
    print(f"simulated {outcome['sim_ns'] / 1e6:.3f} ms of the SoC, "
          f"{outcome['bus_accesses']} bus accesses, SDRAM initialised with "
          f"{outcome['sdram_init_writes']} register writes; Verilator build {build}")
    return _report(args, design, config, algo, graph, outcome["passed"],
                   outcome["mismatches"], outcome["vertices"], outcome["first"],
                   outcome["comparison"], outcome["counters"], seconds, CLOCK_MHZ * 1e6,
                   {"sim_ns": outcome["sim_ns"], "bus_accesses": outcome["bus_accesses"]})
