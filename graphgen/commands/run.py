"""``graphgen run --board``: a graph through a design on a board built by ``graphgen board``:
the host driver (:mod:`graphgen.driver`) over LiteX's UART bridge (or a running
``litex_server``) loads the graph into the SDRAM, programs the registers, starts, waits for
DONE and reads the answer back, which is checked against the golden model
(:mod:`graphgen.board.host`, docs/board.md)."""

import json
import time
from pathlib import Path

from ..common import UsageError, add_design_options, parse_sets
from ..designs import DESIGNS


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
    command.add_argument("--baudrate", type=int, default=115200,
                         help="the UART bridge's rate (default 115200, LiteX's)")
    add_design_options(command, DESIGNS)
    command.add_argument("--algo", help="the algorithm (graphicionado, depgraph: sets its "
                                        "algo parameter; bfs: bfs)")
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
                              "50000: 1 ms at 50 MHz)")
    command.add_argument("--json", metavar="FILE")
    command.set_defaults(run=run)


def _config(args):
    from ..board.host import RUN_DESIGNS
    if args.design not in RUN_DESIGNS:
        raise UsageError(f"a board run takes --design {', '.join(RUN_DESIGNS)}, not "
                         f"{args.design!r}")
    algos = RUN_DESIGNS[args.design]
    algo = args.algo or algos[0]
    if algo not in algos:
        raise UsageError(f"--algo {algo}: {args.design} on a board runs {', '.join(algos)}")
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
    verdict = (f"equal to the golden model ({check.comparison})" if check.passed else
               f"DIFFERS from the golden model in {check.mismatches} of {check.vertices} "
               f"vertices (first: vertex {check.first}; {check.comparison})")
    cycles = result.counters.get("cycles", 0)
    print(f"{design.name} {algo} on {args.board}: {graph.num_vertices} vertices, "
          f"{graph.num_edges} edges")
    print(f"answer: {verdict}")
    print(f"run time: {wall:.2f} s in all; "
          f"{', '.join(f'{k} {v:.2f} s' for k, v in result.seconds.items())}; the design "
          f"counted {cycles} cycles ({cycles / clock_hz * 1e3:.3f} ms at "
          f"{clock_hz / 1e6:g} MHz)")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"board": args.board, "design": design.name, "algo": algo,
             "config": config.as_dict(), "passed": check.passed,
             "mismatches": check.mismatches, "comparison": check.comparison,
             "seconds": {**result.seconds, "wall": round(wall, 3)},
             "counters": result.counters}, indent=1) + "\n")
    return 0 if check.passed else 1
