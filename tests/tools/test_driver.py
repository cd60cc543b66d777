"""graphgen.driver: the buses (memory-mapped files, a LiteX RemoteClient, the simulator's
memory) and the driver's own logic (registers by name, the image's size, the error cause,
the timeout naming the counters that stopped). The end-to-end runs through the simulated
AXI top are in tests/hw/lib/test_axi_top.py."""

import numpy as np
import pytest

from graphgen.driver import (BusAccessError, Driver, ErrorCause, HostImage, LiteXBus,
                             MmapBus, RunError, RunTimeout, remote_client)
from graphgen.driver.bus import Bus
from graphgen.driver.simulator import SimulatorBus
from hw.lib.axi.address_map import design_address_map
from hw.lib.axi.top import AXITop
from hw.lib.config import ConfigError
from tests.hw.lib.test_axi_top import Copier, CopyConfig

MAP = design_address_map(["src", "dst", "count"], ["cycles", "edges"])


def test_mmap_bus_maps_registers_and_memory(tmp_path):
    registers, memory = tmp_path / "regs", tmp_path / "mem"
    registers.write_bytes(bytes(4096))
    memory.write_bytes(bytes(4096 * 2))
    bus = MmapBus(registers, memory, memory_offset=4096, memory_size=4096)
    try:
        driver = Driver(bus, MAP)
        driver.write("dst", 0x12345678)
        bus.write_memory(6, b"abc")
        assert bus.read_memory(4, 6) == b"\0\0abc\0"
        assert driver.read("reg_dst") == 0x12345678
        with pytest.raises(ValueError, match="outside the 0x1000 bytes mapped"):
            bus.read_memory(4090, 8)
        with pytest.raises(ValueError, match="not a non-negative multiple of 4"):
            bus.read32(2)
    finally:
        bus.close()
    # Little-endian words at the map's offsets; the memory window starts at its offset.
    assert registers.read_bytes()[0x404:0x408] == bytes([0x78, 0x56, 0x34, 0x12])
    assert memory.read_bytes()[4096 + 6:4096 + 9] == b"abc"
    with pytest.raises(ConfigError, match="not a multiple of"):
        MmapBus(registers, memory, memory_offset=4, memory_size=64)


class FakeRemoteClient:
    """LiteX's RemoteClient as the bus uses it: 32-bit words at byte addresses."""

    def __init__(self):
        self.words, self.log = {}, []

    def read(self, addr, length=None):
        self.log.append(("read", addr, length))
        if length is None:
            return self.words.get(addr, 0)
        return [self.words.get(addr + 4 * k, 0) for k in range(length)]

    def write(self, addr, value):
        self.log.append(("write", addr, value))
        for k, word in enumerate(value if isinstance(value, list) else [value]):
            self.words[addr + 4 * k] = word


def test_litex_bus_reaches_registers_and_memory_at_their_bases():
    client = FakeRemoteClient()
    bus = LiteXBus(client, registers_base=0xF000_0000, memory_base=0x4000_0000)
    driver = Driver(bus, MAP)
    driver.write("count", 7)
    assert client.log[-1] == ("write", 0xF000_0400 + 8, 7)
    assert driver.read("count") == 7
    bus.write_memory(64, bytes(range(8)))
    assert client.log[-1] == ("write", 0x4000_0040, [0x03020100, 0x07060504])
    assert bus.read_memory(64, 6) == bytes(range(6))
    with pytest.raises(ValueError, match="whole words"):
        bus.write_memory(2, b"abcd")
    with pytest.raises(ConfigError, match="multiples of 4"):
        LiteXBus(client, registers_base=2, memory_base=0)


def test_litex_missing_is_one_clear_error():
    try:
        import litex  # noqa: F401
    except ImportError:
        with pytest.raises(ConfigError, match=r"needs LiteX \(pip install litex\)"):
            remote_client()
    else:
        pytest.skip("LiteX is installed here")


class StuckBus(Bus):
    """A design that never finishes: ``cycles`` counts, ``edges`` stopped at 5."""

    def __init__(self):
        self.now, self.writes = 0, {}

    def read32(self, offset):
        return {0x000: 0b10, 0x100: self.now, 0x104: 5}.get(offset, 0)

    def write32(self, offset, value):
        self.writes[offset] = value

    def read_memory(self, addr, count):
        return bytes(count)

    def write_memory(self, addr, data):
        self.writes["memory"] = bytes(data)

    def wait(self, cycles):
        self.now += cycles


