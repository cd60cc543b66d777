"""Moving flip-flops into the output registers of ECP5 block RAMs.

Yosys maps a memory read port onto a DP16KD without its output register (``REGMODE =
NOREG``), so a register the design puts right after the read stays a flip-flop in the
fabric. The block RAM's unregistered output is slow (5.8 ns clock to data in nextpnr's
timing model), and when the RAMs span the chip that flip-flop cannot sit beside all of them.
:func:`absorb_output_registers` rewrites the synthesized netlist (Yosys JSON) so such a
flip-flop becomes the RAM's own output register (``REGMODE = OUTREG``): the same cycle
behaviour, without the route from the RAM to a slice.

A read port's flip-flops are moved only when every used data output of the port drives
exactly one flip-flop and nothing else, and each of those flip-flops is a plain register: on
the RAM's read clock, no clock enable, no set or reset (the RAM's output register powers up
to zero, as a ``REGSET = RESET`` flip-flop does).
"""

from __future__ import annotations


__all__ = ["absorb_output_registers"]

_PORTS = ("A", "B")


def _param(cell: dict, name: str, default: str = "") -> str:
    return str(cell["parameters"].get(name, default)).strip()


def _plain_register(ff: dict, clock) -> bool:
    connections = ff["connections"]
    if connections.get("CLK") != [clock] or _param(ff, "CLKMUX", "CLK") != "CLK":
        return False
    # A CE or LSR input held at its inactive level, or a mux that ignores it.
    ce = connections.get("CE")
    if not (_param(ff, "CEMUX", "CE") == "1" or ce is None or ce == ["1"]):
        return False
    lsr = connections.get("LSR")
    if not (lsr is None or lsr == ["0"]) or _param(ff, "LSRMUX", "LSR") not in ("LSR", "0"):
        return False
    return _param(ff, "REGSET", "RESET") == "RESET"


def absorb_output_registers(netlist: dict, top: str) -> int:
    """Move plain flip-flops behind DP16KD read ports of module ``top`` into the RAMs'
    output registers, in place; returns the number of flip-flops moved."""
    module = netlist["modules"][top]
    cells = module["cells"]
    sinks: dict = {}
    for name, cell in cells.items():
        for port, bits in cell["connections"].items():
            if cell["port_directions"].get(port) == "output":
                continue
            for bit in bits:
                if isinstance(bit, int):
                    sinks.setdefault(bit, []).append((name, port))
    for port in module.get("ports", {}).values():
        if port["direction"] != "input":
            for bit in port["bits"]:
                if isinstance(bit, int):
                    sinks.setdefault(bit, []).append(("<top>", "port"))

    moved = 0
    for ram in [cell for cell in cells.values() if cell["type"] == "DP16KD"]:
        for side in _PORTS:
            if _param(ram, f"REGMODE_{side}", "NOREG") != "NOREG":
                continue
            clock = ram["connections"].get(f"CLK{side}", [None])[0]
            if (not isinstance(clock, int) or _param(ram, f"CLK{side}MUX", f"CLK{side}")
                    != f"CLK{side}" or ram["connections"].get(f"OCE{side}") != ["1"]
                    or ram["connections"].get(f"RST{side}") != ["0"]):
                continue
            outputs = {port: bits[0] for port, bits in ram["connections"].items()
                       if port.startswith(f"DO{side}") and isinstance(bits[0], int)
                       and sinks.get(bits[0])}
            registers = {}
            for port, bit in outputs.items():
                users = sinks[bit]
                if len(users) != 1 or users[0][1] != "DI":
                    break
                ff = cells[users[0][0]]
                if ff["type"] != "TRELLIS_FF" or not _plain_register(ff, clock):
                    break
                registers[port] = users[0][0]
            else:
                if not registers:
                    continue
                for port, ff_name in registers.items():
                    ram["connections"][port] = list(cells[ff_name]["connections"]["Q"])
                    del cells[ff_name]
                ram["parameters"][f"REGMODE_{side}"] = "OUTREG"
                moved += len(registers)
    return moved
