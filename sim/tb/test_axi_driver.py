"""cocotb testbench of a design's AXI top (the Verilog of ``graphgen verilog --bus axi``)
driven by the host driver, the way a real host drives it.

The host side (:class:`graphgen.driver.Driver` and the design's adapter) runs in a thread
(``cocotb.task.bridge``) over :class:`graphgen.driver.cocotb_bus.CocotbBus`: registers
through cocotbext-axi's AXI4-Lite master, memory through its RAM on every AXI4 master port,
one memory shared by all of them; with a pause seed, random back-pressure on all five
channels of every port and of the AXI4-Lite port. A small graph's answer is checked
against the golden model.

The run description comes in ``GRAPHGEN_RUN`` (JSON): ``design`` and ``overrides`` (its
configuration), ``memory_bytes``, ``pause`` (a seed or null), ``graph`` (``seed``, ``n``,
``m``), ``repeat`` (runs of it, one after the other on the same simulation: 1 by
default). ``answers_equal_the_golden_model`` runs the graph;
``errors_end_the_run_and_the_next_is_right`` answers a read, then a write, SLVERR mid-run
and checks that each run ends with the driver's RunError naming the request and its
address, and that a clean run after each on the same simulation (no ``aresetn``) gives the
golden answer.
"""

import json
import logging
import os

import cocotb
import numpy as np
from cocotb.simtime import get_sim_time
from cocotb.task import bridge

import golden
from golden.bfs import run_bfs, validate_parents
from golden.depgraph import run_depgraph
from golden.dyngraph import generate_updates
from graphgen.designs import get_design
from graphgen.driver import BusAccessError, Driver, RunError
from graphgen.driver.bfs import BfsHost
from graphgen.driver.cocotb_bus import CLOCK_PERIOD_NS, CocotbBus, master_prefixes
from graphgen.driver.depgraph import DepGraphHost
from graphgen.driver.dyngraph import DynGraphHost
from graphgen.driver.graphicionado import GraphicionadoHost
from hw.lib.axi.top import design_map
from sim.graphicionado.check import expected_values
from sim.graphicionado.run import check_graph

WAITS = {"timeout": 400_000, "poll": 16}


def small_graph(seed: int, n: int, m: int) -> golden.Graph:
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    order = np.lexsort((dst, src))
    return golden.Graph.from_edges(n, src[order], dst[order], rng.integers(1, 9, m)[order])


def run_graphicionado(driver, config, graph):
    """BFS (or the configured algorithm) from vertex 0; VProperty equals the golden
    model's, as do the iterations."""
    slice_vertices = check_graph(graph, config.algo, config)
    reference = expected_values(graph, config.algo, root=0, iters=None,
                                streams_src=config.streams_src,
                                streams_dst=config.streams_dst,
                                partition_vertices=slice_vertices)
    result = driver.run(GraphicionadoHost(config), graph, root=0, **WAITS)
    assert result.counters["iterations"] == reference.iterations, \
        (result.counters["iterations"], reference.iterations)
    assert result.values.tolist() == np.asarray(reference.values).astype(np.uint32).tolist()
    return result


def run_bfs_engine(driver, config, graph):
    """Levels equal the golden model's and the parents pass Graph500's validation."""
    result = driver.run(BfsHost(config), graph, root=0, **WAITS)
    reference = run_bfs(graph, 0, **config.golden_options())
    assert result.values["level"].tolist() == np.asarray(reference.levels).tolist()
    validate_parents(graph, 0, result.values["parent"], result.values["level"])
    assert result.counters["levels"] == len(reference.records)
    return result


def run_depgraph_engines(driver, config, graph):
    result = driver.run(DepGraphHost(config), graph, root=0, **WAITS)
    root = 0 if config.algo in ("bfs", "sssp") else None
    reference = run_depgraph(config.algo, graph, root=root, engines=config.engines,
                             stack_depth=config.stack_depth, walks=config.walks,
                             hub_index=config.hub_index)
    expected = np.asarray(reference.states)
    if config.algo == "pagerank":
        assert np.allclose(result.values, expected.astype(np.float32), rtol=1e-4)
    else:
        assert result.values.tolist() == expected.astype(np.uint32).tolist()
    return result


def run_dyngraph(driver, config, graph):
    """Batches of inserts, deletes and searches: the searches' answers and the slab graph
    read back equal the golden model's."""
    updates = generate_updates("mix:ops=48,insert=40,delete=20,search=40,seed=3", graph,
                               config.max_vertices)
    host = DynGraphHost(config)
    image = host.image(graph, updates=updates, batch=16)
    driver.load(image)
    driver.start()
    cycles = driver.wait_done(image=image, **WAITS)
    counters = driver.counters()
    assert host.result(image, counters, driver.read_words)["found"].any()
    difference = host.difference(image, counters, driver.read_words, graph, updates=updates,
                                 batch=16)
    assert difference is None, difference
    return cycles


RUNS = {"graphicionado": run_graphicionado, "bfs": run_bfs_engine,
        "depgraph": run_depgraph_engines, "dyngraph": run_dyngraph}


