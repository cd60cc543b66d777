"""The address map a host sees through a design's AXI4-Lite register slave, as data.

:func:`design_address_map` lays out a :class:`~hw.lib.registers.design.RegisterDesign`'s
registers and counters around the run control and the error cause;
:class:`~hw.lib.axi.lite_slave.AXI4LiteRegisterSlave` decodes whatever list of
:class:`MapEntry` it is given. The four designs' maps come from their SystemRDL descriptions
(:mod:`hw.lib.axi.rdl_map`), written to this layout (a test keeps them equal to it); this
function lays out the map of a design without one.

Byte offsets, every register 32 bits wide and word-aligned:

======================  ==========  =====  ==================================================
name                    offset      access
======================  ==========  =====  ==================================================
``control``             ``0x000``   rw     bit 0 START (write 1: one-cycle start pulse; reads
                                           0), bit 1 BUSY, bit 2 DONE, bit 3 ERROR (read)
``error_cause``         ``0x004``   ro     bit 0 a bus error was taken, bit 1 on a write (B;
                                           else R), bits 3:2 the response (2 SLVERR, 3
                                           DECERR), bits 15:8 the memory channel; bit 4 a
                                           START was refused for a base register past the
                                           memory, bits 23:16 its register address
``error_addr_lo``       ``0x008``   ro     the failing burst's byte address, bits 31:0
``error_addr_hi``       ``0x00C``   ro     bits 63:32
``stat_<counter>``      ``0x100``   ro     counter ``k`` at ``0x100 + 4k`` (192 at most)
``reg_<register>``      ``0x400``   rw     register ``k`` at ``0x400 + 4k`` (256 at most)
======================  ==========  =====  ==================================================
"""

from typing import NamedTuple

from hw.lib.config import ConfigError


__all__ = ["MapEntry", "ACCESS", "KINDS", "CONTROL_BITS", "ERROR_CAUSE_FIELDS",
           "COUNTER_BASE", "REGISTER_BASE", "MAP_BYTES", "design_address_map",
           "check_address_map"]

ACCESS = ("rw", "ro")
# What an entry reads and writes: the run control, a configuration register of the design
# (``field`` its name, ``index`` its register address), a counter (``field`` its name) or a
# 32-bit status input of the slave (``field`` the input's name).
KINDS = ("control", "config", "counter", "input")

CONTROL_BITS = {"start": 0, "busy": 1, "done": 2, "error": 3}
# (low bit, width) of each field of the error-cause word.
ERROR_CAUSE_FIELDS = {"valid": (0, 1), "write": (1, 1), "resp": (2, 2), "refused": (4, 1),
                      "channel": (8, 8), "index": (16, 8)}

# The slave's own members, which an input may not be named after.
RESERVED_INPUTS = ("axil", "regs", "control", "counters")

COUNTER_BASE = 0x100
REGISTER_BASE = 0x400
MAP_BYTES = 0x800
MAX_COUNTERS = (REGISTER_BASE - COUNTER_BASE) // 4
MAX_REGISTERS = (MAP_BYTES - REGISTER_BASE) // 4


class MapEntry(NamedTuple):
    """One 32-bit register of the map."""
    name: str
    offset: int             # byte offset, a multiple of 4
    access: str             # one of ACCESS
    description: str
    kind: str               # one of KINDS
    field: str = ""         # the register, counter or input it stands for
    index: int = 0          # a config entry's register address in the design


