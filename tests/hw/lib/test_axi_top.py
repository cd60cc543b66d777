# amaranth: UnusedElaboratable=no
"""AXITop (hw/lib/axi/top.py): every design's AXI top emits Verilog with Vivado-style port
names, and every design runs through it end to end in Amaranth's simulator, driven by the
host driver (graphgen.driver over its SimulatorBus): the driver programs the registers and
starts the run through the AXI4-Lite slave (a master model with random back-pressure), the
AXI4 masters reach the memory image the host code lays out (``sim/<design>/image.py``)
through the AXI4 slave model (random latency, reordering across IDs, back-pressure on all
five channels), and the result equals the golden model's. A memory error ends the run with
DONE and ERROR and its cause, and the next START runs cleanly without a reset.

The runs use masters with 16 read slots (``SMALL``; the defaults' 64 make Amaranth's
simulator several times slower): the default masters run every design through cocotb and
Verilator in tests/tools/test_driver_cocotb.py.
"""

import dataclasses
import re
import types

import numpy as np
import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

import golden
from golden.bfs import run_bfs, validate_parents
from golden.depgraph import run_depgraph
from golden.dyngraph import generate_updates
from graphgen.designs import get_design
from graphgen.driver import Driver, ErrorCause, RunError
from graphgen.driver.bfs import BfsHost
from graphgen.driver.depgraph import DepGraphHost
from graphgen.driver.dyngraph import DynGraphHost
from graphgen.driver.graphicionado import GraphicionadoHost
from graphgen.driver.simulator import SimulatorBus
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.top import GraphicionadoPipeline
from hw.lib.axi.address_map import CONTROL_BITS
from hw.lib.axi.flat import flat_members
from hw.lib.axi.signature import AXI4LiteSignature, AXI4Signature, AXIResp
from hw.lib.axi.top import AXITop
from hw.lib.config import ConfigError, DesignConfig
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.file import RegisterFile
from sim.graphicionado.check import expected_values
from sim.graphicionado.run import check_graph
from sim.harness import emit_verilog
from sim.axi_slave import AXI4SlaveModel
from sim.axil_master import AXI4LiteMasterModel

AXI4_MEMBERS = AXI4Signature(addr_width=32, data_width=64, id_width=4).members
LITE_MEMBERS = AXI4LiteSignature(addr_width=12).members
SMALL = {"read_outstanding": 16}


def ports(verilog: str, module: str) -> set[str]:
    header = re.search(rf"module {module}\((.*?)\);", verilog, re.S).group(1)
    return {name.strip() for name in header.split(",")}


# One design in make test's budget (the AXI top is the same shell around every design; the
# lint test builds Graphicionado's two-channel top); the other three in make soak.
@pytest.mark.parametrize("name", [
    "bfs", *(pytest.param(name, marks=pytest.mark.soak)
             for name in ("graphicionado", "depgraph", "dyngraph"))])
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


def test_flat_members_name_ports_by_prefix():
    lite = AXI4LiteSignature(addr_width=12)
    flat = flat_members(lite, "s_axil", flipped=True)
    assert list(flat) == [f"s_axil_{name}" for name in lite.members]
    assert flat["s_axil_awaddr"].flow == In and flat["s_axil_rdata"].flow == Out
    assert flat_members(lite, "m")["m_awaddr"].flow == Out
    nested = wiring.Signature({"axi": Out(lite)})
    with pytest.raises(ConfigError, match="axi of .* is not a port"):
        flat_members(nested, "x")


def bus(top, prefix, members):
    """The flat ports ``<prefix>_<member>`` as an object with the members as attributes."""
    return types.SimpleNamespace(**{name: getattr(top, f"{prefix}_{name}")
                                    for name in members})


def small_graph(seed=3, n=40, m=160):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    order = np.lexsort((dst, src))
    return golden.Graph.from_edges(n, src[order], dst[order], rng.integers(1, 9, m)[order])


