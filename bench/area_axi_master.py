"""Area of the AXI4 master (hw/lib/axi/master.py) on ECP5: Yosys ``synth_ecp5`` (YoWASP) of
one AXI4Master, the way ``graphgen synth`` counts cells (LUT4, flip-flops, carry cells,
block RAMs, LUT RAMs), at a data width and parameter set."""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from amaranth.back import verilog  # noqa: E402

from graphgen.reports import base_report, write_json  # noqa: E402
from hw.lib.axi.master import AXI4Master  # noqa: E402
from synth.flow import _ECP5_GROUPS, ecp5_synthesis  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "axi_master_area.json"


def area(data_width: int, addr_width: int, params: dict) -> dict:
    dut = AXI4Master(addr_width=addr_width, data_width=data_width, id_width=4, **params)
    with tempfile.TemporaryDirectory(prefix="axi_area_") as folder:
        build = Path(folder)
        (build / "master.v").write_text(verilog.convert(dut, name="axi_master"))
        seconds, cells, _ = ecp5_synthesis(build, "master.v", "axi_master")
    figures = {group: sum(cells.get(kind, 0) for kind in kinds)
               for group, kinds in _ECP5_GROUPS.items()}
    return {"data_width": data_width, "addr_width": addr_width, "params": params,
            **figures, "yosys_seconds": round(seconds, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-width", type=int, nargs="+", default=[64, 512])
    parser.add_argument("--addr-width", type=int, default=26, help="line address bits")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="an AXI4Master parameter (read_outstanding=64, ...)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    params = {key: int(value) for key, _, value in
              (pair.partition("=") for pair in args.set or [])}
    rows = [area(width, args.addr_width, params) for width in args.data_width]
    for row in rows:
        print(json.dumps(row))
    report = base_report("bench", None, None)
    report["figures"] = rows
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.json, report)


if __name__ == "__main__":
    main()