def test_a_run_that_never_ends_names_the_counters_that_stopped():
    bus = StuckBus()
    driver = Driver(bus, MAP, memory_bytes=128)
    image = HostImage(lines=np.arange(32, dtype=np.uint32).reshape(2, 16),
                      registers={"src": 0, "dst": 1, "count": 1}, regions={"data": (0, 2)})
    driver.load(image)
    assert bus.writes["memory"] == np.arange(32, dtype="<u4").tobytes()
    assert bus.writes[0x408] == 1
    # Busy (0b10) for good: the wait for the design to be ready gives up at its timeout.
    assert driver.wait_ready(timeout=500, poll=100) == 500 and bus.now == 500
    driver.start()
    assert bus.writes[0x000] == 1
    with pytest.raises(RunTimeout) as info:
        driver.wait_done(timeout=10_000, poll=100, window=1000)
    assert info.value.stopped == ["edges"] and info.value.moving == ["cycles"]
    assert "counters that stopped moving: edges=5; still moving: cycles" in str(info.value)
    with pytest.raises(ConfigError, match="needs 192 bytes of memory, the design reaches 128"):
        driver.load(HostImage(lines=np.zeros((3, 16), np.uint32), registers={}, regions={}))
    with pytest.raises(ConfigError, match=r"no registers \['root'\]"):
        driver.load(HostImage(lines=np.zeros((1, 16), np.uint32), registers={"root": 1},
                              regions={}))
    with pytest.raises(KeyError, match="no register 'root'"):
        driver.read("root")


def test_the_error_cause_is_decoded_with_its_region():
    cause = ErrorCause.decode(1 | 1 << 1 | 3 << 2 | 2 << 8, 0x1_0000_0148)
    assert cause == ErrorCause(bus=True, write=True, resp=3, channel=2, addr=0x1_0000_0148)
    image = HostImage(lines=np.zeros((1, 16), np.uint32), registers={},
                      regions={"edges": (0x400_0000, 8)})
    assert str(RunError(cause, image)) == (
        "the run failed: memory channel 2: a write burst at byte address 0x100000148 "
        "(edges, line 5) was answered DECERR")
    assert "the design reported an error" in str(RunError(ErrorCause.decode(0, 0)))


def test_simulator_bus_memory_and_registers():
    """Byte-granular memory over the slaves' lines (two channels), and register access
    through the simulated AXI4-Lite slave; an access outside the map raises."""
    top = AXITop(Copier(CopyConfig(memory_channels=2)), data_width=128, id_width=2)
    bus = SimulatorBus(top, pause=1)
    driver = Driver(bus, top.address_map)
    data = bytes(range(200))
    bus.write_memory(30, data)
    assert bus.read_memory(30, 200) == data
    assert bus.slaves[1].lines[1] == bus.slaves[0].lines[1]
    driver.write("count", 2)
    driver.write("dst_base", 4)
    driver.start()
    driver.wait_done(timeout=2000, poll=8)
    assert bus.read_memory(4 * 64, 128) == bus.read_memory(0, 128)
    assert driver.counters()["copied"] == 2
    with pytest.raises(BusAccessError, match="register write at 0x100 answered SLVERR"):
        bus.write32(0x100, 1)
    before = bus.cycles
    bus.wait(50)
    assert 50 <= bus.cycles - before <= 51


def test_the_graphicionado_image_carries_the_programs_parameters():
    """The host adapter writes a program's parameters into their param_<k> registers
    (personalized PageRank: alpha, then one_minus_alpha), their defaults unless given."""
    import golden
    from graphgen.driver.graphicionado import GraphicionadoHost
    from hw.graphicionado.config import GraphicionadoConfig
    from tests.support.examples import examples_path
    host = GraphicionadoHost(GraphicionadoConfig(algo=examples_path("ppr"), max_vertices=64))
    graph = golden.from_spec("kron:scale=5,ef=4,seed=1")
    given = host.image(graph, params={"alpha": 0.5}).registers
    default = host.image(graph).registers
    assert (given["param_0"], given["param_1"]) == (0x3F000000, 0x3E19999A)
    assert default["param_0"] == 0x3F59999A


def test_the_graphicionado_host_spreads_hubs_and_gives_the_answer_back_in_order():
    """``vertex_order="spread"``: the image is the renumbered graph's and the answer comes
    back in the graph's own vertex order: here the initial levels, read from the image
    itself, 0 at the root alone (the renumbered root, a vertex of its own)."""
    import golden
    from golden.vertex_order import spread_hubs
    from graphgen.driver.graphicionado import GraphicionadoHost
    from hw.graphicionado.config import GraphicionadoConfig
    from hw.lib.config import ConfigError
    host = GraphicionadoHost(GraphicionadoConfig(algo="bfs", max_vertices=64, streams_dst=2))
    graph = golden.from_spec("rmat:scale=5,ef=4,seed=1")
    root = 3
    image = host.image(graph, root=root, vertex_order="spread")
    assert spread_hubs(graph, 2)[root] != root
    words = image.lines.reshape(-1)
    values = host.result(image, {"iterations": 0},
                         lambda line, count: words[16 * line:16 * line + count])
    assert values[root] == 0 and np.count_nonzero(values == 0) == 1
    with pytest.raises(ConfigError, match="vertex_order must be one of ids, spread"):
        host.image(graph, vertex_order="degree")
