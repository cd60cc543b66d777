"""A design's AXI top packaged as a FuseSoC core: a CAPI2 ``<module>.core`` naming the
Verilog, the register files (:mod:`graphgen.register_files`) and the Verilator lint waivers
(``<module>_waivers.vlt``, a copy of ``sim/lint_waivers.vlt``), written by
``graphgen verilog --bus axi --core DIR``.

The core's VLNV is ``graphgen:accelerators:<module>:<graphgen version>``. Every
configuration of a design has the same module name, so two of them cannot sit in one system
and share one name; the configuration's digest and its parameters that differ from the
defaults are in the core's description and its header comment.

Targets: ``default`` (the Verilog, the C header as an include folder, the register map as
``user`` files: what a core depending on this one gets), ``lint`` (Edalize's lint flow with
Verilator, ``-Wall`` and the waivers) and ``synth`` (the Verilog and its top, for the tool
chosen with ``fusesoc run --tool``)."""

import json
from importlib.metadata import PackageNotFoundError, version as package_version

from hw.lib.config import ConfigError
from sim.harness import LINT_WAIVERS


__all__ = ["VENDOR", "LIBRARY", "graphgen_version", "core_vlnv", "core_description",
           "lint_waivers", "core_file", "waivers_name"]

VENDOR = "graphgen"
LIBRARY = "accelerators"


def graphgen_version() -> str:
    """The installed graphgen package's version (``pyproject.toml``)."""
    try:
        return package_version("graphgen")
    except PackageNotFoundError:
        raise ConfigError("graphgen is not installed (pip install -e .): a FuseSoC core "
                          "is named after the package version") from None


def core_vlnv(module: str) -> str:
    return f"{VENDOR}:{LIBRARY}:{module}:{graphgen_version()}"


def core_description(design: str, module: str, config, axi_options: dict) -> str:
    """One line: the design, the configuration's digest, its parameters that differ from
    the defaults and the AXI top's parameters given."""
    defaults = type(config)().as_dict()
    changed = {key: value for key, value in config.as_dict().items()
               if defaults[key] != value}
    parameters = (", ".join(f"{key}={value}" for key, value in changed.items())
                  or "default parameters")
    axi = (", ".join(f"{key}={value}" for key, value in axi_options.items())
           or "default AXI parameters")
    return (f"{design} accelerator with AXI4 masters and an AXI4-Lite register slave "
            f"({module}), graphgen {graphgen_version()}, configuration {config.digest()}: "
            f"{parameters}; {axi}")


def waivers_name(module: str) -> str:
    return f"{module}_waivers.vlt"


def lint_waivers(module: str) -> str:
    """``sim/lint_waivers.vlt`` with a line saying what it is for in the core."""
    first, _, rest = LINT_WAIVERS.read_text().partition("\n")
    return (f"{first}\n// graphgen's Verilator waivers for `verilator --lint-only -Wall` of "
            f"{module}.v (the core's lint target).\n{rest}")


def _string(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(text)


def core_file(module: str, files: list[str], description: str, comment: str = "") -> str:
    """The CAPI2 text of the core for ``files`` (names in one folder): ``<module>.v``,
    ``<module>_waivers.vlt`` and the register files ``*_regs.h`` (C, an include file),
    ``*_regs.rdl``, ``.md`` and ``.xml`` (``user`` files, the map for people and tools)."""
    verilog, waivers = f"{module}.v", waivers_name(module)
    header = [name for name in files if name.endswith("_regs.h")]
    docs = [name for name in files if name.rsplit("_regs.", 1)[-1] in ("rdl", "md", "xml")]
    for name, present in ((verilog, verilog in files), (waivers, waivers in files),
                          ("*_regs.h", len(header) == 1), ("*_regs.rdl/md/xml", docs)):
        if not present:
            raise ConfigError(f"a FuseSoC core of {module} needs {name} among its files")
    unknown = set(files) - {verilog, waivers, *header, *docs}
    if unknown:
        raise ConfigError(f"no fileset of the FuseSoC core takes {', '.join(sorted(unknown))}")

    def listed(names):
        return "\n".join(f"      - {name}" for name in names)

    lines = "CAPI=2:\n" + "".join(f"# {line}\n" for line in comment.splitlines())
    return lines + f"""\
name: {core_vlnv(module)}
description: {_string(description)}

filesets:
  rtl:
    file_type: verilogSource
    files:
{listed([verilog])}
  registers:
    file_type: cSource
    files:
      - {header[0]}: {{is_include_file: true}}
  register_map:
    file_type: user
    files:
{listed(docs)}
  lint_waivers:
    file_type: vlt
    files:
{listed([waivers])}
targets:
  default:
    description: "the AXI top, its register header (an include folder) and map"
    filesets: [rtl, registers, register_map]
    toplevel: {module}
  lint:
    description: "verilator --lint-only -Wall with graphgen's waivers"
    filesets: [lint_waivers, rtl]
    toplevel: {module}
    flow: lint
    flow_options:
      tool: verilator
      verilator_options: [-Wall]
  synth:
    description: "the AXI top alone, for the tool chosen with fusesoc run --tool"
    filesets: [rtl]
    toplevel: {module}
"""
