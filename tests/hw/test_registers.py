"""The one skeleton every design shares: a RegisterDesign whose register map is its
``registers`` list in address order, whose ``counters`` group is its counter list,
and whose memory counters have the same names in all four designs."""

import pytest
from amaranth.lib import wiring

from hw.bfs import registers as bfs_registers
from hw.bfs.config import BfsConfig
from hw.bfs.top import BfsEngine
from hw.depgraph import top as depgraph_top
from hw.depgraph.config import DepGraphConfig
from hw.dyngraph import registers as dyngraph_registers
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.top import UpdateUnit
from hw.graphicionado import registers as graphicionado_registers
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.top import GraphicionadoPipeline
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.signatures import (CountersSignature, RegisterWriteSignature,
                                         RunControlSignature)

CASES = {
    "bfs": (lambda: BfsEngine(BfsConfig()), bfs_registers.REGISTERS, bfs_registers.COUNTERS),
    "dyngraph": (lambda: UpdateUnit(DynGraphConfig()), dyngraph_registers.REGISTERS,
                 dyngraph_registers.COUNTERS),
    "depgraph": (lambda: depgraph_top.DepGraph(DepGraphConfig(engines=2)),
                 depgraph_top.registers(2), depgraph_top.COUNTERS),
    "graphicionado": (lambda: GraphicionadoPipeline(GraphicionadoConfig(streams_src=2)),
                      graphicionado_registers.registers(GraphicionadoConfig(streams_src=2)),
                      graphicionado_registers.counter_names(GraphicionadoConfig(streams_src=2))),
}


@pytest.mark.parametrize("design", CASES)
def test_register_map_and_counters(design):
    build, registers, counters = CASES[design]
    top = build()
    assert isinstance(top, RegisterDesign)
    assert len(set(registers)) == len(registers) <= 256
    assert top.register_map == {name: address for address, name in enumerate(registers)}
    members = top.signature.members
    assert list(members)[:4] == ["regs", "control", "mem", "counters"]
    assert members["regs"] == wiring.In(RegisterWriteSignature())
    assert members["control"] == wiring.In(RunControlSignature())
    assert members["counters"] == wiring.Out(CountersSignature(counters))
    assert {"cycles", "memory_reads", "memory_writes"} <= set(counters)
