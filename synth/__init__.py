"""Synthesis flow: a Verilog file in, area and clock figures out.

``synthesize(verilog, top, target, build_dir)`` runs Yosys (and nextpnr-ecp5 for ``ecp5``,
nextpnr-himbaechel-gowin for ``gw5a-138``) from the YoWASP wheels and returns a
JSON-serialisable dict of figures; ``format_table`` prints it. Targets: ``ecp5``
(LUT4/FF/EBR/DSP, utilisation, Fmax), ``gw5a-138`` (Gowin GW5AST-138C: LUT4/FF/BSRAM/DSP,
utilisation, Fmax), ``generic`` (Yosys gate counts),
``asic`` (area from a Liberty file, by default Debian's OSU 0.18 um library, and with OpenSTA
the clock before layout, ``synth.sta``).
"""

from .flow import DEFAULT_LIBERTY, ECP5_DEVICES, TARGETS, synthesize
from .reports import format_table, liberty_cells
from .tools import LibertyNotFound, SynthError, tool_versions


__all__ = ["SynthError", "LibertyNotFound", "TARGETS", "DEFAULT_LIBERTY", "ECP5_DEVICES",
           "synthesize", "format_table", "liberty_cells", "tool_versions"]
