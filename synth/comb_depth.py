"""The longest combinational paths of a Yosys ECP5 netlist, in a few seconds, for finding where
to put pipeline registers before a place and route that takes an hour.

Each path runs from a register output, a LUT-RAM's read data or a top-level input to a register
input, a LUT-RAM's write side or a top-level output, through LUT4, PFUMX, L6MUX21, CCU2C,
unregistered multipliers and a LUT-RAM's asynchronous read. Its length is a rough delay in ns:
:data:`CELL_NS` per cell and :data:`ROUTE_NS` per net between cells (nothing between a LUT and
the PFUMX beside it, or along a carry chain). These are round figures of the ECP5's speed grade 6 timing, not a timing
analysis: nextpnr's Fmax after placement and routing is the measurement; this ranks paths and
names the blocks they cross (by the top-level part of the net names Yosys keeps).

The estimate charges every net the same, whatever its fan-out; routed, a net with hundreds of
loads spread over the chip is what limits the clock (issue 51's ecp5 presets: 13-19 ns on one
such net). :func:`wide_nets` lists the nets of most loads beside the paths.

``python -m synth.comb_depth NETLIST.json [--paths N] [--nets] [--fanout N]``
"""

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CombPath", "WideNet", "longest_paths", "wide_nets", "main"]

CELL_NS = {"LUT4": 0.4, "PFUMX": 0.25, "L6MUX21": 0.25, "TRELLIS_DPR16X4": 0.6,
           "MULT18X18D": 3.5}
CARRY_NS = {"CIN->COUT": 0.05, "CIN->S": 0.3, "IN->COUT": 0.4, "IN->S": 0.5}
ROUTE_NS = 0.7
MUX_INPUT_NS = 0.05          # a LUT's output into the PFUMX / L6MUX21 next to it
SEQUENTIAL = {"TRELLIS_FF", "DP16KD", "ALU54B"}
MULT_REGISTERS = ("REG_INPUTA_CLK", "REG_INPUTB_CLK", "REG_PIPELINE_CLK", "REG_OUTPUT_CLK")


def _sequential(cell: dict) -> bool:
    """A register, a block RAM, or a multiplier with any of its registers in use."""
    if cell["type"] == "MULT18X18D":
        return any(str(cell.get("parameters", {}).get(p, "NONE")).strip() != "NONE"
                   for p in MULT_REGISTERS)
    return cell["type"] in SEQUENTIAL


@dataclass(frozen=True)
class CombPath:
    """One path: its rough delay, its nets from start to end (names as Yosys kept them) and
    the top-level blocks it crosses, in order, with the nets in each."""
    ns: float
    nets: tuple[str, ...]
    blocks: tuple[tuple[str, int], ...]

    def describe(self) -> str:
        crossing = " -> ".join(f"{name} ({count})" for name, count in self.blocks)
        return (f"{self.ns:5.1f} ns, {len(self.nets)} nets: {crossing}\n"
                f"        from {self.nets[0]}\n        to   {self.nets[-1]}")


@dataclass(frozen=True)
class WideNet:
    """A net, the cell type driving it and its loads (cell inputs), counted by cell port."""
    net: str
    driver: str
    loads: int
    ports: tuple[tuple[str, int], ...]

    def describe(self) -> str:
        ports = ", ".join(f"{port} {count}" for port, count in self.ports)
        return f"{self.loads:6d} loads  {self.net} ({self.driver}): {ports}"


def wide_nets(design: dict, count: int = 10) -> list[WideNet]:
    """The ``count`` nets of most loads driven by a cell (a register or logic; not a
    top-level input such as the reset, whose fan-out a reset tree in the system handles), and
    not clocks."""
    module = _top_module(design)
    names = _bit_names(module)
    drivers: dict[int, str] = {}
    loads = defaultdict(lambda: defaultdict(int))
    for cell in module["cells"].values():
        for port, bits in cell["connections"].items():
            for bit in bits:
                if not isinstance(bit, int):
                    continue
                if cell["port_directions"][port] == "output":
                    drivers[bit] = cell["type"]
                else:
                    loads[bit][f"{cell['type']}.{port}"] += 1
    found = []
    for bit, ports in loads.items():
        if bit not in drivers or any(port.endswith(".CLK") for port in ports):
            continue
        ordered = tuple(sorted(ports.items(), key=lambda item: (-item[1], item[0])))
        found.append(WideNet(names.get(bit, f"bit {bit}"), drivers[bit], sum(ports.values()),
                             ordered))
    found.sort(key=lambda net: (-net.loads, net.net))
    return found[:count]


def _bit_names(module: dict) -> dict[int, str]:
    """Each bit's shortest net name (Yosys keeps several names for one net)."""
    names: dict[int, str] = {}
    for net, info in module["netnames"].items():
        for bit in info["bits"]:
            if isinstance(bit, int) and (bit not in names or len(net) < len(names[bit])):
                names[bit] = net
    return names


def _top_module(design: dict) -> dict:
    tops = [m for m in design["modules"].values() if m.get("attributes", {}).get("top")]
    if len(tops) != 1:
        tops = list(design["modules"].values())
        if len(tops) != 1:
            raise ValueError("the netlist has no single top module")
    return tops[0]


