"""Every design's Verilog passes ``verilator --lint-only -Wall`` with warnings fatal; the only
waivers are those of ``sim/lint_waivers.vlt``, each for what Amaranth's Verilog backend
produces in any design."""

import subprocess

import pytest

from graphgen.cli import main
from sim.harness import LINT_WAIVERS, setup_verilator
from sim.gateware.dram_model import SimDRAM


SMALL_GRAPHICIONADO = ["--set", "max_vertices=1024"]
SMALL_DEPGRAPH = ["--set", "engines=2", "--set", "bank_vertices=64", "--set", "walks=2"]
ALGORITHMS = ("bfs", "sssp", "cc", "pagerank")
# DepGraph's lints in the timed suite: SSSP and PageRank with the hub index (the HDTL and
# the DDMU with both kinds of Accum are inside them), CC without it, and BFS below with
# stalls, two walks and the offsets in memory; make soak the rest, the HDTL and the DDMU
# alone among them (make test's 20 minutes).
TIMED_DEPGRAPH = {("depgraph", "sssp", "on"), ("depgraph", "cc", "off"),
                  ("depgraph", "pagerank", "on")}

DESIGN_CASES = [
    pytest.param("cam", [], id="cam"),
    # BFS's plain build in make soak: the two BFS cases below (with stalls and a coarsened
    # table; with parallel property reads) run in make test.
    *(pytest.param("graphicionado", ["--set", f"algo={algo}", *SMALL_GRAPHICIONADO],
                   id=f"graphicionado-{algo}",
                   marks=pytest.mark.soak if algo == "bfs" else ())
      for algo in ALGORITHMS),
    pytest.param("graphicionado", ["--set", "algo=bfs", "--set", "dst_property_read=1",
                                   *SMALL_GRAPHICIONADO], id="graphicionado-bfs-p4"),
    *(pytest.param(design, ["--set", f"algo={algo}", "--set", f"hub_index={hub}",
                            *SMALL_DEPGRAPH], id=f"{design}-{algo}-hub_{hub}",
                   marks=() if (design, algo, hub) in TIMED_DEPGRAPH else pytest.mark.soak)
      for design in ("depgraph", "depgraph-hdtl") for algo in ALGORITHMS
      for hub in ("off", "on")),
    # The stall injectors between the stages, and a coarsened EdgeIDTable.
    pytest.param("graphicionado", ["--set", "coarsening=8", "--set", "stall_injection=25",
                                   *SMALL_GRAPHICIONADO], id="graphicionado-bfs-stalls"),
    # Parallel streams, readers and memory channels (§V).
    pytest.param("graphicionado", ["--set", "algo=pagerank", "--set", "streams_src=2",
                                   "--set", "streams_dst=4", "--set", "edge_readers=3",
                                   "--set", "memory_channels=2", *SMALL_GRAPHICIONADO],
                 id="graphicionado-pagerank-2x4-r3-c2", marks=pytest.mark.soak),
    # CF's flits (§IV.E) with the symmetric-graph optimisation over two destination streams
    # (the update network, §IV.D) and extended slicing (§VI.B).
    pytest.param("graphicionado", ["--set", "algo=cf", "--set", "property_bytes=16",
                                   "--set", "symmetric=1", "--set", "max_slices=3",
                                   "--set", "streams_dst=2", "--set", "max_vertices=128"],
                 id="graphicionado-cf-symmetric-extended-1x2", marks=pytest.mark.soak),
    pytest.param("graphicionado-crossbar", ["--set", "streams_src=8", "--set", "streams_dst=8"],
                 id="graphicionado-crossbar-8x8"),
    # Stalls, two walks per engine sharing its bank, FIFO and memory ports, and the CSR
    # offsets read from memory.
    pytest.param("depgraph", ["--set", "engines=1", "--set", "bank_vertices=64",
                              "--set", "stall_injection=20", "--set", "walks=2",
                              "--set", "offsets_on_chip=off"],
                 id="depgraph-bfs-e1-w2-stalls-offmem"),
    # The DDMU is built with its hub index whatever hub_index says (integer for the min
    # type, FP32 for PageRank).
    *(pytest.param("depgraph-ddmu", ["--set", f"algo={algo}", *SMALL_DEPGRAPH],
                   id=f"depgraph-ddmu-{algo}",
                   marks=pytest.mark.soak)
      for algo in ALGORITHMS),
    # The BFS engine: per-lane queues with the hub cache, and the flat queue with stalls
    # (both in make soak, for make test's 20 minutes: its RTL test builds the first's shape).
    pytest.param("bfs", ["--set", "lanes=4", "--set", "max_vertices=1024",
                         "--set", "hub_cache_entries=64", "--set", "expand_lanes=2",
                         "--set", "memory_channels=2"], id="bfs-l4-hier-x2-ch2",
                 marks=pytest.mark.soak),
    pytest.param("bfs", ["--set", "lanes=2", "--set", "queues=flat", "--set", "hub_cache=off",
                         "--set", "max_vertices=1024", "--set", "stall_injection=20"],
                 id="bfs-l2-flat-stalls", marks=pytest.mark.soak),
    # The dynamic graph unit: two slab ports on two channels, with stalls (in make soak, for
    # make test's 20 minutes: its RTL test builds the same shape).
    pytest.param("dyngraph", ["--set", "slots=4", "--set", "lock_ways=4", "--set",
                              "slab_ports=2", "--set", "memory_channels=2", "--set",
                              "max_vertices=256", "--set", "stall_injection=10"],
                 id="dyngraph-s4-p2-ch2-stalls", marks=pytest.mark.soak),
]


