# amaranth: UnusedElaboratable=no
"""Each design through its AXI top (:class:`sim.gateware.axi_sim_top.AXISimTop`: AXI4
masters, AXI slave adapters in front of the DRAM model, the registers over AXI4-Lite) in
Verilator, against its golden model, with a memory that reorders across IDs and pushes back;
the BFS engine also with a jittering latency; the four together cover 512- and 64-bit data,
one memory channel and two. Each case is one Verilator build (cached) of one to three minutes
here, so all run in make soak; in make test every design goes through its AXI top by the host
driver (tests/tools/test_driver_cocotb.py, tests/hw/lib/test_axi_top.py) and the AXI slave
adapter under the AXI4 master (tests/sim/gateware/test_axi_dram.py).
"""

import dataclasses

import numpy as np
import pytest

import golden
from golden.dyngraph import generate_updates
from hw.bfs.config import BfsConfig
from hw.depgraph.config import DepGraphConfig
from hw.dyngraph.config import DynGraphConfig
from hw.graphicionado.config import GraphicionadoConfig
from hw.lib.config import ConfigError
from sim.gateware.axi_dram import AXIDRAMAdapter
from sim.gateware.sim_memory import SimMemoryConfig
from sim.run_settings import RunSettings

# Responses overtake each other across IDs, a third of the cycles refuse requests, and the
# latency is long enough that many bursts are in flight.
REORDERING = SimMemoryConfig(latency=40, outstanding=64, pushback=30, reorder=True,
                             depth_lines=1 << 15)
JITTERING = dataclasses.replace(REORDERING, latency_dist="uniform", jitter=24, pushback=10)


def _axi(data_width):
    return RunSettings(bus="axi", axi={"data_width": data_width})


@pytest.mark.soak
@pytest.mark.parametrize("memory", [REORDERING, JITTERING],
                         ids=["reorder", "jitter"])
def test_bfs_through_axi(memory):
    from sim.bfs.run import simulate
    graph = golden.from_spec("kron:scale=7,ef=8,seed=5")
    settings = dataclasses.replace(_axi(512), root=int(np.argmax(graph.out_degree)))
    report = simulate(graph, BfsConfig(lanes=2), memory, settings)
    assert report.matches, (report.first_mismatch, report.log_mismatch, report.parents_error)
    assert report.counters["memory_writes"] > 0


@pytest.mark.soak
def test_depgraph_through_axi_64_bit():
    from sim.depgraph.run import simulate
    graph = golden.from_spec("rmat:scale=6,ef=6,seed=3,weights=1:20")
    root = int(np.argmax(graph.out_degree))
    report = simulate(graph, DepGraphConfig(algo="sssp", engines=1, bank_vertices=256),
                      REORDERING, dataclasses.replace(_axi(64), algo="sssp", root=root))
    assert report.matches, report.first_mismatch


@pytest.mark.soak
def test_graphicionado_through_axi():
    from sim.graphicionado.run import simulate
    graph = golden.from_spec("grid:rows=10,cols=12,weights=1:9")
    config = GraphicionadoConfig(algo="sssp", max_vertices=256, edge_prefetch_lines=16,
                                 streams_src=2, streams_dst=2)
    report = simulate(graph, config, REORDERING,
                      dataclasses.replace(_axi(512), algo="sssp", root=0))
    assert report.matches, report.first_mismatch


@pytest.mark.soak
def test_dyngraph_through_axi_two_channels():
    from sim.dyngraph.run import simulate
    graph = golden.from_spec("kron:scale=6,ef=6,seed=2,weights=uniform:1:50")
    config = DynGraphConfig(max_vertices=128, load_factor_percent=90, slots=4, lock_ways=4,
                            memory_channels=2)
    updates = generate_updates("mix:ops=150,insert=40,delete=15,search=30,vinsert=5,"
                               "vdelete=10,hit=50,seed=4", graph, 128)
    report = simulate(graph, config, dataclasses.replace(REORDERING, channels=2),
                      dataclasses.replace(_axi(512), updates=updates, batch=50))
    assert report.structure_error is None, report.structure_error
    assert report.edges_match and report.answers_match, report.first_mismatch
    assert report.counter_mismatch is None, report.counter_mismatch


def test_bus_settings_refused():
    with pytest.raises(ConfigError, match="bus must be one of native, axi"):
        RunSettings(bus="pcie")
    with pytest.raises(ConfigError, match="give bus='axi'"):
        RunSettings(axi={"data_width": 512})
    with pytest.raises(ConfigError, match="axi takes"):
        RunSettings(bus="axi", axi={"memory_bytes": 64})


def test_adapter_refuses_wide_ids():
    from hw.lib.axi.signature import AXI4Signature
    with pytest.raises(ConfigError, match="IDs of at most 10 bits"):
        AXIDRAMAdapter(AXI4Signature(addr_width=32, data_width=512, id_width=11),
                       addr_width=20)
    with pytest.raises(ConfigError, match="does not reach"):
        AXIDRAMAdapter(AXI4Signature(addr_width=20, data_width=512, id_width=4),
                       addr_width=20)