def design_address_map(registers, counters) -> list[MapEntry]:
    """The map of a design whose register file holds ``registers`` (register ``k`` at
    address ``k``) and whose counters are ``counters``, in offset order."""
    registers, counters = tuple(registers), tuple(counters)
    if not 1 <= len(registers) <= MAX_REGISTERS:
        raise ConfigError(f"address map: 1 to {MAX_REGISTERS} registers, not {len(registers)}")
    if len(counters) > MAX_COUNTERS:
        raise ConfigError(f"address map: {MAX_COUNTERS} counters at most, not {len(counters)}")
    entries = [
        MapEntry("control", 0x000, "rw",
                 "bit 0 START: write 1 to start a run (reads 0); bit 1 BUSY, bit 2 DONE "
                 "(the run ended and its writes are answered), bit 3 ERROR (read only)",
                 "control"),
        MapEntry("error_cause", 0x004, "ro",
                 "bit 0: a memory response was SLVERR or DECERR; bit 1: on a write (B), "
                 "else a read (R); bits 3:2: the response; bit 4: START refused, a base "
                 "register past the memory; bits 15:8: the memory channel; bits 23:16: "
                 "the register address",
                 "input", "error_cause"),
        MapEntry("error_addr_lo", 0x008, "ro", "byte address of the failing burst, bits 31:0",
                 "input", "error_addr_lo"),
        MapEntry("error_addr_hi", 0x00C, "ro", "byte address of the failing burst, bits 63:32",
                 "input", "error_addr_hi"),
    ]
    entries += [MapEntry(f"stat_{name}", COUNTER_BASE + 4 * k, "ro",
                         f"counter {name} (counts from start)", "counter", name)
                for k, name in enumerate(counters)]
    entries += [MapEntry(f"reg_{name}", REGISTER_BASE + 4 * k, "rw",
                         f"configuration register {name} (design register {k})", "config",
                         name, k)
                for k, name in enumerate(registers)]
    check_address_map(entries)
    return entries


def check_address_map(entries) -> None:
    """ConfigError unless ``entries`` are :class:`MapEntry` with distinct names and
    word-aligned distinct offsets, known accesses and kinds, exactly one control entry, and
    each counter, input and config register named once."""
    entries = list(entries)
    if not all(isinstance(entry, MapEntry) for entry in entries):
        raise ConfigError("address map: entries must be MapEntry")
    for entry in entries:
        if not entry.name.isidentifier():
            raise ConfigError(f"address map: name {entry.name!r} is not an identifier")
        if isinstance(entry.offset, bool) or not isinstance(entry.offset, int) or \
                entry.offset < 0 or entry.offset % 4:
            raise ConfigError(f"address map: {entry.name} at {entry.offset!r}, not a "
                              f"non-negative multiple of 4")
        if entry.access not in ACCESS or entry.kind not in KINDS:
            raise ConfigError(f"address map: {entry.name} has access {entry.access!r} and "
                              f"kind {entry.kind!r}; accesses {ACCESS}, kinds {KINDS}")
        if entry.kind == "config" and not (isinstance(entry.index, int) and
                                           0 <= entry.index < MAX_REGISTERS):
            raise ConfigError(f"address map: {entry.name} names design register "
                              f"{entry.index!r}, not 0 to {MAX_REGISTERS - 1}")
        if entry.kind == "input" and (not entry.field.isidentifier() or
                                      entry.field in RESERVED_INPUTS):
            raise ConfigError(f"address map: input {entry.field!r} of {entry.name} is not "
                              f"an identifier or is one of {RESERVED_INPUTS}")
        if (entry.access == "rw") != (entry.kind in ("control", "config")):
            raise ConfigError(f"address map: {entry.name} ({entry.kind}) cannot be "
                              f"{entry.access}")
    for what, values in [("name", [e.name for e in entries]),
                         ("offset", [e.offset for e in entries]),
                         ("config register", [e.field for e in entries if e.kind == "config"]),
                         ("register address", [e.index for e in entries if e.kind == "config"]),
                         ("counter or input", [e.field for e in entries
                                               if e.kind in ("counter", "input")])]:
        repeated = sorted({v for v in values if values.count(v) > 1}, key=str)
        if repeated:
            raise ConfigError(f"address map: {what} repeated: {repeated}")
    if [e.kind for e in entries].count("control") != 1:
        raise ConfigError("address map: exactly one control entry needed")
