# amaranth: UnusedElaboratable=no
"""The designs' SystemRDL register descriptions (``hw/<design>/registers.rdl``) read as
AXI4-Lite maps (hw/lib/axi/rdl_map.py): each equals the layout of
:func:`~hw.lib.axi.address_map.design_address_map` over the registers and counters the design
declares, at its default configuration and at ones that change the register count, so the
description and the design cannot drift; a broken or disagreeing description is refused."""

import time
from pathlib import Path

import pytest

from hw.bfs.config import BfsConfig
from hw.bfs.top import BfsEngine
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.top import DepGraph
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.top import UpdateUnit
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.top import GraphicionadoPipeline
from hw.lib.axi.address_map import design_address_map
from hw.lib.axi.rdl_map import COMMON_RDL, RDLSource, rdl_address_map
from hw.lib.axi.top import design_map
from hw.lib.config import ConfigError
from tests.support.examples import examples_path


# (design, configuration): defaults, then configurations whose maps differ from the default
# one's (the arrays' lengths, the registers only some algorithms have). The BFS engine's and
# the dynamic graph unit's maps do not depend on the configuration.
DESIGNS = [
    (GraphicionadoPipeline, GraphicionadoConfig()),
    (GraphicionadoPipeline, GraphicionadoConfig(streams_src=2, streams_dst=4,
                                                memory_channels=2)),
    (GraphicionadoPipeline, GraphicionadoConfig(algo="pagerank", streams_src=2, streams_dst=2,
                                                edge_readers=2, max_slices=3)),
    (GraphicionadoPipeline, GraphicionadoConfig(algo="cf", symmetric=True, max_slices=3,
                                                max_vertices=4096)),
    (GraphicionadoPipeline, GraphicionadoConfig(algo=examples_path("ppr"))),
    (DepGraph, DepGraphConfig()),
    (DepGraph, DepGraphConfig(engines=2)),
    (BfsEngine, BfsConfig()),
    (UpdateUnit, DynGraphConfig()),
]


def layout(entries):
    return [entry._replace(description="") for entry in entries]


def declared_map(design):
    counters = design.signature.members["counters"].signature.names
    return design_address_map(design.register_map, counters)


@pytest.mark.parametrize("cls, config", DESIGNS,
                         ids=lambda x: x.__name__ if isinstance(x, type) else "")
def test_description_equals_the_declared_registers_and_counters(cls, config):
    design = cls(config)
    source = design.register_description()
    assert source.path == Path(__import__(cls.__module__, fromlist=["_"]).__file__).with_name(
        "registers.rdl")
    started = time.perf_counter()
    entries = rdl_address_map(source)
    assert time.perf_counter() - started < 5
    assert layout(entries) == layout(declared_map(design))
    assert all(entry.description for entry in entries)
    assert design_map(design) == entries


def test_the_configurations_change_the_maps():
    sizes = [len(cls(config).register_map) + len(
        cls(config).signature.members["counters"].signature.names) for cls, config in DESIGNS]
    assert len(set(sizes[:4])) == 4 and sizes[4] != sizes[5]


def test_graphicionado_names_arrays_as_the_design_does():
    config = GraphicionadoConfig(algo="pagerank", streams_src=2, streams_dst=2,
                                 memory_channels=2)
    names = [entry.name for entry in rdl_address_map(
        GraphicionadoPipeline(config).register_description())]
    assert "reg_edge_part_0" in names and "reg_active_count_0" not in names
    assert names.index("stat_memory0_refused") + 1 == names.index("stat_memory1_reads")
    assert "stat_edges_src1" in names and "stat_edges_dst1" in names


def write(tmp_path, body, top="t"):
    path = tmp_path / "t.rdl"
    path.write_text(f'`include "graphgen_axi.rdl"\naddrmap {top} {{\n{body}\n}};\n')
    return RDLSource(path, top)


GOOD = """
    control_t control @0x0;
    error_cause_t error_cause @0x4;
    regfile { counter_t cycles; cycles->desc = "c"; } stat @0x100;
    regfile { config_t a; config_t b[2]; } config @0x400;
"""


def test_a_small_description(tmp_path):
    entries = rdl_address_map(write(tmp_path, GOOD))
    assert [(e.name, e.offset, e.kind, e.field, e.index) for e in entries] == [
        ("control", 0, "control", "", 0), ("error_cause", 4, "input", "error_cause", 0),
        ("stat_cycles", 0x100, "counter", "cycles", 0), ("reg_a", 0x400, "config", "a", 0),
        ("reg_b0", 0x404, "config", "b0", 1), ("reg_b1", 0x408, "config", "b1", 2)]
    assert COMMON_RDL.is_file()


@pytest.mark.parametrize("body, match", [
    ("control_t control @0x0; reg { field {} x; } oops", r"t\.rdl:\d+: .*"),
    (GOOD.replace("control_t control", "config_t control"), "control's fields"),
    (GOOD.replace("error_cause_t error_cause", "status_t error_cause"), "error_cause's fields"),
    (GOOD.replace("counter_t cycles", "config_t cycles"), "stat_cycles must be read only"),
    (GOOD.replace("config_t a;", "counter_t a;"), "reg_a must be writable"),
    (GOOD.replace("} config", "} params"), "params: only registers and the regfiles"),
    (GOOD + "status_t extra[2] @0x10;", "no arrays outside"),
    (GOOD.replace("control_t control @0x0;", ""), "exactly one control entry"),
])
def test_a_broken_description_is_refused(tmp_path, body, match):
    with pytest.raises(ConfigError, match=match) as error:
        rdl_address_map(write(tmp_path, body))
    assert "\n" not in str(error.value)


def test_unknown_parameter_is_refused():
    source = DepGraph(DepGraphConfig()).register_description()
    with pytest.raises(ConfigError, match="registers.rdl"):
        rdl_address_map(source._replace(parameters={"CORES": 2}))


def test_a_description_that_disagrees_with_its_design_is_refused(monkeypatch):
    design = DepGraph(DepGraphConfig(engines=2))
    wider = design.register_description()._replace(parameters={"ENGINES": 3})
    monkeypatch.setattr(design, "register_description", lambda: wider)
    with pytest.raises(ConfigError, match=r"disagree on the registers: described only "
                                          r"\['first3'\], declared only \[\]"):
        design_map(design)
    unit = UpdateUnit(DynGraphConfig())
    monkeypatch.setattr(unit, "register_description",
                        lambda: BfsEngine(BfsConfig()).register_description())
    with pytest.raises(ConfigError, match="registers.rdl and UpdateUnit disagree"):
        design_map(unit)