def lint(*sources, waivers=True):
    setup_verilator()
    command = ["verilator", "--lint-only", "-Wall"]
    if waivers:
        command.append(str(LINT_WAIVERS))
    result = subprocess.run([*command, *map(str, sources)], capture_output=True, text=True)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("%")]
    assert result.returncode == 0 and not warnings, "\n".join(warnings[:40]) or result.stderr


@pytest.mark.parametrize("design, sets", DESIGN_CASES)
def test_design_verilog_lints_clean(tmp_path, design, sets):
    # Named after its module, as Verilator's DECLFILENAME expects.
    out = tmp_path / f"{design.replace('-', '_')}.v"
    assert main(["verilog", "--design", design, *sets, "-o", str(out)]) == 0
    lint(out)


# In make soak (100 s here): make test lints an AXI top through the FuseSoC core's lint target
# (tests/tools/test_fusesoc_core.py).
@pytest.mark.soak
def test_axi_top_lints_clean(tmp_path):
    """The AXI top (``--bus axi``) with a master per channel, on a 256-bit bus, checking
    its base registers against a memory size."""
    out = tmp_path / "graphicionado_axi.v"
    assert main(["verilog", "--design", "graphicionado", *SMALL_GRAPHICIONADO, "--set",
                 "memory_channels=2", "--bus", "axi", "--axi", "data_width=256",
                 "--axi", "memory_bytes=0x1000000", "-o", str(out)]) == 0
    text = out.read_text()
    assert "m_axi1_awaddr" in text and "s_axil_rdata" in text
    lint(out)


@pytest.mark.parametrize("accelerator", ["graphicionado", "depgraph"])
def test_sim_top_lints_clean_with_dram(tmp_path, accelerator):
    from sim.harness import emit_verilog
    from sim.gateware.sim_memory import SimMemoryConfig
    memory = SimMemoryConfig(depth_lines=4096)
    if accelerator == "graphicionado":
        from hw.graphicionado.config import GraphicionadoConfig
        from sim.graphicionado.top import GraphicionadoSimTop
        top = GraphicionadoSimTop(GraphicionadoConfig(max_vertices=1024), memory)
    else:
        from hw.depgraph.config import DepGraphConfig
        from sim.depgraph.top import DepGraphSimTop
        top = DepGraphSimTop(DepGraphConfig(engines=2, bank_vertices=64, hub_index=True),
                             memory)
    name = f"{accelerator}_sim_top"
    out = tmp_path / f"{name}.v"
    out.write_text(emit_verilog(top, name))
    lint(out, *top.extra_sources)


def test_hand_written_dram_lints_clean_without_waivers():
    lint(SimDRAM.VERILOG_SOURCE, waivers=False)


def test_waivers_are_needed(tmp_path):
    """The waiver file is what makes Amaranth's Verilog lint clean (it is read at all)."""
    out = tmp_path / "cam.v"
    assert main(["verilog", "--design", "cam", "-o", str(out)]) == 0
    with pytest.raises(AssertionError, match="PROCASSINIT"):
        lint(out, waivers=False)


@pytest.mark.parametrize("inputs, outputs", [(1, 1), (2, 4)])
def test_crossbar_lints_clean(tmp_path, inputs, outputs):
    from amaranth.lib import data
    from hw.lib.stream.crossbar import Crossbar
    from sim.harness import emit_verilog
    edge = data.StructLayout({"src": 32, "dst": 32})
    bits = (outputs - 1).bit_length()
    top = Crossbar(edge, inputs=inputs, outputs=outputs, route=lambda p: p.dst[0:bits])
    out = tmp_path / "crossbar.v"
    out.write_text(emit_verilog(top, "crossbar"))
    lint(out)


# In make soak: make test lints an AXI top, masters included, through the FuseSoC core's lint
# target (tests/tools/test_fusesoc_core.py).
@pytest.mark.soak
@pytest.mark.parametrize("data_width", [64, 512])
def test_axi_master_lints_clean(tmp_path, data_width):
    from hw.lib.axi.master import AXI4Master
    from sim.harness import emit_verilog
    top = AXI4Master(addr_width=20, data_width=data_width, id_width=4)
    out = tmp_path / "axi4_master.v"
    out.write_text(emit_verilog(top, "axi4_master"))
    lint(out)