def bfs_setup(channels):
    graph = small_graph()
    config = GraphicionadoConfig(algo="bfs", max_vertices=64, edge_prefetch_lines=8,
                                 memory_channels=channels)
    slice_vertices = check_graph(graph, "bfs", config)
    reference = expected_values(graph, "bfs", root=0, iters=None,
                                streams_src=config.streams_src,
                                streams_dst=config.streams_dst,
                                partition_vertices=slice_vertices)
    return graph, config, reference


@pytest.mark.parametrize("channels, data_width, pause", [(1, 64, 1), (2, 128, 2)])
def test_graphicionado_bfs_through_the_axi_top(channels, data_width, pause):
    """The host driver over the simulated AXI top: it lays out the image, programs the
    registers by name, starts, waits for DONE and reads VProperty back."""
    graph, config, reference = bfs_setup(channels)
    top = AXITop(GraphicionadoPipeline(config), data_width=data_width, id_width=3, **SMALL)
    bus = SimulatorBus(top, pause=pause)
    driver = Driver(bus, top.address_map)
    result = driver.run(GraphicionadoHost(config), graph, root=0, timeout=400_000, poll=16)
    assert bus.idle()
    assert driver.status() == {"busy": False, "done": True, "error": False}
    assert driver.error_cause() == ErrorCause(bus=False)
    assert result.counters["iterations"] == reference.iterations
    assert result.values.tolist() == np.asarray(reference.values).astype(np.uint32).tolist()
    bursts = [burst for slave in bus.slaves for burst in slave.log["bursts"]]
    assert sum(1 for kind, *_ in bursts if kind == "aw") > 0
    if channels == 1:
        # Consecutive reads of one stream were merged into bursts.
        assert max(length + 1 for *_, length in bursts) > 512 // data_width
    assert result.counters["memory_reads"] > 0 and result.counters["memory_writes"] > 0


@pytest.mark.parametrize("write, burst, resp", [(False, 40, AXIResp.SLVERR),
                                                (True, 3, AXIResp.DECERR)])
def test_an_error_mid_bfs_ends_the_run_and_the_next_run_is_right(write, burst, resp):
    """The memory answers the ``burst``-th read (or write) burst of a Graphicionado BFS with
    an error: the run ends with DONE and ERROR within a bounded number of cycles, the driver
    raises RunError naming the channel, the kind, the response and the address (and the
    image region it falls in); the next run on the same simulated hardware, without
    ``aresetn``, gives the golden answer."""
    graph, config, reference = bfs_setup(1)
    top = AXITop(GraphicionadoPipeline(config), data_width=64, id_width=3, **SMALL)
    failed = []

    def errors(channel, is_write, addr, length):
        if is_write != write:
            return AXIResp.OKAY
        failed.append((addr, bus.cycles))
        return resp if len(failed) == burst else AXIResp.OKAY

    bus = SimulatorBus(top, pause=1, errors=errors)
    driver = Driver(bus, top.address_map)
    host = GraphicionadoHost(config)
    with pytest.raises(RunError) as info:
        driver.run(host, graph, root=0, timeout=400_000, poll=16)
    addr, cycle = failed[burst - 1]
    assert info.value.cause == ErrorCause(bus=True, write=write, resp=resp.value, channel=0,
                                          addr=addr)
    assert f"{'write' if write else 'read'} burst at byte address {addr:#x} (" in \
        str(info.value)
    assert f"answered {resp.name}" in str(info.value)
    assert bus.cycles - cycle < 1000
    assert bus.idle()
    assert driver.status() == {"busy": False, "done": True, "error": True}

    bus.errors = None
    result = driver.run(host, graph, root=0, timeout=400_000, poll=16)
    assert driver.status() == {"busy": False, "done": True, "error": False}
    assert driver.error_cause() == ErrorCause(bus=False)
    assert result.counters["iterations"] == reference.iterations
    assert result.values.tolist() == np.asarray(reference.values).astype(np.uint32).tolist()


