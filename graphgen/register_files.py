"""A design's register map as the files a host and an IP integrator use, made from its
SystemRDL description (:mod:`hw.lib.axi.rdl_map`) with the PeakRDL exporters: the description
itself for the configuration (``<stem>_regs.rdl``), a C header (``_regs.h``,
peakrdl-cheader), a Markdown table (``_regs.md``, peakrdl-markdown) and an IP-XACT register
description (``_regs.xml``, peakrdl-ipxact, IEEE 1685-2014)."""

import tempfile
from pathlib import Path

from hw.lib.axi.rdl_map import COMMON_RDL, RDLSource, compile_rdl
from hw.lib.config import ConfigError


__all__ = ["REGISTER_SUFFIXES", "register_files", "standalone_rdl"]

REGISTER_SUFFIXES = ("rdl", "h", "md", "xml")
INCLUDE = '`include "graphgen_axi.rdl"'


def standalone_rdl(source: RDLSource, comment: str) -> str:
    """``source``'s description in one file: ``comment`` (lines made ``//`` comments), the
    parameters to elaborate it with, its defines and the shared register types in place of
    the include."""
    text = source.path.read_text()
    if text.count(INCLUDE) != 1:
        raise ConfigError(f"{source.path} must include graphgen_axi.rdl once")
    parameters = ", ".join(f"{name}={value}" for name, value in
                           (source.parameters or {}).items())
    head = "".join(f"// {line}\n" for line in comment.splitlines())
    head += (f"// Elaborate addrmap {source.top} with "
             f"{f'parameters {parameters}' if parameters else 'its default parameters'}.\n" +
             "".join(f"`define {name}\n" for name in source.defines) + "\n")
    return head + text.replace(INCLUDE, COMMON_RDL.read_text().rstrip("\n"))


def register_files(source: RDLSource, stem: str, component: str,
                   comment: str = "") -> dict[str, str]:
    """File name (``<stem>_regs.<suffix>``, a suffix of :data:`REGISTER_SUFFIXES`) → text:
    ``source`` elaborated and exported; the IP-XACT component is named ``component`` (the
    Verilog module's name)."""
    from peakrdl_cheader.exporter import CHeaderExporter
    from peakrdl_ipxact import IPXACTExporter
    from peakrdl_markdown import MarkdownExporter

    top = compile_rdl(source)
    names = {suffix: f"{stem}_regs.{suffix}" for suffix in REGISTER_SUFFIXES}
    with tempfile.TemporaryDirectory(prefix="graphgen-regs-") as folder:
        folder = Path(folder)
        # Distinct struct and macro names per design (GRAPHICIONADO__CONTROL__START_bm), so
        # one program can include several designs' headers.
        CHeaderExporter().export(top, str(folder / names["h"]), reuse_typedefs=False)
        MarkdownExporter().export(top, str(folder / names["md"]),
                                  input_files=[source.path.name])
        IPXACTExporter(vendor="graphgen", library="graphgen", version="1.0").export(
            top, str(folder / names["xml"]), component_name=component)
        files = {names[suffix]: (folder / names[suffix]).read_text()
                 for suffix in ("h", "md", "xml")}
    files[names["rdl"]] = standalone_rdl(source, comment)
    return {names[suffix]: files[names[suffix]] for suffix in REGISTER_SUFFIXES}
