# amaranth: UnusedElaboratable=no
"""AXITop (hw/lib/axi/top.py): every design's AXI top emits Verilog with Vivado-style port
names, and Graphicionado's BFS runs through it end to end in Amaranth's simulator: the host
programs the registers and starts the run through the AXI4-Lite slave (a master model with
random back-pressure), the AXI4 masters reach the memory image the host code lays out
(``sim/graphicionado/image.py``) through the AXI4 slave model (random latency, reordering
across IDs, back-pressure on all five channels), and the result equals the golden model's.
"""

import re
import types

import numpy as np
import pytest
from amaranth.sim import Simulator

import golden
from graphgen.designs import get_design
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.top import GraphicionadoPipeline
from hw.lib.axi.address_map import CONTROL_BITS
from hw.lib.axi.signature import AXI4LiteSignature, AXI4Signature, AXIResp
from hw.lib.axi.top import AXITop
from hw.lib.config import ConfigError
from sim.amaranth_memory import lines_to_words, words_to_lines
from sim.graphicionado.check import expected_values
from sim.graphicionado.image import build_image
from sim.graphicionado.run import check_graph
from sim.harness import emit_verilog
from tests.support.axi_slave import AXI4SlaveModel
from tests.support.axil_master import AXI4LiteMasterModel

AXI4_MEMBERS = AXI4Signature(addr_width=32, data_width=64, id_width=4).members
LITE_MEMBERS = AXI4LiteSignature(addr_width=12).members


def ports(verilog: str, module: str) -> set[str]:
    header = re.search(rf"module {module}\((.*?)\);", verilog, re.S).group(1)
    return {name.strip() for name in header.split(",")}


@pytest.mark.parametrize("name", ["graphicionado", "depgraph", "bfs", "dyngraph"])
def test_every_design_emits_vivado_port_names(name):
    design = get_design(name)
    top = AXITop(design.build(design.config()))
    verilog = emit_verilog(top, f"{name}_axi")
    expected = {"aclk", "aresetn"} | {f"s_axil_{member}" for member in LITE_MEMBERS} | \
        {f"m_axi_{member}" for member in AXI4_MEMBERS}
    assert ports(verilog, f"{name}_axi") == expected
    assert re.search(r"input \[11:0\] s_axil_awaddr;", verilog)
    assert re.search(r"output \[63:0\] m_axi_wdata;", verilog)
    assert [entry.name for entry in top.address_map][:4] == \
        ["control", "error_cause", "error_addr_lo", "error_addr_hi"]


def test_several_channels_have_a_master_each():
    config = GraphicionadoConfig(max_vertices=64, memory_channels=2)
    top = AXITop(GraphicionadoPipeline(config), data_width=128, id_width=2)
    assert top.master_prefixes == ["m_axi0", "m_axi1"]
    members = top.signature.members
    for prefix in top.master_prefixes:
        assert all(f"{prefix}_{member}" in members for member in AXI4_MEMBERS)
        assert members[f"{prefix}_wdata"].shape == 128
    assert not any(name.startswith("m_axi_") for name in members)


def test_refuses_a_design_not_run_through_registers():
    with pytest.raises(ConfigError, match="AXITop needs a design run through registers"):
        AXITop(get_design("cam").build(get_design("cam").config()))
    design = get_design("bfs")
    with pytest.raises(ConfigError, match="data_width"):
        AXITop(design.build(design.config()), data_width=32)


def bus(top, prefix, members):
    """The flat ports ``<prefix>_<member>`` as an object with the members as attributes."""
    return types.SimpleNamespace(**{name: getattr(top, f"{prefix}_{name}")
                                    for name in members})


def small_graph(seed=3, n=40, m=160):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    order = np.lexsort((dst, src))
    return golden.Graph.from_edges(n, src[order], dst[order], rng.integers(1, 9, m)[order])