def test_bfs_engine_through_the_axi_top():
    """The BFS engine's search through the host driver and the simulated AXI top: levels
    equal the golden model's and the parents pass Graph500's validation."""
    design = get_design("bfs")
    config = design.config()
    graph = small_graph()
    top = design.axi_top(config, **SMALL)
    driver = Driver(SimulatorBus(top, pause=1), top.address_map)
    result = driver.run(BfsHost(config), graph, root=0, timeout=400_000, poll=16)
    reference = run_bfs(graph, 0, **config.golden_options())
    assert result.values["level"].tolist() == np.asarray(reference.levels).tolist()
    validate_parents(graph, 0, result.values["parent"], result.values["level"])
    assert result.counters["levels"] == len(reference.records)


def test_depgraph_sssp_through_the_axi_top():
    """DepGraph's SSSP through the host driver and the simulated AXI top, equal to the
    golden model."""
    design = get_design("depgraph")
    # Two walks an engine instead of the default 16: the Python simulator's time grows with
    # the HDTLs (the defaults run in Verilator in tests/hw/depgraph/test_rtl.py).
    config = design.config({"algo": "sssp", "walks": "2"})
    graph = small_graph()
    top = design.axi_top(config, **SMALL)
    driver = Driver(SimulatorBus(top, pause=2), top.address_map)
    result = driver.run(DepGraphHost(config), graph, root=0, timeout=400_000, poll=16)
    reference = run_depgraph("sssp", graph, root=0, engines=config.engines,
                             stack_depth=config.stack_depth, walks=config.walks,
                             hub_index=config.hub_index)
    assert result.values.tolist() == np.asarray(reference.states).astype(np.uint32).tolist()


def test_dyngraph_updates_through_the_axi_top():
    """Batches of inserts, deletes and searches on the dynamic graph unit through the host
    driver and the simulated AXI top: the searches' answers and the slab graph read back
    equal the golden model's."""
    design = get_design("dyngraph")
    config = design.config()
    graph = small_graph()
    updates = generate_updates("mix:ops=48,insert=40,delete=20,search=40,seed=3", graph,
                               config.max_vertices)
    top = design.axi_top(config, **SMALL)
    driver = Driver(SimulatorBus(top, pause=1), top.address_map)
    host = DynGraphHost(config)
    image = host.image(graph, updates=updates, batch=16)
    driver.load(image)
    driver.start()
    driver.wait_done(timeout=400_000, poll=16)
    counters = driver.counters()
    assert host.result(image, counters, driver.read_words)["found"].any()
    difference = host.difference(image, counters, driver.read_words, graph, updates=updates,
                                 batch=16)
    assert difference is None, difference


@dataclasses.dataclass(frozen=True)
class CopyConfig(DesignConfig):
    addr_width: int = 12
    memory_channels: int = 1
    stall_injection: int = 0


class Copier(RegisterDesign):
    """A small design run through registers: on ``start`` it copies ``count`` lines from
    line ``src_base`` to line ``dst_base``, one at a time, line ``k`` through channel
    ``k % channels`` (read, then write what came back), counting the lines in ``copied``."""

    CONFIG = CopyConfig

    def __init__(self, config):
        super().__init__(config, registers=("src_base", "dst_base", "count"),
                         counters=("copied", "cycles"))

    def elaborate(self, platform):
        m = Module()
        m.submodules.file = file = RegisterFile(["src_base", "dst_base", "count"])
        m.d.comb += [file.addr.eq(self.regs.addr), file.data.eq(self.regs.data),
                     file.write.eq(self.regs.write)]
        ports, channels = self.memory_ports, self._config.memory_channels
        index, data = Signal(32), Signal(512)
        source, target = file.src_base + index, file.dst_base + index
        m.d.comb += self.counters.copied.eq(index)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.control.start):
                    m.d.sync += [index.eq(0), self.control.done.eq(0),
                                 self.counters.cycles.eq(0)]
                    m.next = "NEXT"
            with m.State("NEXT"):
                m.d.sync += self.counters.cycles.eq(self.counters.cycles + 1)
                with m.If(index == file.count):
                    m.d.sync += self.control.done.eq(1)
                    m.next = "IDLE"
                with m.Else():
                    m.next = "READ"
            for state, line, write in (("READ", source, 0), ("WRITE", target, 1)):
                with m.State(state):
                    m.d.sync += self.counters.cycles.eq(self.counters.cycles + 1)
                    for c, port in enumerate(ports):
                        with m.If(line % channels == c):
                            m.d.comb += [port.req.valid.eq(1), port.req.payload.addr.eq(line),
                                         port.req.payload.write.eq(write),
                                         port.req.payload.wdata.eq(data),
                                         port.req.payload.wmask.eq(-1)]
                            with m.If(port.req.ready):
                                m.next = "WAIT" if not write else "NEXT"
                                if write:
                                    m.d.sync += index.eq(index + 1)
            with m.State("WAIT"):
                m.d.sync += self.counters.cycles.eq(self.counters.cycles + 1)
                for c, port in enumerate(ports):
                    m.d.comb += port.resp.ready.eq(1)
                    with m.If(port.resp.valid):
                        m.d.sync += data.eq(port.resp.payload.rdata)
                        m.next = "WRITE"
        m.d.comb += self.control.busy.eq(~self.control.done & (index != 0))
        return m


