"""The vocabulary of vertex programs in hardware: each operation of ``graphgen.programs`` built
alone by :class:`hw.lib.program.Datapath` (its operands and result registered as in any
program's datapath), with its latency in cycles and its cost: ECP5 cells from Yosys
``synth_ecp5`` (LUT4, flip-flops, carry cells, multipliers) and ASIC µm² with the OSU 0.18 µm
Liberty file (Yosys + ABC), the way ``graphgen synth`` counts them.

``docs/programs.md`` quotes its table; ``--ops`` picks some operations, ``--no-asic`` skips the
ASIC flow (for example when the Liberty file is not installed)."""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from amaranth.back import verilog  # noqa: E402

from graphgen.programs import expr as E  # noqa: E402
from graphgen.reports import base_report, write_json  # noqa: E402
from hw.lib.program import Datapath  # noqa: E402
from synth.flow import _ECP5_GROUPS, _asic, _find_liberty, _stage, ecp5_synthesis  # noqa: E402
from synth.tools import tool_versions  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "program_ops.json"

U32, F32, LANES = E.UInt(32), E.Float32, 8
VEC = E.Float32Vector(LANES)


def _operands(*types):
    return [E.Operand(name, type_) for name, type_ in zip("abc", types)]


def _one(function, *types):
    return lambda: function(*_operands(*types))


#: operation -> the expression that builds it alone (vectors: one flit of 8 lanes)
OPERATION_EXPRESSIONS = {
    "sat_add": _one(E.sat_add, U32, U32), "sat_sub": _one(E.sat_sub, U32, U32),
    "min": _one(E.minimum, U32, U32), "max": _one(E.maximum, U32, U32),
    "lt": _one(E.lt, U32, U32), "le": _one(E.le, U32, U32), "eq": _one(E.eq, U32, U32),
    "ne": _one(E.ne, U32, U32), "select": _one(E.select, E.BOOL, U32, U32),
    "shl": lambda: E.shl(E.Operand("a", U32), 3), "shr": lambda: E.shr(E.Operand("a", U32), 3),
    "and": _one(E.bit_and, U32, U32), "or": _one(E.bit_or, U32, U32),
    "xor": _one(E.bit_xor, U32, U32), "resize": lambda: E.resize(E.Operand("a", U32), 16),
    "fadd": _one(E.fadd, F32, F32), "fsub": _one(E.fsub, F32, F32),
    "fmul": _one(E.fmul, F32, F32), "fdiv": _one(E.fdiv, F32, F32),
    "flt": _one(E.flt, F32, F32), "fle": _one(E.fle, F32, F32), "feq": _one(E.feq, F32, F32),
    "fne": _one(E.fne, F32, F32), "reciprocal": _one(E.reciprocal, U32),
    "vadd": _one(E.vadd, VEC, VEC), "vsub": _one(E.vsub, VEC, VEC),
    "vmul": _one(E.vmul, VEC, VEC), "scale": _one(E.scale, VEC, F32),
    "lane_sum": _one(E.lane_sum, VEC), "dot": _one(E.dot, VEC, VEC),
}


def datapath_of(name: str) -> Datapath:
    expr = OPERATION_EXPRESSIONS[name]()
    operands = {node.role: node.type for node in E.walk(expr) if isinstance(node, E.Operand)}
    return Datapath(expr, operands)


def measure(name: str, asic: bool) -> dict:
    dut = datapath_of(name)
    row = {"operation": name, "latency": dut.latency, "description": E.OPERATIONS.get(name, "")}
    with tempfile.TemporaryDirectory(prefix="program_op_") as folder:
        build = Path(folder)
        (build / "op.v").write_text(verilog.convert(dut, name="op"))
        _, cells, _ = ecp5_synthesis(build, "op.v", "op")
        row.update({group: sum(cells.get(kind, 0) for kind in kinds)
                    for group, kinds in _ECP5_GROUPS.items()})
        if asic:
            figures = _asic(build, "op.v", "op", _find_liberty(None))
            row["area_um2"] = round(figures["area_um2"])
    return row


def table(rows: list[dict]) -> str:
    asic = any("area_um2" in row for row in rows)
    lines = ["| operation | latency (cycles) | LUT4 | FF | CCU2C | DSP |"
             + (" µm² (0.18 µm) |" if asic else "")]
    lines.append("|---|---:|---:|---:|---:|---:|" + ("---:|" if asic else ""))
    for row in rows:
        lines.append(f"| `{row['operation']}` | {row['latency']} | {row.get('lut4', 0)} | "
                     f"{row.get('ff', 0)} | {row.get('ccu2c', 0)} | {row.get('dsp', 0)} |"
                     + (f" {row.get('area_um2', '')} |" if asic else ""))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="+", choices=list(OPERATION_EXPRESSIONS),
                        default=list(OPERATION_EXPRESSIONS))
    parser.add_argument("--no-asic", action="store_true")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    rows = []
    for name in args.ops:
        rows.append(measure(name, asic=not args.no_asic))
        print(rows[-1], flush=True)
    print(f"vectors: one flit of {LANES} float32 lanes; tools: "
          f"{tool_versions('yosys')}")
    print(table(rows))
    report = base_report("bench", None, None)
    report["figures"] = rows
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.json, report)


if __name__ == "__main__":
    main()
