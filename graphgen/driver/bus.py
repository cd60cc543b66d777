"""The register-and-memory bus a host driver talks through, and two of its implementations.

A :class:`Bus` reaches a design's AXI4-Lite registers (32-bit words at byte offsets of the
design's address map) and the memory its AXI4 masters use (byte addresses as the masters
send them: line ``k`` at ``64 * k``). The simulated ones are
:class:`graphgen.driver.simulator.SimulatorBus` (Amaranth's simulator) and
:class:`graphgen.driver.cocotb_bus.CocotbBus` (the Verilog under cocotb).

* :class:`MmapBus`: two memory-mapped files, one the register window and one the memory,
  e.g. ``/dev/mem`` at the physical addresses of an SoC's bridge and of its DRAM window, or
  a UIO device's maps; ``wait`` sleeps.
* :class:`LiteXBus`: a LiteX ``RemoteClient`` (a board over its UART or Ethernet bridge,
  ``litex_server`` running), registers at ``registers_base`` and the memory at
  ``memory_base`` of the board's bus; ``wait`` sleeps.
"""

import abc
import mmap
import os
import time

from hw.lib.config import ConfigError


__all__ = ["Bus", "BusAccessError", "MmapBus", "LiteXBus", "remote_client"]


class BusAccessError(Exception):
    """A register access the bus answered with an error (SLVERR: outside the map, or a
    write to a read-only register), or a memory access outside the memory a simulated bus
    holds."""


class Bus(abc.ABC):
    """Registers and memory of one design, seen from the host."""

    @abc.abstractmethod
    def read32(self, offset: int) -> int:
        """The register word at byte ``offset`` of the design's map."""

    @abc.abstractmethod
    def write32(self, offset: int, value: int) -> None:
        """Write the register word at byte ``offset``."""

    @abc.abstractmethod
    def read_memory(self, addr: int, count: int) -> bytes:
        """``count`` bytes of memory from byte address ``addr``."""

    @abc.abstractmethod
    def write_memory(self, addr: int, data: bytes) -> None:
        """Write ``data`` to memory from byte address ``addr``."""

    @abc.abstractmethod
    def wait(self, cycles: int) -> None:
        """Let the design run about ``cycles`` clock cycles."""

    def close(self) -> None:
        """Release what the bus holds (nothing unless it says otherwise)."""


def _check_word(offset: int, value: int | None = None) -> None:
    if offset < 0 or offset % 4:
        raise ValueError(f"register offset {offset:#x} is not a non-negative multiple of 4")
    if value is not None and not 0 <= value < 1 << 32:
        raise ValueError(f"register value {value!r} is not a 32-bit word")