def run_copier(channels, *, errors=None, pause=1, count=12, rerun=False):
    """Copy ``count`` lines from line 0 to line 64 through the Copier's AXI top; the slaves'
    ``errors(write, addr, length)`` answer by channel (a list, one function a channel).
    With ``rerun`` the host then starts again (no ``aresetn``) with every response OKAY and
    its second run's readings are in ``out["rerun"]``."""
    rng = np.random.default_rng(channels)
    lines = {k: int(rng.integers(1 << 62)) << 400 | k for k in range(count)}
    top = AXITop(Copier(CopyConfig(memory_channels=channels)), data_width=128, id_width=2,
                 **SMALL)
    offsets = {entry.name: entry.offset for entry in top.address_map}
    host = AXI4LiteMasterModel(bus(top, "s_axil", LITE_MEMBERS), pause=pause)
    slaves = [AXI4SlaveModel(bus(top, prefix, AXI4_MEMBERS), data_width=128, lines=lines,
                             pause=pause, name=prefix,
                             errors=None if errors is None else errors[c])
              for c, prefix in enumerate(top.master_prefixes)]
    out = {}

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
        ctx.set(top.aresetn, 1)
        for name, value in (("src_base", 0), ("dst_base", 64), ("count", count)):
            assert await host.write(ctx, offsets[f"reg_{name}"], value) == AXIResp.OKAY
        assert await host.write(ctx, offsets["control"], 1) == AXIResp.OKAY
        await finish(ctx, out)
        if rerun:
            for slave in slaves:
                slave.errors = lambda write, addr, length: AXIResp.OKAY.value
                slave.lines.update({64 + k: 0 for k in range(count)})
            assert await host.write(ctx, offsets["control"], 1) == AXIResp.OKAY
            out["rerun"] = {}
            await finish(ctx, out["rerun"])

    async def finish(ctx, out):
        # The host waits for DONE or ERROR; then for the buses to stay quiet a while.
        stop = 1 << CONTROL_BITS["done"] | 1 << CONTROL_BITS["error"]
        for polls in range(2000):
            status, _ = await host.read(ctx, offsets["control"])
            if status & stop:
                break
        else:
            raise AssertionError("the copy neither finished nor failed")
        out["polls"] = polls
        quiet = 0
        for _ in range(3000):
            quiet = quiet + 1 if all(slave.idle() for slave in slaves) else 0
            if quiet == 100:
                break
            await ctx.tick()
        status, _ = await host.read(ctx, offsets["control"])
        out["status"] = status
        out["idle"] = all(slave.idle() for slave in slaves)
        for name in ("error_cause", "error_addr_lo", "error_addr_hi", "stat_copied"):
            out[name], resp = await host.read(ctx, offsets[name])
            assert resp == AXIResp.OKAY
        out["memory"] = {addr: line for c, slave in enumerate(slaves)
                         for addr, line in slave.lines.items() if addr % channels == c}

    sim = Simulator(top)
    sim.add_process(clock)
    for slave in slaves:
        sim.add_testbench(serve(slave), background=True)
    sim.add_testbench(testbench)
    sim.run()
    return out, lines