def setup(dut):
    """The run's description, the design's configuration and the bus."""
    run = json.loads(os.environ["GRAPHGEN_RUN"])
    # cocotbext-axi logs every burst at INFO: only its warnings are kept.
    for prefix in ["s_axil", *master_prefixes(dut)]:
        logging.getLogger(f"cocotb.{dut._name}.{prefix}").setLevel(logging.WARNING)
    config = get_design(run["design"]).config(run["overrides"])
    bus = CocotbBus(dut, memory_bytes=run["memory_bytes"], pause=run["pause"])
    # Back-pressure reaches all five channels of the AXI4-Lite port and of every AXI4 port.
    assert len(bus.channels()) == 5 * (1 + len(bus.prefixes))
    return run, config, bus


def sim_cycle() -> int:
    return int(get_sim_time("ns") // CLOCK_PERIOD_NS)


def address_map(run, config):
    return design_map(get_design(run["design"]).build(config))


@cocotb.test()
async def answers_equal_the_golden_model(dut):
    run, config, bus = setup(dut)
    entries = address_map(run, config)
    await bus.start()
    graph = small_graph(**run["graph"])

    def host():
        driver = Driver(bus, entries, memory_bytes=run["memory_bytes"])
        for _ in range(run.get("repeat", 1)):
            RUNS[run["design"]](driver, config, graph)
        assert driver.status() == {"busy": False, "done": True, "error": False}
        assert not bus.faults

    await bridge(host)()
    dut._log.info("graph run in %d cycles", sim_cycle())


@cocotb.test()
async def errors_end_the_run_and_the_next_is_right(dut):
    """A read, then a write, answered SLVERR mid-run (the ``read_fault``-th read beat, the
    ``write_fault``-th write): RunError names the channel, the request and a burst address
    covering the access, within a bounded number of cycles; the next run on the same
    simulation is right. So does a base register (``far_base``) past the memory. A register
    write the map refuses and memory past the memory are refused by the bus with
    BusAccessError."""
    run, config, bus = setup(dut)
    entries = address_map(run, config)
    await bus.start()
    graph = small_graph(**run["graph"])
    faults = {False: run.get("read_fault", 40), True: run.get("write_fault", 3)}
    failed_at = []          # the cycle of the access answered SLVERR

    def fail_once(write):
        seen = 0

        def errors(channel, is_write, addr, length):
            nonlocal seen
            if is_write != write:
                return False
            seen += 1
            if seen == faults[write]:
                failed_at.append(sim_cycle())
            return seen == faults[write]
        return errors

    def host():
        driver = Driver(bus, entries, memory_bytes=run["memory_bytes"])
        for write in (False, True):
            bus.errors, bus.faults = fail_once(write), []
            try:
                RUNS[run["design"]](driver, config, graph)
            except RunError as error:
                ended = sim_cycle()
                cause = error.cause
                (channel, faulted_write, addr), = bus.faults
                assert faulted_write == write
                assert (cause.bus, cause.write, cause.resp, cause.channel) == \
                    (True, write, 2, channel), cause
                assert cause.addr <= addr < cause.addr + 4096, (cause, hex(addr))
                kind = "write" if write else "read"
                assert f"memory channel {channel}: a {kind} burst at byte address " \
                    f"{cause.addr:#x} (" in str(error) and "answered SLVERR" in str(error), \
                    str(error)
                dut._log.info("%s; DONE seen %d cycles after", error, ended - failed_at[-1])
                assert ended - failed_at[-1] < 2000
                assert driver.status() == {"busy": False, "done": True, "error": True}
            else:
                raise AssertionError(f"the run ended without an error ({bus.faults})")
            bus.errors = None
            RUNS[run["design"]](driver, config, graph)
            assert driver.status() == {"busy": False, "done": True, "error": False}
            assert driver.error_cause().bus is False
        # A base register past the memory (the emitted top does not know the memory's
        # size): its first read is answered SLVERR, the run ends, the next one is right.
        bus.errors, bus.faults = None, []
        driver.write(run["far_base"], run["memory_bytes"] // 64 + 64)
        driver.start()
        try:
            driver.wait_done(**WAITS)
        except RunError as error:
            dut._log.info("%s", error)
            assert error.cause.bus and not error.cause.write, error.cause
            assert error.cause.addr >= run["memory_bytes"], error.cause
            assert bus.faults and all(addr >= run["memory_bytes"] for *_, addr in bus.faults)
        else:
            raise AssertionError(f"{run['far_base']} past the memory ended without an error")
        RUNS[run["design"]](driver, config, graph)
        counter = next(e for e in entries if e.kind == "counter")
        try:
            bus.write32(counter.offset, 1)
        except BusAccessError as error:
            assert f"register write at {counter.offset:#x} answered SLVERR" in str(error)
        else:
            raise AssertionError("a write to a counter was answered OKAY")
        try:
            bus.read_memory(run["memory_bytes"] - 4, 8)
        except BusAccessError as error:
            assert "outside the" in str(error)
        else:
            raise AssertionError("a read past the memory was not refused")

    await bridge(host)()