class MmapBus(Bus):
    """Registers and memory as two memory-mapped files.

    Parameters
    ----------
    registers : path
        The file mapping the register window (``registers_offset`` bytes into it; a page
        multiple, as ``mmap`` needs); ``registers_size`` bytes of it are mapped (the map's
        4 KiB by default).
    memory : path
        The file mapping the memory the masters reach; byte address ``a`` is at
        ``memory_offset + a``; ``memory_size`` bytes are mapped.
    clock_hz : float
        The design's clock, to turn :meth:`wait`'s cycles into a sleep.
    """

    def __init__(self, registers, memory, *, memory_size: int, registers_offset: int = 0,
                 memory_offset: int = 0, registers_size: int = 4096,
                 clock_hz: float = 100e6):
        self._files, self._maps = [], []
        try:
            self._registers = self._map(registers, registers_offset, registers_size)
            self._memory = self._map(memory, memory_offset, memory_size)
        except BaseException:
            self.close()
            raise
        self._memory_size = memory_size
        self._clock_hz = clock_hz

    def _map(self, path, offset, size):
        if offset % mmap.ALLOCATIONGRANULARITY:
            raise ConfigError(f"{path}: offset {offset:#x} is not a multiple of "
                              f"{mmap.ALLOCATIONGRANULARITY:#x} (mmap's granularity)")
        fd = os.open(path, os.O_RDWR | os.O_SYNC)
        self._files.append(fd)
        mapped = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                           offset=offset)
        self._maps.append(mapped)
        return mapped

    def read32(self, offset):
        _check_word(offset)
        # One 32-bit access through a memoryview: a device register sees a single load.
        return memoryview(self._registers).cast("I")[offset // 4]

    def write32(self, offset, value):
        _check_word(offset, value)
        memoryview(self._registers).cast("I")[offset // 4] = value

    def _check_range(self, addr, count):
        if addr < 0 or addr + count > self._memory_size:
            raise ValueError(f"memory bytes {addr:#x}..{addr + count:#x} are outside the "
                             f"{self._memory_size:#x} bytes mapped")

    def read_memory(self, addr, count):
        self._check_range(addr, count)
        return bytes(self._memory[addr:addr + count])

    def write_memory(self, addr, data):
        data = bytes(data)
        self._check_range(addr, len(data))
        self._memory[addr:addr + len(data)] = data

    def wait(self, cycles):
        time.sleep(cycles / self._clock_hz)

    def close(self):
        for mapped in self._maps:
            mapped.close()
        for fd in self._files:
            os.close(fd)
        self._maps, self._files = [], []


def remote_client(host: str = "localhost", port: int = 1234, csr_csv: str | None = None):
    """A connected LiteX ``RemoteClient`` (``litex_server`` must be running); ConfigError
    with one line when LiteX is not installed."""
    try:
        from litex import RemoteClient
    except ImportError:
        raise ConfigError("the LiteX bus needs LiteX (pip install litex); it is not "
                          "installed") from None
    client = RemoteClient(host=host, port=port, csr_csv=csr_csv)
    client.open()
    return client


class LiteXBus(Bus):
    """Registers and memory through a LiteX ``RemoteClient`` (anything with its
    ``read(addr, length=None)`` and ``write(addr, value)`` of 32-bit words, at byte
    addresses of the board's bus).

    Parameters
    ----------
    client :
        The client (see :func:`remote_client`).
    registers_base, memory_base : int
        Where the design's register window and the memory its masters reach sit on the
        board's bus.
    clock_hz : float
        The design's clock, to turn :meth:`wait`'s cycles into a sleep (the bridge's own
        latency is far longer than the design's cycles, so this is a floor).
    """

    # Words a request at most: the UART bridge's and Etherbone's counts are one byte.
    BURST_WORDS = 255

    def __init__(self, client, *, registers_base: int, memory_base: int,
                 clock_hz: float = 50e6):
        if registers_base % 4 or memory_base % 4:
            raise ConfigError(f"LiteXBus: registers_base {registers_base:#x} and memory_base "
                              f"{memory_base:#x} must be multiples of 4")
        self._client = client
        self._registers_base, self._memory_base = registers_base, memory_base
        self._clock_hz = clock_hz

    def read32(self, offset):
        _check_word(offset)
        return int(self._client.read(self._registers_base + offset))

    def write32(self, offset, value):
        _check_word(offset, value)
        self._client.write(self._registers_base + offset, value)

    def read_memory(self, addr, count):
        if addr % 4:
            raise ValueError(f"LiteXBus reads whole words: address {addr:#x}")
        words = -(-count // 4)
        values = []
        for first in range(0, words, self.BURST_WORDS):
            chunk = self._client.read(self._memory_base + addr + 4 * first,
                                      length=min(self.BURST_WORDS, words - first))
            values += [chunk] if isinstance(chunk, int) else list(chunk)
        raw = b"".join(int(v).to_bytes(4, "little") for v in values)
        return raw[:count]

    def write_memory(self, addr, data):
        data = bytes(data)
        if addr % 4 or len(data) % 4:
            raise ValueError(f"LiteXBus writes whole words: {len(data)} bytes at {addr:#x}")
        words = [int.from_bytes(data[k:k + 4], "little") for k in range(0, len(data), 4)]
        for first in range(0, len(words), self.BURST_WORDS):
            self._client.write(self._memory_base + addr + 4 * first,
                               words[first:first + self.BURST_WORDS])

    def wait(self, cycles):
        time.sleep(cycles / self._clock_hz)

    def close(self):
        close = getattr(self._client, "close", None)
        if close is not None:
            close()