@pytest.mark.parametrize("channels", [1, 2])
def test_copier_reaches_done_after_its_writes(channels):
    out, lines = run_copier(channels)
    assert out["status"] == 1 << CONTROL_BITS["done"]
    assert out["idle"] and out["stat_copied"] == len(lines)
    assert out["error_cause"] == out["error_addr_lo"] == out["error_addr_hi"] == 0
    assert all(out["memory"].get(64 + k) == line for k, line in lines.items())


def fail_at(line, write, resp):
    def errors(is_write, addr, length):
        return resp.value if is_write == write and addr == line * 64 else AXIResp.OKAY.value
    return errors


@pytest.mark.parametrize("channels, line, write, resp", [
    (1, 64 + 5, True, AXIResp.SLVERR), (2, 3, False, AXIResp.DECERR),
    (2, 64 + 6, True, AXIResp.SLVERR)])
def test_an_error_response_ends_the_run_and_the_next_start_clears_it(channels, line, write,
                                                                    resp):
    """The master's error ends the run with DONE and ERROR, and the error-cause registers
    say which channel, which kind, which response and which address; every burst sent is
    answered (the buses fall quiet). The next START, without a reset, copies every line and
    clears the error."""
    okay = fail_at(-1, False, AXIResp.OKAY)
    errors = [fail_at(line, write, resp) if c == line % channels else okay
              for c in range(channels)]
    out, lines = run_copier(channels, errors=errors, rerun=True)
    done_error = 1 << CONTROL_BITS["error"] | 1 << CONTROL_BITS["done"]
    assert out["status"] == done_error
    assert out["idle"]
    cause = 1 | int(write) << 1 | resp.value << 2 | (line % channels) << 8
    assert out["error_cause"] == cause
    assert (out["error_addr_hi"] << 32 | out["error_addr_lo"]) == line * 64
    # The lines before the failing one were copied, the failing one was not.
    failing = line - 64 if write else line
    assert all(out["memory"].get(64 + k) == lines[k] for k in range(failing))
    assert out["memory"].get(64 + failing) != lines[failing]
    again = out["rerun"]
    assert again["status"] == 1 << CONTROL_BITS["done"] and again["idle"]
    assert again["error_cause"] == again["error_addr_lo"] == again["error_addr_hi"] == 0
    assert again["stat_copied"] == len(lines)
    assert all(again["memory"].get(64 + k) == line for k, line in lines.items())


def test_a_base_register_past_the_memory_refuses_start():
    """With ``memory_bytes`` a START while a base register holds a line past the memory ends
    at once with DONE and ERROR, the cause naming the register, and nothing reaches the
    memory; once the register is right the next START runs."""
    top = AXITop(Copier(CopyConfig()), data_width=128, id_width=2, memory_bytes=128 * 64)
    assert [entry.field for entry in top.base_registers] == ["src_base", "dst_base"]
    bus = SimulatorBus(top, pause=1)
    bus.write_memory(0, bytes(range(128)))
    driver = Driver(bus, top.address_map)
    for name, value in (("src_base", 0), ("dst_base", 128), ("count", 2)):
        driver.write(name, value)
    driver.start()
    with pytest.raises(RunError, match="START refused: base register dst_base holds a line "
                                       "past the memory") as info:
        driver.wait_done(timeout=200, poll=4)
    assert info.value.cause == ErrorCause(bus=False, refused=True, index=1)
    assert not any(slave.log["bursts"] for slave in bus.slaves)
    driver.write("dst_base", 127)
    driver.write("count", 1)
    driver.start()
    driver.wait_done(timeout=2000, poll=8)
    assert driver.error_cause() == ErrorCause(bus=False)
    assert bus.read_memory(127 * 64, 64) == bytes(range(64))
    with pytest.raises(ConfigError, match="memory_bytes must be a multiple of 64"):
        AXITop(Copier(CopyConfig()), memory_bytes=100)
