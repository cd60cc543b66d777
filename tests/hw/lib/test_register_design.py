# amaranth: UnusedElaboratable=no
"""The register-driven design shell (:class:`hw.lib.registers.design.RegisterDesign`): its
ports as the host harness (``sim.dram_run.run_register_design``) expects them, built from
the configuration (one memory port or one per channel, tagged; the stall seed only with stall
injection; a ``stat_`` output per counter), its register map (register ``k`` is the ``k``-th
name), and the stream links a subclass records, read back as probes after elaboration."""

import dataclasses

from amaranth.hdl import Fragment, Module, Shape
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from hw.lib.config import DesignConfig
from hw.lib.memory.port import MEMORY_TAG_WIDTH, mem_port_signature
from hw.lib.registers.design import RegisterDesign
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


def test_ports_follow_the_configuration():
    shell = Shell(Config())
    members = shell.signature.members
    assert shell.register_map == {"base": 0, "count": 1, "mode": 2}
    for name in ("reg_addr", "reg_data", "reg_write", "start"):
        assert members[name].flow == In
    for name in ("busy", "done", "error", "stat_cycles", "stat_edges"):
        assert members[name].flow == Out
        assert Shape.cast(members[name].shape).width == (32 if "stat" in name else 1)
    assert Shape.cast(members["reg_addr"].shape).width == 8
    assert Shape.cast(members["reg_data"].shape).width == 32
    assert members["mem"].signature == mem_port_signature(20, MEMORY_TAG_WIDTH)
    assert members["mem"].dimensions == ()
    assert "stall_seed" not in members
    assert shell.config == Config()

    wide = Shell(Config(memory_channels=4, stall_injection=10)).signature.members
    assert wide["mem"].dimensions == (4,)
    assert wide["stall_seed"].flow == In and Shape.cast(wide["stall_seed"].shape).width == 32


def test_link_probes_after_elaboration():
    shell = Shell(Config())
    assert shell.link_probes == []
    Fragment.get(shell, None)
    assert [probe.name for probe in shell.link_probes] == ["shell.a_in->a_out"]
