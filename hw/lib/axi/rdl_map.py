"""A design's AXI4-Lite register map read from its SystemRDL description
(``hw/<design>/registers.rdl``), compiled with systemrdl-compiler for one configuration.

The description's addrmap holds, at its top, the run control ``control`` (fields ``start``,
``busy``, ``done``, ``error`` at the bits of
:data:`~hw.lib.axi.address_map.CONTROL_BITS`) and the slave's read-only status inputs
(``error_cause``, with the fields of
:data:`~hw.lib.axi.address_map.ERROR_CAUSE_FIELDS`, ``error_addr_lo``, ``error_addr_hi``);
regfile ``stat`` holds the counters (read only) and regfile ``config`` the design's
registers (read-write), in the order of the design's register addresses. Inside those two
regfiles a register's name is its path below the regfile, an array element's index appended
to its instance name and levels joined by ``_``: ``memory[1].reads`` is ``memory1_reads``,
``edge_part_[3]`` is ``edge_part_3``. The map names ``stat_<name>`` and ``reg_<name>`` as
:func:`~hw.lib.axi.address_map.design_address_map` does.

A configuration elaborates the description through :class:`RDLSource`: addrmap parameters
(array lengths) and preprocessor defines (`` `ifdef`` around registers that only some
configurations have). Every description includes ``graphgen_axi.rdl`` (this folder), the
register types they share.
"""

from pathlib import Path
from typing import NamedTuple

from hw.lib.axi.address_map import (CONTROL_BITS, ERROR_CAUSE_FIELDS, MapEntry,
                                    check_address_map)
from hw.lib.config import ConfigError


__all__ = ["RDLSource", "INCLUDE_DIR", "COMMON_RDL", "compile_rdl", "rdl_address_map"]

INCLUDE_DIR = Path(__file__).parent
COMMON_RDL = INCLUDE_DIR / "graphgen_axi.rdl"

# Regfile name: (map prefix, entry kind, access).
SECTIONS = {"stat": ("stat_", "counter", "ro"), "config": ("reg_", "config", "rw")}


class RDLSource(NamedTuple):
    """A register description and what elaborates it for one configuration."""
    path: Path                              # the .rdl file
    top: str                                # its addrmap
    parameters: dict | None = None          # addrmap parameter: value
    defines: tuple = ()                     # preprocessor macros defined (empty)


def compile_rdl(source: RDLSource):
    """The elaborated :class:`systemrdl.node.AddrmapNode` of ``source``; ConfigError with
    the compiler's first error otherwise."""
    from systemrdl import RDLCompileError, RDLCompiler
    from systemrdl.messages import MessagePrinter, Severity

    class Collect(MessagePrinter):
        def __init__(self):
            self.errors = []

        def print_message(self, severity, text, src_ref):
            if severity >= Severity.ERROR:
                where = getattr(src_ref, "path", None)
                line = getattr(src_ref, "line", None)
                self.errors.append(f"{Path(where).name}:{line}: {text}" if where and line
                                   else text)

    printer = Collect()
    compiler = RDLCompiler(message_printer=printer)
    try:
        compiler.compile_file(str(source.path), incl_search_paths=[str(INCLUDE_DIR)],
                              defines={name: "" for name in source.defines})
        root = compiler.elaborate(source.top, parameters=dict(source.parameters or {}))
    except RDLCompileError as error:
        reason = printer.errors[0] if printer.errors else str(error)
        raise ConfigError(f"register description {source.path.name}: {reason}") from None
    return root.top


def _element_name(node, section) -> str:
    parts = []
    while node is not section:
        index = "".join(str(i) for i in (node.current_idx or ()))
        parts.append(node.inst_name + index)
        node = node.parent
    return "_".join(reversed(parts))


def _fields(reg) -> dict[str, tuple[int, int]]:
    return {field.inst_name: (field.low, field.width) for field in reg.fields()}


def _check_reg(reg, name, access):
    if reg.size != 4 or reg.get_property("regwidth") != 32:
        raise ConfigError(f"register description: {name} is not one 32-bit word")
    writable = any(field.is_sw_writable for field in reg.fields())
    if writable != (access == "rw"):
        raise ConfigError(f"register description: {name} must be "
                          f"{'writable' if access == 'rw' else 'read only'}")


def rdl_address_map(source: RDLSource) -> list[MapEntry]:
    """The map ``source`` describes, in offset order (checked as
    :func:`~hw.lib.axi.address_map.check_address_map` checks any map)."""
    from systemrdl.node import RegfileNode, RegNode

    top = compile_rdl(source)
    entries = []
    for child in top.children(unroll=True):
        description = child.get_property("desc") or ""
        if isinstance(child, RegNode):
            name = child.inst_name
            if child.is_array:
                raise ConfigError(f"register description: {name}: no arrays outside the "
                                  f"stat and config regfiles")
            if name == "control":
                _check_reg(child, name, "rw")
                bits = {field: (bit, 1) for field, bit in CONTROL_BITS.items()}
                if _fields(child) != bits:
                    raise ConfigError(f"register description: control's fields must be "
                                      f"{bits} (low bit, width), not {_fields(child)}")
                entries.append(MapEntry(name, child.absolute_address, "rw", description,
                                        "control"))
                continue
            _check_reg(child, name, "ro")
            if name == "error_cause" and _fields(child) != ERROR_CAUSE_FIELDS:
                raise ConfigError(f"register description: error_cause's fields must be "
                                  f"{ERROR_CAUSE_FIELDS} (low bit, width), not "
                                  f"{_fields(child)}")
            entries.append(MapEntry(name, child.absolute_address, "ro", description, "input",
                                    name))
        elif isinstance(child, RegfileNode) and child.inst_name in SECTIONS \
                and not child.is_array:
            prefix, kind, access = SECTIONS[child.inst_name]
            regs = sorted((node for node in child.descendants(unroll=True)
                           if isinstance(node, RegNode)), key=lambda node: node.absolute_address)
            for index, reg in enumerate(regs):
                field = _element_name(reg, child)
                _check_reg(reg, prefix + field, access)
                entries.append(MapEntry(prefix + field, reg.absolute_address, access,
                                        reg.get_property("desc") or "", kind, field,
                                        index if kind == "config" else 0))
        else:
            raise ConfigError(f"register description: {child.inst_name}: only registers and "
                              f"the regfiles {', '.join(SECTIONS)} at the top")
    entries.sort(key=lambda entry: entry.offset)
    check_address_map(entries)
    return entries