@pytest.mark.parametrize("channels, data_width, pause", [(1, 64, 1), (2, 128, 2)])
def test_graphicionado_bfs_through_the_axi_top(channels, data_width, pause):
    graph = small_graph()
    config = GraphicionadoConfig(algo="bfs", max_vertices=64, edge_prefetch_lines=8,
                                 memory_channels=channels)
    slice_vertices = check_graph(graph, "bfs", config)
    reference = expected_values(graph, "bfs", root=0, iters=None,
                                streams_src=config.streams_src,
                                streams_dst=config.streams_dst,
                                partition_vertices=slice_vertices)
    image = build_image(graph, algo="bfs", root=0, coarsening=config.coarsening)
    lines = words_to_lines(image.dram.to_lines().reshape(-1))

    top = AXITop(GraphicionadoPipeline(config), data_width=data_width, id_width=3)
    offsets = {entry.name: entry.offset for entry in top.address_map}
    host = AXI4LiteMasterModel(bus(top, "s_axil", LITE_MEMBERS), pause=pause)
    # Channel c's slave holds the whole image but only ever sees the lines of channel c.
    slaves = [AXI4SlaveModel(bus(top, prefix, AXI4_MEMBERS), data_width=data_width,
                             lines=lines, pause=pause, name=prefix)
              for prefix in top.master_prefixes]
    result = {}

    async def clock(ctx):
        while True:
            ctx.set(top.aclk, 0)
            await ctx.delay(5e-9)
            ctx.set(top.aclk, 1)
            await ctx.delay(5e-9)

    def serve(slave):
        async def process(ctx):
            await slave.serve(ctx)
        return process

    async def testbench(ctx):
        ctx.set(top.aresetn, 0)
        await ctx.tick()
        ctx.set(top.aresetn, 1)
        for name, value in image.registers.items():
            assert await host.write(ctx, offsets[f"reg_{name}"], value) == AXIResp.OKAY
        assert await host.read(ctx, offsets["control"]) == (0, AXIResp.OKAY)
        assert await host.write(ctx, offsets["control"], 1 << CONTROL_BITS["start"]) == \
            AXIResp.OKAY
        for _ in range(20_000):
            status, _ = await host.read(ctx, offsets["control"])
            if status >> CONTROL_BITS["done"] & 1:
                break
        else:
            raise AssertionError("the run did not finish through the AXI top")
        assert status >> CONTROL_BITS["busy"] & 1 == 0
        assert status >> CONTROL_BITS["error"] & 1 == 0
        assert all(slave.idle() for slave in slaves)
        result["counters"] = {}
        for name in ("iterations", "edges", "memory_reads", "memory_writes"):
            value, resp = await host.read(ctx, offsets[f"stat_{name}"])
            assert resp == AXIResp.OKAY
            result["counters"][name] = value
        assert await host.read(ctx, offsets["error_cause"]) == (0, AXIResp.OKAY)

    sim = Simulator(top)
    sim.add_process(clock)
    for slave in slaves:
        sim.add_testbench(serve(slave), background=True)
    sim.add_testbench(testbench)
    sim.run()

    counters = result["counters"]
    assert counters["iterations"] == reference.iterations
    merged = {addr: line for c, slave in enumerate(slaves)
              for addr, line in slave.lines.items() if addr % channels == c}
    base, count = image.dram.region(image.result_region(counters["iterations"]))
    values = image.vertex_values(lines_to_words(merged, base, count))
    assert values.tolist() == np.asarray(reference.values).astype(np.uint32).tolist()
    bursts = [burst for slave in slaves for burst in slave.log["bursts"]]
    assert sum(1 for kind, *_ in bursts if kind == "aw") > 0
    if channels == 1:
        # Consecutive reads of one stream were merged into bursts.
        assert max(length + 1 for *_, length in bursts) > 512 // data_width
    assert counters["memory_reads"] > 0 and counters["memory_writes"] > 0