def _block(net: str) -> str:
    head = net.lstrip("\\").split(".")[0]
    return head if "." in net else "(top)"


def _arcs(cell: dict, in_port: str):
    """(output bits, delay) reached from ``in_port`` of a combinational cell."""
    kind = cell["type"]
    directions = cell["port_directions"]
    for port, bits in cell["connections"].items():
        if directions[port] != "output":
            continue
        if kind == "TRELLIS_DPR16X4":
            if not (in_port.startswith("RAD") and port == "DO"):
                continue
            delay = CELL_NS[kind]
        elif kind == "MULT18X18D":
            if not (in_port[:1] in "AB" and in_port[1:].isdigit() and port.startswith("P")):
                continue
            delay = CELL_NS[kind]
        elif kind == "CCU2C":
            if in_port == "CIN":
                delay = CARRY_NS["CIN->COUT" if port == "COUT" else "CIN->S"]
            else:
                # A0..D0 reach S0, S1 and COUT; A1..D1 reach S1 and COUT.
                if port == "S0" and in_port.endswith("1"):
                    continue
                delay = CARRY_NS["IN->COUT" if port == "COUT" else "IN->S"]
        elif kind in CELL_NS:
            delay = CELL_NS[kind]
        else:
            continue
        for bit in bits:
            if isinstance(bit, int):
                yield bit, delay


def longest_paths(design: dict, count: int = 10) -> list[CombPath]:
    """The ``count`` longest paths with different (first block, last block) pairs."""
    module = _top_module(design)
    cells = module["cells"]
    names = _bit_names(module)
    drivers: dict[int, str] = {}
    sinks = defaultdict(list)
    for name, cell in cells.items():
        for port, bits in cell["connections"].items():
            for bit in bits:
                if not isinstance(bit, int):
                    continue
                if cell["port_directions"][port] == "output":
                    drivers[bit] = name
                else:
                    sinks[bit].append((name, port))

    def route(bit, cell, port):
        driver = drivers.get(bit)
        if port == "CIN" and driver is not None and cells[driver]["type"] == "CCU2C":
            return 0.0
        if cells[cell]["type"] in ("PFUMX", "L6MUX21") and port in ("ALUT", "BLUT", "D0",
                                                                    "D1"):
            return MUX_INPUT_NS
        return ROUTE_NS

    edges = defaultdict(list)
    fan_in = defaultdict(int)
    for bit, users in sinks.items():
        for cell, port in users:
            if _sequential(cells[cell]):
                continue
            for out, delay in _arcs(cells[cell], port):
                edges[bit].append((out, delay + route(bit, cell, port)))
                fan_in[out] += 1
    arrival = {bit: 0.0 for bit in set(drivers) | set(sinks) if fan_in[bit] == 0}
    previous: dict[int, int] = {}
    ready = list(arrival)
    while ready:
        bit = ready.pop()
        for out, delay in edges[bit]:
            if arrival[bit] + delay > arrival.get(out, -1.0):
                arrival[out] = arrival[bit] + delay
                previous[out] = bit
            fan_in[out] -= 1
            if fan_in[out] == 0:
                ready.append(out)

    def is_end(cell, port):
        kind = cells[cell]["type"]
        return _sequential(cells[cell]) or (kind == "TRELLIS_DPR16X4"
                                            and not port.startswith("RAD"))

    ends = sorted(((arrival.get(bit, 0.0) + ROUTE_NS, bit) for bit, users in sinks.items()
                   if any(is_end(cell, port) for cell, port in users)), reverse=True)
    found, seen = [], set()
    for ns, bit in ends:
        chain = [bit]
        while chain[-1] in previous:
            chain.append(previous[chain[-1]])
        chain.reverse()
        nets = tuple(names.get(b, f"bit {b}") for b in chain)
        blocks: list[list] = []
        for net in nets:
            block = _block(net)
            if blocks and blocks[-1][0] == block:
                blocks[-1][1] += 1
            else:
                blocks.append([block, 1])
        key = (blocks[0][0], blocks[-1][0])
        if key in seen:
            continue
        seen.add(key)
        found.append(CombPath(ns=round(ns, 2), nets=nets,
                              blocks=tuple((name, k) for name, k in blocks)))
        if len(found) == count:
            break
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m synth.comb_depth",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("netlist", type=Path, help="Yosys JSON netlist (synth_ecp5 -json)")
    parser.add_argument("--paths", type=int, default=10)
    parser.add_argument("--nets", action="store_true", help="print every net of each path")
    parser.add_argument("--fanout", type=int, default=0, metavar="N",
                        help="also list the N nets of most loads")
    args = parser.parse_args(argv)
    try:
        design = json.loads(args.netlist.read_text())
        paths = longest_paths(design, args.paths)
        wide = wide_nets(design, args.fanout) if args.fanout > 0 else []
    except (OSError, ValueError, KeyError) as error:
        print(f"comb_depth: error: {args.netlist}: {error}", file=sys.stderr)
        return 2
    for path in paths:
        print(path.describe())
        if args.nets:
            for net in path.nets:
                print(f"          {net}")
    if wide:
        print("nets of most loads:")
        for net in wide:
            print(f"  {net.describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
