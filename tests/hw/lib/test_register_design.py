# amaranth: UnusedElaboratable=no
"""The register-driven design shell (:class:`hw.lib.registers.design.RegisterDesign`): its
ports as the host harness (``sim.dram_run.run_register_design``) expects them, built from
the configuration (the grouped ``regs``, ``control`` and ``counters``, one output a counter;
one memory port or one per channel, tagged; the stall seed only with stall injection), the
Verilog port names the groups flatten to, its register map (register ``k`` is the ``k``-th
name), and the stream links a subclass records, read back as probes after elaboration."""

import dataclasses

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Fragment, Module, Shape
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError

from hw.lib.config import DesignConfig
from hw.lib.memory.port import MEMORY_TAG_WIDTH, mem_port_signature
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.signatures import (CountersSignature, RegisterWriteSignature,
                                         RunControlSignature)
from hw.lib.stream.links import StreamLinks


@dataclasses.dataclass(frozen=True)
class Config(DesignConfig):
    RUN_SETTINGS = ("stall_injection",)

    addr_width: int = 20
    memory_channels: int = 1
    stall_injection: int = 0


class Shell(RegisterDesign):
    """A design of one stream link, from ``a_in`` to ``a_out``."""

    def __init__(self, config):
        super().__init__(config, registers=("base", "count", "mode"),
                         counters=("cycles", "edges"))

    def elaborate(self, platform):
        m = Module()
        self._links = StreamLinks(m, percent=0, prefix="shell.")
        self._a_in, self._a_out = (stream.Signature(8).flip().create(),
                                   stream.Signature(8).create())
        self._links(self._a_in, self._a_out, "a_in->a_out")
        return m


def _widths(signature, flow):
    """``{name: width}`` of ``signature``'s members, asserting each flows ``flow``."""
    assert all(member.flow == flow for member in signature.members.values())
    return {name: Shape.cast(member.shape).width for name, member in signature.members.items()}


def test_signatures():
    assert _widths(RegisterWriteSignature(), Out) == {"addr": 8, "data": 32, "write": 1}
    control = RunControlSignature().members
    assert {name: (control[name].flow, Shape.cast(control[name].shape).width)
            for name in control} == {"start": (Out, 1), "busy": (In, 1), "done": (In, 1),
                                     "error": (In, 1)}
    counters = CountersSignature(("cycles", "edges"))
    assert _widths(counters, Out) == {"cycles": 32, "edges": 32}
    assert counters.names == ("cycles", "edges")
    assert counters == CountersSignature(["cycles", "edges"])
    assert counters != CountersSignature(("edges", "cycles"))
    assert RegisterWriteSignature() == RegisterWriteSignature() != RunControlSignature()


@pytest.mark.parametrize("names", [(), ("cycles", "cycles"), ("cycles", "_hidden"),
                                   ("cycles", "two words")])
def test_counters_signature_refuses(names):
    with pytest.raises(ConfigError, match="CountersSignature"):
        CountersSignature(names)


def test_ports_follow_the_configuration():
    shell = Shell(Config())
    members = shell.signature.members
    assert shell.register_map == {"base": 0, "count": 1, "mode": 2}
    assert list(members) == ["regs", "control", "mem", "counters"]
    assert members["regs"] == In(RegisterWriteSignature())
    assert members["control"] == In(RunControlSignature())
    assert members["counters"] == Out(CountersSignature(("cycles", "edges")))
    assert members["mem"].signature == mem_port_signature(20, MEMORY_TAG_WIDTH)
    assert members["mem"].dimensions == ()
    assert "stall_seed" not in members
    assert shell.config == Config()

    wide = Shell(Config(memory_channels=4, stall_injection=10)).signature.members
    assert wide["mem"].dimensions == (4,)
    assert wide["stall_seed"].flow == In and Shape.cast(wide["stall_seed"].shape).width == 32


def test_port_names_in_the_netlist():
    """A group's signals become ports of their own, named by their paths joined with ``__``."""
    text = rtlil.convert(Shell(Config()), name="shell")
    ports = {}
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["wire"] and ("input" in words or "output" in words):
            ports[words[-1].lstrip("\\")] = (words[3], int(words[2]))
    assert {name: port for name, port in ports.items() if not name.startswith("mem__")} == {
        "regs__addr": ("input", 8), "regs__data": ("input", 32), "regs__write": ("input", 1),
        "control__start": ("input", 1), "control__busy": ("output", 1),
        "control__done": ("output", 1), "control__error": ("output", 1),
        "counters__cycles": ("output", 32), "counters__edges": ("output", 32),
    }


def test_link_probes_after_elaboration():
    shell = Shell(Config())
    assert shell.link_probes == []
    Fragment.get(shell, None)
    assert [probe.name for probe in shell.link_probes] == ["shell.a_in->a_out"]
